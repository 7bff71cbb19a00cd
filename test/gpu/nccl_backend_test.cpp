// The nccl backend on a real GPU, one rank (run directly or under mpirun -np 1): every
// collective, data type and operator verifies correct on the device; -z and -G run and
// verify; a rank held up past --timeout gets its communicator aborted and an error
// naming the collective, size and rank. Without a GPU every test skips, saying why.
#include <gtest/gtest.h>

#include <memory>

#include "backend/registry.h"
#include "comm/context.h"
#include "kernels/device_pattern.h"
#include "soak/soak.h"

namespace fabscope {
namespace {

RankContext* g_ctx = nullptr;

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    auto n = kernels::device_count();                                          \
    if (!n.ok()) GTEST_SKIP() << "needs a CUDA GPU: " << n.status().message(); \
  } while (0)

std::unique_ptr<Backend> nccl_backend(double timeout_s = 60) {
  auto entry = select_backend("nccl");
  EXPECT_TRUE(entry.ok()) << entry.status().message();
  if (!entry.ok()) return nullptr;
  BackendOptions o;
  o.timeout_s = timeout_s;
  auto b = (*entry)->create(*g_ctx, o, Logger());
  EXPECT_TRUE(b.ok()) << b.status().message();
  return b.ok() ? std::move(*b) : nullptr;
}

SweepOptions options(std::vector<Collective> colls) {
  SweepOptions o;
  o.collectives = std::move(colls);
  o.sizes = {16, 1 << 20, 0, 8};
  o.iters = 3;
  o.check_iters = 1;
  return o;
}

void expect_verified(const std::vector<Sweep>& sweeps, const Backend& b) {
  for (const Sweep& s : sweeps) {
    auto c = collective_from_name(s.collective);
    for (const SweepPoint& p : s.points) {
      EXPECT_EQ(p.out_of_place->wrong, 0) << s.collective << " " << s.dtype << " " << p.size_bytes;
      if (b.in_place_checkable(*c)) {
        EXPECT_EQ(p.in_place->wrong, 0) << s.collective << " in place " << s.dtype << " " << p.size_bytes;
      } else {
        EXPECT_FALSE(p.in_place->wrong.has_value());
      }
    }
  }
}

TEST(NcclBackend, ListedAsUsableWithItsVersion) {
  REQUIRE_GPU();
  auto entry = select_backend("nccl");
  ASSERT_TRUE(entry.ok()) << entry.status().message();
  Availability a = (*entry)->probe();
  EXPECT_TRUE(a.usable);
  EXPECT_NE(a.detail.find("NCCL 2."), std::string::npos) << a.detail;
}

TEST(NcclBackend, EveryCollectiveTypeAndOperatorVerifiesOnTheDevice) {
  REQUIRE_GPU();
  auto b = nccl_backend();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->memory().kind(), "cuda");
  SweepOptions o = options({});
  for (const auto& c : all_collectives()) o.collectives.push_back(c.id);
  o.dtypes.assign(kAllDataTypes.begin(), kAllDataTypes.end());
  o.ops.assign(kAllReduceOps.begin(), kAllReduceOps.end());
  auto sweeps = run_sweeps(*g_ctx, *b, o, nullptr, nullptr);
  ASSERT_TRUE(sweeps.ok()) << sweeps.status().message();
  expect_verified(*sweeps, *b);
  for (const Sweep& s : *sweeps) EXPECT_EQ(name(s.iteration_clock), "cuda_event");
}

TEST(NcclBackend, BlockingModesAndGraphLaunchesVerify) {
  REQUIRE_GPU();
  auto b = nccl_backend();
  ASSERT_NE(b, nullptr);
  for (int z : {1, 2, 3}) {
    SweepOptions o = options({Collective::kAllReduce, Collective::kAllToAll});
    o.blocking = z;
    auto sweeps = run_sweeps(*g_ctx, *b, o, nullptr, nullptr);
    ASSERT_TRUE(sweeps.ok()) << "-z " << z << ": " << sweeps.status().message();
    expect_verified(*sweeps, *b);
  }
  SweepOptions o = options({Collective::kAllReduce, Collective::kAllGather, Collective::kSendRecv});
  o.graph_launches = 4;
  auto sweeps = run_sweeps(*g_ctx, *b, o, nullptr, nullptr);
  ASSERT_TRUE(sweeps.ok()) << "-G 4: " << sweeps.status().message();
  expect_verified(*sweeps, *b);
  for (const Sweep& s : *sweeps) {
    EXPECT_EQ(name(s.iteration_clock), "cuda_graph_launch");
    for (const SweepPoint& p : s.points) {
      if (g_ctx->rank() == 0) {
        EXPECT_GT(p.out_of_place->iteration_us->median_us, 0);
      }
      EXPECT_EQ(p.out_of_place->iterations_per_sample, o.iters);
    }
  }
}

TEST(NcclBackend, ARankHeldUpPastTheTimeoutAbortsTheCommunicatorAndSaysWhere) {
  REQUIRE_GPU();
  auto b = nccl_backend(/*timeout_s=*/1);
  ASSERT_NE(b, nullptr);
  void* buf = *b->memory().allocate(4096);
  CollCall c;
  c.coll = Collective::kAllReduce;
  c.op = ReduceOp::kSum;
  c.send = buf;
  c.recv = buf;
  c.count = 1024;
  c.in_place = true;
  ASSERT_TRUE(b->inject_delay(3'000'000).ok());  // 3 s on the device's queue
  ASSERT_TRUE(b->run(c).ok());
  Status s = b->wait();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(
      s.message().find("NCCL allreduce float sum, 4 KiB (count 1024), in-place did not complete within 1 s on rank "),
      std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("the NCCL communicator was aborted"), std::string::npos) << s.message();
  b->memory().release(buf);
}

}  // namespace
}  // namespace fabscope

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // MPI starts only where the tests run: listing them (ctest's discovery at build
  // time) or skipping them for want of a GPU needs no job.
#ifdef GTEST_FLAG_GET
  const bool listing = GTEST_FLAG_GET(list_tests);
#else
  const bool listing = ::testing::GTEST_FLAG(list_tests);
#endif
  std::unique_ptr<fabscope::RankContext> ctx;
  if (!listing && fabscope::kernels::device_count().ok()) {
    auto created = fabscope::RankContext::create(&argc, &argv);
    if (!created.ok()) {
      std::fprintf(stderr, "%s\n", created.status().message().c_str());
      return 1;
    }
    ctx = std::move(*created);
    fabscope::g_ctx = ctx.get();
  }
  return RUN_ALL_TESTS();
}
