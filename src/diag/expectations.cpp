#include "diag/expectations.h"

#include <fmt/format.h>

#include "report/finding_codes.h"
#include "report/json_io.h"

#include <map>
#include <nlohmann/json.hpp>

#include "coll/collective.h"
#include "core/atomic_file.h"
#include "core/dtype.h"
#include "core/sizes.h"
#include "core/stats.h"

namespace fabscope {

namespace {

using OJson = nlohmann::ordered_json;

std::string collective_names_text() {
  std::vector<std::string_view> names;
  for (const CollectiveInfo& c : all_collectives()) names.push_back(c.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

struct Bar {
  const char* key;
  const char* metric;
  bool minimum;
  bool p2p;
  const char* unit;
};
constexpr Bar kBars[] = {
    {"min_busbw_gbps", "busbw_gbps", true, false, "GB/s"}, {"min_algbw_gbps", "algbw_gbps", true, false, "GB/s"},
    {"max_time_us", "time_us", false, false, "us"},        {"min_bw_gbps", "bw_gbps", true, true, "GB/s"},
    {"max_lat_us", "lat_us", false, true, "us"},
};

const Bar* bar_of(const std::string& metric) {
  for (const Bar& b : kBars) {
    if (metric == b.metric) return &b;
  }
  return nullptr;
}

std::string metric_words(const std::string& metric) {
  if (metric == "busbw_gbps") return "bus bandwidth";
  if (metric == "algbw_gbps") return "algorithm bandwidth";
  if (metric == "time_us") return "time";
  if (metric == "bw_gbps") return "link bandwidth";
  return "latency";
}

Result<uint64_t> size_value(const OJson& v, const std::string& where) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_string()) return parse_size(v.get<std::string>(), where);
  return Status::Invalid(fmt::format("{} must be a size such as 256M or 1048576", where));
}

Result<Expectation> read_entry(const OJson& e, int index, const std::string& source) {
  const std::string at = fmt::format("'{}' expect[{}]", source, index);
  if (!e.is_object()) return Status::Invalid(fmt::format("{} is not an object", at));
  Expectation x;
  x.index = index;
  static const char* kKeys[] = {"collective",     "p2p",         "backend",     "dtype",
                                "from_bytes",     "to_bytes",    "note",        "min_busbw_gbps",
                                "min_algbw_gbps", "max_time_us", "min_bw_gbps", "max_lat_us"};
  for (const auto& [key, value] : e.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return Status::Invalid(fmt::format("{}: unknown key '{}'; allowed: {}", at, key, fmt::join(kKeys, ", ")));
    }
  }
  auto text = [&](const char* key, std::string& out) -> Status {
    if (!e.contains(key)) return Status::Ok();
    if (!e[key].is_string()) return Status::Invalid(fmt::format("{}.{} must be a string", at, key));
    out = e[key].get<std::string>();
    return Status::Ok();
  };
  std::string collective, mode;
  FABSCOPE_RETURN_IF_ERROR(text("collective", collective));
  FABSCOPE_RETURN_IF_ERROR(text("p2p", mode));
  FABSCOPE_RETURN_IF_ERROR(text("backend", x.backend));
  FABSCOPE_RETURN_IF_ERROR(text("dtype", x.dtype));
  FABSCOPE_RETURN_IF_ERROR(text("note", x.note));
  if (collective.empty() == mode.empty()) {
    return Status::Invalid(fmt::format("{} needs exactly one of \"collective\" ({}) or \"p2p\" (bw, bibw, lat)", at,
                                       collective_names_text()));
  }
  if (!collective.empty()) {
    auto c = collective_from_name(collective);
    if (!c.ok()) return Status::Invalid(fmt::format("{}: {}", at, c.status().message()));
    x.collective = std::string(name(*c));
  } else {
    x.p2p_mode = enum_from_name<P2pMode>(mode);
    if (!x.p2p_mode) {
      return Status::Invalid(fmt::format("{}: p2p mode '{}' is not allowed; use bw, bibw or lat", at, mode));
    }
  }
  if (!x.backend.empty() && x.backend != "nccl" && x.backend != "verbs" && x.backend != "tcp" && x.backend != "mpi") {
    return Status::Invalid(fmt::format("{}: backend '{}' is not allowed; use nccl, verbs, tcp or mpi", at, x.backend));
  }
  if (!x.dtype.empty()) {
    auto t = data_type_from_name(x.dtype);
    if (!t.ok()) return Status::Invalid(fmt::format("{}: {}", at, t.status().message()));
    x.dtype = std::string(name(*t));
  }
  if (e.contains("from_bytes")) {
    auto v = size_value(e["from_bytes"], at + ".from_bytes");
    if (!v.ok()) return v.status();
    x.from_bytes = *v;
  }
  if (e.contains("to_bytes")) {
    auto v = size_value(e["to_bytes"], at + ".to_bytes");
    if (!v.ok()) return v.status();
    x.to_bytes = *v;
  }
  if (x.from_bytes > x.to_bytes) {
    return Status::Invalid(fmt::format("{}: from_bytes {} is above to_bytes {}", at, x.from_bytes, x.to_bytes));
  }
  int bars = 0;
  for (const Bar& b : kBars) {
    if (!e.contains(b.key)) continue;
    ++bars;
    if (b.p2p != x.collective.empty()) {
      return Status::Invalid(fmt::format("{}: {} is a bar for {}; this entry is {}", at, b.key,
                                         b.p2p ? "p2p links" : "collectives", b.p2p ? "a collective" : "a p2p mode"));
    }
    if (!e[b.key].is_number() || e[b.key].get<double>() <= 0) {
      return Status::Invalid(fmt::format("{}.{} must be a number above 0", at, b.key));
    }
    x.metric = b.metric;
    x.minimum = b.minimum;
    x.bar = e[b.key].get<double>();
  }
  if (bars != 1) {
    return Status::Invalid(fmt::format(
        "{} needs exactly one bar: min_busbw_gbps, min_algbw_gbps or max_time_us (collectives), min_bw_gbps or "
        "max_lat_us (p2p)",
        at));
  }
  if (x.p2p_mode == P2pMode::kLatency && x.metric != "lat_us") {
    return Status::Invalid(fmt::format("{}: a p2p lat entry takes max_lat_us", at));
  }
  if (x.p2p_mode && *x.p2p_mode != P2pMode::kLatency && x.metric != "bw_gbps") {
    return Status::Invalid(fmt::format("{}: a p2p {} entry takes min_bw_gbps", at, name(*x.p2p_mode)));
  }
  return x;
}

}  // namespace

