#include "report/report_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"

namespace fabscope {

using Json = nlohmann::ordered_json;

namespace {

template <typename T>
Json opt(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json placement_json(const std::optional<PlacementResult>& p) {
  if (!p) return nullptr;
  Json per_rank = Json::array();
  for (const RankTiming& r : p->per_rank) {
    per_rank.push_back({{"rank", r.rank},
                        {"median_us", r.median_us},
                        {"mean_us", r.mean_us},
                        {"min_us", r.min_us},
                        {"max_us", r.max_us}});
  }
  return Json{{"time_us", p->time_us},
              {"algbw_gbps", p->algbw_gbps},
              {"busbw_gbps", p->busbw_gbps},
              {"wrong", opt(p->wrong)},
              {"wrong_ranks", p->wrong_ranks},
              {"iterations", p->iterations},
              {"iteration_us",
               {{"min", p->iteration_us.min_us},
                {"median", p->iteration_us.median_us},
                {"mean", p->iteration_us.mean_us},
                {"max", p->iteration_us.max_us},
                {"p99", p->iteration_us.p99_us}}},
              {"per_rank", per_rank}};
}

// Reading: every access names the key path, so a malformed file gets a useful error.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  const Json& at(const Json& j, const char* key, const std::string& path) const {
    if (!j.is_object()) fail(path, "is not an object");
    auto it = j.find(key);
    if (it == j.end()) fail(path + "." + key, "is missing");
    return *it;
  }
  template <typename T>
  T get(const Json& j, const char* key, const std::string& path) const {
    const Json& v = at(j, key, path);
    return as<T>(v, path + "." + key);
  }
  // A key later versions added: absent in older reports, which then read as `fallback`.
  template <typename T>
  T get_or(const Json& j, const char* key, const std::string& path, T fallback) const {
    if (!j.is_object()) fail(path, "is not an object");
    auto it = j.find(key);
    if (it == j.end()) return fallback;
    return as<T>(*it, path + "." + key);
  }
  template <typename T>
  std::optional<T> get_opt(const Json& j, const char* key, const std::string& path) const {
    const Json& v = at(j, key, path);
    if (v.is_null()) return std::nullopt;
    return as<T>(v, path + "." + key);
  }
  template <typename T>
  T as(const Json& v, const std::string& path) const {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!v.is_string()) fail(path, "is not a string");
    } else if constexpr (std::is_integral_v<T>) {
      if (!v.is_number_integer()) fail(path, "is not an integer");
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!v.is_number()) fail(path, "is not a number");
    }
    return v.get<T>();
  }
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw std::runtime_error(
        fmt::format("malformed report '{}': {} {}", source_, path.empty() ? "document" : path, what));
  }

 private:
  std::string source_;
};

PlacementResult read_placement(const Reader& rd, const Json& j, const std::string& path) {
  PlacementResult p;
  p.time_us = rd.get<double>(j, "time_us", path);
  p.algbw_gbps = rd.get<double>(j, "algbw_gbps", path);
  p.busbw_gbps = rd.get<double>(j, "busbw_gbps", path);
  p.wrong = rd.get_opt<int64_t>(j, "wrong", path);
  for (const Json& r : rd.at(j, "wrong_ranks", path)) p.wrong_ranks.push_back(rd.as<int>(r, path + ".wrong_ranks[]"));
  p.iterations = rd.get<int>(j, "iterations", path);
  const Json& it = rd.at(j, "iteration_us", path);
  std::string ip = path + ".iteration_us";
  p.iteration_us = {rd.get<double>(it, "min", ip), rd.get<double>(it, "median", ip), rd.get<double>(it, "mean", ip),
                    rd.get<double>(it, "max", ip), rd.get<double>(it, "p99", ip)};
  const Json& pr = rd.at(j, "per_rank", path);
  for (size_t i = 0; i < pr.size(); ++i) {
    std::string rp = fmt::format("{}.per_rank[{}]", path, i);
    p.per_rank.push_back({rd.get<int>(pr[i], "rank", rp), rd.get<double>(pr[i], "median_us", rp),
                          rd.get<double>(pr[i], "mean_us", rp), rd.get<double>(pr[i], "min_us", rp),
                          rd.get<double>(pr[i], "max_us", rp)});
  }
  return p;
}

}  // namespace

