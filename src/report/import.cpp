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
  const NcclTestsTable* listed = nullptr;  // the first table with device lines
  std::optional<std::string> nccl_version;
  int nranks = 0;
  std::string nranks_from;
  for (const ImportSource& src : sources) {
    r.context.imported->files.push_back(src.path);
    if (src.tables.empty()) return Status::Invalid(fmt::format("'{}' holds no nccl-tests table", src.path));
    for (const NcclTestsTable& t : src.tables) {
      if (t.cpu_time) {
        return Status::Invalid(fmt::format(
            "{}: this table reports cputime (-C): the host's enqueue time, not the collective's; fabscope imports "
            "only tables of the collective's time",
            where(t)));
      }
      if (t.rows.empty()) return Status::Invalid(fmt::format("{}: the table has no rows", where(t)));
      if (!r.context.imported->version && t.tests_version) r.context.imported->version = t.tests_version;
      if (!nccl_version && t.nccl_version) nccl_version = t.nccl_version;
      if (!listed && !t.devices.empty()) listed = &t;
      auto collective = table_collective(t, o);
      if (!collective.ok()) return collective.status();
      // The rank count: from device lines, else from the bandwidths; tables must agree.
      int n = ranks_listed(t);
      std::string from = "its '# Rank' lines";
      if (n == 0) {
        if (auto derived = ranks_from_bandwidths(*collective, t.rows)) {
          n = *derived;
          from = "its bus and algorithm bandwidths";
        }
      }
      if (n > 0 && nranks > 0 && n != nranks) {
        return Status::Invalid(
            fmt::format("{}: {} ranks by {}, but {} ranks by {} in an earlier table: these are "
                        "different runs; import them separately",
                        where(t), n, from, nranks, nranks_from));
      }
      if (n > 0 && nranks == 0) {
        nranks = n;
        nranks_from = from;
      }
      if (!r.sweep_settings && t.params) {
        const NcclTestsParams& p = *t.params;
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
        r.sweep_settings = s;
      }
      const int iterations = t.params && t.params->iters ? *t.params->iters * t.params->agg_iters.value_or(1) : 0;
      // Rows of one (type, redop, root) are one sweep, in the order they first appear.
      std::map<std::string, size_t> sweep_of;
      const size_t first_sweep = r.sweeps.size();
      for (const NcclTestsRow& row : t.rows) {
        auto dtype = data_type_from_name(row.type);
        if (!dtype.ok()) {
          return Status::Invalid(fmt::format("'{}' line {}: type '{}' has no fabscope name; fabscope knows {}",
                                             t.source, row.line, row.type, data_type_names()));
        }
        std::optional<std::string> op;
        if (row.redop != "none") {
          auto parsed = reduce_op_from_name(row.redop);
          if (!parsed.ok()) {
            return Status::Invalid(fmt::format("'{}' line {}: redop '{}' has no fabscope name; fabscope knows {}",
                                               t.source, row.line, row.redop, reduce_op_names()));
          }
          op = std::string(name(*parsed));
        } else if (info(*collective).reduces) {
          return Status::Invalid(fmt::format("'{}' line {}: {} reduces, but the row's redop is 'none'", t.source,
                                             row.line, name(*collective)));
        }
        std::optional<int> root;
        if (row.root && *row.root >= 0) root = *row.root;
        const std::string key = fmt::format("{}|{}|{}", name(*dtype), op.value_or(""), root.value_or(-1));
        auto [it, added] = sweep_of.emplace(key, r.sweeps.size());
        if (added) {
          Sweep s;
          s.collective = std::string(name(*collective));
          s.dtype = std::string(name(*dtype));
          s.op = op;
          s.backend = "nccl";
          s.root = root;
          s.iteration_clock = "host";
          r.sweeps.push_back(std::move(s));
        }
        SweepPoint point;
        point.size_bytes = row.size_bytes;
        point.count = row.count;
        auto placement = [&](const std::optional<NcclTestsPlacement>& in) -> std::optional<PlacementResult> {
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
        };
        point.out_of_place = placement(row.out_of_place);
        point.in_place = placement(row.in_place);
        r.sweeps[it->second].points.push_back(std::move(point));
      }
      for (size_t i = first_sweep; i < r.sweeps.size(); ++i) r.sweeps[i].nranks = n > 0 ? n : nranks;
    }
  }
  // Ranks known late (a later table's device lines) apply to every sweep.
  for (Sweep& s : r.sweeps) {
    if (s.nranks == 0) s.nranks = nranks;
    const CollectiveInfo& ci = info(*collective_from_name(s.collective));
    s.busbw_factor =
        s.nranks > 0 ? busbw_factor(ci.id, s.nranks) : (ci.bus_factor == CollectiveInfo::BusFactor::kOne ? 1.0 : 0.0);
  }
  r.context.nranks = nranks;
  if (nccl_version) r.context.backend_library = "NCCL " + *nccl_version;
  if (listed) {
    std::map<std::string, int> local;
    for (const NcclTestsDevice& d : listed->devices) {
      if (std::find(r.context.hosts.begin(), r.context.hosts.end(), d.host) == r.context.hosts.end()) {
        r.context.hosts.push_back(d.host);
      }
      r.context.ranks.push_back({d.rank, d.host, d.pid, local[d.host]++});
    }
  }
  return r;
}

}  // namespace fabscope
