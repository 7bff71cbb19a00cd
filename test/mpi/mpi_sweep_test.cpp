// Integration tests under mpirun (ctest runs them at 1, 2, 3 and 4 ranks): every
// collective over the mpi backend verifies correct, and a planted wrong value is
// caught on exactly the rank that received it.
#include <gtest/gtest.h>

#include <memory>

#include "backend/registry.h"
#include "comm/context.h"
#include "report/report.h"
#include "sweep/sweep.h"

namespace fabscope {
namespace {

RankContext* g_ctx = nullptr;

std::unique_ptr<Backend> make_backend(const std::string& name) {
  auto entry = select_backend(name);
  EXPECT_TRUE(entry.ok()) << entry.status().message();
  auto b = (*entry)->create(*g_ctx, BackendOptions{}, Logger());
  EXPECT_TRUE(b.ok()) << b.status().message();
  return std::move(*b);
}

// Every test runs on each backend: MPI's collectives and fabscope's own over TCP.
class BackendSweep : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Backend> backend() const { return make_backend(GetParam()); }
};

// Wraps a real backend and flips one byte of the result on one rank: what a bad link,
// NIC or memory would do. Everything else goes to the real backend.
class CorruptingBackend final : public Backend {
 public:
  CorruptingBackend(std::unique_ptr<Backend> inner, int rank, int target)
      : inner_(std::move(inner)), rank_(rank), target_(target) {}
  std::string_view name() const override { return inner_->name(); }
  std::string library() const override { return inner_->library(); }
  Memory& memory() override { return inner_->memory(); }
  uint64_t max_count() const override { return inner_->max_count(); }
  Status wait() override { return inner_->wait(); }
  size_t inplace_output_offset(Collective c, int rank, const ElementCounts& e) const override {
    return inner_->inplace_output_offset(c, rank, e);
  }
  Status run(const CollCall& call) override {
    Status s = inner_->run(call);
    if (s.ok() && rank_ == target_ && call.count > 0) static_cast<unsigned char*>(call.recv)[0] ^= 0x5a;
    return s;
  }

 private:
  std::unique_ptr<Backend> inner_;
  int rank_;
  int target_;
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
      EXPECT_LE(r.iteration_us.min_us, r.iteration_us.median_us);
      EXPECT_LE(r.iteration_us.median_us, r.iteration_us.max_us);
      for (const RankTiming& t : r.per_rank) EXPECT_LE(t.median_us, r.iteration_us.max_us);
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
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].code, "sweep.wrong_results");
  EXPECT_EQ(report.findings[0].subject.rfind("rank " + std::to_string(target) + " on ", 0), 0u);
  EXPECT_EQ(report.verdict.result, "fail");
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

INSTANTIATE_TEST_SUITE_P(Backends, BackendSweep, ::testing::Values("mpi", "tcp"));

// On ranks other than 0, only failures are printed, with the rank.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed()) {
      std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
    }
  }

 private:
  int rank_;
};

}  // namespace
}  // namespace fabscope

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto ctx = fabscope::RankContext::create(&argc, &argv);
  if (!ctx.ok()) {
    std::fprintf(stderr, "%s\n", ctx.status().message().c_str());
    return 1;
  }
  fabscope::g_ctx = ctx->get();
  if ((*ctx)->rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new fabscope::FailurePrinter((*ctx)->rank()));
  }
  int rc = RUN_ALL_TESTS();
  // Every rank's outcome decides the exit code, so a failure on any rank fails the test.
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, (*ctx)->comm());
  return worst;
}
