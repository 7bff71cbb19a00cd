// The nccl backend's device-free parts: how each collective becomes NCCL calls, run
// here on host buffers by a simulated NCCL that pairs every rank's sends and receives
// (in issue order per pair, as NCCL does) and checked with the sweep's own layouts
// and pattern; the GPU choice per local rank; --nccl-debug-dir's files and checks.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "backend/nccl/nccl_plan.h"
#include "coll/layout.h"
#include "coll/pattern.h"
#include "core/dtype.h"

namespace fabscope {
namespace {

TEST(NcclPlan, RootlessAndRootedCollectivesAreNcclsOwnCalls) {
  EXPECT_EQ(plan_nccl_call(Collective::kAllReduce, 0, 4, 0, 10).call, NcclCall::kAllReduce);
  EXPECT_EQ(plan_nccl_call(Collective::kAllGather, 1, 4, 0, 10).call, NcclCall::kAllGather);
  EXPECT_EQ(plan_nccl_call(Collective::kReduceScatter, 2, 4, 0, 10).call, NcclCall::kReduceScatter);
  EXPECT_EQ(plan_nccl_call(Collective::kBroadcast, 3, 4, 1, 10).call, NcclCall::kBroadcast);
  EXPECT_EQ(plan_nccl_call(Collective::kReduce, 3, 4, 1, 10).call, NcclCall::kReduce);
  EXPECT_TRUE(plan_nccl_call(Collective::kAllReduce, 0, 4, 0, 10).ops.empty());
}

TEST(NcclPlan, AllToAllGatherScatterAndSendRecvAreGroupedSendRecvAsNcclTestsIssuesThem) {
  // nccl-tests' alltoall: for each rank r, send block r and receive block r.
  NcclPlan a = plan_nccl_call(Collective::kAllToAll, 1, 3, 0, 5);
  EXPECT_EQ(a.call, NcclCall::kGroupedSendRecv);
  std::vector<PeerOp> want = {{true, 0, 0, 5},  {false, 0, 0, 5}, {true, 1, 5, 5},
                              {false, 1, 5, 5}, {true, 2, 10, 5}, {false, 2, 10, 5}};
  EXPECT_EQ(a.ops, want);
  // Gather to root 2: the root receives block r from every rank; everyone sends once.
  EXPECT_EQ(plan_nccl_call(Collective::kGather, 0, 3, 2, 4).ops, (std::vector<PeerOp>{{true, 2, 0, 4}}));
  want = {{false, 0, 0, 4}, {false, 1, 4, 4}, {false, 2, 8, 4}, {true, 2, 0, 4}};
  EXPECT_EQ(plan_nccl_call(Collective::kGather, 2, 3, 2, 4).ops, want);
  // Scatter from root 0: the root sends block r to every rank; everyone receives once.
  want = {{true, 0, 0, 4}, {true, 1, 4, 4}, {true, 2, 8, 4}, {false, 0, 0, 4}};
  EXPECT_EQ(plan_nccl_call(Collective::kScatter, 0, 3, 0, 4).ops, want);
  // Sendrecv: to the next rank, from the previous, around the ring.
  want = {{true, 0, 0, 7}, {false, 1, 0, 7}};
  EXPECT_EQ(plan_nccl_call(Collective::kSendRecv, 2, 3, 0, 7).ops, want);
  want = {{true, 0, 0, 7}, {false, 0, 0, 7}};
  EXPECT_EQ(plan_nccl_call(Collective::kSendRecv, 0, 1, 0, 7).ops, want);
}

TEST(NcclPlan, NcclsOwnAllToAllGatherAndScatterFrom2_28CheckedAtRunTime) {
  EXPECT_FALSE(nccl_has_alltoall_gather_scatter(0));      // ncclGetVersion failed
  EXPECT_FALSE(nccl_has_alltoall_gather_scatter(2804));   // 2.8.4, the old encoding
  EXPECT_FALSE(nccl_has_alltoall_gather_scatter(22709));  // 2.27.9
  EXPECT_TRUE(nccl_has_alltoall_gather_scatter(22800));
  EXPECT_TRUE(nccl_has_alltoall_gather_scatter(22809));
  for (auto [coll, call] :
       {std::pair{Collective::kAllToAll, NcclCall::kAllToAll}, std::pair{Collective::kGather, NcclCall::kGather},
        std::pair{Collective::kScatter, NcclCall::kScatter}}) {
    NcclPlan p = plan_nccl_call(coll, 1, 4, 2, 10, /*native=*/true);
    EXPECT_EQ(p.call, call);
    EXPECT_TRUE(p.ops.empty());
    EXPECT_EQ(plan_nccl_call(coll, 1, 4, 2, 10, /*native=*/false).call, NcclCall::kGroupedSendRecv);
  }
  // Sendrecv has no collective of NCCL's own: grouped either way, as nccl-tests.
  EXPECT_EQ(plan_nccl_call(Collective::kSendRecv, 1, 4, 0, 10, true).call, NcclCall::kGroupedSendRecv);
  EXPECT_EQ(nccl_api_name(NcclCall::kAllToAll), "ncclAlltoAll");
  EXPECT_EQ(nccl_api_name(NcclCall::kGroupedSendRecv), "ncclSend/ncclRecv (grouped)");
}

// One rank's buffers and call, exactly as the sweep builds them.
struct SimRank {
  std::vector<char> send;
  std::vector<char> recv;
  const char* sendp = nullptr;
  char* recvp = nullptr;
  BufferLayout layout;
  NcclPlan plan;
};

// Runs grouped send/recv plans on host memory: every send is read first (a snapshot),
// then each receive takes the oldest unmatched send of its pair. Returns the wrong
// elements over all ranks, or -1 when the plans do not pair up.
int64_t simulate(Collective coll, DataType t, int n, int root, bool in_place, size_t total_count,
                 void (*mutate)(std::vector<SimRank>&) = nullptr) {
  const size_t es = element_size(t);
  const uint64_t seed = 77;
  std::vector<SimRank> ranks(static_cast<size_t>(n));
  ElementCounts counts = element_counts(coll, total_count, es, n);
  for (int r = 0; r < n; ++r) {
    SimRank& s = ranks[static_cast<size_t>(r)];
    const size_t elems = std::max(counts.send, counts.recv);
    s.send.assign(elems * es + es, 0);
    s.recv.assign(elems * es + es, 0);
    LayoutArgs a;
    a.coll = coll;
    a.rank = r;
    a.nranks = n;
    a.root = root;
    a.in_place = in_place;
    a.counts = counts;
    a.inplace_output_offset = static_cast<size_t>(r) * counts.recv_inplace_offset;  // nccl's convention
    s.layout = buffer_layout(a);
    PatternSpec poison{t, std::nullopt, ~seed, n};
    Segment all{0, elems, r, 0};
    host_fill(s.recv.data(), poison, std::span<const Segment>(&all, 1));
    host_fill(s.layout.input_in_recv ? s.recv.data() : s.send.data(), PatternSpec{t, std::nullopt, seed, n},
              s.layout.input);
    s.sendp = in_place ? s.recv.data() + r * counts.send_inplace_offset * es : s.send.data();
    s.recvp = in_place ? s.recv.data() + r * counts.recv_inplace_offset * es : s.recv.data();
    s.plan = plan_nccl_call(coll, r, n, root, counts.param);
    if (s.plan.call != NcclCall::kGroupedSendRecv) return -1;
  }
  if (mutate) mutate(ranks);
  std::map<std::pair<int, int>, std::deque<std::vector<char>>> wire;  // (src, dst) -> messages
  for (int r = 0; r < n; ++r) {
    for (const PeerOp& op : ranks[static_cast<size_t>(r)].plan.ops) {
      if (!op.send) continue;
      const char* from = ranks[static_cast<size_t>(r)].sendp + op.offset * es;
      wire[{r, op.peer}].emplace_back(from, from + op.count * es);
    }
  }
  for (int r = 0; r < n; ++r) {
    for (const PeerOp& op : ranks[static_cast<size_t>(r)].plan.ops) {
      if (op.send) continue;
      auto& q = wire[{op.peer, r}];
      if (q.empty() || q.front().size() != op.count * es) return -1;
      std::memcpy(ranks[static_cast<size_t>(r)].recvp + op.offset * es, q.front().data(), q.front().size());
      q.pop_front();
    }
  }
  for (auto& [pair, q] : wire) {
    if (!q.empty()) return -1;  // a send nobody received
  }
  int64_t wrong = 0;
  for (int r = 0; r < n; ++r) {
    const SimRank& s = ranks[static_cast<size_t>(r)];
    wrong +=
        static_cast<int64_t>(host_count_wrong(s.recv.data(), PatternSpec{t, std::nullopt, seed, n}, s.layout.expected));
  }
  return wrong;
}

TEST(NcclPlan, GroupedCollectivesDeliverWhatTheSweepExpectsAtEveryRankCountAndRoot) {
  for (Collective c : {Collective::kAllToAll, Collective::kGather, Collective::kScatter, Collective::kSendRecv}) {
    for (int n : {1, 2, 3, 5}) {
      for (DataType t : {DataType::kInt8, DataType::kFloat, DataType::kBfloat16, DataType::kDouble}) {
        // In place, all-to-all and sendrecv race in NCCL (nccl-tests does not check them).
        for (bool in_place : {false, true}) {
          if (in_place && (c == Collective::kAllToAll || c == Collective::kSendRecv)) continue;
          for (int root = 0; root < n; ++root) {
            for (size_t count : {size_t{0}, size_t{1}, size_t{60}, size_t{1003}}) {
              EXPECT_EQ(simulate(c, t, n, root, in_place, count), 0)
                  << name(c) << " " << name(t) << " n=" << n << " root=" << root << " in_place=" << in_place
                  << " count=" << count;
            }
          }
        }
      }
    }
  }
}

TEST(NcclPlan, TheSimulationCatchesAMisplacedBlock) {
  // The same check finds a plan that receives two blocks in each other's place.
  auto swap_recvs = [](std::vector<SimRank>& ranks) {
    auto& ops = ranks[0].plan.ops;
    std::swap(ops[1].offset, ops[3].offset);  // rank 0's receives from ranks 0 and 1
  };
  EXPECT_GT(simulate(Collective::kAllToAll, DataType::kFloat, 3, 0, false, 30, swap_recvs), 0);
  // And one whose sends and receives do not pair up.
  auto drop_send = [](std::vector<SimRank>& ranks) { ranks[1].plan.ops.erase(ranks[1].plan.ops.begin()); };
  EXPECT_EQ(simulate(Collective::kSendRecv, DataType::kFloat, 3, 0, false, 30, drop_send), -1);
}

TEST(NcclDevice, EachLocalRankTakesItsOwnVisibleGpu) {
  EXPECT_EQ(*choose_device(0, 8, 8, "node1", nullptr), 0);
  EXPECT_EQ(*choose_device(7, 8, 8, "node1", nullptr), 7);
  EXPECT_EQ(*choose_device(1, 2, 4, "node1", "2,3,4,5"), 1);  // index among the visible ones
}

TEST(NcclDevice, MoreRanksThanGpusIsAnErrorThatSaysHowToFixIt) {
  auto r = choose_device(1, 2, 1, "gpu-node-3", "0");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kUnavailable);
  const std::string m = r.status().message();
  EXPECT_NE(m.find("host gpu-node-3 runs 2 ranks but has only 1 CUDA GPU visible (CUDA_VISIBLE_DEVICES=0)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("ppr:1:node"), std::string::npos) << m;
  EXPECT_NE(m.find("--share-gpus"), std::string::npos) << "the error names the option that allows it: " << m;
  r = choose_device(0, 1, 0, "cpu-node", nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no CUDA GPU visible (CUDA_VISIBLE_DEVICES unset)"), std::string::npos);
}

TEST(NcclDevice, SharedGpusTakeLocalRankModuloTheVisibleOnesEachWithItsOwnHostId) {
  EXPECT_EQ(*choose_device(0, 2, 1, "node1", nullptr, /*share=*/true), 0);
  EXPECT_EQ(*choose_device(1, 2, 1, "node1", nullptr, true), 0);
  EXPECT_EQ(*choose_device(5, 8, 2, "node1", "0,1", true), 1);
  EXPECT_EQ(*choose_device(1, 2, 4, "node1", nullptr, true), 1);  // enough GPUs: one each, as without it
  EXPECT_FALSE(choose_device(0, 2, 0, "cpu-node", nullptr, true).ok()) << "sharing needs a GPU to share";
  EXPECT_EQ(shared_gpu_host_id("node1", 3), "node1-fabscope-r3");
  EXPECT_NE(shared_gpu_host_id("node1", 0), shared_gpu_host_id("node1", 1));
}

TEST(NcclVersion, BothEncodingsOfTheVersionCode) {
  EXPECT_EQ(nccl_version_string(22809), "2.28.9");
  EXPECT_EQ(nccl_version_string(21903), "2.19.3");
  EXPECT_EQ(nccl_version_string(2804), "2.8.4");
  EXPECT_EQ(nccl_version_string(0), "unknown");
}

TEST(NcclDebugDir, EachRankLogsToItsOwnFileWithInitNetAndGraph) {
  EXPECT_EQ(nccl_debug_file("/logs", "node07", 3), "/logs/nccl-node07-r3.log");
  EXPECT_EQ(nccl_debug_file("/logs/", "node07", 3), "/logs/nccl-node07-r3.log");
  auto env = nccl_debug_env("/logs/100%", "n1", 0);
  ASSERT_EQ(env.size(), 3u);
  EXPECT_EQ(env[0], (std::pair<std::string, std::string>{"NCCL_DEBUG", "INFO"}));
  EXPECT_EQ(env[1], (std::pair<std::string, std::string>{"NCCL_DEBUG_SUBSYS", "INIT,NET,GRAPH"}));
  // NCCL expands %h and %p in the file name; a literal % is doubled.
  EXPECT_EQ(env[2], (std::pair<std::string, std::string>{"NCCL_DEBUG_FILE", "/logs/100%%/nccl-n1-r0.log"}));
}

TEST(NcclDebugDir, AMissingFileOrUnwritableDirectoryIsABadInputNamingIt) {
  char tmpl[] = "/tmp/fabscope-nccl-dir-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  EXPECT_TRUE(check_nccl_debug_dir(dir).ok());
  Status s = check_nccl_debug_dir(dir + "/absent");
  EXPECT_EQ(s.kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(s.message().find("--nccl-debug-dir '" + dir + "/absent': No such file or directory"), std::string::npos)
      << s.message();
  const std::string file = dir + "/plain";
  FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  s = check_nccl_debug_dir(file);
  EXPECT_NE(s.message().find("is not a directory"), std::string::npos) << s.message();
  EXPECT_FALSE(check_nccl_debug_dir("").ok());
  if (geteuid() != 0) {  // root writes anywhere
    ASSERT_EQ(chmod(dir.c_str(), 0500), 0);
    s = check_nccl_debug_dir(dir);
    EXPECT_NE(s.message().find("is not writable"), std::string::npos) << s.message();
    chmod(dir.c_str(), 0700);
  }
  std::remove(file.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace fabscope
