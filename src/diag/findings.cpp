#include "diag/findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/stats.h"
#include "diag/attribution.h"
#include "diag/fabric.h"
#include "diag/rules.h"
#include "report/finding_codes.h"

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

namespace {

// Each host's leaf switch, from the fabric description (none without one).
struct LeafMap {
  std::map<std::string, std::string> leaf_of;

  const std::string* of(const std::string& host) const {
    auto it = leaf_of.find(host);
    return it == leaf_of.end() ? nullptr : &it->second;
  }
  // Whether the link runs between two leaves, `leaf` one of them: its uplinks carry it.
  bool crosses_uplinks_of(const P2pLink& l, const std::string& leaf) const {
    const std::string *a = of(l.src_host), *b = of(l.dst_host);
    return a && b && *a != *b && (*a == leaf || *b == leaf);
  }
};

// One size's links tallied by host and by rank: each host's touching values, each rank's
// values on links that leave its host. Hosts and ranks by index (a 4,096-rank matrix has
// two million links), visited in name and rank order; a host's avoiding median is the
// median of all values less its touching ones, found in the sorted whole (a report of
// 512 hosts has 261,632 links).
struct LinkTally {
  std::unordered_map<std::string_view, size_t> host_at;
  std::vector<std::string_view> host_names;
  std::vector<std::vector<double>> touching;  // per host index
  std::vector<int64_t> rank_slot;             // rank -> its index, -1 where not seen (ranks are dense)
  std::unordered_map<int, size_t> rank_at;    // ranks outside rank_slot's reach
  std::vector<int> rank_ids;
  std::vector<size_t> link_src, link_dst;  // each link's rank indices, in the links' order
  std::vector<size_t> rank_host;           // host index of each rank index
  std::vector<std::vector<double>> rank_touching;
  std::vector<double> all, cross;     // every link's goodness; those between two hosts (sorted)
  std::vector<size_t> ranks_of_host;  // per host index
  std::vector<size_t> host_order;     // host indices by name
  std::vector<size_t> rank_order;     // rank indices by rank

  // `expected`, where given, is each link's expected share of a full rate (an
  // oversubscribed fabric's uplinks): its goodness is judged over it.
  LinkTally(const std::vector<const P2pLink*>& links, const std::vector<double>& expected) {
    all.reserve(links.size());
    link_src.reserve(links.size());
    link_dst.reserve(links.size());
    for (size_t i = 0; i < links.size(); ++i) {
      const P2pLink* l = links[i];
      const double g = goodness(*l) / (expected.empty() ? 1.0 : expected[i]);
      all.push_back(g);
      const size_t rs = place(l->src_rank, l->src_host), rd = place(l->dst_rank, l->dst_host);
      link_src.push_back(rs);
      link_dst.push_back(rd);
      const size_t hs = rank_host[rs], hd = rank_host[rd];
      touching[hs].push_back(g);
      if (hd != hs) {
        touching[hd].push_back(g);
        // A NIC carries only what leaves the host: ranks are judged on those links.
        cross.push_back(g);
        rank_touching[rs].push_back(g);
        rank_touching[rd].push_back(g);
      }
    }
    ranks_of_host.assign(host_names.size(), 0);
    for (size_t h : rank_host) ++ranks_of_host[h];
    host_order.resize(host_names.size());
    for (size_t i = 0; i < host_order.size(); ++i) host_order[i] = i;
    std::sort(host_order.begin(), host_order.end(), [&](size_t a, size_t b) { return host_names[a] < host_names[b]; });
    rank_order.resize(rank_ids.size());
    for (size_t i = 0; i < rank_order.size(); ++i) rank_order[i] = i;
    std::sort(rank_order.begin(), rank_order.end(), [&](size_t a, size_t b) { return rank_ids[a] < rank_ids[b]; });
    sort_values(all);
    if (cross.size() == all.size()) {
      cross = all;  // every link between two hosts (the rail matrix): the same values
    } else {
      sort_values(cross);
    }
  }