std::string Expectation::describe() const {
  const Bar* b = bar_of(metric);
  std::string what =
      collective.empty() ? fmt::format("p2p {}", name(p2p_mode.value_or(P2pMode::kBandwidth))) : collective;
  std::string range;
  if (from_bytes > 0 && to_bytes != UINT64_MAX) {
    range = fmt::format(" from {} to {}", format_size(from_bytes), format_size(to_bytes));
  } else if (from_bytes > 0) {
    range = fmt::format(" from {}", format_size(from_bytes));
  } else if (to_bytes != UINT64_MAX) {
    range = fmt::format(" up to {}", format_size(to_bytes));
  }
  std::string filters;
  if (!backend.empty()) filters += backend;
  if (!dtype.empty()) filters += (filters.empty() ? "" : " ") + dtype;
  return fmt::format("{} {} {} {:g} {}{}{}", what, metric, minimum ? ">=" : "<=", bar, b ? b->unit : "", range,
                     filters.empty() ? "" : " (" + filters + ")");
}

Result<Expectations> expectations_from_json_text(const std::string& text, const std::string& source) {
  auto parsed = parse_json_text<OJson>(text, fmt::format("expectations '{}'", source));
  if (!parsed.ok()) return parsed.status();
  OJson doc = std::move(*parsed);
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != kExpectSchema) {
    return Status::Invalid(
        fmt::format("'{}' is not an expectations file: it needs \"schema\": \"{}\" and an \"expect\" array", source,
                    kExpectSchema));
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "schema" && key != "expect" && key != "note") {
      return Status::Invalid(fmt::format("'{}': unknown key '{}'; allowed: schema, expect, note", source, key));
    }
  }
  if (!doc.contains("expect") || !doc["expect"].is_array() || doc["expect"].empty()) {
    return Status::Invalid(fmt::format("'{}': \"expect\" must be a non-empty array of entries", source));
  }
  Expectations out;
  out.source = source;
  int i = 0;
  for (const OJson& e : doc["expect"]) {
    auto x = read_entry(e, i++, source);
    if (!x.ok()) return x.status();
    out.entries.push_back(std::move(*x));
  }
  return out;
}

