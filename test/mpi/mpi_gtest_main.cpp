// The main of the MPI gtest binaries (mpi_gtest.h).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "mpi_gtest.h"

namespace fabscope {

RankContext* g_ctx = nullptr;

namespace {

// Ranks other than 0 print their failures, each line saying whose, and nothing else.
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
