#include "report/import.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/dtype.h"

namespace fabscope {

namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string where(const NcclTestsTable& t) {
  return t.header_line > 0 ? fmt::format("'{}' line {}", t.source, t.header_line) : fmt::format("'{}'", t.source);
}

// The collective a program name names: "all_reduce_perf", "/x/all_reduce_perf_mpi".
Result<Collective> collective_of_program(const std::string& program) {
  std::string p = base_name(program);
  if (p.size() > 4 && p.compare(p.size() - 4, 4, "_mpi") == 0) p.resize(p.size() - 4);
  return collective_from_name(p);
}

Result<Collective> table_collective(const NcclTestsTable& t, const ImportOptions& o) {
  std::optional<Collective> given;
  if (!o.collective.empty()) {
    auto c = collective_from_name(o.collective);
    if (!c.ok()) return c.status();
    given = *c;
  }
  if (!t.program.empty()) {
    auto c = collective_of_program(t.program);
    if (!c.ok()) {
      return Status::Invalid(fmt::format("{}: the table is from '{}', which is not a collective fabscope knows ({})",
                                         where(t), t.program, c.status().message()));
    }
    if (given && *given != *c) {
      return Status::Invalid(
          fmt::format("{}: --collective {} does not match the file's '{}'", where(t), o.collective, t.program));
    }
    return *c;
  }
  if (given) return *given;
  if (auto c = collective_named_in(base_name(t.source))) return *c;
  return Status::Invalid(fmt::format(
      "{}: the file does not say which collective this table measured (no '# Collective test starting' line, no "
      "nccl-tests binary in its name); give --collective NAME",
      where(t)));
}

// The ranks a table's device lines list: text prints one line per GPU, -J only the first
// GPU of each process.
int ranks_listed(const NcclTestsTable& t) {
  if (t.devices.empty()) return 0;
  if (!t.json) {
    std::set<int> ranks;
    for (const NcclTestsDevice& d : t.devices) ranks.insert(d.rank);
    return static_cast<int>(ranks.size());
  }
  const int per_process = t.params ? t.params->nthreads * t.params->ngpus : 1;
  return static_cast<int>(t.devices.size()) * per_process;
}

// Tables fabscope cannot import: host enqueue times (-C), no rows.
Status check_importable(const NcclTestsTable& t) {
  if (t.cpu_time) {
    return Status::Invalid(fmt::format(
        "{}: this table reports cputime (-C): the host's enqueue time, not the collective's; fabscope imports "
        "only tables of the collective's time",
        where(t)));
  }
  if (t.rows.empty()) return Status::Invalid(fmt::format("{}: the table has no rows", where(t)));
  return Status::Ok();
}

// A rank count and what gave it, for the message when two tables disagree.
struct RankCount {
  int n = 0;
  std::string from;
};

// The settings nccl-tests prints in its parameter lines; -a and -z it does not print.
SweepSettings settings_of(const NcclTestsParams& p) {
  SweepSettings s;
  s.min_bytes = p.min_bytes;
  s.max_bytes = p.max_bytes;
  s.step_factor = p.step_factor.value_or(1);
  s.step_bytes = p.step_bytes.value_or(0);
  s.iters = p.iters.value_or(0);
  s.warmup_iters = p.warmup_iters.value_or(0);
  s.check_iters = p.validation.value_or(0);
  s.average = "";  // -a is not printed
  s.seed = std::nullopt;
  s.graph_launches = p.graph.value_or(0);
  s.blocking = std::nullopt;  // -z is not printed
  return s;
}

std::optional<PlacementResult> placement_of(const std::optional<NcclTestsPlacement>& in, int iterations) {
  if (!in) return std::nullopt;
  PlacementResult p;
  p.time_us = in->time_us;
  p.algbw_gbps = in->algbw_gbps;
  p.busbw_gbps = in->busbw_gbps;
  p.wrong = in->wrong;
  p.iterations = iterations;
  if (in->per_iter) {
    const NcclTestsPerIter& pi = *in->per_iter;
    if (pi.min_us && pi.max_us && pi.p99_us && pi.p50_us && pi.avg_us) {
      p.iteration_us = TimeStats{*pi.min_us, *pi.p50_us, *pi.avg_us, *pi.max_us, *pi.p99_us};
    }
    p.samples_us = pi.times_us;
  }
  return p;
}

// What makes a row's sweep: its type, reduction and root, in fabscope's names.
struct RowSweep {
  std::string dtype;
  std::optional<std::string> op;
  std::optional<int> root;
  std::string key() const { return fmt::format("{}|{}|{}", dtype, op.value_or(""), root.value_or(-1)); }
};

Result<RowSweep> row_sweep(const NcclTestsTable& t, const NcclTestsRow& row, Collective collective) {
  auto dtype = data_type_from_name(row.type);
  if (!dtype.ok()) {
    return Status::Invalid(fmt::format("'{}' line {}: type '{}' has no fabscope name; fabscope knows {}", t.source,
                                       row.line, row.type, data_type_names()));
  }
  RowSweep rs;
  rs.dtype = std::string(name(*dtype));
  if (row.redop != "none") {
    auto parsed = reduce_op_from_name(row.redop);
    if (!parsed.ok()) {
      return Status::Invalid(fmt::format("'{}' line {}: redop '{}' has no fabscope name; fabscope knows {}", t.source,
                                         row.line, row.redop, reduce_op_names()));
    }
    rs.op = std::string(name(*parsed));
  } else if (info(collective).reduces) {
    return Status::Invalid(
        fmt::format("'{}' line {}: {} reduces, but the row's redop is 'none'", t.source, row.line, name(collective)));
  }
  if (row.root && *row.root >= 0) rs.root = *row.root;
  return rs;
}

// A table's rows as points of sweeps appended to `r`: rows of one (type, redop, root) are
// one sweep, in the order they first appear. Each new sweep gets `nranks`.
Status add_table_rows(Report& r, const NcclTestsTable& t, Collective collective, int nranks) {
  const int iterations = t.params && t.params->iters ? *t.params->iters * t.params->agg_iters.value_or(1) : 0;
  std::map<std::string, size_t> sweep_of;
  const size_t first_sweep = r.sweeps.size();
  for (const NcclTestsRow& row : t.rows) {
    auto rs = row_sweep(t, row, collective);
    if (!rs.ok()) return rs.status();
    auto [it, added] = sweep_of.emplace(rs->key(), r.sweeps.size());
    if (added) {
      Sweep s;
      s.collective = std::string(name(collective));
      s.dtype = rs->dtype;
      s.op = rs->op;
      s.backend = "nccl";
      s.root = rs->root;
      s.iteration_clock = IterationTimer::kHost;
      r.sweeps.push_back(std::move(s));
    }
    SweepPoint point;
    point.size_bytes = row.size_bytes;
    point.count = row.count;
    point.out_of_place = placement_of(row.out_of_place, iterations);
    point.in_place = placement_of(row.in_place, iterations);
    r.sweeps[it->second].points.push_back(std::move(point));
  }
  for (size_t i = first_sweep; i < r.sweeps.size(); ++i) r.sweeps[i].nranks = nranks;
  return Status::Ok();
}

// What the tables read so far say about the run, beyond their rows.
struct RunSoFar {
  const NcclTestsTable* listed = nullptr;  // the first table with device lines
  std::optional<std::string> nccl_version;
  RankCount ranks;
};

// One table into the report: its collective, its rank count (which must agree with the
// tables before it), its settings (the first table's) and its rows.
Status import_table(Report& r, RunSoFar& run, const NcclTestsTable& t, const ImportOptions& o) {
  FABSCOPE_RETURN_IF_ERROR(check_importable(t));
  if (!r.context.imported->version && t.tests_version) r.context.imported->version = t.tests_version;
  if (!run.nccl_version && t.nccl_version) run.nccl_version = t.nccl_version;
  if (!run.listed && !t.devices.empty()) run.listed = &t;
  auto collective = table_collective(t, o);
  if (!collective.ok()) return collective.status();
  // The rank count: from device lines, else from the bandwidths; tables must agree.
  RankCount table{ranks_listed(t), "its '# Rank' lines"};
  if (table.n == 0) {
    if (auto derived = ranks_from_bandwidths(*collective, t.rows))
      table = {*derived, "its bus and algorithm bandwidths"};
  }
  if (table.n > 0 && run.ranks.n > 0 && table.n != run.ranks.n) {
    return Status::Invalid(
        fmt::format("{}: {} ranks by {}, but {} ranks by {} in an earlier table: these are "
                    "different runs; import them separately",
                    where(t), table.n, table.from, run.ranks.n, run.ranks.from));
  }
  if (table.n > 0 && run.ranks.n == 0) run.ranks = table;
  if (!r.sweep_settings && t.params) r.sweep_settings = settings_of(*t.params);
  return add_table_rows(r, t, *collective, table.n > 0 ? table.n : run.ranks.n);
}

// After every table: ranks known late (a later table's device lines) apply to every sweep;
// the hosts and ranks come from the first table that lists devices.
void finish_run(Report& r, const RunSoFar& run) {
  for (Sweep& s : r.sweeps) {
    if (s.nranks == 0) s.nranks = run.ranks.n;
    const CollectiveInfo& ci = info(*collective_from_name(s.collective));
    s.busbw_factor =
        s.nranks > 0 ? busbw_factor(ci.id, s.nranks) : (ci.bus_factor == CollectiveInfo::BusFactor::kOne ? 1.0 : 0.0);
  }
  r.context.nranks = run.ranks.n;
  if (run.nccl_version) r.context.backend_library = "NCCL " + *run.nccl_version;
  if (run.listed) {
    std::map<std::string, int> local;
    for (const NcclTestsDevice& d : run.listed->devices) {
      if (std::find(r.context.hosts.begin(), r.context.hosts.end(), d.host) == r.context.hosts.end()) {
        r.context.hosts.push_back(d.host);
      }
      r.context.ranks.push_back({d.rank, d.host, d.pid, local[d.host]++});
    }
  }
}

}  // namespace