Result<Expectations> load_expectations(const std::string& path) {
  auto text = read_file(path);
  if (!text.ok()) return text.status();
  return expectations_from_json_text(*text, path);
}

namespace {

struct Miss {
  uint64_t size_bytes;
  double figure;
};

OJson misses_evidence(const Expectation& x, const std::vector<Miss>& misses, size_t covered) {
  OJson points = OJson::array();
  const Miss* worst = nullptr;
  for (const Miss& m : misses) {
    points.push_back({{"size_bytes", m.size_bytes}, {"figure", m.figure}, {"ratio", m.figure / x.bar}});
    const double badness = x.minimum ? x.bar / std::max(m.figure, 1e-12) : m.figure / x.bar;
    if (!worst || badness > (x.minimum ? x.bar / std::max(worst->figure, 1e-12) : worst->figure / x.bar)) worst = &m;
  }
  return {{"expectation", x.describe()},
          {"entry", x.index},
          {"metric", x.metric},
          {"bar", x.bar},
          {"minimum", x.minimum},
          {"note", x.note},
          {"points_covered", covered},
          {"points_missed", misses.size()},
          {"worst", {{"size_bytes", worst->size_bytes}, {"figure", worst->figure}, {"ratio", worst->figure / x.bar}}},
          {"points", points}};
}

std::string misses_message(const std::string& subject, const Expectation& x, const OJson& ev) {
  const Bar* b = bar_of(x.metric);
  const OJson& w = ev["worst"];
  return fmt::format("{}: {} {} the expected {:g} {} at {} of {} sizes; worst {:.2f} {} at {} ({:.2f} of the bar){}",
                     subject, metric_words(x.metric), x.minimum ? "below" : "above", x.bar, b->unit,
                     ev["points_missed"].get<size_t>(), ev["points_covered"].get<size_t>(), w["figure"].get<double>(),
                     b->unit, format_size(w["size_bytes"].get<uint64_t>()), w["ratio"].get<double>(),
                     x.note.empty() ? "" : " [" + x.note + "]");
}

bool misses(const Expectation& x, double figure) { return x.minimum ? figure < x.bar : figure > x.bar; }

// How many points each entry covered, for perf.not_measured.
size_t covered_points(const ExpectationContext& c, const Expectation& x) {
  size_t n = 0;
  if (!x.collective.empty()) {
    for (const Sweep& s : c.report.sweeps) {
      if (s.collective != x.collective || (!x.backend.empty() && s.backend != x.backend) ||
          (!x.dtype.empty() && s.dtype != x.dtype)) {
        continue;
      }
      for (const SweepPoint& p : s.points) {
        if (p.size_bytes >= x.from_bytes && p.size_bytes <= x.to_bytes)
          n += p.out_of_place.has_value() + p.in_place.has_value();
      }
    }
  } else if (c.report.p2p && c.report.p2p->mode == x.p2p_mode &&
             (x.backend.empty() || c.report.p2p->backend == x.backend)) {
    for (const P2pLink& l : c.report.p2p->links) n += l.size_bytes >= x.from_bytes && l.size_bytes <= x.to_bytes;
  }
  return n;
}

void check_below_expected(const ExpectationContext& c, FindingSink& sink) {
  for (const Expectation& x : c.expectations.entries) {
    if (!x.collective.empty()) {
      for (const Sweep& s : c.report.sweeps) {
        if (s.collective != x.collective || (!x.backend.empty() && s.backend != x.backend) ||
            (!x.dtype.empty() && s.dtype != x.dtype)) {
          continue;
        }
        for (Placement placement : kPlacements) {
          std::vector<Miss> missed;
          size_t covered = 0;
          for (const SweepPoint& p : s.points) {
            const std::optional<PlacementResult>& r = p.at(placement);
            if (!r || p.size_bytes < x.from_bytes || p.size_bytes > x.to_bytes) continue;
            ++covered;
            const double figure = x.metric == "busbw_gbps"   ? r->busbw_gbps
                                  : x.metric == "algbw_gbps" ? r->algbw_gbps
                                                             : r->time_us;
            if (misses(x, figure)) missed.push_back({p.size_bytes, figure});
          }
          if (missed.empty()) continue;
          const std::string subject = fmt::format("{} {}{} {} ({})", s.collective, s.dtype, s.op ? " " + *s.op : "",
                                                  label(placement), s.backend);
          OJson ev = misses_evidence(x, missed, covered);
          ev["placement"] = name(placement);
          sink.add(Severity::kError, subject, {}, misses_message(subject, x, ev),
                   "below what this hardware should do: run `fabscope diagnose` to find the link, NIC or host that "
                   "holds it back",
                   ev);
        }
      }
      continue;
    }
    if (!c.report.p2p || c.report.p2p->mode != x.p2p_mode ||
        (!x.backend.empty() && c.report.p2p->backend != x.backend)) {
      continue;
    }
    // Per link: its figure per size (median over repeats).
    std::map<std::pair<int, int>, std::map<uint64_t, std::vector<double>>> per_link;
    std::map<std::pair<int, int>, const P2pLink*> first;
    for (const P2pLink& l : c.report.p2p->links) {
      if (l.size_bytes < x.from_bytes || l.size_bytes > x.to_bytes) continue;
      per_link[{l.src_rank, l.dst_rank}][l.size_bytes].push_back(link_value(l, x.p2p_mode == P2pMode::kLatency));
      first.emplace(std::make_pair(l.src_rank, l.dst_rank), &l);
    }
    for (const auto& [ranks, sizes] : per_link) {
      std::vector<Miss> missed;
      for (const auto& [size, values] : sizes) {
        const double figure = median(values);
        if (misses(x, figure)) missed.push_back({size, figure});
      }
      if (missed.empty()) continue;
      const P2pLink& l = *first.at(ranks);
      const std::string subject =
          fmt::format("link {} -> {} (rank {} -> {})", l.src_host, l.dst_host, l.src_rank, l.dst_rank);
      std::vector<std::string> hosts = {l.src_host};
      if (l.dst_host != l.src_host) hosts.push_back(l.dst_host);
      OJson ev = misses_evidence(x, missed, sizes.size());
      ev["src_rank"] = l.src_rank;
      ev["dst_rank"] = l.dst_rank;
      sink.add(Severity::kError, subject, hosts, misses_message(subject, x, ev),
               "below what this link should do: check both ends' NIC, cable and switch port (rate, errors), then "
               "retest the link alone (p2p --retest)",
               ev);
    }
  }
}

void check_not_measured(const ExpectationContext& c, FindingSink& sink) {
  for (const Expectation& x : c.expectations.entries) {
    if (covered_points(c, x) > 0) continue;
    sink.add(Severity::kWarning, fmt::format("expect[{}]", x.index), {},
             fmt::format("expectation {} ({}) covers nothing this run measured", x.describe(), c.expectations.source),
             "run what the expectation covers (collective, backend, sizes, p2p mode), or drop the entry",
             {{"expectation", x.describe()}, {"entry", x.index}});
  }
}

constexpr Rule<ExpectationContext> kExpectationRules[] = {
    {code::kPerfBelowExpected, "a figure below the bar an --expect file sets for it", check_below_expected},
    {code::kPerfNotMeasured, "an --expect entry the run measured nothing for", check_not_measured},
};

}  // namespace

std::span<const Rule<ExpectationContext>> expectation_rules() { return kExpectationRules; }

void add_expectation_findings(Report& report, const Expectations& expectations) {
  std::vector<Finding> found;
  run_rules(expectation_rules(), ExpectationContext{report, expectations}, found);
  report.findings.insert(report.findings.end(), found.begin(), found.end());
}

}  // namespace fabscope
