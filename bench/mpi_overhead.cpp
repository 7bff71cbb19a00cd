// What timing a collective through fabscope costs, against a bare MPI timing loop.
//
// For allreduce (float, sum) at a few sizes, one run alternates two measurements of
// the same thing several times, so that machine noise hits both alike:
//   bare:     MPI_Barrier, then N back-to-back MPI_Allreduce calls on host buffers
//             (out of place), time = loop time / N, mean over ranks (nccl-tests' default);
//   fabscope: fabscope::run_sweeps with the mpi backend at that one size, N iterations,
//             out-of-place time_us (the same figure: loop time / N, mean over ranks).
// Rank 0 prints the median of each per size and the ratio fabscope / bare; at 1 MiB and
// above the target is a ratio <= 1.03. Missing the target is reported, not an error.
//
// --control replaces fabscope by a second bare loop: an A/A run that shows how far the
// ratio strays from 1 on this machine through noise alone.
//
//   mpirun -np 4 fabscope_bench_mpi_overhead [--reps N] [--iters N] [--json PATH] [--control]

#include <mpi.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "backend/mpi/mpi_backend.h"
#include "comm/context.h"
#include "core/atomic_file.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "soak/soak.h"

namespace {

using fabscope::Result;
using fabscope::Status;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kSizes[] = {64 * kKiB, 1 * kMiB, 4 * kMiB, 16 * kMiB, 64 * kMiB};
constexpr uint64_t kTargetFromBytes = 1 * kMiB;  // the target applies from this size up
constexpr double kTargetRatio = 1.03;
constexpr int kDefaultReps = 9;
// Iterations per measurement: about this many bytes per rank, within [kMinIters, kMaxIters],
// which keeps a 4-rank run on a 2-core machine well under two minutes.
constexpr uint64_t kBytesPerMeasurement = 256 * kMiB;
constexpr int kMinIters = 5;
constexpr int kMaxIters = 200;

constexpr const char* kUsage =
    "usage: mpirun -np N fabscope_bench_mpi_overhead [--reps N] [--iters N] [--json PATH] [--control]\n"
    "  --reps N    alternating repetitions of each measurement (default 9)\n"
    "  --iters N   iterations per measurement at every size (default: by size, 5 to 200)\n"
    "  --json PATH also write the figures as JSON to PATH\n"
    "  --control   time a second bare loop in fabscope's place (A/A: the noise floor)\n";

struct Args {
  bool help = false;
  bool control = false;  // the "fabscope" column is a second bare loop
  int reps = kDefaultReps;
  std::optional<int> iters;  // the same count at every size, instead of the default
  std::string json_path;
};

Result<int> parse_positive(std::string_view flag, std::string_view text) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1) {
    return Status::Invalid(fmt::format("{} {} is not allowed; use an integer >= 1", flag, text));
  }
  return v;
}

Result<Args> parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    if (flag == "-h" || flag == "--help" || flag == "--control") {
      (flag == "--control" ? a.control : a.help) = true;
      continue;
    }
    if (i + 1 >= argc) return Status::Invalid(fmt::format("{} needs a value (try --help)", flag));
    std::string_view value = argv[++i];
    if (flag == "--reps") {
      auto v = parse_positive(flag, value);
      if (!v.ok()) return v.status();
      a.reps = *v;
    } else if (flag == "--iters") {
      auto v = parse_positive(flag, value);
      if (!v.ok()) return v.status();
      a.iters = *v;
    } else if (flag == "--json") {
      a.json_path = std::string(value);
    } else {
      return Status::Invalid(fmt::format("unknown argument {} (try --help)", flag));
    }
  }
  return a;
}

int iters_for(uint64_t bytes, const Args& args) {
  if (args.iters) return *args.iters;
  return static_cast<int>(std::clamp<uint64_t>(kBytesPerMeasurement / bytes, kMinIters, kMaxIters));
}

