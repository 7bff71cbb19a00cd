// Integration tests under mpirun (ctest runs them at 1, 2, 3 and 4 ranks): every
// collective over the mpi backend verifies correct, and a planted wrong value is
// caught on exactly the rank that received it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <thread>
#include <variant>

#include "backend/registry.h"
#include "comm/context.h"
#include "core/clock.h"
#include "diag/findings.h"
#include "mpi_gtest.h"
#include "report/report.h"
#include "soak/soak.h"

namespace fabscope {
namespace {

// The named backend, or a fatal test failure (nothing is dereferenced after one).
void make_backend(const std::string& name, std::unique_ptr<Backend>& out) {
  auto entry = select_backend(name);
  ASSERT_TRUE(entry.ok()) << entry.status().message();
  auto b = (*entry)->create(*g_ctx, BackendOptions{}, Logger());
  ASSERT_TRUE(b.ok()) << b.status().message();
  out = std::move(*b);
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
  std::unique_ptr<Backend> b;
  make_backend(name, b);
  if (!b) throw std::runtime_error("backend '" + name + "' could not be created");  // after the fatal failure above
  return b;
}

// Every test runs on each backend: MPI's collectives and fabscope's own over TCP.
class BackendSweep : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Backend> backend() const { return make_backend(GetParam()); }
};

// Forwards every call to a real backend; the wrappers below override what they change.
class ForwardingBackend : public Backend {
 public:
  explicit ForwardingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return inner_->name(); }
  std::string library() const override { return inner_->library(); }
  Memory& memory() override { return inner_->memory(); }
  uint64_t max_count() const override { return inner_->max_count(); }
  Status wait() override { return inner_->wait(); }
  size_t inplace_output_offset(Collective c, int rank, const ElementCounts& e) const override {
    return inner_->inplace_output_offset(c, rank, e);
  }
  Status run(const CollCall& call) override { return inner_->run(call); }
  Status prepare(const CollCall& call) override { return inner_->prepare(call); }

 protected:
  std::unique_ptr<Backend> inner_;
};

// Flips one byte of the result on one rank: what a bad link, NIC or memory would do.
class CorruptingBackend final : public ForwardingBackend {
 public:
  CorruptingBackend(std::unique_ptr<Backend> inner, int rank, int target)
      : ForwardingBackend(std::move(inner)), rank_(rank), target_(target) {}
  Status run(const CollCall& call) override {
    Status s = inner_->run(call);
    if (s.ok() && rank_ == target_ && call.count > 0) static_cast<unsigned char*>(call.recv)[0] ^= 0x5a;
    return s;
  }

 private:
  int rank_;
  int target_;
};

// Gives one rank 4 ms of other work after every call, so it comes late to the next
// one: a straggler (compute skew), not a slow link.
class LateBackend final : public ForwardingBackend {
 public:
  // 12 ms: at 4 ms, a clean-clone CI (02ced2f) saw rank 0 held off its core for 2.7 ms of
  // each iteration beside another test, and the late rank no longer held the others back
  // three times longer than it; a scheduler's slices on a loaded 2-core machine are a few ms.
  static constexpr int kLateMs = 12;
  LateBackend(std::unique_ptr<Backend> inner, bool late) : ForwardingBackend(std::move(inner)), late_(late) {}
  Status run(const CollCall& call) override {
    Status s = inner_->run(call);
    if (late_) std::this_thread::sleep_for(std::chrono::milliseconds(kLateMs));
    return s;
  }

 private:
  bool late_;
};