std::string to_json_text(const Report& r) {
  const RunContext& c = r.context;
  Json ranks = Json::array();
  for (const RankEntry& e : c.ranks) {
    ranks.push_back({{"rank", e.rank}, {"host", e.host}, {"pid", e.pid}, {"local_rank", e.local_rank}});
  }
  Json build = Json::object();
  for (const auto& [k, v] : c.build) build[k] = opt(v);
  Json env = Json::object();
  for (const auto& [k, v] : c.environment) env[k] = v;

  Json doc;
  doc["schema"] = r.schema;
  doc["context"] = {{"tool", {{"name", c.tool.name}, {"version", c.tool.version}, {"git_id", c.tool.git_id}}},
                    {"command_line", c.command_line},
                    {"start_time", c.start_time},
                    {"end_time", c.end_time},
                    {"backend", c.backend},
                    {"backend_library", c.backend_library},
                    {"memory", c.memory},
                    {"build", build},
                    {"nranks", c.nranks},
                    {"hosts", c.hosts},
                    {"ranks", ranks},
                    {"environment", env},
                    {"nccl_debug", nullptr}};
  if (c.nccl_debug) {
    doc["context"]["nccl_debug"] = {
        {"dir", c.nccl_debug->dir}, {"subsys", c.nccl_debug->subsys}, {"files", c.nccl_debug->files}};
  }
  if (r.sweep_settings) {
    const SweepSettings& s = *r.sweep_settings;
    doc["sweep_settings"] = {
        {"min_bytes", s.min_bytes},           {"max_bytes", s.max_bytes}, {"step_bytes", s.step_bytes},
        {"step_factor", s.step_factor},       {"iters", s.iters},         {"warmup_iters", s.warmup_iters},
        {"check_iters", s.check_iters},       {"average", s.average},     {"seed", s.seed},
        {"graph_launches", s.graph_launches}, {"blocking", s.blocking}};
  } else {
    doc["sweep_settings"] = nullptr;
  }
  Json sweeps = Json::array();
  for (const Sweep& s : r.sweeps) {
    Json points = Json::array();
    for (const SweepPoint& p : s.points) {
      points.push_back({{"size_bytes", p.size_bytes},
                        {"count", p.count},
                        {"out_of_place", placement_json(p.out_of_place)},
                        {"in_place", placement_json(p.in_place)}});
    }
    sweeps.push_back({{"collective", s.collective},
                      {"dtype", s.dtype},
                      {"op", opt(s.op)},
                      {"backend", s.backend},
                      {"root", opt(s.root)},
                      {"nranks", s.nranks},
                      {"busbw_factor", s.busbw_factor},
                      {"iteration_clock", s.iteration_clock},
                      {"points", points}});
  }
  doc["sweeps"] = sweeps;
  if (r.p2p) {
    Json links = Json::array();
    for (const P2pLink& l : r.p2p->links) {
      Json lat = nullptr;
      if (l.lat) {
        lat = {{"min_us", l.lat->min_us},  {"max_us", l.lat->max_us},     {"typical_us", l.lat->typical_us},
               {"avg_us", l.lat->avg_us},  {"stdev_us", l.lat->stdev_us}, {"p99_us", l.lat->p99_us},
               {"p999_us", l.lat->p999_us}};
      }
      links.push_back({{"round", l.round},
                       {"repeat", l.repeat},
                       {"src_rank", l.src_rank},
                       {"dst_rank", l.dst_rank},
                       {"src_host", l.src_host},
                       {"dst_host", l.dst_host},
                       {"size_bytes", l.size_bytes},
                       {"iterations", l.iterations},
                       {"bw_gbps", opt(l.bw_gbps)},
                       {"bw_peak_gbps", opt(l.bw_peak_gbps)},
                       {"msg_rate_mpps", opt(l.msg_rate_mpps)},
                       {"lat_us", opt(l.lat_us)},
                       {"lat", lat}});
    }
    doc["p2p"] = {{"pattern", r.p2p->pattern},
                  {"mode", r.p2p->mode},
                  {"backend", r.p2p->backend},
                  {"window", r.p2p->window},
                  {"warmup_iters", r.p2p->warmup_iters},
                  {"repeats", r.p2p->repeats},
                  {"links", links}};
  } else {
    doc["p2p"] = nullptr;
  }
  Json counters = Json::array();
  for (const CounterSample& cs : r.counters) {
    Json ifs = Json::array();
    for (const InterfaceDelta& d : cs.interfaces) {
      Json e = {{"name", d.name}};
      for (const auto& [k, v] : d.deltas) e[k] = v;
      ifs.push_back(e);
    }
    counters.push_back({{"host", cs.host},
                        {"phase", cs.phase},
                        {"duration_s", cs.duration_s},
                        {"fabscope_tx_bytes", opt(cs.fabscope_tx_bytes)},
                        {"fabscope_rx_bytes", opt(cs.fabscope_rx_bytes)},
                        {"interfaces", ifs}});
  }
  doc["counters"] = counters;
  doc["topology"] = r.topology_json ? Json::parse(*r.topology_json) : Json(nullptr);
  Json findings = Json::array();
  for (const Finding& f : r.findings) {
    findings.push_back({{"code", f.code},
                        {"severity", f.severity},
                        {"subject", f.subject},
                        {"message", f.message},
                        {"hint", f.hint},
                        {"evidence", Json::parse(f.evidence_json)}});
  }
  doc["findings"] = findings;
  doc["verdict"] = {{"result", r.verdict.result}, {"failed_codes", r.verdict.failed_codes}};
  return doc.dump(2) + "\n";
}