Status mpi_ok(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return Status::Ok();
  return Status::Runtime(fmt::format("{} failed with MPI error {}", call, rc));
}

// The bare loop's buffers: as the sweep's (send and receive of `bytes` each, page
// aligned, every page touched before timing), filled with small integers so the sum
// stays exact and never denormal, as fabscope's pattern does.
class BareBuffers {
 public:
  static Result<BareBuffers> create(uint64_t bytes) {
    BareBuffers b;
    b.count_ = bytes / sizeof(float);
    const size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
    b.send_.reset(static_cast<float*>(std::aligned_alloc(kAlign, rounded)));
    b.recv_.reset(static_cast<float*>(std::aligned_alloc(kAlign, rounded)));
    if (!b.send_ || !b.recv_) {
      return Status::Runtime(fmt::format("cannot allocate 2 x {} of host memory", fabscope::format_size(bytes)));
    }
    for (size_t i = 0; i < b.count_; ++i) b.send_.get()[i] = static_cast<float>(static_cast<int>(i % 17) - 8);
    std::memset(b.recv_.get(), 0, rounded);
    return b;
  }
  const float* send() const { return send_.get(); }
  float* recv() { return recv_.get(); }
  int count() const { return static_cast<int>(count_); }

 private:
  static constexpr size_t kAlign = 4096;
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  BareBuffers() = default;
  size_t count_ = 0;
  std::unique_ptr<float, Free> send_;
  std::unique_ptr<float, Free> recv_;
};