 private:
  size_t host_index(const std::string& h) {
    auto [it, fresh] = host_at.emplace(h, host_names.size());
    if (fresh) {
      host_names.push_back(h);
      touching.emplace_back();
    }
    return it->second;
  }
  // A rank's host is looked up by name once, when the rank is first seen.
  size_t place(int rank, const std::string& host) {
    constexpr int kDense = 1 << 22;
    const bool dense = rank >= 0 && rank < kDense;
    if (dense) {
      if (static_cast<size_t>(rank) >= rank_slot.size()) rank_slot.resize(static_cast<size_t>(rank) + 1, -1);
      if (rank_slot[static_cast<size_t>(rank)] >= 0) return static_cast<size_t>(rank_slot[static_cast<size_t>(rank)]);
    } else if (auto it = rank_at.find(rank); it != rank_at.end()) {
      return it->second;
    }
    const size_t h = host_index(host);
    if (dense) {
      rank_slot[static_cast<size_t>(rank)] = static_cast<int64_t>(rank_ids.size());
    } else {
      rank_at.emplace(rank, rank_ids.size());
    }
    rank_ids.push_back(rank);
    rank_host.push_back(h);
    rank_touching.emplace_back();
    return rank_ids.size() - 1;
  }
};

// Each host: the links touching it against those that avoid it; below kSlowRatio, slow,
// unless its links measured again alone (c.alone) reach kSlowRatio: then other flows or
// the host's CPU slowed them in the matrix, not its NIC.
void compare_hosts(P2pSizeContext& c, LinkTally& t) {
  for (size_t hi : t.host_order) {
    std::vector<double>& mine = t.touching[hi];
    if (mine.size() >= t.all.size()) continue;  // no link avoids this host
    sort_values(mine);
    P2pSizeContext::HostComparison hc{std::string(t.host_names[hi]), mine.size(), t.all.size() - mine.size(),
                                      median_sorted(mine), median_of_difference(t.all, mine)};
    hc.slow = hc.median_avoiding > 0 && hc.median_touching < kSlowRatio * hc.median_avoiding;
    std::vector<double> alone;
    for (const P2pLink* l : c.alone) {
      if (l->src_host != l->dst_host && (l->src_host == hc.host || l->dst_host == hc.host))
        alone.push_back(goodness(*l));
    }
    if (!alone.empty()) {
      hc.retested = alone.size();
      hc.median_alone = median(alone);
      if (hc.median_alone >= kSlowRatio * hc.median_avoiding) hc.slow = false;
    }
    if (hc.slow) c.slow_hosts.insert(hc.host);
    c.hosts.push_back(std::move(hc));
  }
}

// A leaf whose every host is slow across leaves but not within it: its uplinks. Its
// hosts are no longer slow; returns the leaves grouped.
std::set<std::string> group_whole_leaves(P2pSizeContext& c, const LinkTally& t, const LeafMap& leaves) {
  std::set<std::string> grouped;
  std::map<std::string, std::vector<std::string>> leaf_hosts;
  for (size_t hi : t.host_order) {
    const std::string h(t.host_names[hi]);
    if (const std::string* lf = leaves.of(h)) leaf_hosts[*lf].push_back(h);
  }
  for (const auto& [lf, hosts] : leaf_hosts) {
    if (hosts.size() < 2 ||
        !std::all_of(hosts.begin(), hosts.end(), [&](const std::string& h) { return c.slow_hosts.count(h) > 0; })) {
      continue;
    }
    std::vector<double> inside, outside;
    for (const P2pLink* l : c.links) {
      const std::string *a = leaves.of(l->src_host), *b = leaves.of(l->dst_host);
      const bool ia = a && *a == lf, ib = b && *b == lf;
      if (ia && ib && l->src_host != l->dst_host) {
        inside.push_back(goodness(*l));
      } else if (!ia && !ib) {
        outside.push_back(goodness(*l));
      }
    }
    if (inside.empty() || outside.empty() || median(inside) < kSlowRatio * median(outside)) continue;
    P2pSizeContext::UplinkGroup g;
    g.leaf = lf;
    g.whole_leaf = true;
    g.hosts = hosts;
    g.inside_leaf = median(inside);
    for (const std::string& h : hosts) c.slow_hosts.erase(h);
    for (auto& hc : c.hosts) {
      if (std::find(hosts.begin(), hosts.end(), hc.host) != hosts.end()) hc.slow = false;
    }
    grouped.insert(lf);
    c.uplinks.push_back(std::move(g));
  }
  return grouped;
}

// Each rank of a host with several ranks in the links, where its host is not slow: a
// rank alone slow is its own NIC (or the rail behind it).
// A slow rank's host's other ranks below kSharedRatio share its NIC (p2p.slow_nic says so).
void compare_ranks(P2pSizeContext& c, LinkTally& t) {
  std::vector<double> ratio(t.rank_ids.size(), 1);  // per rank index: its links' median over the others'
  std::vector<size_t> slow_index;
  for (size_t ri : t.rank_order) {
    std::vector<double>& mine = t.rank_touching[ri];
    if (mine.size() < kRankMinLinks || mine.size() >= t.cross.size()) continue;
    const std::string host(t.host_names[t.rank_host[ri]]);
    if (t.ranks_of_host[t.rank_host[ri]] < 2 || c.slow_hosts.count(host)) continue;
    sort_values(mine);
    const double mt = median_sorted(mine), ma = median_of_difference(t.cross, mine);
    if (ma > 0) ratio[ri] = mt / ma;
    if (ma > 0 && mt < kSlowRatio * ma) {
      c.slow_ranks.push_back({t.rank_ids[ri], host, mine.size(), mt, ma, {}, 0, {}});
      slow_index.push_back(ri);
    }
  }
  for (size_t i = 0; i < slow_index.size(); ++i) {
    for (size_t q : t.rank_order) {  // slow ranks of the host too: two ranks on one NIC are both slowed
      if (q != slow_index[i] && t.rank_host[q] == t.rank_host[slow_index[i]] && ratio[q] < kSharedRatio) {
        c.slow_ranks[i].sharing.push_back(t.rank_ids[q]);
      }
    }
  }
}

// The links no slow host or rank explains, against the links that touch neither.
void find_slow_links(P2pSizeContext& c, const LinkTally& t, const std::vector<double>& expected) {
  std::vector<char> explained(t.rank_ids.size(), 0);  // per rank index: on a slow host, or slow itself
  for (size_t ri = 0; ri < t.rank_ids.size(); ++ri) {
    explained[ri] = c.slow_hosts.count(std::string(t.host_names[t.rank_host[ri]])) > 0;
  }
  std::vector<size_t> shared_by(t.rank_ids.size(), SIZE_MAX);  // rank index -> the slow rank whose NIC it shares
  for (size_t i = 0; i < c.slow_ranks.size(); ++i) {
    const auto& r = c.slow_ranks[i];
    for (size_t ri = 0; ri < t.rank_ids.size(); ++ri) {
      if (t.rank_ids[ri] == r.rank) explained[ri] = 1;
      if (std::find(r.sharing.begin(), r.sharing.end(), t.rank_ids[ri]) != r.sharing.end()) shared_by[ri] = i;
    }
  }
  std::vector<const P2pLink*> clean;
  std::vector<double> values;
  clean.reserve(c.links.size());
  values.reserve(c.links.size());
  std::vector<size_t> folded_by;    // per clean link: the slow rank it follows from (SIZE_MAX: none)
  std::vector<size_t> clean_index;  // per clean link: its index in c.links (and expected)
  for (size_t i = 0; i < c.links.size(); ++i) {
    if (explained[t.link_src[i]] || explained[t.link_dst[i]]) continue;
    clean.push_back(c.links[i]);
    clean_index.push_back(i);
    values.push_back(goodness(*c.links[i]) / (expected.empty() ? 1.0 : expected[i]));
    folded_by.push_back(std::min(shared_by[t.link_src[i]], shared_by[t.link_dst[i]]));
  }
  if (clean.size() < 2) return;
  c.reference = median(values);
  std::vector<std::pair<double, const P2pLink*>> hidden;  // share suspects, by value
  for (size_t i = 0; i < clean.size(); ++i) {
    if (values[i] >= kSlowRatio * c.reference) {
      if (!expected.empty() && values[i] < kShareSuspectRatio * c.reference && folded_by[i] == SIZE_MAX &&
          expected[clean_index[i]] < 1) {
        hidden.emplace_back(values[i], clean[i]);
      }
      continue;
    }
    if (folded_by[i] != SIZE_MAX) {
      ++c.slow_ranks[folded_by[i]].folded;  // slow beside the slow rank's traffic on the NIC they share
    } else {
      c.slow_links.push_back(clean[i]);
    }
  }
  // The lowest first: retests are few (links_to_retest's limit), and a flow that hashed onto
  // a busier uplink than its share assumes reads low too.
  std::stable_sort(hidden.begin(), hidden.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [value, l] : hidden) c.share_suspects.push_back(l);
}

// The leaf whose uplinks most of the slow links cross, at least kUplinkMinLinks of
// them, unless it is grouped already.
std::optional<std::string> most_crossed_leaf(const P2pSizeContext& c, const LeafMap& leaves,
                                             const std::set<std::string>& grouped) {
  std::map<std::string, size_t> count;
  for (const P2pLink* l : c.slow_links) {
    const std::string *a = leaves.of(l->src_host), *b = leaves.of(l->dst_host);
    if (!a || !b || *a == *b) continue;
    ++count[*a];
    ++count[*b];
  }
  auto best =
      std::max_element(count.begin(), count.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  if (best == count.end() || best->second < kUplinkMinLinks || grouped.count(best->first)) return std::nullopt;
  return best->first;
}

// With a fabric description: slow links that cross a leaf's uplinks, grouped by the leaf
// most of them share, are one cause; a whole leaf's group takes its slow links across
// leaves first.
void group_uplink_links(P2pSizeContext& c, const LeafMap& leaves, std::set<std::string>& grouped) {
  for (auto& g : c.uplinks) {  // a whole leaf: its slow links across leaves
    std::vector<const P2pLink*> rest;
    for (const P2pLink* l : c.slow_links) (leaves.crosses_uplinks_of(*l, g.leaf) ? g.links : rest).push_back(l);
    c.slow_links = std::move(rest);
  }
  while (const std::optional<std::string> leaf = most_crossed_leaf(c, leaves, grouped)) {
    P2pSizeContext::UplinkGroup g;
    g.leaf = *leaf;
    std::set<std::string> hosts;
    std::vector<const P2pLink*> rest;
    for (const P2pLink* l : c.slow_links) {
      if (!leaves.crosses_uplinks_of(*l, g.leaf)) {
        rest.push_back(l);
        continue;
      }
      g.links.push_back(l);
      hosts.insert(*leaves.of(l->src_host) == g.leaf ? l->src_host : l->dst_host);
    }
    g.hosts.assign(hosts.begin(), hosts.end());
    grouped.insert(g.leaf);
    c.uplinks.push_back(std::move(g));
    c.slow_links = std::move(rest);
  }
  for (auto& g : c.uplinks) {
    std::vector<double> v;
    for (const P2pLink* l : g.links) v.push_back(goodness(*l));
    g.median = v.empty() ? 0 : median(v);
  }
  // A whole leaf with no slow link left to show was not a cause after all.
  c.uplinks.erase(std::remove_if(c.uplinks.begin(), c.uplinks.end(),
                                 [](const P2pSizeContext::UplinkGroup& g) { return g.links.empty(); }),
                  c.uplinks.end());
}

// A rank on another's NIC (a slow rank whose host's ranks share its NIC) sends across
// rails: its NIC's leaf carries what another leaf should, and the uplinks of its host's
// leaf congest. That congestion follows from it (folded under the rank, not named apart)
// where it is no worse than the rank's own links: a congestion that slows the uplinks'
// links below them has a cause of its own.
void fold_uplinks_under_shared_nics(P2pSizeContext& c, const LeafMap& leaves) {
  for (P2pSizeContext::RankComparison& r : c.slow_ranks) {
    const std::string* leaf = r.sharing.empty() ? nullptr : leaves.of(r.host);
    if (!leaf) continue;
    for (auto it = c.uplinks.begin(); it != c.uplinks.end();) {
      if (!it->whole_leaf && it->leaf == *leaf && it->median >= r.median_touching) {
        r.folded += it->links.size();
        r.folded_uplinks.push_back(it->leaf);
        it = c.uplinks.erase(it);
      } else {
        ++it;
      }
    }
  }
}

// Each link's two leaves as indices into `hosts` (-1: a host the description does not
// place), each host's leaf looked up once; `hosts` counts each leaf's hosts.
struct LinkLeaves {
  std::vector<int> src, dst;
  std::vector<size_t> hosts;
  bool within(size_t i) const { return src[i] >= 0 && src[i] == dst[i]; }
  bool across(size_t i) const { return src[i] >= 0 && dst[i] >= 0 && src[i] != dst[i]; }
};
LinkLeaves leaves_of_links(const std::vector<const P2pLink*>& links, const LeafMap& leaves) {
  LinkLeaves out;
  std::unordered_map<std::string_view, int> leaf_index;
  for (const auto& [h, lf] : leaves.leaf_of) {
    auto [it, fresh] = leaf_index.emplace(lf, static_cast<int>(out.hosts.size()));
    if (fresh) out.hosts.push_back(0);
    ++out.hosts[static_cast<size_t>(it->second)];
  }
  std::unordered_map<std::string_view, int> of_host;
  const auto index = [&](const std::string& host) {
    auto [it, fresh] = of_host.emplace(host, -1);
    if (fresh) {
      if (const std::string* lf = leaves.of(host)) it->second = leaf_index.at(*lf);
    }
    return it->second;
  };
  out.src.reserve(links.size());
  out.dst.reserve(links.size());
  for (const P2pLink* l : links) {
    out.src.push_back(index(l->src_host));
    out.dst.push_back(index(l->dst_host));
  }
  return out;
}

// Each link's expected share of a full rate on a fabric whose leaves' uplinks carry
// 1/oversubscription of their hosts' NICs: a link across leaves gets at most its fair
// share of each leaf's uplinks in its round (their capacity, in NICs, over the flows
// crossing them that way).
std::vector<double> expected_shares(const std::vector<const P2pLink*>& links, const LinkLeaves& ll,
                                    double oversubscription) {
  std::unordered_map<int, std::unordered_set<int>> ranks_of_host;  // by the host's first rank seen: names once
  std::unordered_map<std::string_view, int> host_id;
  for (const P2pLink* l : links) {
    for (const auto& [host, rank] : {std::pair<const std::string&, int>{l->src_host, l->src_rank},
                                     std::pair<const std::string&, int>{l->dst_host, l->dst_rank}}) {
      ranks_of_host[host_id.emplace(host, static_cast<int>(host_id.size())).first->second].insert(rank);
    }
  }
  size_t nics_per_host = 1;  // a rank per NIC: the most ranks a host has in the links
  for (const auto& [h, r] : ranks_of_host) nics_per_host = std::max(nics_per_host, r.size());
  // (leaf, round, repeat, leaving) -> flows crossing that leaf's uplinks that way
  const auto key = [](int leaf, const P2pLink& l, bool leaving) {
    return static_cast<uint64_t>(leaf) << 42 | static_cast<uint64_t>(l.round & 0xfffff) << 22 |
           static_cast<uint64_t>(l.repeat & 0x1fffff) << 1 | (leaving ? 1u : 0u);
  };
  std::unordered_map<uint64_t, uint32_t> crossing;
  for (size_t i = 0; i < links.size(); ++i) {
    if (!ll.across(i)) continue;
    ++crossing[key(ll.src[i], *links[i], true)];
    ++crossing[key(ll.dst[i], *links[i], false)];
  }
  const auto share = [&](int leaf, const P2pLink& l, bool leaving) {
    const double capacity = static_cast<double>(ll.hosts[static_cast<size_t>(leaf)] * nics_per_host) / oversubscription;
    return std::min(1.0, capacity / static_cast<double>(crossing.at(key(leaf, l, leaving))));
  };
  std::vector<double> out(links.size(), 1.0);
  for (size_t i = 0; i < links.size(); ++i) {
    if (ll.across(i)) out[i] = std::min(share(ll.src[i], *links[i], true), share(ll.dst[i], *links[i], false));
  }
  return out;
}

// One size's context: hosts, then whole leaves, ranks, links and the uplinks they share.
P2pSizeContext size_context(const P2pSection& p2p, uint64_t size, std::vector<const P2pLink*> links,
                            const LeafMap* leaves, double oversubscription) {
  P2pSizeContext c;
  c.size_bytes = size;
  c.latency = p2p.mode == P2pMode::kLatency;
  c.links = std::move(links);
  // Oversubscribed (latency is not shared out by the uplinks' capacity: judged as measured):
  // each link's expected share of a full rate, empty where every share is 1.
  const bool oversubscribed = leaves && !c.latency && oversubscription > 1 && !c.links.empty();
  const LinkLeaves ll = oversubscribed ? leaves_of_links(c.links, *leaves) : LinkLeaves();
  const std::vector<double> expected =
      oversubscribed ? expected_shares(c.links, ll, oversubscription) : std::vector<double>();
  LinkTally tally(c.links, expected);
  // Oversubscribed: a host's or a rank's own rate shows on the links within leaves, which
  // no uplink limits (a NIC at 30% reads 60% of a 2:1 fabric's share across leaves).
  std::optional<LinkTally> within;
  if (oversubscribed) {
    std::vector<const P2pLink*> inside;
    for (size_t i = 0; i < c.links.size(); ++i) {
      if (ll.within(i)) inside.push_back(c.links[i]);
    }
    if (inside.size() >= kRankMinLinks * tally.host_names.size()) within.emplace(inside, std::vector<double>());
  }
  LinkTally& judged = within ? *within : tally;
  for (const P2pLink& l : p2p.alone) {
    if (l.size_bytes == size) c.alone.push_back(&l);
  }
  compare_hosts(c, judged);
  std::set<std::string> grouped;  // leaves whose uplinks are named
  if (leaves && !c.slow_hosts.empty()) grouped = group_whole_leaves(c, tally, *leaves);
  compare_ranks(c, judged);
  find_slow_links(c, tally, expected);
  if (leaves && !c.slow_links.empty()) group_uplink_links(c, *leaves, grouped);
  if (leaves && !c.uplinks.empty()) {  // a link across named uplinks reads them, alone too
    std::erase_if(c.share_suspects, [&](const P2pLink* l) {
      return std::any_of(c.uplinks.begin(), c.uplinks.end(),
                         [&](const auto& g) { return leaves->crosses_uplinks_of(*l, g.leaf); });
    });
  }
  if (leaves) fold_uplinks_under_shared_nics(c, *leaves);
  return c;
}

}  // namespace

std::vector<P2pSizeContext> p2p_size_contexts(const P2pSection& p2p, const FabricDescription* fabric) {
  LeafMap leaves;
  if (fabric) leaves.leaf_of = leaf_of_hosts(*fabric);
  std::map<uint64_t, std::vector<const P2pLink*>> by_size;
  for (const P2pLink& l : p2p.links) by_size[l.size_bytes].push_back(&l);
  std::vector<P2pSizeContext> out;
  for (auto& [size, links] : by_size)
    out.push_back(
        size_context(p2p, size, std::move(links), fabric ? &leaves : nullptr, fabric ? fabric->oversubscription : 1));
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

std::vector<P2pLink> links_to_retest(const P2pSection& p2p, size_t limit, const FabricDescription* fabric) {
  std::vector<P2pLink> out;
  for (const P2pSizeContext& c : p2p_size_contexts(p2p, fabric)) {
    for (const P2pSizeContext::UplinkGroup& g : c.uplinks) {  // a few of each group tell congestion from damage
      for (size_t i = 0; i < g.links.size() && i < 3; ++i) {
        if (out.size() < limit) out.push_back(*g.links[i]);
      }
    }
    for (const P2pLink* l : c.slow_links) {
      if (out.size() < limit) out.push_back(*l);
    }
    for (const P2pLink* l : c.share_suspects) {
      if (out.size() < limit) out.push_back(*l);
    }
    for (const P2pSizeContext::HostComparison& h : c.hosts) {
      if (!h.slow || h.retested > 0) continue;
      // Two of its links to other hosts, from the middle of its links' order: what made
      // it slow. Slow alone too, it is the host; fast alone, the matrix's other flows.
      std::vector<const P2pLink*> mine;
      for (const P2pLink* l : c.links) {
        if (l->src_host != l->dst_host && (l->src_host == h.host || l->dst_host == h.host)) mine.push_back(l);
      }
      std::sort(mine.begin(), mine.end(),
                [](const P2pLink* a, const P2pLink* b) { return goodness(*a) < goodness(*b); });
      std::set<std::pair<int, int>> pairs;
      for (size_t i = mine.size() / 2; i-- > 0 && pairs.size() < kHostRetests;) {
        const P2pLink* l = mine[i];
        if (pairs.insert(std::minmax(l->src_rank, l->dst_rank)).second && out.size() < limit) out.push_back(*l);
      }
    }
  }
  return out;
}

std::vector<std::string> link_suspects(const P2pSection& p2p, const FabricDescription* fabric) {
  std::set<std::string> out;
  for (const P2pSizeContext& c : p2p_size_contexts(p2p, fabric)) {
    for (const P2pLink* l : c.slow_links) {
      out.insert(l->src_host);
      out.insert(l->dst_host);
    }
    for (const auto& r : c.slow_ranks) out.insert(r.host);
    out.insert(c.slow_hosts.begin(), c.slow_hosts.end());
  }
  return {out.begin(), out.end()};
}

void add_sweep_findings(Report& report) { run_rules(sweep_rules(), SweepContext{report}, report.findings); }

void add_p2p_findings(Report& report) {
  if (!report.p2p) return;
  const FabricDescription* fabric = report.fabric ? &*report.fabric : nullptr;
  for (const P2pSizeContext& c : p2p_size_contexts(*report.p2p, fabric)) run_rules(p2p_rules(), c, report.findings);
}

void discount_stalled_links(Report& report) {
  std::map<int, Finding*> stalled;  // rank -> its rank.straggler finding
  std::set<std::string> hosts;
  for (Finding& f : report.findings) {
    if (f.code != code::kRankStraggler || f.evidence.value("stalled_share", 0.0) < kStragglerShare / 2) continue;
    stalled[f.evidence.value("rank", -1)] = &f;
    hosts.insert(f.hosts.begin(), f.hosts.end());
  }
  if (stalled.empty()) return;
  std::vector<Finding> kept;
  std::vector<std::pair<int, std::string>> dropped;
  for (Finding& f : report.findings) {
    if (code::in_area(f.code, code::kAreaP2p)) {
      const int a = f.evidence.value("src_rank", f.evidence.value("rank", -1)), b = f.evidence.value("dst_rank", -1);
      const int rank = stalled.count(a) ? a : stalled.count(b) ? b : -1;
      if (rank >= 0) {
        dropped.emplace_back(rank, f.subject);
        continue;
      }
      if (f.code == code::kP2pSlowHost && !f.hosts.empty() && hosts.count(f.hosts.front())) {
        dropped.emplace_back(stalled.begin()->first, f.subject);
        continue;
      }
    }
    kept.push_back(std::move(f));
  }
  report.findings = std::move(kept);
  for (Finding& f : report.findings) {
    if (f.code != code::kRankStraggler) continue;
    for (const auto& [rank, subject] : dropped) {
      if (f.evidence.value("rank", -1) == rank) f.evidence["links_not_judged"].push_back(subject);
    }
  }
}

void settle_passing_congestion(Report& report) {
  if (!report.diagnosis || !report.p2p || report.p2p->mode == P2pMode::kLatency) return;
  const Diagnosis& d = *report.diagnosis;
  for (Finding& f : report.findings) {
    if (f.code != code::kP2pCongestedLink || f.severity == Severity::kInfo ||
        f.evidence.value("size_bytes", uint64_t{0}) != d.link_size_bytes) {
      continue;
    }
    const int src = f.evidence.value("src_rank", -1), dst = f.evidence.value("dst_rank", -1);
    const double reference = f.evidence.value("reference", 0.0);
    auto v = std::find_if(d.link_noise.begin(), d.link_noise.end(),
                          [&](const LinkVariation& x) { return x.src_rank == src && x.dst_rank == dst; });
    if (v == d.link_noise.end() || v->bw_gbps.size() < 2 || reference <= 0) continue;
    const std::vector<double> again(v->bw_gbps.begin() + 1, v->bw_gbps.end());
    const double worst = *std::min_element(again.begin(), again.end());
    if (worst < kSlowRatio * reference) continue;  // slow beside the others again: it stays
    f.severity = Severity::kInfo;
    f.evidence["again_loaded"] = again;
    f.message += fmt::format(
        "; measured again beside the same flows it ran at {:.3f} GB/s, {:.0f}% of the median: "
        "it passed",
        worst, 100 * worst / reference);
    f.hint =
        "nothing to do for a link slow once: if it comes back, look for oversubscribed switch uplinks or flows "
        "hashed onto one path";
  }
}

void add_counter_findings(Report& report) {
  run_rules(counter_rules(), CounterContext{report.counters}, report.findings);
}

namespace {

constexpr std::string_view kSampleLeft = "links: the sample measured ";

// A sample leaves host pairs unmeasured: a slow link among those not inferred slow is not
// ruled out. The verdict says how many, and what would measure every pair (the rail
// schedule's rounds; in diagnose, the budget that holds them, the links' share scaling with
// it). Said once (an analysis run again replaces it).
void say_what_the_sample_left(Report& report, const LinkCoverage& cov) {
  auto& notes = report.verdict.not_judged;
  notes.erase(
      std::remove_if(notes.begin(), notes.end(), [](const std::string& n) { return n.starts_with(kSampleLeft); }),
      notes.end());
  const uint64_t open = cov.host_pairs - cov.measured_host_pairs - cov.inferred_slow;
  if (cov.schedule != LinkSchedule::kSample || open == 0) return;
  const int rail_rounds = cov.hosts % 2 ? cov.hosts : cov.hosts - 1;
  std::string cover = fmt::format("every pair (--schedule rail) takes {} rounds", rail_rounds);
  if (report.diagnosis && report.diagnosis->budget_s > 0 && cov.rounds > 0) {
    cover += fmt::format(
        ", about --budget {:.0f} s here (this run's {} sampled rounds took the links' share of {:.0f} s)",
        std::ceil(report.diagnosis->budget_s * rail_rounds / cov.rounds), cov.rounds, report.diagnosis->budget_s);
  }
  notes.push_back(fmt::format(
      "{}{} of {} host pairs; {} were not ({} with an end that has a slow link no host explains, "
      "{} inferred healthy from their ends' other links): a slow link among them is not ruled "
      "out; {}",
      kSampleLeft, cov.measured_host_pairs, cov.host_pairs, open, cov.unjudged, cov.inferred_healthy, cover));
}

}  // namespace

void judge_link_coverage(Report& report) {
  if (!report.p2p || !report.p2p->coverage) return;
  LinkCoverage& cov = *report.p2p->coverage;
  std::vector<std::string> hosts = report.context.hosts;
  {
    std::unordered_set<std::string> known(hosts.begin(), hosts.end());
    for (const P2pLink& l : report.p2p->links) {  // hosts the context lacks (a report built by hand)
      for (const std::string* h : {&l.src_host, &l.dst_host}) {
        if (known.insert(*h).second) hosts.push_back(*h);
      }
    }
  }
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < hosts.size(); ++i) index.emplace(hosts[i], i);
  const size_t n = hosts.size();
  std::vector<char> measured(n * n, 0);
  std::vector<char> in_link(n, 0);
  std::unordered_map<int, size_t> host_of_rank;  // names hashed once per rank, not per link
  const auto host_at = [&](int rank, const std::string& host) {
    auto it = host_of_rank.find(rank);
    return it != host_of_rank.end() ? it->second : host_of_rank.emplace(rank, index.at(host)).first->second;
  };
  for (const P2pLink& l : report.p2p->links) {
    const size_t a = host_at(l.src_rank, l.src_host), b = host_at(l.dst_rank, l.dst_host);
    in_link[a] = in_link[b] = 1;
    if (a != b) measured[a * n + b] = measured[b * n + a] = 1;
  }
  std::vector<char> slow(n, 0), suspect(n, 0);
  for (const Finding& f : report.findings) {
    if (f.code == code::kP2pSlowHost) {
      for (const std::string& h : f.hosts) {
        if (auto it = index.find(h); it != index.end()) slow[it->second] = 1;
      }
    } else if (f.code == code::kP2pCongestedUplink && f.evidence.value("whole_leaf", false)) {
      for (const auto& h : f.evidence.value("hosts", nlohmann::ordered_json::array())) {
        if (auto it = index.find(h.get<std::string>()); it != index.end()) slow[it->second] = 1;
      }
    } else if (f.severity == Severity::kInfo) {
      continue;  // a passing congestion (settle_passing_congestion) makes no suspect
    } else if (f.code == code::kP2pSlowLink || f.code == code::kP2pCongestedLink || f.code == code::kP2pSlowNic ||
               f.code == code::kP2pCongestedUplink) {
      for (const std::string& h : f.hosts) {
        if (auto it = index.find(h); it != index.end()) suspect[it->second] = 1;
      }
      for (const char* key : {"src_host", "dst_host", "host"}) {
        if (auto it = index.find(f.evidence.value(key, std::string())); it != index.end()) suspect[it->second] = 1;
      }
      for (const auto& h : f.evidence.value("hosts", nlohmann::ordered_json::array())) {
        if (auto it = index.find(h.get<std::string>()); it != index.end()) suspect[it->second] = 1;
      }
    }
  }
  // Evidence of slow links names ranks, not hosts: their hosts are the context's.
  for (const Finding& f : report.findings) {
    if ((f.code != code::kP2pSlowLink && f.code != code::kP2pCongestedLink) || f.severity == Severity::kInfo) continue;
    for (const char* key : {"src_rank", "dst_rank"}) {
      const int r = f.evidence.value(key, -1);
      if (r >= 0 && r < static_cast<int>(report.context.ranks.size())) {
        if (auto it = index.find(report.context.ranks[static_cast<size_t>(r)].host); it != index.end()) {
          suspect[it->second] = 1;
        }
      }
    }
  }
  cov.hosts = static_cast<int>(n);
  cov.host_pairs = n * (n - 1) / 2;
  cov.measured_host_pairs = cov.inferred_slow = cov.inferred_healthy = cov.unjudged = 0;
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = a + 1; b < n; ++b) {
      if (measured[a * n + b]) {
        ++cov.measured_host_pairs;
      } else if (slow[a] || slow[b]) {
        ++cov.inferred_slow;
      } else if (suspect[a] || suspect[b] || !in_link[a] || !in_link[b]) {
        ++cov.unjudged;
      } else {
        ++cov.inferred_healthy;
      }
    }
  }
  cov.unmeasured_hosts.clear();
  for (size_t i = 0; i < n; ++i) {
    if (!in_link[i]) cov.unmeasured_hosts.push_back(hosts[i]);
  }
  say_what_the_sample_left(report, cov);
}

void analyze_diagnosis(Report& report) {
  add_sweep_findings(report);
  add_p2p_findings(report);
  add_counter_findings(report);
  discount_stalled_links(report);
  settle_passing_congestion(report);
  judge_link_coverage(report);
  attribute(report);
}

}  // namespace fabscope