// Wraps a real backend and behaves like one that runs on a device stream: run() only
// queues the call, and wait() runs the queue in order. Behind the same interface as
// nccl it offers an iteration clock (markers stamped by the host when the queue
// reaches them) and capture (calls recorded once, replayed by each launch). CUDA
// cannot run here; this drives the sweep's -z, -G and clock paths over real MPI.
class StreamBackend final : public Backend {
 public:
  explicit StreamBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)), clock_(*this) {}
  std::string_view name() const override { return inner_->name(); }
  Status prepare(const CollCall& call) override { return inner_->prepare(call); }
  std::string library() const override { return inner_->library(); }
  Memory& memory() override { return inner_->memory(); }
  uint64_t max_count() const override { return inner_->max_count(); }
  size_t inplace_output_offset(Collective c, int rank, const ElementCounts& e) const override {
    return inner_->inplace_output_offset(c, rank, e);
  }
  Status run(const CollCall& call) override {
    (capturing_ ? captured_ : queue_).emplace_back(call);
    return Status::Ok();
  }
  Status wait() override {
    for (const Item& item : queue_) {
      if (const CollCall* c = std::get_if<CollCall>(&item)) {
        ++executed_;
        FABSCOPE_RETURN_IF_ERROR(inner_->run(*c));
        FABSCOPE_RETURN_IF_ERROR(inner_->wait());
      } else {
        clock_.stamp(std::get<size_t>(item));
      }
    }
    queue_.clear();
    return Status::Ok();
  }
  IterationClock* iteration_clock() override { return &clock_; }
  bool can_capture() const override { return true; }
  Result<std::unique_ptr<CapturedWork>> capture(const std::function<Status()>& enqueue) override {
    captured_.clear();
    capturing_ = true;
    Status s = enqueue();
    capturing_ = false;
    if (!s.ok()) return s;
    ++captures_;
    return std::unique_ptr<CapturedWork>(new Replay(*this, captured_));
  }
  int executed() const { return executed_; }
  int captures() const { return captures_; }
  size_t queued() const { return queue_.size(); }

 private:
  using Item = std::variant<CollCall, size_t>;

  // Markers stamped by the host when the queue reaches them.
  class Clock final : public IterationClock {
   public:
    explicit Clock(StreamBackend& b) : b_(b) {}
    // It stands in for a device's event clock: the report names it as one.
    IterationTimer kind() const override { return IterationTimer::kCudaEvent; }
    Status reset(size_t count) override {
      stamps_.assign(count, std::numeric_limits<double>::quiet_NaN());
      return Status::Ok();
    }
    Status mark(size_t index) override {
      if (index >= stamps_.size()) return Status::Runtime("marker out of range");
      (b_.capturing_ ? b_.captured_ : b_.queue_).emplace_back(index);
      return Status::Ok();
    }
    Result<double> elapsed_us(size_t from, size_t to) override {
      if (std::isnan(stamps_.at(from)) || std::isnan(stamps_.at(to))) return Status::Runtime("marker not reached");
      return stamps_[to] - stamps_[from];
    }
    void stamp(size_t index) { stamps_.at(index) = static_cast<double>(steady_now_ns()) * 1e-3; }

   private:
    StreamBackend& b_;
    std::vector<double> stamps_;
  };

  class Replay final : public CapturedWork {
   public:
    Replay(StreamBackend& b, std::vector<Item> items) : b_(b), items_(std::move(items)) {}
    Status launch() override {
      for (const Item& i : items_) b_.queue_.push_back(i);
      return Status::Ok();
    }

   private:
    StreamBackend& b_;
    std::vector<Item> items_;
  };

  std::unique_ptr<Backend> inner_;
  Clock clock_;
  std::vector<Item> queue_;
  std::vector<Item> captured_;
  bool capturing_ = false;
  int executed_ = 0;
  int captures_ = 0;
};

SweepOptions small_options(std::vector<Collective> colls) {
  SweepOptions o;
  o.collectives = std::move(colls);
  o.sizes = {0, 64 * 1024, 0, 4};
  o.sizes.min_bytes = 16;
  o.iters = 2;
  o.warmup_iters = 1;
  o.check_iters = 2;
  return o;
}

