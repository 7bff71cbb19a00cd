// The pattern kernels on a real GPU: device fill equals host fill byte for byte, device
// verification agrees with host verification (zero on correct data, one per planted
// error), the expected reduction device_fill writes is right by both, for every data
// type and operator; the delay kernel waits as long as asked.
// Without a GPU every test here skips and says why (device_count's reason).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "coll/host_reduce.h"
#include "coll/pattern.h"
#include "kernels/device_pattern.h"

namespace fabscope {
namespace {

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    auto n = kernels::device_count();                                          \
    if (!n.ok()) GTEST_SKIP() << "needs a CUDA GPU: " << n.status().message(); \
  } while (0)

const auto& kTypes = kAllDataTypes;

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess); }
  ~DeviceBuffer() { cudaFree(p); }
};

// Runs everywhere: without a device the reason is a sentence, with one the count.
TEST(GpuDevice, CountOrReason) {
  auto n = kernels::device_count();
  if (n.ok()) {
    EXPECT_GT(*n, 0);
  } else {
    EXPECT_EQ(n.status().kind(), ErrorKind::kUnavailable);
    EXPECT_NE(n.status().message().find("CUDA"), std::string::npos) << n.status().message();
  }
}

TEST(GpuKernels, FillEqualsHostFill) {
  REQUIRE_GPU();
  const size_t n = 100003;  // not a multiple of anything
  for (DataType t : kTypes) {
    for (int o = -1; o < 5; ++o) {
      PatternSpec s;
      s.dtype = t;
      s.seed = 42;
      s.nranks = 5;
      if (o >= 0) s.op = static_cast<ReduceOp>(o);
      const size_t es = element_size(t);
      // Whole 16-byte chunks (the vector path), then chunks cut by the segments' ends and
      // by an index that is not at the buffer's phase (the lane-by-lane path).
      const Segment segs[] = {{0, n, 3, 0}, {n, 4099, 1, 1000}, {n + 4099, 17, 0, 5}, {n + 4116, 33, 4, 48}};
      std::vector<unsigned char> host((n + 4149) * es), back((n + 4149) * es);
      host_fill(host.data(), s, segs);
      DeviceBuffer d(host.size());
      ASSERT_TRUE(kernels::device_fill(d.p, s, segs, nullptr).ok());
      ASSERT_EQ(cudaMemcpy(back.data(), d.p, back.size(), cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ(std::memcmp(host.data(), back.data(), host.size()), 0) << name(t) << " op " << o;
    }
  }
}

TEST(GpuKernels, VerifyAgreesWithHost) {
  REQUIRE_GPU();
  const size_t n = 4099;
  for (DataType t : kTypes) {
    for (int o = 0; o < 5; ++o) {
      for (int ranks : {1, 3, 8}) {
        const uint64_t index_base = ranks == 3 ? 0 : 11;  // whole chunks, and lanes cut at both ends
        PatternSpec s;
        s.dtype = t;
        s.seed = 7;
        s.nranks = ranks;
        s.op = static_cast<ReduceOp>(o);
        const size_t es = element_size(t);
        // The reduction over every rank, computed on the host as a backend would.
        std::vector<unsigned char> acc(n * es), part(n * es);
        for (int r = 0; r < ranks; ++r) {
          const Segment in{0, n, r, index_base};
          host_fill(r == 0 ? acc.data() : part.data(), s, std::span<const Segment>(&in, 1));
          if (r > 0) host_reduce(acc.data(), part.data(), n, t, *s.op);
        }
        if (*s.op == ReduceOp::kAvg) host_divide(acc.data(), n, t, ranks);
        const Segment want{0, n, kAllRanks, index_base};
        ASSERT_EQ(host_count_wrong(acc.data(), s, std::span<const Segment>(&want, 1)), 0u);
        DeviceBuffer d(acc.size());
        ASSERT_EQ(cudaMemcpy(d.p, acc.data(), acc.size(), cudaMemcpyHostToDevice), cudaSuccess);
        auto wrong = kernels::device_count_wrong(d.p, s, std::span<const Segment>(&want, 1), nullptr);
        ASSERT_TRUE(wrong.ok()) << wrong.status().message();
        EXPECT_EQ(*wrong, 0u) << name(t) << " op " << o << " ranks " << ranks;
        // One element made wrong is counted once, by both.
        acc[(n / 2) * es] ^= 0x5a;
        ASSERT_EQ(cudaMemcpy(d.p, acc.data(), acc.size(), cudaMemcpyHostToDevice), cudaSuccess);
        wrong = kernels::device_count_wrong(d.p, s, std::span<const Segment>(&want, 1), nullptr);
        ASSERT_TRUE(wrong.ok());
        EXPECT_EQ(*wrong, host_count_wrong(acc.data(), s, std::span<const Segment>(&want, 1)));
        EXPECT_EQ(*wrong, 1u) << name(t) << " op " << o << " ranks " << ranks;
        // The expected reduction written by device_fill: right by both counts.
        ASSERT_TRUE(kernels::device_fill(d.p, s, std::span<const Segment>(&want, 1), nullptr).ok());
        wrong = kernels::device_count_wrong(d.p, s, std::span<const Segment>(&want, 1), nullptr);
        ASSERT_TRUE(wrong.ok());
        EXPECT_EQ(*wrong, 0u) << "device_fill of the reduction, " << name(t) << " op " << o << " ranks " << ranks;
        ASSERT_EQ(cudaMemcpy(part.data(), d.p, part.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(host_count_wrong(part.data(), s, std::span<const Segment>(&want, 1)), 0u)
            << "device_fill of the reduction, on the host, " << name(t) << " op " << o << " ranks " << ranks;
      }
    }
  }
}

TEST(GpuKernels, DelayWaitsAsLongAsAsked) {
  REQUIRE_GPU();
  ASSERT_TRUE(kernels::device_delay(1, nullptr).ok());  // warm up
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(kernels::device_delay(20000, nullptr).ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(ms, 20.0);
  EXPECT_LT(ms, 200.0);
}

}  // namespace
}  // namespace fabscope
