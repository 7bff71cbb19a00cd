#include "report/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "core/rank_test.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "report/finding_codes.h"
#include "report/json_io.h"
#include "report/rules.h"

namespace fabscope {

namespace {

// ---- the two runs and what they differ in ----

std::string made_by(const Report& r) {
  std::string tool = fmt::format("{} {}", r.context.tool.name, r.context.tool.version);
  if (!r.context.tool.git_id.empty()) tool += fmt::format(" (git {})", r.context.tool.git_id);
  if (!r.context.imported) return tool;
  const ImportInfo& i = *r.context.imported;
  return fmt::format("{}{}, imported by {}", i.tool, i.version ? " " + *i.version : "", tool);
}

ComparedRun describe(const Report& r, const std::string& path) {
  return {path,
          made_by(r),
          r.context.backend,
          r.context.backend_library,
          r.context.nranks,
          r.context.hosts,
          r.context.start_time,
          r.verdict.result};
}

std::string known(int v) { return v > 0 ? std::to_string(v) : "unknown"; }
std::string known(const std::string& v) { return v.empty() ? "unknown" : v; }

std::string host_list(std::vector<std::string> hosts) {
  if (hosts.empty()) return "unknown";
  std::sort(hosts.begin(), hosts.end());
  if (hosts.size() <= 6) return fmt::format("{}", fmt::join(hosts, ","));
  return fmt::format("{},... ({} hosts)", fmt::join(hosts.begin(), hosts.begin() + 4, ","), hosts.size());
}

// What keys the match leaves out because the runs differ in it.
struct MatchKey {
  bool backend = true;
  bool nranks = true;
  bool hosts = true;
};

std::vector<SettingDifference> differences(const Report& b, const Report& c, MatchKey& key) {
  std::vector<SettingDifference> out;
  auto add = [&](std::string setting, std::string vb, std::string vc) {
    if (vb != vc) out.push_back({std::move(setting), std::move(vb), std::move(vc)});
  };
  const bool b_imported = b.context.imported.has_value(), c_imported = c.context.imported.has_value();
  if (b_imported != c_imported || (b_imported && b.context.imported->tool != c.context.imported->tool)) {
    add("measured by", made_by(b), made_by(c));
  }
  add("backend", b.context.backend, c.context.backend);
  key.backend = b.context.backend == c.context.backend;
  add("backend library", known(b.context.backend_library), known(c.context.backend_library));
  add("ranks", known(b.context.nranks), known(c.context.nranks));
  key.nranks = b.context.nranks > 0 && b.context.nranks == c.context.nranks;
  std::set<std::string> hb(b.context.hosts.begin(), b.context.hosts.end());
  std::set<std::string> hc(c.context.hosts.begin(), c.context.hosts.end());
  if (hb != hc) {
    add("hosts", host_list(b.context.hosts), host_list(c.context.hosts));
    key.hosts = false;
  }
  if (b.context.memory != "none" && c.context.memory != "none") add("memory", b.context.memory, c.context.memory);
  if (b.sweep_settings && c.sweep_settings) {
    const SweepSettings &sb = *b.sweep_settings, &sc = *c.sweep_settings;
    auto iters = [](int v) { return v > 0 ? std::to_string(v) : "unknown"; };
    add("-n iterations", iters(sb.iters), iters(sc.iters));
    add("-w warmup iterations", std::to_string(sb.warmup_iters), std::to_string(sc.warmup_iters));
    auto opt = [](const std::optional<int>& v) { return v ? std::to_string(*v) : "unknown"; };
    add("-z blocking", opt(sb.blocking), opt(sc.blocking));
    add("-G graph launches", std::to_string(sb.graph_launches), std::to_string(sc.graph_launches));
    add("-a average", known(sb.average), known(sc.average));
  }
  if (b.p2p && c.p2p) {
    add("p2p mode", std::string(name(b.p2p->mode)), std::string(name(c.p2p->mode)));
    add("p2p pattern", std::string(name(b.p2p->pattern)), std::string(name(c.p2p->pattern)));
    add("p2p window", std::to_string(b.p2p->window), std::to_string(c.p2p->window));
  }
  return out;
}

// ---- one row's figures and its judgement ----

struct Figures {
  double value = 0;
  std::vector<double> samples;   // per iteration or per repeat, in any unit monotone in `value`
  std::optional<double> spread;  // relative: the run's range of iterations over its typical value
};

std::optional<double> relative_spread(const std::optional<TimeStats>& s, const std::vector<double>& samples) {
  if (samples.size() >= 2) {
    Summary sum = summarize(samples);
    if (sum.median > 0) return (sum.p99 - sum.min) / sum.median;
  }
  if (s && s->median_us > 0 && s->max_us > 0) return (s->p99_us - s->min_us) / s->median_us;
  return std::nullopt;
}

std::string percent(double v) { return fmt::format("{:.1f}%", 100.0 * v); }

void judge(ComparisonRow& row, const Figures& b, const Figures& c, const CompareOptions& o) {
  row.baseline = b.value;
  row.current = c.value;
  row.baseline_samples = static_cast<int>(b.samples.size());
  row.current_samples = static_cast<int>(c.samples.size());
  const bool share = row.metric == CompareMetric::kShare;
  if (!share && b.value <= 0) {
    row.verdict = RowVerdict::kUnchanged;
    row.test = RowTest::kThreshold;
    row.reason = "the baseline's figure is 0: no relative change to judge";
    return;
  }
  const double change = share ? c.value - b.value : (c.value - b.value) / b.value;
  row.change = change;
  const double magnitude = std::fabs(change);
  const bool worse = row.higher_is_better ? change < 0 : change > 0;
  const std::string moved = fmt::format("{} by {}", worse ? "worse" : "better", format_change(row));
  if (magnitude <= o.threshold) {
    row.verdict = RowVerdict::kUnchanged;
    row.test = RowTest::kThreshold;
    row.reason = fmt::format("{} is within the {} threshold", format_change(row), percent(o.threshold));
    return;
  }
  const RowVerdict decided = worse ? RowVerdict::kRegression : RowVerdict::kImprovement;
  const size_t nb = b.samples.size(), nc = c.samples.size();
  if (nb >= 2 && nc >= 2 && mann_whitney_min_p(nb, nc) < o.alpha) {
    // Decided with the other rows' tests (holm_decide): many rows tested at once would
    // otherwise turn up "significant" changes by chance.
    RankTestResult t = mann_whitney_u(b.samples, c.samples);
    row.test = RowTest::kMannWhitneyU;
    row.p_value = t.p_value;
    row.verdict = decided;
    row.reason = fmt::format("{}; Mann-Whitney U over {} and {} samples: p = {:.3g}", moved, nb, nc, t.p_value);
    return;
  }
  if (b.spread && c.spread) {
    const double noise = std::max(*b.spread, *c.spread);
    row.test = RowTest::kSpread;
    row.noise = noise;
    const bool beyond = magnitude > noise;
    row.verdict = beyond ? decided : RowVerdict::kWithinNoise;
    row.reason = fmt::format("{}; {} the {} spread of the noisier run's iterations", moved,
                             beyond ? "beyond" : "inside", percent(noise));
    return;
  }
  row.test = RowTest::kThreshold;
  row.verdict = decided;
  row.reason = fmt::format("{}, beyond the {} threshold; the {} report{} no spread to test the noise", moved,
                           percent(o.threshold), !b.spread && !c.spread ? "two" : (!b.spread ? "baseline" : "current"),
                           !b.spread && !c.spread ? "s carry" : " carries");
}

void missing(ComparisonRow& row, std::optional<double> b, std::optional<double> c) {
  row.baseline = b;
  row.current = c;
  row.test = RowTest::kNone;
  row.verdict = b ? RowVerdict::kMissingInCurrent : RowVerdict::kMissingInBaseline;
  row.reason = b ? "measured in the baseline only" : "measured in the current run only";
}

// ---- sweeps ----

std::string sweep_subject(const Sweep& s, Placement placement) {
  std::string out = s.collective + " " + s.dtype;
  if (s.op) out += " " + *s.op;
  if (s.root) out += fmt::format(" root {}", *s.root);
  return fmt::format("{} {} ({}{})", out, label(placement), s.backend,
                     s.nranks > 0 ? fmt::format(", {} ranks", s.nranks) : "");
}

std::string sweep_key(const Sweep& s, const MatchKey& k) {
  return fmt::format("{}|{}|{}|{}|{}|{}", s.collective, s.dtype, s.op.value_or(""), s.root.value_or(-1),
                     k.backend ? s.backend : "", k.nranks ? s.nranks : 0);
}

struct PlacementRef {
  const Sweep* sweep;
  const SweepPoint* point;
  const PlacementResult* result;
  Placement placement;
};

void each_placement(const Report& r, const MatchKey& k,
                    const std::function<void(const std::string& key, const PlacementRef&)>& f) {
  // Placement by placement, so a sweep's sizes read as one table per placement.
  for (const Sweep& s : r.sweeps) {
    for (Placement placement : kPlacements) {
      for (const SweepPoint& p : s.points) {
        const std::optional<PlacementResult>& result = p.at(placement);
        if (!result) continue;
        f(fmt::format("{}|{}|{}", sweep_key(s, k), p.size_bytes, name(placement)), {&s, &p, &*result, placement});
      }
    }
  }
}

// A sweep row's identity (its metric is the caller's: time or bus bandwidth).
ComparisonRow placement_row(const PlacementRef& ref) {
  ComparisonRow row;
  row.section = CompareSection::kSweep;
  row.subject = sweep_subject(*ref.sweep, ref.placement);
  row.collective = ref.sweep->collective;
  row.placement = ref.placement;
  row.size_bytes = ref.point->size_bytes;
  return row;
}

Figures sweep_figures(const PlacementResult& r, bool latency_bound) {
  return {latency_bound ? r.time_us : r.busbw_gbps, r.samples_us, relative_spread(r.iteration_us, r.samples_us)};
}

void compare_sweeps(const Report& b, const Report& c, const MatchKey& k, const CompareOptions& o,
                    std::vector<ComparisonRow>& rows) {
  std::map<std::string, PlacementRef> current;
  std::vector<std::string> current_order;
  each_placement(c, k, [&](const std::string& key, const PlacementRef& ref) {
    if (current.emplace(key, ref).second) current_order.push_back(key);
  });
  std::map<const Sweep*, uint64_t> crossover;
  auto crossover_of = [&](const Sweep& s) {
    if (o.crossover_bytes) return *o.crossover_bytes;
    auto it = crossover.find(&s);
    if (it == crossover.end()) it = crossover.emplace(&s, half_bandwidth_size(s)).first;
    return it->second;
  };
  std::set<std::string> matched;
  auto make_row = [&](const PlacementRef& ref) {
    ComparisonRow row = placement_row(ref);
    const bool latency_bound = ref.point->size_bytes < crossover_of(*ref.sweep);
    row.metric = latency_bound ? CompareMetric::kTimeUs : CompareMetric::kBusbwGbps;
    row.higher_is_better = !latency_bound;
    return row;
  };
  each_placement(b, k, [&](const std::string& key, const PlacementRef& ref) {
    ComparisonRow row = make_row(ref);
    const bool latency_bound = row.metric == CompareMetric::kTimeUs;
    auto it = current.find(key);
    if (it == current.end()) {
      missing(row, sweep_figures(*ref.result, latency_bound).value, std::nullopt);
    } else {
      matched.insert(key);
      judge(row, sweep_figures(*ref.result, latency_bound), sweep_figures(*it->second.result, latency_bound), o);
    }
    rows.push_back(std::move(row));
  });
  for (const std::string& key : current_order) {
    if (matched.count(key)) continue;
    const PlacementRef& ref = current.at(key);
    ComparisonRow row = make_row(ref);
    missing(row, std::nullopt, sweep_figures(*ref.result, row.metric == CompareMetric::kTimeUs).value);
    rows.push_back(std::move(row));
  }
}

// ---- p2p links ----

struct LinkGroup {
  const P2pLink* first = nullptr;
  std::vector<double> values;  // per repeat
};

std::vector<std::pair<std::string, LinkGroup>> link_groups(const P2pSection& p2p, const MatchKey& k) {
  std::vector<std::pair<std::string, LinkGroup>> out;
  std::map<std::string, size_t> index;
  const bool latency = p2p.mode == P2pMode::kLatency;
  for (const P2pLink& l : p2p.links) {
    const std::string key = fmt::format("{}|{}|{}|{}|{}|{}", p2p.mode, l.size_bytes, l.src_rank, l.dst_rank,
                                        k.hosts ? l.src_host : "", k.hosts ? l.dst_host : "");
    auto [it, added] = index.emplace(key, out.size());
    if (added) out.push_back({key, {&l, {}}});
    out[it->second].second.values.push_back(link_value(l, latency));
  }
  return out;
}

ComparisonRow link_row(const P2pSection& p2p, const P2pLink& l) {
  ComparisonRow row;
  row.section = CompareSection::kP2p;
  row.subject =
      fmt::format("{} link {} -> {} (rank {} -> {})", name(p2p.mode), l.src_host, l.dst_host, l.src_rank, l.dst_rank);
  row.size_bytes = l.size_bytes;
  row.metric = p2p.mode == P2pMode::kLatency ? CompareMetric::kLatUs : CompareMetric::kBwGbps;
  row.higher_is_better = p2p.mode != P2pMode::kLatency;
  return row;
}

Figures link_figures(const LinkGroup& g, bool latency) {
  Figures f;
  f.value = median(g.values);
  if (g.values.size() >= 2) {
    f.samples = g.values;
    f.spread = relative_spread(std::nullopt, g.values);
  } else if (latency && g.first->lat && g.first->lat->typical_us > 0) {
    f.spread = (g.first->lat->p99_us - g.first->lat->min_us) / g.first->lat->typical_us;
  }
  return f;
}

void compare_links(const Report& b, const Report& c, const MatchKey& k, const CompareOptions& o,
                   std::vector<ComparisonRow>& rows) {
  if (!b.p2p && !c.p2p) return;
  std::vector<std::pair<std::string, LinkGroup>> gb, gc;
  if (b.p2p) gb = link_groups(*b.p2p, k);
  if (c.p2p) gc = link_groups(*c.p2p, k);
  std::map<std::string, const LinkGroup*> current;
  for (const auto& [key, g] : gc) current.emplace(key, &g);
  std::set<std::string> matched;
  for (const auto& [key, g] : gb) {
    ComparisonRow row = link_row(*b.p2p, *g.first);
    const bool latency = b.p2p->mode == P2pMode::kLatency;
    auto it = current.find(key);
    if (it == current.end()) {
      missing(row, link_figures(g, latency).value, std::nullopt);
    } else {
      matched.insert(key);
      judge(row, link_figures(g, latency), link_figures(*it->second, latency), o);
    }
    rows.push_back(std::move(row));
  }
  for (const auto& [key, g] : gc) {
    if (matched.count(key)) continue;
    ComparisonRow row = link_row(*c.p2p, *g.first);
    missing(row, std::nullopt, link_figures(g, c.p2p->mode == P2pMode::kLatency).value);
    rows.push_back(std::move(row));
  }
}

// ---- diagnose's attribution ----

// The time-to-time variation the noise phase saw for a collective (coefficient of
// variation of its repeats), or nullopt.
std::optional<double> collective_cv(const Report& r, const std::string& collective) {
  if (!r.diagnosis) return std::nullopt;
  for (const CollectiveRepeats& n : r.diagnosis->collective_noise) {
    if (n.collective == collective && n.time_us.size() >= 2) return n.cv;
  }
  return std::nullopt;
}

void compare_attribution(const Report& b, const Report& c, const CompareOptions& o, std::vector<ComparisonRow>& rows) {
  for (const Attribution& ab : b.attribution) {
    const Attribution* ac = nullptr;
    for (const Attribution& a : c.attribution) {
      if (a.collective == ab.collective && a.size_bytes == ab.size_bytes) ac = &a;
    }
    auto make_row = [&](const std::string& cause) {
      ComparisonRow row;
      row.section = CompareSection::kAttribution;
      row.subject = fmt::format("{}: {}", ab.collective, cause);
      row.collective = ab.collective;
      row.size_bytes = ab.size_bytes;
      row.metric = CompareMetric::kShare;
      return row;
    };
    if (!ac) {
      ComparisonRow row = make_row("time beyond the median link");
      missing(row, ab.measured_us > 0 ? ab.excess_us / ab.measured_us : 0, std::nullopt);
      rows.push_back(std::move(row));
      continue;
    }
    // Each cause's part of the measured time, in both runs (a cause in one run only is
    // 0 in the other: a new cause is what moved).
    std::vector<std::string> causes;
    std::map<std::string, std::pair<double, double>> parts;
    auto collect = [&](const Attribution& a, bool is_current) {
      for (const AttributionEntry& e : a.entries) {
        const std::string cause =
            e.kind == AttributionKind::kUnexplained ? "unexplained" : fmt::format("{} {}", name(e.kind), e.subject);
        if (!parts.count(cause)) causes.push_back(cause);
        const double part = a.measured_us > 0 ? e.excess_us / a.measured_us : 0;
        (is_current ? parts[cause].second : parts[cause].first) += part;
      }
    };
    collect(ab, false);
    collect(*ac, true);
    const std::optional<double> cv_b = collective_cv(b, ab.collective), cv_c = collective_cv(c, ab.collective);
    for (const std::string& cause : causes) {
      ComparisonRow row = make_row(cause);
      Figures fb{parts[cause].first, {}, cv_b ? std::optional<double>(2 * *cv_b) : std::nullopt};
      Figures fc{parts[cause].second, {}, cv_c ? std::optional<double>(2 * *cv_c) : std::nullopt};
      judge(row, fb, fc, o);
      rows.push_back(std::move(row));
    }
  }
  for (const Attribution& ac : c.attribution) {
    bool found = false;
    for (const Attribution& a : b.attribution) found |= a.collective == ac.collective && a.size_bytes == ac.size_bytes;
    if (found) continue;
    ComparisonRow row;
    row.section = CompareSection::kAttribution;
    row.subject = fmt::format("{}: time beyond the median link", ac.collective);
    row.collective = ac.collective;
    row.size_bytes = ac.size_bytes;
    row.metric = CompareMetric::kShare;
    missing(row, std::nullopt, ac.measured_us > 0 ? ac.excess_us / ac.measured_us : 0);
    rows.push_back(std::move(row));
  }
}

}  // namespace

namespace {

// The rank tests of all rows as one family (Holm's step-down method): the k-th smallest
// of m p-values is significant when it and every smaller one is below alpha / (m - k).
// The rows that are not become within_noise.
void holm_decide(std::vector<ComparisonRow>& rows, double alpha) {
  std::vector<ComparisonRow*> tested;
  for (ComparisonRow& r : rows) {
    if (r.test == RowTest::kMannWhitneyU && r.p_value) tested.push_back(&r);
  }
  std::stable_sort(tested.begin(), tested.end(),
                   [](const ComparisonRow* a, const ComparisonRow* b) { return *a->p_value < *b->p_value; });
  const size_t m = tested.size();
  bool rejecting = true;
  for (size_t k = 0; k < m; ++k) {
    ComparisonRow& r = *tested[k];
    const double level = alpha / static_cast<double>(m - k);
    rejecting = rejecting && *r.p_value < level;
    if (!rejecting) r.verdict = RowVerdict::kWithinNoise;
    r.reason +=
        fmt::format(" {} {:.3g} (alpha {} over the {} rows tested, Holm)", rejecting ? "<" : ">=", level, alpha, m);
  }
}

}  // namespace

ComparedRun describe_run(const Report& report, const std::string& path) { return describe(report, path); }

std::vector<SettingDifference> setting_differences(const Report& baseline, const Report& current) {
  MatchKey key;
  return differences(baseline, current, key);
}

std::vector<RowObservation> observe_rows(const Report& r) {
  const MatchKey every;  // every setting is part of a row's identity
  std::vector<RowObservation> out;
  std::map<const Sweep*, uint64_t> crossover;
  each_placement(r, every, [&](const std::string& key, const PlacementRef& ref) {
    RowObservation o;
    o.key = "sweep|" + key;
    o.identity = placement_row(ref);
    o.time_us = ref.result->time_us;
    o.bandwidth = ref.result->busbw_gbps;
    o.samples = ref.result->samples_us;
    auto it = crossover.find(ref.sweep);
    if (it == crossover.end()) it = crossover.emplace(ref.sweep, half_bandwidth_size(*ref.sweep)).first;
    o.crossover = it->second;
    out.push_back(std::move(o));
  });
  if (r.p2p) {
    const bool latency = r.p2p->mode == P2pMode::kLatency;
    for (auto& [key, g] : link_groups(*r.p2p, every)) {
      RowObservation o;
      o.key = "p2p|" + key;
      o.identity = link_row(*r.p2p, *g.first);
      const double value = median(g.values);
      (latency ? o.time_us : o.bandwidth) = value;
      if (g.values.size() >= 2) o.samples = g.values;
      out.push_back(std::move(o));
    }
  }
  return out;
}

uint64_t half_bandwidth_size(const Sweep& sweep) {
  double peak = 0;
  auto bw = [](const SweepPoint& p) {
    const std::optional<PlacementResult>& r = p.out_of_place ? p.out_of_place : p.in_place;
    return r ? r->algbw_gbps : 0.0;
  };
  for (const SweepPoint& p : sweep.points) peak = std::max(peak, bw(p));
  if (peak <= 0) return 0;
  uint64_t best = UINT64_MAX;
  for (const SweepPoint& p : sweep.points) {
    if (bw(p) >= peak / 2) best = std::min(best, p.size_bytes);
  }
  return best;
}

std::string format_change(const ComparisonRow& row) {
  if (!row.change) return "";
  if (row.metric == CompareMetric::kShare) return fmt::format("{:+.1f} pts", 100.0 * *row.change);
  return fmt::format("{:+.1f}%", 100.0 * *row.change);
}

Comparison compare_reports(const Report& baseline, const Report& current, const CompareOptions& o) {
  Comparison out;
  out.baseline = describe(baseline, o.baseline_path);
  out.current = describe(current, o.current_path);
  out.threshold = o.threshold;
  out.alpha = o.alpha;
  out.crossover = o.crossover_bytes ? std::to_string(*o.crossover_bytes) : "auto";
  out.strict = o.strict;
  MatchKey key;
  out.differences = differences(baseline, current, key);
  compare_sweeps(baseline, current, key, o, out.rows);
  compare_links(baseline, current, key, o, out.rows);
  compare_attribution(baseline, current, o, out.rows);
  holm_decide(out.rows, o.alpha);
  return out;
}

namespace {

// "1 MiB (busbw -17.3%), 4 MiB (time +21.0%)": the sizes of a group of rows.
std::string sizes_text(const std::vector<const ComparisonRow*>& rows) {
  std::vector<std::string> parts;
  for (const ComparisonRow* r : rows) {
    const std::string_view metric = r->metric == CompareMetric::kTimeUs      ? "time"
                                    : r->metric == CompareMetric::kBusbwGbps ? "busbw"
                                    : r->metric == CompareMetric::kBwGbps    ? "bw"
                                    : r->metric == CompareMetric::kLatUs     ? "latency"
                                                                             : "share";
    parts.push_back(r->change ? fmt::format("{} ({} {})", format_size(r->size_bytes), metric, format_change(*r))
                              : format_size(r->size_bytes));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

nlohmann::ordered_json rows_evidence(const std::vector<const ComparisonRow*>& rows) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const ComparisonRow* r : rows) {
    a.push_back({{"size_bytes", r->size_bytes},
                 {"metric", name(r->metric)},
                 {"baseline", to_json_opt(r->baseline)},
                 {"current", to_json_opt(r->current)},
                 {"change", to_json_opt(r->change)},
                 {"test", name(r->test)},
                 {"p_value", to_json_opt(r->p_value)}});
  }
  return {{"rows", a}};
}

}  // namespace

namespace {

struct RowGroup {
  CompareSection section;
  std::string subject;
  std::vector<const ComparisonRow*> rows;
};
// The rows of one verdict, grouped by section and subject in row order.
std::vector<RowGroup> row_groups(const Comparison& cmp, RowVerdict verdict) {
  std::vector<RowGroup> groups;
  for (const ComparisonRow& r : cmp.rows) {
    if (r.verdict != verdict) continue;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const RowGroup& g) { return g.section == r.section && g.subject == r.subject; });
    if (it == groups.end()) {
      groups.push_back({r.section, r.subject, {}});
      it = groups.end() - 1;
    }
    it->rows.push_back(&r);
  }
  return groups;
}

