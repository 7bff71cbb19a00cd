// Prometheus (--prometheus FILE, `fabscope report --format prometheus`): the text
// exposition format, for node_exporter's textfile collector, which reads *.prom files
// and requires them written atomically (they are: temporary file, then rename).
//
// Names follow Prometheus' rules: a `fabscope_` prefix, base units (bytes per second,
// seconds, ratios 0..1), `_total` only on counters (there are none: each file is one
// run's figures, so every metric is a gauge), an `_info` metric for the run's identity.
// Every series is written once; label values are escaped as the format says.
#include <fmt/format.h>

#include <ctime>
#include <map>
#include <set>

#include "core/atomic_file.h"
#include "core/stats.h"
#include "core/utf8.h"
#include "nccl_profiler/profiler_api.h"
#include "report/file_reporter.h"
#include "report/reporter.h"
#include "report/summary.h"

namespace fabscope {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string label_value(std::string_view raw) {
  std::string out;
  for (char ch : valid_utf8(raw)) {
    if (ch == '\\') {
      out += "\\\\";
    } else if (ch == '"') {
      out += "\\\"";
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  return out;
}

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

// One metric family: HELP, TYPE and its series, each label set once (the first value kept).
class Family {
 public:
  Family(std::string name, std::string help, std::string type = "gauge")
      : name_(std::move(name)), help_(std::move(help)), type_(std::move(type)) {}
  void add(const Labels& labels, double value) {
    std::string key;
    for (const auto& [k, v] : labels) key += fmt::format("{}{}=\"{}\"", key.empty() ? "" : ",", k, label_value(v));
    if (seen_.insert(key).second)
      lines_ += fmt::format("{}{}{} {}\n", name_, key.empty() ? "" : "{", key.empty() ? "" : key + "}", number(value));
  }
  std::string text() const {
    if (lines_.empty()) return "";
    return fmt::format("# HELP {} {}\n# TYPE {} {}\n{}", name_, help_, name_, type_, lines_);
  }

 private:
  std::string name_, help_, type_, lines_;
  std::set<std::string> seen_;
};

// Seconds since the epoch of an ISO 8601 UTC time ("2026-11-25T14:35:45Z", fractions kept).
std::optional<double> epoch_seconds(const std::string& iso) {
  std::tm tm{};
  double seconds = 0;
  int consumed = 0;
  if (std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%lf%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &seconds, &consumed) != 6) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_sec = 0;
  const time_t t = timegm(&tm);
  if (t == static_cast<time_t>(-1)) return std::nullopt;
  return static_cast<double>(t) + seconds;
}

// The run's identity: command, version, backend, when it ran and on how many ranks.
std::string run_families(const Report& r) {
  const RunContext& c = r.context;
  Family info("fabscope_run_info", "The run this file describes: command, tool version, backend (value always 1).");
  info.add({{"command", command_name(r)},
            {"version", c.tool.version},
            {"git_id", c.tool.git_id},
            {"backend", c.backend},
            {"backend_library", c.backend_library}},
           1);
  Family start("fabscope_run_start_timestamp_seconds", "When the run started, seconds since the Unix epoch.");
  Family end("fabscope_run_end_timestamp_seconds", "When the run ended, seconds since the Unix epoch.");
  if (auto t = epoch_seconds(c.start_time)) start.add({}, *t);
  if (auto t = epoch_seconds(c.end_time)) end.add({}, *t);
  Family ranks("fabscope_ranks", "Ranks in the run.");
  if (c.nranks > 0) ranks.add({}, c.nranks);
  return info.text() + start.text() + end.text() + ranks.text();
}

// The verdict, the findings by severity and the hosts to drain.
std::string verdict_families(const Report& r) {
  Family verdict("fabscope_verdict", "The run's verdict: 1 for the one it reached, 0 for the others.");
  for (const auto& [v, text] : EnumNames<VerdictResult>::kNames) {
    verdict.add({{"result", std::string(text)}}, r.verdict.result == v ? 1 : 0);
  }
  Family findings("fabscope_findings", "Findings of the run by severity.");
  std::map<std::string, int> by_severity = {{"error", 0}, {"warning", 0}, {"info", 0}};
  for (const Finding& f : r.findings) ++by_severity[std::string(name(f.severity))];
  for (const auto& [sev, count] : by_severity) findings.add({{"severity", sev}}, count);
  Family drain("fabscope_drain", "Hosts the error findings implicate (1 per host to drain).");
  for (const std::string& h : r.verdict.drain) drain.add({{"host", h}}, 1);
  return verdict.text() + findings.text() + drain.text();
}

// The families of the sweeps: per collective, bus bandwidth at the largest size, and each
// host's slowest rank there.
struct SweepFamilies {
  Family busbw{"fabscope_busbw_bytes_per_second",
               "Bus bandwidth at the largest size measured, as nccl-tests computes it, in bytes per second."};
  Family size{"fabscope_busbw_size_bytes", "The message size the bus bandwidth was measured at."};
  Family host_busbw{"fabscope_host_busbw_bytes_per_second",
                    "Per host: bus bandwidth over its slowest rank's median iteration time at the largest size."};
  Family host_time{"fabscope_host_time_seconds",
                   "Per host: the median iteration time of its slowest rank at the largest size."};
};

// Each host's slowest rank: the largest median iteration time (us) of its ranks.
std::map<std::string, double> slowest_per_host(const PlacementResult& res, const RunContext& c) {
  std::map<std::string, double> slowest;
  for (const RankTiming& t : res.per_rank) {
    std::string host;
    for (const RankEntry& e : c.ranks) {
      if (e.rank == t.rank) host = e.host;
    }
    if (host.empty()) continue;
    slowest[host] = std::max(slowest[host], t.median_us);
  }
  return slowest;
}

// One placement of a sweep's largest point: its bus bandwidth and its hosts' slowest ranks.
void add_largest_point(SweepFamilies& fam, const Labels& l, uint64_t size_bytes, const PlacementResult& res,
                       const RunContext& c) {
  fam.busbw.add(l, res.busbw_gbps * 1e9);
  fam.size.add(l, static_cast<double>(size_bytes));
  for (const auto& [host, us] : slowest_per_host(res, c)) {
    Labels hl = l;
    hl.emplace_back("host", host);
    fam.host_time.add(hl, us / 1e6);
    // The bus bandwidth this host's slowest rank saw: the size over its median time, times
    // the run's own bus factor (busbw / algbw), as nccl-tests computes the job's.
    if (us > 0 && res.algbw_gbps > 0) {
      fam.host_busbw.add(hl, static_cast<double>(size_bytes) / (us / 1e6) * (res.busbw_gbps / res.algbw_gbps));
    }
  }
}

std::string sweep_families(const Report& r) {
  SweepFamilies fam;
  for (const Sweep& s : r.sweeps) {
    const SweepPoint* largest = nullptr;
    for (const SweepPoint& p : s.points) {
      if ((p.out_of_place || p.in_place) && (!largest || p.size_bytes >= largest->size_bytes)) largest = &p;
    }
    if (!largest) continue;
    for (Placement placement : kPlacements) {
      const std::optional<PlacementResult>& res = largest->at(placement);
      if (!res) continue;
      const Labels l = {{"collective", s.collective},
                        {"dtype", s.dtype},
                        {"op", s.op.value_or("")},
                        {"root", s.root ? std::to_string(*s.root) : ""},
                        {"placement", std::string(name(placement))},
                        {"backend", s.backend}};
      add_largest_point(fam, l, largest->size_bytes, *res, r.context);
    }
  }
  return fam.busbw.text() + fam.size.text() + fam.host_time.text() + fam.host_busbw.text();
}

// Per link (p2p): the median over repeats at each size.
std::string link_families(const Report& r) {
  Family link_bw("fabscope_link_bandwidth_bytes_per_second",
                 "Point-to-point bandwidth of a link (p2p), median of its measurements.");
  Family link_lat("fabscope_link_latency_seconds",
                  "One-way latency of a link (p2p lat mode), median of its measurements.");
  if (r.p2p) {
    const bool lat = r.p2p->mode == P2pMode::kLatency;
    std::map<std::tuple<int, int, uint64_t>, std::vector<double>> values;
    std::map<std::tuple<int, int, uint64_t>, std::pair<std::string, std::string>> hosts;
    for (const P2pLink& l : r.p2p->links) {
      values[{l.src_rank, l.dst_rank, l.size_bytes}].push_back(link_value(l, lat));
      hosts[{l.src_rank, l.dst_rank, l.size_bytes}] = {l.src_host, l.dst_host};
    }
    for (const auto& [key, v] : values) {
      const auto& [src, dst, bytes] = key;
      Labels l = {{"src_host", hosts[key].first},        {"dst_host", hosts[key].second},
                  {"src_rank", std::to_string(src)},     {"dst_rank", std::to_string(dst)},
                  {"size_bytes", std::to_string(bytes)}, {"mode", std::string(name(r.p2p->mode))}};
      if (lat) {
        link_lat.add(l, median(v) / 1e6);
      } else {
        link_bw.add(l, median(v) * 1e9);
      }
    }
  }
  return link_bw.text() + link_lat.text();
}

std::string attribution_family(const Report& r) {
  Family share("fabscope_attribution_share", "Share of a collective's excess time a cause explains (0 to 1).");
  for (const Attribution& a : r.attribution) {
    for (const AttributionEntry& e : a.entries) {
      share.add({{"collective", a.collective}, {"kind", std::string(name(e.kind))}, {"subject", e.subject}}, e.share);
    }
  }
  return share.text();
}

// From the interface counters: what a host sent beyond fabscope's own payload.
std::string foreign_traffic_family(const Report& r) {
  Family foreign("fabscope_foreign_tx_bytes",
                 "Bytes a host's interfaces sent in a phase beyond fabscope's own payload.");
  for (const CounterSample& s : r.counters) {
    if (!s.fabscope_tx_bytes) continue;
    uint64_t tx = 0;
    for (const InterfaceDelta& i : s.interfaces) {
      if (auto it = i.deltas.find("tx_bytes"); it != i.deltas.end()) tx += it->second;
    }
    foreign.add({{"host", s.host}, {"phase", s.phase}},
                static_cast<double>(tx > *s.fabscope_tx_bytes ? tx - *s.fabscope_tx_bytes : 0));
  }
  return foreign.text();
}

// NCCL's profiler plugin, at each collective's largest size: the network's part per call
// of each sending link (SendWait), and transfers never finished.
std::string nccl_profile_families(const Report& r) {
  Family nccl_wait("fabscope_nccl_network_wait_seconds",
                   "Per call, how long a rank's sends to a peer over a NIC waited on the network inside NCCL "
                   "(SendWait of its proxy steps, fabscope's profiler plugin), at the collective's largest size.");
  Family nccl_open("fabscope_nccl_open_steps", "Network transfers NCCL started towards a peer and never finished.");
  if (r.nccl_profile) {
    std::map<std::pair<std::string, std::string>, const ProfilePoint*> largest;
    for (const ProfilePoint& p : r.nccl_profile->points) {
      const ProfilePoint*& l = largest[{p.comm, p.collective}];
      if (l == nullptr || p.size_bytes > l->size_bytes) l = &p;
    }
    for (const auto& [key, p] : largest) {
      for (const ProfileLink& l : p->links) {
        const Labels labels = {{"comm", p->comm},
                               {"collective", p->collective},
                               {"rank", std::to_string(l.rank)},
                               {"peer", std::to_string(l.peer)},
                               {"direction", std::string(name(l.direction))},
                               {"nic", l.nic}};
        if (l.direction == LinkDirection::kSend && l.calls() > 0) nccl_wait.add(labels, l.network_us_per_call() / 1e6);
        nccl_open.add(labels, static_cast<double>(l.open_steps));
      }
    }
  }
  return nccl_wait.text() + nccl_open.text();
}

// fabscope watch: each link's figures at the last snapshot read, with the names and labels
// of the profiler plugin's own textfile (FABSCOPE_PROFILE_PROM), so a dashboard reads
// either; and whether watch judged the link slow.
std::string watch_families(const Report& r) {
  if (!r.watch) return "";
  using namespace ncclprof;
  std::vector<Family> f;
  for (const PromFamily& p : kPromFamily) f.emplace_back(p.name, p.help, p.type);
  Family slow("fabscope_nccl_link_slow",
              "1 where fabscope watch named the link slow (nccl.link_wait): its sends waited on the network over "
              "the median link's and their own past's.");
  for (const WatchLink& l : r.watch->links) {
    const Labels labels = {{"comm", l.comm},
                           {"host", l.host},
                           {"rank", std::to_string(l.rank)},
                           {"peer", std::to_string(l.peer)},
                           {"direction", l.direction}};
    f[kPromBytes].add(labels, static_cast<double>(l.bytes_total));
    f[kPromSteps].add(labels, static_cast<double>(l.steps_total));
    f[kPromWait].add(labels, l.network_wait_s_total);
    f[kPromWaitPerStep].add(labels, l.last_wait_us_per_step / 1e6);
    f[kPromRate].add(labels, l.last_bytes_per_s);
    if (l.direction == "send") slow.add(labels, l.slow_from ? 1 : 0);
  }
  std::string out;
  for (int i = 0; i < kPromSeq; ++i) out += f[static_cast<size_t>(i)].text();
  return out + slow.text();
}

// fabscope compare: the compared rows by verdict, every verdict written (0 where none).
std::string compare_family(const Report& r) {
  Family rows("fabscope_compare_rows", "Compared rows by verdict (fabscope compare).");
  if (r.comparison) {
    std::map<std::string, int> counts;
    for (const auto& [v, text] : EnumNames<RowVerdict>::kNames) counts[std::string(text)] = 0;
    for (const ComparisonRow& row : r.comparison->rows) ++counts[std::string(name(row.verdict))];
    for (const auto& [v, n] : counts) rows.add({{"verdict", v}}, n);
  }
  return rows.text();
}

}  // namespace

std::string render_prometheus(const Report& r) {
  return run_families(r) + verdict_families(r) + sweep_families(r) + link_families(r) + attribution_family(r) +
         foreign_traffic_family(r) + nccl_profile_families(r) + watch_families(r) + compare_family(r);
}

std::unique_ptr<Reporter> make_prometheus_reporter(const std::string& path) {
  return std::make_unique<RenderedFileReporter>(path, render_prometheus);
}

}  // namespace fabscope