TEST_P(BackendSweep, EveryCollectiveDtypeAndOpVerifiesCorrect) {
  auto backend = this->backend();
  SweepOptions o = small_options({});
  for (const auto& c : all_collectives()) o.collectives.push_back(c.id);
  o.dtypes = {DataType::kInt8,     DataType::kUint32, DataType::kInt64, DataType::kHalf,
              DataType::kBfloat16, DataType::kFloat,  DataType::kDouble};
  o.ops = {kAllReduceOps.begin(), kAllReduceOps.end()};
  o.root = g_ctx->size() - 1;
  o.sizes.max_bytes = 8 * 1024 + 8;  // not a power of two nor divisible by every rank count
  o.sizes.min_bytes = 8;
  o.sizes.step_factor = 1;
  o.sizes.step_bytes = 4096;
  auto sweeps = run_sweeps(*g_ctx, *backend, o, nullptr, nullptr);
  ASSERT_TRUE(sweeps.ok()) << sweeps.status().message();
  size_t expected = 0;
  for (Collective c : o.collectives) expected += o.dtypes.size() * (info(c).reduces ? o.ops.size() : 1);
  ASSERT_EQ(sweeps->size(), expected);
  for (const Sweep& s : *sweeps) {
    ASSERT_EQ(s.points.size(), 3u);
    for (const SweepPoint& p : s.points) {
      for (const auto* pl : {&p.out_of_place, &p.in_place}) {
        ASSERT_TRUE(pl->has_value());
        ASSERT_TRUE((*pl)->wrong.has_value());
        EXPECT_EQ(*(*pl)->wrong, 0) << s.collective << " " << s.dtype << " " << s.op.value_or("-") << " "
                                    << p.size_bytes << (pl == &p.in_place ? " in place" : " out of place");
        EXPECT_TRUE((*pl)->wrong_ranks.empty());
        EXPECT_GT((*pl)->time_us, 0);
      }
    }
  }
}

TEST_P(BackendSweep, TimingFieldsAreConsistent) {
  auto backend = this->backend();
  SweepOptions o = small_options({Collective::kAllGather});
  o.iters = 5;
  auto sweeps = run_sweeps(*g_ctx, *backend, o, nullptr, nullptr);
  ASSERT_TRUE(sweeps.ok()) << sweeps.status().message();
  for (const SweepPoint& p : (*sweeps)[0].points) {
    const PlacementResult& r = *p.out_of_place;
    Bandwidth bw = bandwidth(Collective::kAllGather, p.count, 4, r.time_us * 1e-6, g_ctx->size());
    EXPECT_DOUBLE_EQ(r.algbw_gbps, bw.algbw_gbps);
    EXPECT_DOUBLE_EQ(r.busbw_gbps, bw.busbw_gbps);
    EXPECT_EQ(r.iterations, 5);
    if (g_ctx->rank() == 0) {
      ASSERT_EQ(r.per_rank.size(), static_cast<size_t>(g_ctx->size()));
      EXPECT_LE(r.iteration_us->min_us, r.iteration_us->median_us);
      EXPECT_LE(r.iteration_us->median_us, r.iteration_us->max_us);
      for (const RankTiming& t : r.per_rank) EXPECT_LE(t.median_us, r.iteration_us->max_us);
    }
  }
}

TEST_P(BackendSweep, PlantedWrongValueIsCaughtOnTheRankThatReceivedIt) {
  const int target = g_ctx->size() - 1;
  CorruptingBackend backend(this->backend(), g_ctx->rank(), target);
  SweepOptions o = small_options({Collective::kAllReduce, Collective::kAllGather});
  auto sweeps = run_sweeps(*g_ctx, backend, o, nullptr, nullptr);
  ASSERT_TRUE(sweeps.ok()) << sweeps.status().message();
  for (const Sweep& s : *sweeps) {
    for (const SweepPoint& p : s.points) {
      if (p.count == 0) continue;
      for (const auto* pl : {&p.out_of_place, &p.in_place}) {
        EXPECT_EQ((*pl)->wrong, 1) << s.collective << " " << p.size_bytes;
        // Which ranks saw wrong data is gathered to rank 0, which writes the report.
        if (g_ctx->rank() == 0) {
          EXPECT_EQ((*pl)->wrong_ranks, std::vector<int>{target});
        }
      }
    }
  }
  if (g_ctx->rank() != 0) return;
  Report report;
  for (const RankInfo& r : g_ctx->ranks()) report.context.ranks.push_back({r.rank, r.host, r.pid, r.local_rank});
  report.sweeps = *sweeps;
  add_sweep_findings(report);
  decide_verdict(report);
  // One finding about the data; the curve's shape (perf.dip, perf.plateau) may add notes.
  std::vector<Finding> wrong;
  for (const Finding& f : report.findings) {
    if (f.code.rfind("perf.", 0) != 0) wrong.push_back(f);
  }
  ASSERT_EQ(wrong.size(), 1u);
  EXPECT_EQ(wrong[0].code, "sweep.wrong_results");
  EXPECT_EQ(wrong[0].subject.rfind("rank " + std::to_string(target) + " on ", 0), 0u);
  EXPECT_EQ(name(report.verdict.result), "fail");
}