void check_settings_differ(const Comparison& cmp, FindingSink& sink) {
  if (cmp.differences.empty()) return;
  std::vector<std::string> parts;
  nlohmann::ordered_json ev = nlohmann::ordered_json::array();
  for (const SettingDifference& d : cmp.differences) {
    parts.push_back(fmt::format("{}: {} -> {}", d.setting, d.baseline, d.current));
    ev.push_back({{"setting", d.setting}, {"baseline", d.baseline}, {"current", d.current}});
  }
  sink.add(Severity::kWarning, "runs", {}, fmt::format("the runs differ in {}", fmt::join(parts, "; ")),
           "compare runs made with the same settings, or read the changes with these differences in mind "
           "(--strict refuses such a comparison)",
           {{"differences", ev}});
}

void check_regression(const Comparison& cmp, FindingSink& sink) {
  for (const RowGroup& g : row_groups(cmp, RowVerdict::kRegression)) {
    sink.add(Severity::kError, g.subject, {},
             fmt::format("{}: worse than the baseline at {}", g.subject, sizes_text(g.rows)),
             "a change beyond the threshold and the runs' noise: find what changed between the runs (software, "
             "firmware, placement, a host or link: `fabscope diagnose` says which)",
             rows_evidence(g.rows));
  }
}

void check_improvement(const Comparison& cmp, FindingSink& sink) {
  for (const RowGroup& g : row_groups(cmp, RowVerdict::kImprovement)) {
    sink.add(Severity::kInfo, g.subject, {},
             fmt::format("{}: better than the baseline at {}", g.subject, sizes_text(g.rows)),
             "if it holds, make this run the new baseline", rows_evidence(g.rows));
  }
}

