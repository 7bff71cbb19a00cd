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

TEST(Env, SecretLookingValuesAreRedactedNamesKept) {
  // The canaries a hostile tester planted, and Open MPI's per-job transport key.
  const char* env[] = {"NCCL_SECRET=canary1",
                       "UCX_PASSWORD=canary2",
                       "OMPI_MCA_my_secret=canary3",
                       "CUDA_API_TOKEN=canary4",
                       "OMPI_MCA_orte_precondition_transports=0123456789abcdef-fedcba9876543210",
                       "OMPI_MCA_pmix_precondition_transports=0123-4567",
                       "NCCL_API_KEY=canary5",
                       "UCX_SSH_PRIVATE=canary6",
                       "NCCL_CREDENTIALS_FILE=/etc/c",
                       "NCCL_IB_PKEY=0x8001",
                       "NCCL_SOCKET_IFNAME=eth0",
                       "CUDA_VISIBLE_DEVICES=3",
                       nullptr};
  auto out = reported_environment(env);
  ASSERT_EQ(out.size(), 12u);
  for (const char* name :
       {"NCCL_SECRET", "UCX_PASSWORD", "OMPI_MCA_my_secret", "CUDA_API_TOKEN", "OMPI_MCA_orte_precondition_transports",
        "OMPI_MCA_pmix_precondition_transports", "NCCL_API_KEY", "UCX_SSH_PRIVATE", "NCCL_CREDENTIALS_FILE"}) {
    EXPECT_EQ(out[name], "<redacted>") << name;
  }
  for (const auto& [name, value] : out) EXPECT_EQ(value.find("canary"), std::string::npos) << name;
  // Fabric settings stay readable: the partition key is not a secret.
  EXPECT_EQ(out["NCCL_IB_PKEY"], "0x8001");
  EXPECT_EQ(out["NCCL_SOCKET_IFNAME"], "eth0");
  EXPECT_EQ(out["CUDA_VISIBLE_DEVICES"], "3");
  EXPECT_FALSE(is_secret_env_name("NCCL_IB_HCA"));
  EXPECT_FALSE(is_secret_env_name("NCCL_NET_GDR_LEVEL"));
  EXPECT_TRUE(is_secret_env_name("ucx_key"));
}

}  // namespace
}  // namespace fabscope
