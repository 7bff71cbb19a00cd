#include "report/import_osu.h"

#include <fmt/format.h>

#include <map>

#include "coll/collective.h"
#include "core/dtype.h"

namespace fabscope {

namespace {

std::string where(const OsuTable& t) { return fmt::format("'{}' line {}", t.source, t.header_line); }

// OSU's -T datatypes (and the MPI names a later OSU may add) as fabscope's types. A table
// without a "# Datatype:" line is MPI_CHAR, OSU's only type before -T.
Result<DataType> data_type_of(const OsuTable& t) {
  static const std::map<std::string, DataType> kTypes = {
      {"MPI_CHAR", DataType::kInt8},       {"MPI_SIGNED_CHAR", DataType::kInt8},
      {"MPI_INT8_T", DataType::kInt8},     {"MPI_UNSIGNED_CHAR", DataType::kUint8},
      {"MPI_UINT8_T", DataType::kUint8},   {"MPI_INT", DataType::kInt32},
      {"MPI_INT32_T", DataType::kInt32},   {"MPI_UNSIGNED", DataType::kUint32},
      {"MPI_UINT32_T", DataType::kUint32}, {"MPI_LONG_LONG", DataType::kInt64},
      {"MPI_INT64_T", DataType::kInt64},   {"MPI_UNSIGNED_LONG_LONG", DataType::kUint64},
      {"MPI_UINT64_T", DataType::kUint64}, {"MPI_FLOAT", DataType::kFloat},
      {"MPI_DOUBLE", DataType::kDouble}};
  const std::string name = t.datatype.value_or("MPI_CHAR");
  auto it = kTypes.find(name);
  if (it == kTypes.end()) {
    return Status::Invalid(
        fmt::format("'{}' line {}: datatype {} has no fabscope name", t.source, t.datatype_line, name));
  }
  return it->second;
}

// OSU's "Size" is each rank's message for these: nccl-tests' and fabscope's size is the
// whole receive (allgather, gather) or send (alltoall, scatter) buffer, ranks times larger.
bool size_is_per_rank(Collective c) {
  return c == Collective::kAllGather || c == Collective::kAllToAll || c == Collective::kGather ||
         c == Collective::kScatter;
}

// Host buffers, or the device memory OSU's -CUDA build used (-d cuda); "" for the others.
std::string memory_of(const OsuTable& t) {
  if (t.accel.empty()) return "host";
  if (t.accel == "CUDA" || t.accel == "CUDA MANAGED") return "cuda";
  return "";
}

Result<Sweep> sweep_of(const OsuTable& t, Collective c, DataType dtype, int nranks) {
  const CollectiveInfo& ci = info(c);
  Sweep s;
  s.collective = std::string(name(c));
  s.dtype = std::string(name(dtype));
  if (ci.reduces) s.op = "sum";  // every OSU collective benchmark reduces with MPI_SUM
  if (ci.rooted) s.root = 0;     // OSU's default root (-k fixed:N or rotate is not printed)
  s.backend = "mpi";
  s.nranks = nranks;                          // 0: unknown, written as null
  s.iteration_clock = IterationTimer::kHost;  // MPI_Wtime around each call
  s.method = TimingMethod::kOsu;
  s.floor_us = std::nullopt;
  // As import.h: with the rank count unknown the factor is unknown (0), except where it is
  // 1 at any count.
  s.busbw_factor =
      nranks > 0 ? busbw_factor(c, nranks) : (ci.bus_factor == CollectiveInfo::BusFactor::kOne ? 1.0 : 0.0);
  const uint64_t element = element_size(dtype);
  for (const OsuRow& row : t.rows) {
    if (!row.avg_us) return Status::Invalid(fmt::format("'{}' line {}: the row has no latency", t.source, row.line));
    SweepPoint point;
    uint64_t elements = row.size_bytes / element;  // what OSU passes as the count (per rank where per rank)
    point.size_bytes = row.size_bytes;
    if (nranks > 0 && size_is_per_rank(c)) point.size_bytes = row.size_bytes * static_cast<uint64_t>(nranks);
    if (nranks > 0 && c == Collective::kReduceScatter) elements /= static_cast<uint64_t>(nranks);
    point.count = elements;
    PlacementResult p;
    p.time_us = *row.avg_us;
    // Decimal GB/s, as nccl-tests and fabscope: bytes / seconds / 1e9.
    p.algbw_gbps = p.time_us > 0 ? static_cast<double>(point.size_bytes) / p.time_us / 1e3 : 0;
    p.busbw_gbps = p.algbw_gbps * s.busbw_factor;
    if (row.valid) p.wrong = *row.valid ? 0 : 1;  // OSU says Pass or Fail, not how many were wrong
    p.iterations = row.iterations ? static_cast<int>(*row.iterations) : 0;
    p.iteration_us = std::nullopt;  // see import_osu.h: OSU's -f and -z figures are other statistics
    point.out_of_place = std::move(p);
    s.points.push_back(std::move(point));
  }
  return s;
}

Result<P2pSection> p2p_of(const OsuTable& t) {
  P2pSection s;
  s.pattern = P2pPattern::kPair;
  s.mode = t.benchmark.p2p_mode.value_or(P2pMode::kLatency);
  s.backend = "mpi";
  s.method = TimingMethod::kOsu;
  // osu_bw and osu_bibw keep 64 messages in flight (their default -W, not printed);
  // osu_latency one.
  s.window = s.mode == P2pMode::kLatency ? 1 : 64;
  s.warmup_iters = 0;  // OSU's -x warm-up count is not printed: unknown
  s.repeats = 1;
  s.floor_us = std::nullopt;
  for (const OsuRow& row : t.rows) {
    if (row.valid && !*row.valid) {
      return Status::Invalid(fmt::format(
          "'{}' line {}: {} reports a failed validation at {} bytes; a p2p link cannot carry it: fix the run first",
          t.source, row.line, t.benchmark.program, row.size_bytes));
    }
    P2pLink l;
    l.round = 0;
    l.repeat = 0;
    l.src_rank = 0;
    l.dst_rank = 1;
    l.size_bytes = row.size_bytes;
    l.iterations = 0;  // not printed: unknown
    if (s.mode == P2pMode::kLatency) {
      if (!row.avg_us) return Status::Invalid(fmt::format("'{}' line {}: the row has no latency", t.source, row.line));
      l.lat_us = *row.avg_us;  // OSU's mean half round trip; per-message statistics unknown
      s.links.push_back(std::move(l));
      continue;
    }
    if (!row.bw_mbytes_per_s) {
      return Status::Invalid(fmt::format("'{}' line {}: the row has no bandwidth", t.source, row.line));
    }
    // OSU's MB/s is 1e6 bytes per second (osu_bw.c: size / 1e6 * window * iterations / t).
    // osu_bibw's sum of both directions: half each way.
    const double mbytes = *row.bw_mbytes_per_s / (s.mode == P2pMode::kBidirectional ? 2 : 1);
    l.bw_gbps = mbytes / 1e3;
    // Computed, not printed: MB/s / bytes per message = millions of messages per second.
    if (row.size_bytes > 0) l.msg_rate_mpps = mbytes / static_cast<double>(row.size_bytes);
    s.links.push_back(l);
    if (s.mode == P2pMode::kBidirectional) {
      std::swap(l.src_rank, l.dst_rank);
      s.links.push_back(std::move(l));
    }
  }
  return s;
}

}  // namespace

Result<Report> import_osu(const std::vector<OsuSource>& sources, const OsuImportOptions& o) {
  if (o.nranks < 0) {
    return Status::Invalid(
        fmt::format("a rank count of {} is not allowed: give a positive count, or 0 for unknown", o.nranks));
  }
  Report r;
  r.context.backend = "mpi";
  r.context.nranks = o.nranks;
  r.context.imported = ImportInfo{"osu-micro-benchmarks", std::nullopt, {}};
  const OsuTable* first = nullptr;
  const OsuTable* p2p_table = nullptr;
  std::map<std::string, const OsuTable*> sweep_table;  // "collective|dtype" -> its table
  for (const OsuSource& src : sources) {
    r.context.imported->files.push_back(src.path);
    if (src.tables.empty()) return Status::Invalid(fmt::format("'{}' holds no OSU table", src.path));
    for (const OsuTable& t : src.tables) {
      if (t.rows.empty()) return Status::Invalid(fmt::format("{}: the table has no rows", where(t)));
      if (!first) {
        first = &t;
        r.context.memory = memory_of(t);
      } else if (t.accel != first->accel) {
        return Status::Invalid(fmt::format("{}: '{}' ran on {} buffers, but {}: '{}' on {}: import them separately",
                                           where(t), t.title, t.accel.empty() ? "host" : t.accel, where(*first),
                                           first->title, first->accel.empty() ? "host" : first->accel));
      }
      if (!r.context.imported->version && t.version) r.context.imported->version = t.version;
      if (!t.benchmark.collective) {
        if (p2p_table) {
          const OsuTable& p = *p2p_table;
          if (p.benchmark.p2p_mode == t.benchmark.p2p_mode) {
            return Status::Invalid(fmt::format(
                "{}: a second {} table (the first is {}): a report's p2p section holds one; import them separately",
                where(t), t.benchmark.program, where(p)));
          }
          return Status::Invalid(fmt::format(
              "{}: {}'s table (mode {}) and {}: {}'s (mode {}): a report's p2p section has one mode; import them "
              "separately",
              where(t), t.benchmark.program, name(t.benchmark.p2p_mode.value_or(P2pMode::kLatency)), where(p),
              p.benchmark.program, name(p.benchmark.p2p_mode.value_or(P2pMode::kLatency))));
        }
        p2p_table = &t;
        auto p2p = p2p_of(t);
        if (!p2p.ok()) return p2p.status();
        r.p2p = std::move(*p2p);
        continue;
      }
      const Collective c = *t.benchmark.collective;
      auto dtype = data_type_of(t);
      if (!dtype.ok()) return dtype.status();
      const std::string key = fmt::format("{}|{}", name(c), name(*dtype));
      auto [it, added] = sweep_table.emplace(key, &t);
      if (!added) {
        return Status::Invalid(fmt::format("{}: a second {} {} table (the first is {}): import them separately",
                                           where(t), name(c), name(*dtype), where(*it->second)));
      }
      auto sweep = sweep_of(t, c, *dtype, o.nranks);
      if (!sweep.ok()) return sweep.status();
      r.sweeps.push_back(std::move(*sweep));
    }
  }
  if (!first) return Status::Invalid("no OSU file given");
  return r;
}

}  // namespace fabscope
