#include "diag/findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/stats.h"
#include "diag/rules.h"

namespace fabscope {

namespace {

// The k-th smallest (from 0) of `all` less `some`, both sorted, `some` a sub-multiset of `all`.
double kth_of_difference(const std::vector<double>& all, const std::vector<double>& some, size_t k) {
  size_t lo = 0, hi = all.size() - 1;
  while (lo < hi) {  // the first index whose value has more than k of the difference at or below it
    const size_t mid = lo + (hi - lo) / 2;
    const double v = all[mid];
    const size_t below = static_cast<size_t>(std::upper_bound(all.begin(), all.end(), v) - all.begin()) -
                         static_cast<size_t>(std::upper_bound(some.begin(), some.end(), v) - some.begin());
    if (below > k) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return all[lo];
}

double median_of_difference(const std::vector<double>& all, const std::vector<double>& some) {
  const size_t m = all.size() - some.size();
  if (m == 0) return 0;
  if (m % 2) return kth_of_difference(all, some, m / 2);
  return (kth_of_difference(all, some, m / 2 - 1) + kth_of_difference(all, some, m / 2)) / 2;
}

}  // namespace

double goodness(const P2pLink& l) {
  if (l.bw_gbps) return *l.bw_gbps;
  if (l.lat_us && *l.lat_us > 0) return 1.0 / *l.lat_us;
  return 0;
}

std::vector<P2pSizeContext> p2p_size_contexts(const P2pSection& p2p) {
  std::map<uint64_t, std::vector<const P2pLink*>> by_size;
  for (const P2pLink& l : p2p.links) by_size[l.size_bytes].push_back(&l);
  std::vector<P2pSizeContext> out;
  for (auto& [size, links] : by_size) {
    P2pSizeContext c;
    c.size_bytes = size;
    c.latency = p2p.mode == "lat";
    c.links = std::move(links);
    // Each host: the links touching it against those that avoid it. One pass gathers each
    // host's touching values; the avoiding median is the median of all values less those,
    // found in the sorted whole (a report of 512 hosts has 261,632 links).
    std::map<std::string, std::vector<double>> touching;
    std::vector<double> all;
    all.reserve(c.links.size());
    for (const P2pLink* l : c.links) {
      const double g = goodness(*l);
      all.push_back(g);
      touching[l->src_host].push_back(g);
      if (l->dst_host != l->src_host) touching[l->dst_host].push_back(g);
    }
    std::sort(all.begin(), all.end());
    for (auto& [h, mine] : touching) {
      if (mine.size() >= all.size()) continue;  // no link avoids this host
      std::sort(mine.begin(), mine.end());
      P2pSizeContext::HostComparison hc{h, mine.size(), all.size() - mine.size(), median_sorted(mine),
                                        median_of_difference(all, mine)};
      hc.slow = hc.median_avoiding > 0 && hc.median_touching < kSlowRatio * hc.median_avoiding;
      if (hc.slow) c.slow_hosts.insert(h);
      c.hosts.push_back(std::move(hc));
    }
    // The links no slow host explains, against the links that touch no slow host.
    std::vector<const P2pLink*> clean;
    std::vector<double> values;
    for (const P2pLink* l : c.links) {
      if (c.slow_hosts.count(l->src_host) || c.slow_hosts.count(l->dst_host)) continue;
      clean.push_back(l);
      values.push_back(goodness(*l));
    }
    if (clean.size() >= 2) {
      c.reference = median(values);
      for (const P2pLink* l : clean) {
        if (goodness(*l) < kSlowRatio * c.reference) c.slow_links.push_back(l);
      }
    }
    for (const P2pLink& l : p2p.alone) {
      if (l.size_bytes == size) c.alone.push_back(&l);
    }
    out.push_back(std::move(c));
  }
  return out;
}

const P2pLink* P2pSizeContext::alone_of(const P2pLink& link) const {
  for (const P2pLink* a : alone) {
    if (a->src_rank == link.src_rank && a->dst_rank == link.dst_rank) return a;
  }
  return nullptr;
}

std::string SweepContext::host_of(int rank) const {
  const auto& ranks = report.context.ranks;
  return rank >= 0 && rank < static_cast<int>(ranks.size()) ? ranks[static_cast<size_t>(rank)].host : "?";
}

std::string P2pSizeContext::show(double g) const {
  return latency ? fmt::format("{:.2f} us", 1 / g) : fmt::format("{:.3f} GB/s", g);
}

std::vector<P2pLink> links_to_retest(const P2pSection& p2p, size_t limit) {
  std::vector<P2pLink> out;
  for (const P2pSizeContext& c : p2p_size_contexts(p2p)) {
    for (const P2pLink* l : c.slow_links) {
      if (out.size() < limit) out.push_back(*l);
    }
  }
  return out;
}

void add_sweep_findings(Report& report) { run_rules(sweep_rules(), SweepContext{report}, report.findings); }

void add_p2p_findings(Report& report) {
  if (!report.p2p) return;
  for (const P2pSizeContext& c : p2p_size_contexts(*report.p2p)) run_rules(p2p_rules(), c, report.findings);
}

void discount_stalled_links(Report& report) {
  std::map<int, Finding*> stalled;  // rank -> its rank.straggler finding
  std::set<std::string> hosts;
  for (Finding& f : report.findings) {
    if (f.code != "rank.straggler" || f.evidence.value("stalled_share", 0.0) < kStragglerShare / 2) continue;
    stalled[f.evidence.value("rank", -1)] = &f;
    hosts.insert(f.hosts.begin(), f.hosts.end());
  }
  if (stalled.empty()) return;
  std::vector<Finding> kept;
  std::vector<std::pair<int, std::string>> dropped;
  for (Finding& f : report.findings) {
    if (f.code.rfind("p2p.", 0) == 0) {
      const int a = f.evidence.value("src_rank", -1), b = f.evidence.value("dst_rank", -1);
      const int rank = stalled.count(a) ? a : stalled.count(b) ? b : -1;
      if (rank >= 0) {
        dropped.emplace_back(rank, f.subject);
        continue;
      }
      if (f.code == "p2p.slow_host" && !f.hosts.empty() && hosts.count(f.hosts.front())) {
        dropped.emplace_back(stalled.begin()->first, f.subject);
        continue;
      }
    }
    kept.push_back(std::move(f));
  }
  report.findings = std::move(kept);
  for (Finding& f : report.findings) {
    if (f.code != "rank.straggler") continue;
    for (const auto& [rank, subject] : dropped) {
      if (f.evidence.value("rank", -1) == rank) f.evidence["links_not_judged"].push_back(subject);
    }
  }
}

void add_counter_findings(Report& report) {
  run_rules(counter_rules(), CounterContext{report.counters}, report.findings);
}

}  // namespace fabscope