void check_missing(const Comparison& cmp, FindingSink& sink) {
  for (const bool in_baseline : {true, false}) {
    const RowVerdict verdict = in_baseline ? RowVerdict::kMissingInCurrent : RowVerdict::kMissingInBaseline;
    for (const RowGroup& g : row_groups(cmp, verdict)) {
      sink.add(Severity::kWarning, g.subject, {},
               fmt::format("{}: measured in the {} only, at {}", g.subject, in_baseline ? "baseline" : "current run",
                           sizes_text(g.rows)),
               in_baseline ? "run what the baseline ran (same collectives, sizes and placements) so every row is "
                             "compared"
                           : "the baseline has no such row to compare with: refresh the baseline to gate it",
               rows_evidence(g.rows));
    }
  }
}

constexpr Rule<Comparison> kCompareRules[] = {
    {code::kCompareSettingsDiffer, "the compared runs differ in backend, ranks, hosts, library or timing settings",
     check_settings_differ},
    {code::kCompareRegression, "a row worse than the baseline beyond the threshold and the runs' noise",
     check_regression},
    {code::kCompareImprovement, "a row better than the baseline beyond the threshold and the noise", check_improvement},
    {code::kCompareMissing, "a collective, size, placement or link measured in one run only", check_missing},
};

}  // namespace

std::span<const Rule<Comparison>> compare_rules() { return kCompareRules; }

std::vector<Finding> comparison_findings(const Comparison& cmp) {
  std::vector<Finding> out;
  run_rules(compare_rules(), cmp, out);
  return out;
}

}  // namespace fabscope