Result<Report> report_from_json_text(const std::string& text, const std::string& source) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    return Status::Invalid(fmt::format("'{}' is not valid JSON: {}", source, e.what()));
  }
  Reader rd(source);
  try {
    Report r;
    r.schema = rd.get<std::string>(doc, "schema", "");
    if (r.schema != kReportSchema) {
      return Status::Invalid(
          fmt::format("'{}' has schema '{}'; this fabscope reads '{}'", source, r.schema, kReportSchema));
    }
    const Json& c = rd.at(doc, "context", "");
    RunContext& ctx = r.context;
    const Json& tool = rd.at(c, "tool", "context");
    ctx.tool = {rd.get<std::string>(tool, "name", "context.tool"), rd.get<std::string>(tool, "version", "context.tool"),
                rd.get<std::string>(tool, "git_id", "context.tool")};
    for (const Json& a : rd.at(c, "command_line", "context"))
      ctx.command_line.push_back(rd.as<std::string>(a, "context.command_line[]"));
    ctx.start_time = rd.get<std::string>(c, "start_time", "context");
    ctx.end_time = rd.get<std::string>(c, "end_time", "context");
    ctx.backend = rd.get<std::string>(c, "backend", "context");
    ctx.backend_library = rd.get<std::string>(c, "backend_library", "context");
    ctx.memory = rd.get<std::string>(c, "memory", "context");
    for (const auto& [k, v] : rd.at(c, "build", "context").items()) {
      ctx.build[k] =
          v.is_null() ? std::nullopt : std::optional<std::string>(rd.as<std::string>(v, "context.build." + k));
    }
    ctx.nranks = rd.get<int>(c, "nranks", "context");
    for (const Json& h : rd.at(c, "hosts", "context")) ctx.hosts.push_back(rd.as<std::string>(h, "context.hosts[]"));
    const Json& ranks = rd.at(c, "ranks", "context");
    for (size_t i = 0; i < ranks.size(); ++i) {
      std::string p = fmt::format("context.ranks[{}]", i);
      ctx.ranks.push_back({rd.get<int>(ranks[i], "rank", p), rd.get<std::string>(ranks[i], "host", p),
                           rd.get<int>(ranks[i], "pid", p), rd.get<int>(ranks[i], "local_rank", p)});
    }
    for (const auto& [k, v] : rd.at(c, "environment", "context").items()) {
      ctx.environment[k] = rd.as<std::string>(v, "context.environment." + k);
    }
    if (auto nd = c.find("nccl_debug"); nd != c.end() && !nd->is_null()) {
      NcclDebugLog d;
      d.dir = rd.get<std::string>(*nd, "dir", "context.nccl_debug");
      d.subsys = rd.get<std::string>(*nd, "subsys", "context.nccl_debug");
      const Json& files = rd.at(*nd, "files", "context.nccl_debug");
      if (!files.is_array()) rd.fail("context.nccl_debug.files", "is not an array");
      for (const Json& f : files) d.files.push_back(rd.as<std::string>(f, "context.nccl_debug.files[]"));
      ctx.nccl_debug = d;
    }
    const Json& ss = rd.at(doc, "sweep_settings", "");
    if (!ss.is_null()) {
      SweepSettings s;
      s.min_bytes = rd.get<uint64_t>(ss, "min_bytes", "sweep_settings");
      s.max_bytes = rd.get<uint64_t>(ss, "max_bytes", "sweep_settings");
      s.step_bytes = rd.get<uint64_t>(ss, "step_bytes", "sweep_settings");
      s.step_factor = rd.get<uint64_t>(ss, "step_factor", "sweep_settings");
      s.iters = rd.get<int>(ss, "iters", "sweep_settings");
      s.warmup_iters = rd.get<int>(ss, "warmup_iters", "sweep_settings");
      s.check_iters = rd.get<int>(ss, "check_iters", "sweep_settings");
      s.average = rd.get<std::string>(ss, "average", "sweep_settings");
      s.seed = rd.get<uint64_t>(ss, "seed", "sweep_settings");
      s.graph_launches = rd.get_or<int>(ss, "graph_launches", "sweep_settings", 0);
      s.blocking = rd.get_or<int>(ss, "blocking", "sweep_settings", 0);
      r.sweep_settings = s;
    }
    const Json& sweeps = rd.at(doc, "sweeps", "");
    if (!sweeps.is_array()) rd.fail("sweeps", "is not an array");
    for (size_t i = 0; i < sweeps.size(); ++i) {
      std::string sp = fmt::format("sweeps[{}]", i);
      const Json& sj = sweeps[i];
      Sweep s;
      s.collective = rd.get<std::string>(sj, "collective", sp);
      s.dtype = rd.get<std::string>(sj, "dtype", sp);
      s.op = rd.get_opt<std::string>(sj, "op", sp);
      s.backend = rd.get<std::string>(sj, "backend", sp);
      s.root = rd.get_opt<int>(sj, "root", sp);
      s.nranks = rd.get<int>(sj, "nranks", sp);
      s.busbw_factor = rd.get<double>(sj, "busbw_factor", sp);
      s.iteration_clock = rd.get_or<std::string>(sj, "iteration_clock", sp, "host");
      const Json& pts = rd.at(sj, "points", sp);
      if (!pts.is_array()) rd.fail(sp + ".points", "is not an array");
      for (size_t k = 0; k < pts.size(); ++k) {
        std::string pp = fmt::format("{}.points[{}]", sp, k);
        SweepPoint p;
        p.size_bytes = rd.get<uint64_t>(pts[k], "size_bytes", pp);
        p.count = rd.get<uint64_t>(pts[k], "count", pp);
        const Json& oop = rd.at(pts[k], "out_of_place", pp);
        if (!oop.is_null()) p.out_of_place = read_placement(rd, oop, pp + ".out_of_place");
        const Json& ip = rd.at(pts[k], "in_place", pp);
        if (!ip.is_null()) p.in_place = read_placement(rd, ip, pp + ".in_place");
        s.points.push_back(std::move(p));
      }
      r.sweeps.push_back(std::move(s));
    }
    const Json& p2p = rd.at(doc, "p2p", "");
    if (!p2p.is_null()) {
      P2pSection sec;
      sec.pattern = rd.get<std::string>(p2p, "pattern", "p2p");
      sec.mode = rd.get<std::string>(p2p, "mode", "p2p");
      sec.backend = rd.get<std::string>(p2p, "backend", "p2p");
      sec.window = rd.get<int>(p2p, "window", "p2p");
      sec.warmup_iters = rd.get<int>(p2p, "warmup_iters", "p2p");
      sec.repeats = rd.get<int>(p2p, "repeats", "p2p");
      const Json& links = rd.at(p2p, "links", "p2p");
      for (size_t i = 0; i < links.size(); ++i) {
        std::string lp = fmt::format("p2p.links[{}]", i);
        const Json& lj = links[i];
        P2pLink l;
        l.round = rd.get<int>(lj, "round", lp);
        l.repeat = rd.get<int>(lj, "repeat", lp);
        l.src_rank = rd.get<int>(lj, "src_rank", lp);
        l.dst_rank = rd.get<int>(lj, "dst_rank", lp);
        l.src_host = rd.get<std::string>(lj, "src_host", lp);
        l.dst_host = rd.get<std::string>(lj, "dst_host", lp);
        l.size_bytes = rd.get<uint64_t>(lj, "size_bytes", lp);
        l.iterations = rd.get<int>(lj, "iterations", lp);
        l.bw_gbps = rd.get_opt<double>(lj, "bw_gbps", lp);
        l.bw_peak_gbps = rd.get_opt<double>(lj, "bw_peak_gbps", lp);
        l.msg_rate_mpps = rd.get_opt<double>(lj, "msg_rate_mpps", lp);
        l.lat_us = rd.get_opt<double>(lj, "lat_us", lp);
        const Json& lat = rd.at(lj, "lat", lp);
        if (!lat.is_null()) {
          std::string la = lp + ".lat";
          l.lat = LatencyStats{rd.get<double>(lat, "min_us", la),     rd.get<double>(lat, "max_us", la),
                               rd.get<double>(lat, "typical_us", la), rd.get<double>(lat, "avg_us", la),
                               rd.get<double>(lat, "stdev_us", la),   rd.get<double>(lat, "p99_us", la),
                               rd.get<double>(lat, "p999_us", la)};
        }
        sec.links.push_back(std::move(l));
      }
      r.p2p = std::move(sec);
    }
    const Json& counters = rd.at(doc, "counters", "");
    for (size_t i = 0; i < counters.size(); ++i) {
      std::string cp = fmt::format("counters[{}]", i);
      CounterSample cs;
      cs.host = rd.get<std::string>(counters[i], "host", cp);
      cs.phase = rd.get<std::string>(counters[i], "phase", cp);
      cs.duration_s = rd.get<double>(counters[i], "duration_s", cp);
      cs.fabscope_tx_bytes = rd.get_opt<uint64_t>(counters[i], "fabscope_tx_bytes", cp);
      cs.fabscope_rx_bytes = rd.get_opt<uint64_t>(counters[i], "fabscope_rx_bytes", cp);
      for (const Json& ij : rd.at(counters[i], "interfaces", cp)) {
        InterfaceDelta d;
        d.name = rd.get<std::string>(ij, "name", cp + ".interfaces[]");
        for (const auto& [k, v] : ij.items()) {
          if (k != "name") d.deltas[k] = rd.as<uint64_t>(v, cp + ".interfaces[]." + k);
        }
        cs.interfaces.push_back(std::move(d));
      }
      r.counters.push_back(std::move(cs));
    }
    if (auto t = doc.find("topology"); t != doc.end() && !t->is_null()) r.topology_json = t->dump();
    const Json& findings = rd.at(doc, "findings", "");
    for (size_t i = 0; i < findings.size(); ++i) {
      std::string fp = fmt::format("findings[{}]", i);
      Finding f;
      f.code = rd.get<std::string>(findings[i], "code", fp);
      f.severity = rd.get<std::string>(findings[i], "severity", fp);
      f.subject = rd.get<std::string>(findings[i], "subject", fp);
      f.message = rd.get<std::string>(findings[i], "message", fp);
      f.hint = rd.get<std::string>(findings[i], "hint", fp);
      f.evidence_json = rd.at(findings[i], "evidence", fp).dump();
      r.findings.push_back(std::move(f));
    }
    const Json& v = rd.at(doc, "verdict", "");
    r.verdict.result = rd.get<std::string>(v, "result", "verdict");
    for (const Json& code : rd.at(v, "failed_codes", "verdict"))
      r.verdict.failed_codes.push_back(rd.as<std::string>(code, "verdict.failed_codes[]"));
    return r;
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (msg.rfind("malformed report", 0) != 0) msg = fmt::format("malformed report '{}': {}", source, msg);
    return Status::Invalid(msg);
  }
}

Result<Report> load_report(const std::string& path) {
  auto text = read_file(path);
  if (!text.ok()) return text.status();
  return report_from_json_text(*text, path);
}

Status save_report(const Report& report, const std::string& path) {
  return write_file_atomically(path, to_json_text(report));
}

}  // namespace fabscope