std::optional<int> ranks_from_bandwidths(Collective c, const std::vector<NcclTestsRow>& rows) {
  const CollectiveInfo& info_c = info(c);
  if (info_c.bus_factor == CollectiveInfo::BusFactor::kOne) return std::nullopt;
  // The row with the largest algorithm bandwidth has the most printed digits.
  const NcclTestsPlacement* best = nullptr;
  for (const NcclTestsRow& r : rows) {
    for (const auto* p : {&r.out_of_place, &r.in_place}) {
      if (*p && (!best || (*p)->algbw_gbps > best->algbw_gbps)) best = &**p;
    }
  }
  if (!best || best->algbw_gbps < 0.1) return std::nullopt;
  const double f = best->busbw_gbps / best->algbw_gbps;
  // allreduce: f = 2(n-1)/n; the others: f = (n-1)/n.
  const double denominator = info_c.bus_factor == CollectiveInfo::BusFactor::kAllReduce ? 2 - f : 1 - f;
  if (denominator <= 0) return std::nullopt;
  const double n = (info_c.bus_factor == CollectiveInfo::BusFactor::kAllReduce ? 2 : 1) / denominator;
  const int ranks = static_cast<int>(std::lround(n));
  if (ranks < 2 || ranks > 1000000) return std::nullopt;
  // Every row must agree, to the precision its numbers were printed with.
  const double factor = busbw_factor(c, ranks);
  for (const NcclTestsRow& r : rows) {
    for (const auto* p : {&r.out_of_place, &r.in_place}) {
      if (!*p || (*p)->algbw_gbps < 0.1) continue;
      const double tolerance = 0.006 * (1 + factor) + 2e-3 * (*p)->busbw_gbps;
      if (std::fabs((*p)->algbw_gbps * factor - (*p)->busbw_gbps) > tolerance) return std::nullopt;
    }
  }
  return ranks;
}

Result<Report> import_nccl_tests(const std::vector<ImportSource>& sources, const ImportOptions& o) {
  Report r;
  r.context.backend = "nccl";
  r.context.memory = "cuda";
  r.context.imported = ImportInfo{"nccl-tests", std::nullopt, {}};
  RunSoFar run;
  for (const ImportSource& src : sources) {
    r.context.imported->files.push_back(src.path);
    if (src.tables.empty()) return Status::Invalid(fmt::format("'{}' holds no nccl-tests table", src.path));
    for (const NcclTestsTable& t : src.tables) {
      FABSCOPE_RETURN_IF_ERROR(import_table(r, run, t, o));
    }
  }
  finish_run(r, run);
  return r;
}

}  // namespace fabscope