// (a) The bare loop, as nccl-tests times: one untimed call, barrier, N calls, mean over ranks.
Result<double> time_bare(MPI_Comm comm, BareBuffers& buf, int iters) {
  FABSCOPE_RETURN_IF_ERROR(
      mpi_ok(MPI_Allreduce(buf.send(), buf.recv(), buf.count(), MPI_FLOAT, MPI_SUM, comm), "MPI_Allreduce"));
  FABSCOPE_RETURN_IF_ERROR(mpi_ok(MPI_Barrier(comm), "MPI_Barrier"));
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    FABSCOPE_RETURN_IF_ERROR(
        mpi_ok(MPI_Allreduce(buf.send(), buf.recv(), buf.count(), MPI_FLOAT, MPI_SUM, comm), "MPI_Allreduce"));
  }
  const double sec = (MPI_Wtime() - t0) / iters;
  double sum = 0;
  FABSCOPE_RETURN_IF_ERROR(mpi_ok(MPI_Allreduce(&sec, &sum, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce"));
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  return sum / nranks * 1e6;
}

// (b) The same measurement through fabscope's sweep and mpi backend.
Result<double> time_fabscope(const fabscope::RankContext& ctx, fabscope::Backend& backend,
                             const fabscope::SweepOptions& options) {
  auto sweeps = fabscope::run_sweeps(ctx, backend, options, nullptr, nullptr);
  if (!sweeps.ok()) return sweeps.status();
  if (sweeps->size() != 1 || sweeps->front().points.size() != 1 || !sweeps->front().points[0].out_of_place) {
    return Status::Runtime("run_sweeps did not return exactly one out-of-place point");
  }
  return sweeps->front().points[0].out_of_place->time_us;
}

fabscope::SweepOptions sweep_options(uint64_t bytes, int iters) {
  fabscope::SweepOptions o;
  o.collectives = {fabscope::Collective::kAllReduce};
  o.dtypes = {fabscope::DataType::kFloat};
  o.ops = {fabscope::ReduceOp::kSum};
  o.sizes.min_bytes = bytes;
  o.sizes.max_bytes = bytes;
  o.iters = iters;
  o.warmup_iters = 1;
  o.check_iters = 0;
  o.average = fabscope::RankReduction::kMean;
  return o;
}

struct SizeResult {
  uint64_t bytes = 0;
  int iters = 0;
  std::vector<double> bare_us;      // one per repetition
  std::vector<double> fabscope_us;  // one per repetition
  double bare_median = 0;
  double fabscope_median = 0;
  double ratio = 0;         // fabscope_median / bare_median: what the target judges
  double paired_ratio = 0;  // median over repetitions of fabscope / bare measured side by side
  std::optional<bool> met;  // absent below the size the target applies to
};

// Alternates the two measurements, swapping which goes first every repetition
// (a b, b a, a b, ...), so that neither always follows the other.
Result<SizeResult> measure_size(const fabscope::RankContext& ctx, fabscope::Backend& backend, uint64_t bytes,
                                const Args& args) {
  SizeResult r;
  r.bytes = bytes;
  r.iters = iters_for(bytes, args);
  const fabscope::SweepOptions options = sweep_options(bytes, r.iters);
  auto buf = BareBuffers::create(bytes);
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(buf.ok() ? Status::Ok() : buf.status()));
  auto bare = [&]() -> Status {
    auto us = time_bare(MPI_COMM_WORLD, *buf, r.iters);
    if (!us.ok()) return us.status();
    r.bare_us.push_back(*us);
    return Status::Ok();
  };
  auto fab = [&]() -> Status {
    auto us = args.control ? time_bare(MPI_COMM_WORLD, *buf, r.iters) : time_fabscope(ctx, backend, options);
    if (!us.ok()) return us.status();
    r.fabscope_us.push_back(*us);
    return Status::Ok();
  };
  for (int rep = 0; rep < args.reps; ++rep) {
    FABSCOPE_RETURN_IF_ERROR(rep % 2 == 0 ? bare() : fab());
    FABSCOPE_RETURN_IF_ERROR(rep % 2 == 0 ? fab() : bare());
  }
  std::vector<double> ratios;
  for (size_t i = 0; i < r.bare_us.size(); ++i) {
    if (r.bare_us[i] > 0) ratios.push_back(r.fabscope_us[i] / r.bare_us[i]);
  }
  r.bare_median = fabscope::median(r.bare_us);
  r.fabscope_median = fabscope::median(r.fabscope_us);
  r.ratio = r.bare_median > 0 ? r.fabscope_median / r.bare_median : 0;
  r.paired_ratio = fabscope::median(ratios);
  if (bytes >= kTargetFromBytes) r.met = r.ratio <= kTargetRatio;
  return r;
}

std::string verdict(const SizeResult& r) {
  if (!r.met) return "reference";
  return *r.met ? "met" : "MISSED";
}

void print_header(const fabscope::RankContext& ctx, const fabscope::Backend& backend, const Args& args) {
  std::printf(
      "# fabscope_bench_mpi_overhead: allreduce float sum, out of place, %d ranks (%d on this host, %u cores)\n",
      ctx.size(), ctx.local_size(), std::thread::hardware_concurrency());
  std::printf("# %s; %d alternating repetitions of bare and fabscope; times are medians over them\n",
              backend.library().c_str(), args.reps);
  if (args.control) std::printf("# CONTROL RUN: the fabscope column is a second bare MPI loop\n");
  std::printf("# ratio = fabscope_us / bare_us (target <= %.2f from %s up); paired = median of per-repetition ratios\n",
              kTargetRatio, fabscope::format_size(kTargetFromBytes).c_str());
  std::printf("%10s %6s %12s %12s %7s %7s  %s\n", "size", "iters", "bare_us", "fabscope_us", "ratio", "paired",
              "target");
  std::fflush(stdout);
}

void print_row(const SizeResult& r) {
  std::printf("%10s %6d %12.1f %12.1f %7.3f %7.3f  %s\n", fabscope::format_size(r.bytes).c_str(), r.iters,
              r.bare_median, r.fabscope_median, r.ratio, r.paired_ratio, verdict(r).c_str());
  std::fflush(stdout);
}

std::string to_json(const fabscope::RankContext& ctx, const fabscope::Backend& backend, const Args& args,
                    const std::vector<SizeResult>& results) {
  nlohmann::json j;
  j["benchmark"] = "fabscope_bench_mpi_overhead";
  j["collective"] = "allreduce";
  j["dtype"] = "float";
  j["op"] = "sum";
  j["placement"] = "out_of_place";
  j["average"] = "mean";
  j["nranks"] = ctx.size();
  j["local_ranks"] = ctx.local_size();
  j["host"] = ctx.host();
  j["mpi_library"] = backend.library();
  j["repetitions"] = args.reps;
  j["control"] = args.control;
  j["target_ratio"] = kTargetRatio;
  j["target_from_bytes"] = kTargetFromBytes;
  j["sizes"] = nlohmann::json::array();
  for (const SizeResult& r : results) {
    nlohmann::json s;
    s["size_bytes"] = r.bytes;
    s["iters"] = r.iters;
    s["bare_us"] = r.bare_median;
    s["fabscope_us"] = r.fabscope_median;
    s["ratio"] = r.ratio;
    s["paired_ratio"] = r.paired_ratio;
    s["met_target"] = r.met ? nlohmann::json(*r.met) : nlohmann::json(nullptr);
    s["bare_samples_us"] = r.bare_us;
    s["fabscope_samples_us"] = r.fabscope_us;
    j["sizes"].push_back(std::move(s));
  }
  return j.dump(2) + "\n";
}

Status run(const fabscope::RankContext& ctx, const Args& args) {
  if (!args.json_path.empty()) {
    Status writable = ctx.rank() == 0 ? fabscope::check_writable(args.json_path) : Status::Ok();
    FABSCOPE_RETURN_IF_ERROR(ctx.agree(writable));
  }
  auto backend = fabscope::create_mpi_backend(ctx);
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(backend.ok() ? Status::Ok() : backend.status()));
  if (ctx.rank() == 0) print_header(ctx, **backend, args);

  std::vector<SizeResult> results;
  for (uint64_t bytes : kSizes) {
    auto r = measure_size(ctx, **backend, bytes, args);
    if (!r.ok()) return r.status();
    if (ctx.rank() == 0) print_row(*r);
    results.push_back(std::move(*r));
  }

  if (ctx.rank() == 0) {
    int missed = 0;
    for (const SizeResult& r : results) missed += r.met && !*r.met ? 1 : 0;
    const std::string summary =
        missed == 0 ? fmt::format("target met at every size from {} up", fabscope::format_size(kTargetFromBytes))
                    : fmt::format("target missed at {} size(s)", missed);
    std::printf("# %s\n", summary.c_str());
    if (!args.json_path.empty()) {
      FABSCOPE_RETURN_IF_ERROR(fabscope::write_file_atomically(args.json_path, to_json(ctx, **backend, args, results)));
      std::printf("# wrote %s\n", args.json_path.c_str());
    }
  }
  return Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  auto ctx = fabscope::RankContext::create(&argc, &argv);
  if (!ctx.ok()) {
    std::fprintf(stderr, "fabscope_bench_mpi_overhead: %s\n", ctx.status().message().c_str());
    return 1;
  }
  const fabscope::RankContext& c = **ctx;
  // Every rank reads the same arguments, so all agree on whether they are valid.
  auto args = parse_args(argc, argv);
  if (!args.ok() || args->help) {
    if (c.rank() == 0) {
      if (args.ok())
        std::fputs(kUsage, stdout);
      else
        std::fprintf(stderr, "fabscope_bench_mpi_overhead: %s\n", args.status().message().c_str());
    }
    return args.ok() ? 0 : 2;
  }
  Status st = run(c, *args);
  if (!st.ok()) {
    std::fprintf(stderr, "fabscope_bench_mpi_overhead: rank %d: %s\n", c.rank(), st.message().c_str());
    std::fflush(stderr);
    // A failure on one rank can leave the others inside a collective: end the whole job.
    c.abort(1);
  }
  return 0;
}