// --arrivals: a rank LateBackend::kLateMs late to every call is the one the others waited for: it
// entered last in nearly every iteration, and rank.straggler names it.
TEST_P(BackendSweep, ArrivalsNameTheRankTheOthersWaitedFor) {
  if (g_ctx->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const int late = g_ctx->size() - 1;
  LateBackend backend(this->backend(), g_ctx->rank() == late);
  SweepOptions o = small_options({Collective::kAllReduce});
  o.iters = 8;
  o.check_iters = 1;
  o.record_arrivals = true;
  auto sweeps = run_sweeps(*g_ctx, backend, o, nullptr, nullptr);
  ASSERT_TRUE(sweeps.ok()) << sweeps.status().message();
  if (g_ctx->rank() != 0) return;
  for (const SweepPoint& p : (*sweeps)[0].points) {
    for (const auto* pl : {&p.out_of_place, &p.in_place}) {
      ASSERT_TRUE((*pl)->arrivals.has_value()) << p.size_bytes;
      const ArrivalSplit& a = *(*pl)->arrivals;
      ASSERT_EQ(a.ranks.size(), static_cast<size_t>(g_ctx->size()));
      EXPECT_EQ(a.iterations, 8);
      EXPECT_NEAR(a.span_us, a.skew_us + a.transfer_us, 1e-6 * a.span_us + 1e-3);
      EXPECT_LT(a.clock_bound_us, 1000);  // one host: the same clock, up to the ping-pong's delay
      const RankArrival& r = a.ranks[static_cast<size_t>(late)];
      EXPECT_GE(r.last_count, 6) << p.size_bytes;
      // 12 ms late (4 ms until 02ced2f, of a span of about 8 ms). 3 or 4 ranks on this 2-core machine take the
      // next-latest rank off its core now and then, which shortens the held time the late
      // rank is charged with (1985 us and a share of 0.27 were seen; 873 us and 0.16 once in
      // CI, beside a compile), so the bounds leave room, and the late rank must hold the
      // others back several times longer than any other rank does.
      EXPECT_GT(r.held_us, 500) << p.size_bytes;
      EXPECT_GT(r.held_share, 0.1) << p.size_bytes;
      for (size_t other = 0; other < a.ranks.size(); ++other) {
        if (other != static_cast<size_t>(late)) {
          EXPECT_GT(r.held_us, 3 * a.ranks[other].held_us) << p.size_bytes << " rank " << other;
        }
      }
    }
  }
  Report report;
  for (const RankInfo& r : g_ctx->ranks()) report.context.ranks.push_back({r.rank, r.host, r.pid, r.local_rank});
  report.sweeps = *sweeps;
  add_sweep_findings(report);
  std::vector<std::string> stragglers;
  for (const Finding& f : report.findings) {
    if (f.code == "rank.straggler") stragglers.push_back(f.subject);
  }
  // The late rank is named. On this oversubscribed 2-core machine another rank taken off
  // its core for long enough is named too, rightly (a full ctest run beside a compiler saw
  // two), so the count is not asserted.
  ASSERT_GE(stragglers.size(), 1u);
  EXPECT_TRUE(std::any_of(stragglers.begin(), stragglers.end(), [&](const std::string& s) {
    return s.rfind("rank " + std::to_string(late) + " on ", 0) == 0;
  })) << stragglers.front();
}

TEST_P(BackendSweep, InvalidOptionsAreRejectedBeforeAnyDataMoves) {
  auto backend = this->backend();
  SweepOptions o = small_options({Collective::kBroadcast});
  o.root = g_ctx->size();
  auto r = run_sweeps(*g_ctx, *backend, o, nullptr, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("root -r " + std::to_string(g_ctx->size())), std::string::npos);
  o = small_options({Collective::kAllReduce});
  o.dtypes = {DataType::kDouble};
  o.sizes.min_bytes = 12;
  r = run_sweeps(*g_ctx, *backend, o, nullptr, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a multiple of the 8-byte element size of double"), std::string::npos);
}

TEST_P(BackendSweep, BlockingModesVerifyAndTimeEachIteration) {
  for (int z : {1, 2, 3}) {
    auto backend = this->backend();
    SweepOptions o = small_options({Collective::kAllReduce, Collective::kAllToAll});
    o.blocking = z;
    o.iters = 4;
    auto sweeps = run_sweeps(*g_ctx, *backend, o, nullptr, nullptr);
    ASSERT_TRUE(sweeps.ok()) << "-z " << z << ": " << sweeps.status().message();
    for (const Sweep& s : *sweeps) {
      EXPECT_EQ(name(s.iteration_clock), "host");
      for (const SweepPoint& p : s.points) {
        for (const auto* pl : {&p.out_of_place, &p.in_place}) {
          EXPECT_EQ((*pl)->wrong, 0) << "-z " << z << " " << s.collective << " " << p.size_bytes;
          EXPECT_GT((*pl)->time_us, 0);
          if (g_ctx->rank() == 0) {
            EXPECT_LE((*pl)->iteration_us->min_us, (*pl)->iteration_us->max_us);
          }
        }
      }
    }
  }
}

TEST_P(BackendSweep, GraphLaunchesNeedABackendThatCanCapture) {
  auto backend = this->backend();
  SweepOptions o = small_options({Collective::kAllReduce});
  o.graph_launches = 2;
  auto r = run_sweeps(*g_ctx, *backend, o, nullptr, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(r.status().message().find("-G 2 needs a backend that runs on CUDA streams (nccl); backend '" + GetParam() +
                                      "' cannot capture a CUDA graph"),
            std::string::npos)
      << r.status().message();
  o.blocking = 1;
  r = run_sweeps(*g_ctx, *backend, o, nullptr, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("-G 2 cannot be combined with -z 1"), std::string::npos);
}

// --method osu: OSU's iteration counts by size (1000 up to 8 KiB, 100 above), each call
// between barriers on a fixed buffer; the floor is measured and every result verifies,
// out-of-place broadcast included (the mpi root's copy made once, in prepare()).
TEST_P(BackendSweep, OsuMethodTakesOsusCountsAndTheFloorIsMeasured) {
  auto backend = this->backend();
  SweepOptions o = small_options({Collective::kAllReduce, Collective::kBroadcast});
  o.sizes = {8, 16 * 1024, 0, 2048};  // 8 B and 16 KiB
  o.method = TimingMethod::kOsu;
  o.blocking = 3;
  o.iterations_by_method = true;
  o.warmup_by_method = true;
  o.check_iters = 1;
  auto sweeps = run_sweeps(*g_ctx, *backend, o, nullptr, nullptr);
  ASSERT_TRUE(sweeps.ok()) << sweeps.status().message();
  ASSERT_EQ(sweeps->size(), 2u);
  for (const Sweep& s : *sweeps) {
    EXPECT_EQ(name(s.method), "osu");
    ASSERT_TRUE(s.floor_us.has_value());
    EXPECT_GT(*s.floor_us, 0);
    if (g_ctx->rank() != 0) continue;
    ASSERT_EQ(s.points.size(), 2u);
    for (const SweepPoint& p : s.points) {
      for (const auto* pl : {&p.out_of_place, &p.in_place}) {
        ASSERT_TRUE(pl->has_value());
        EXPECT_EQ((*pl)->iterations, p.size_bytes > 8192 ? 100 : 1000) << s.collective << " " << p.size_bytes;
        EXPECT_EQ((*pl)->wrong, 0) << s.collective << " " << p.size_bytes;
        EXPECT_EQ((*pl)->near_floor, (*pl)->time_us < kNearFloorFactor * *s.floor_us);
      }
    }
  }
  // The method's discipline is -z 3; another -z, or perftest's method, is refused.
  o.blocking = 0;
  EXPECT_FALSE(run_sweeps(*g_ctx, *backend, o, nullptr, nullptr).ok());
  o.blocking = 3;
  o.method = TimingMethod::kPerftest;
  EXPECT_FALSE(run_sweeps(*g_ctx, *backend, o, nullptr, nullptr).ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendSweep, ::testing::Values("mpi", "tcp"));

// The sweep over a backend that only enqueues (as nccl does): its clock gives the
// per-iteration times, and every result still verifies.
TEST(StreamSweep, DeviceClockTimesEachIterationInEveryBlockingMode) {
  for (int z : {0, 1, 2, 3}) {
    StreamBackend backend(make_backend("mpi"));
    SweepOptions o = small_options({Collective::kAllReduce, Collective::kSendRecv});
    o.blocking = z;
    o.iters = 20;
    auto sweeps = run_sweeps(*g_ctx, backend, o, nullptr, nullptr);
    ASSERT_TRUE(sweeps.ok()) << "-z " << z << ": " << sweeps.status().message();
    EXPECT_EQ(backend.queued(), 0u);
    for (const Sweep& s : *sweeps) {
      EXPECT_EQ(s.iteration_clock, IterationTimer::kCudaEvent);
      for (const SweepPoint& p : s.points) {
        for (const auto* pl : {&p.out_of_place, &p.in_place}) {
          EXPECT_EQ((*pl)->wrong, 0) << "-z " << z << " " << s.collective << " " << p.size_bytes;
          if (g_ctx->rank() != 0) continue;
          ASSERT_EQ((*pl)->per_rank.size(), static_cast<size_t>(g_ctx->size()));
          EXPECT_GE((*pl)->iteration_us->min_us, 0);
          EXPECT_LE((*pl)->iteration_us->min_us, (*pl)->iteration_us->max_us);
          // Markers every iterations_per_sample iterations without -z (device_marker_stride:
          // these calls are short, so more than one), around every iteration with it; one
          // sample per span, the same spans on every rank.
          const int per = (*pl)->iterations_per_sample;
          EXPECT_GE(per, 1);
          EXPECT_LE(per, o.iters);
          if (z != 0) {
            EXPECT_EQ(per, 1);
          }
          EXPECT_EQ((*pl)->samples_us.size(), static_cast<size_t>((o.iters + per - 1) / per))
              << "-z " << z << " " << s.collective << " " << p.size_bytes;
        }
      }
    }
  }
}

// --arrivals needs host-timed calls: a backend that only enqueues (a device clock) and
// -G are refused before any data moves, on every rank alike.
TEST(StreamSweep, ArrivalsAreRefusedWhereTheHostCannotSeeTheCalls) {
  StreamBackend backend(make_backend("mpi"));
  SweepOptions o = small_options({Collective::kAllReduce});
  o.record_arrivals = true;
  auto plan = plan_sweeps(*g_ctx, backend, o);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(plan.status().message().find("--arrivals needs a backend whose calls complete on the host"),
            std::string::npos)
      << plan.status().message();
  o.graph_launches = 2;
  EXPECT_NE(validate(o, g_ctx->size(), backend.max_count()).message().find("--arrivals cannot be combined with -G 2"),
            std::string::npos);
}

TEST(StreamSweep, GraphCaptureReplaysTheIterationsAndVerifies) {
  StreamBackend backend(make_backend("mpi"));
  SweepOptions o = small_options({Collective::kAllGather, Collective::kReduceScatter});
  o.sizes = {1024, 1024, 1024, 1};
  o.iters = 5;
  o.warmup_iters = 0;
  o.check_iters = 1;
  o.graph_launches = 3;
  auto sweeps = run_sweeps(*g_ctx, backend, o, nullptr, nullptr);
  ASSERT_TRUE(sweeps.ok()) << sweeps.status().message();
  // One capture per placement; each runs: 1 untimed call, 3 launches x 5, 1 check.
  EXPECT_EQ(backend.captures(), 2 * 2);
  EXPECT_EQ(backend.executed(), 2 * 2 * (1 + 3 * 5 + 1));
  for (const Sweep& s : *sweeps) {
    EXPECT_EQ(name(s.iteration_clock), "cuda_graph_launch");
    ASSERT_EQ(s.points.size(), 1u);
    const PlacementResult& r = *s.points[0].out_of_place;
    EXPECT_EQ(r.wrong, 0);
    EXPECT_GT(r.time_us, 0);
    EXPECT_EQ(r.iterations_per_sample, 5) << "a sample is a launch's time over the 5 iterations it holds";
    if (g_ctx->rank() == 0) {
      EXPECT_EQ(r.per_rank.size(), static_cast<size_t>(g_ctx->size()));
    }
  }
}

}  // namespace
}  // namespace fabscope
