#include <gtest/gtest.h>

#include "core/env.h"

namespace fabscope {
namespace {

TEST(Env, OnlyCommunicationVariablesAreReported) {
  const char* env[] = {"NCCL_IB_HCA=mlx5_0",
                       "UCX_TLS=rc",
                       "OMPI_COMM_WORLD_RANK=3",
                       "CUDA_VISIBLE_DEVICES=0,1",
                       "AWS_SECRET_ACCESS_KEY=hunter2",
                       "PATH=/bin",
                       "NCCLX=1",
                       "MY_NCCL_TOKEN=x",
                       "NOEQUALS",
                       nullptr};
  auto out = reported_environment(env);
  EXPECT_EQ(out.size(), 4u);
  EXPECT_EQ(out["NCCL_IB_HCA"], "mlx5_0");
  EXPECT_EQ(out["CUDA_VISIBLE_DEVICES"], "0,1");
  EXPECT_EQ(out.count("AWS_SECRET_ACCESS_KEY"), 0u);
  EXPECT_EQ(out.count("MY_NCCL_TOKEN"), 0u);
  EXPECT_TRUE(reported_environment(nullptr).empty());
}

}  // namespace
}  // namespace fabscope
