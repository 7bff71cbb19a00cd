// FirstError: of several steps that each run on after an earlier one failed, the
// first failure is the one kept.
#include "core/status.h"

#include <gtest/gtest.h>

namespace fabscope {
namespace {

TEST(FirstError, OkUntilSomethingFails) {
  FirstError e;
  EXPECT_TRUE(e.ok());
  e.keep(Status::Ok());
  e.keep(Status());
  EXPECT_TRUE(e.ok());
  EXPECT_TRUE(e.status().ok());
  EXPECT_EQ(e.status().message(), "");
}

TEST(FirstError, KeepsTheFirstFailureWithItsKindAndMessage) {
  FirstError e;
  e.keep(Status::Ok());
  e.keep(Status::Runtime("send to rank 2 failed"));
  e.keep(Status::Ok());
  e.keep(Status::Invalid("later"));
  e.keep(Status::Unavailable("later still"));
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().kind(), ErrorKind::kRuntime);
  EXPECT_EQ(e.status().message(), "send to rank 2 failed");
}

}  // namespace
}  // namespace fabscope
