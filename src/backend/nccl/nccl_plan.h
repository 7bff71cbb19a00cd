// The parts of the nccl backend that need no GPU, kept apart so that they are tested
// everywhere: how each collective maps onto NCCL calls (all-to-all, gather and scatter
// as NCCL 2.28's own calls where the NCCL loaded has them, else as grouped send/recv;
// sendrecv always grouped: as nccl-tests issues them), which GPU a rank takes, and where
// --nccl-debug-dir puts each rank's NCCL log.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "coll/collective.h"
#include "core/status.h"

namespace fabscope {

// The NCCL entry point one collective becomes.
enum class NcclCall {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,  // NCCL 2.28's ncclAlltoAll, ncclGather, ncclScatter
  kGather,
  kScatter,
  kGroupedSendRecv
};

// Whether the NCCL of this version code (ncclGetVersion, read at run time) has
// ncclAlltoAll, ncclGather and ncclScatter: 2.28 and later, as nccl-tests checks.
bool nccl_has_alltoall_gather_scatter(int version_code);

// The API a plan issues, for the report: "ncclAlltoAll", "ncclSend/ncclRecv (grouped)".
std::string_view nccl_api_name(NcclCall call);

// One ncclSend or ncclRecv of a grouped call: `offset` elements into the call's send
// buffer (a send) or receive buffer (a receive).
struct PeerOp {
  bool send = false;
  int peer = 0;
  size_t offset = 0;
  size_t count = 0;
  bool operator==(const PeerOp&) const = default;
};

struct NcclPlan {
  NcclCall call = NcclCall::kAllReduce;
  std::vector<PeerOp> ops;  // for kGroupedSendRecv, in the order they are issued
};

// `count` is the call's parameter count (nccl-tests' count): per peer for all-to-all,
// gather and scatter; the whole message for sendrecv (to rank+1, from rank-1).
// `native` (nccl_has_alltoall_gather_scatter): all-to-all, gather and scatter as NCCL's
// own calls.
NcclPlan plan_nccl_call(Collective coll, int rank, int nranks, int root, size_t count, bool native = false);

// The GPU of a rank: its local rank, among the devices CUDA makes visible. More ranks
// on a node than visible GPUs is an error that says how to fix it, unless `share`
// (--share-gpus): then local rank i takes GPU i mod the visible ones.
Result<int> choose_device(int local_rank, int local_size, int visible_devices, std::string_view host,
                          const char* cuda_visible_devices, bool share = false);

// --share-gpus: the NCCL host id each rank presents (NCCL_HOSTID), its own, so that NCCL
// takes every pair of ranks for two hosts and connects them through its network transport.
std::string shared_gpu_host_id(std::string_view host, int rank);

// "2.28.9" from an NCCL version code (both encodings: 2.8.4 is 2804, 2.28.9 is 22809).
std::string nccl_version_string(int code);

// --nccl-debug-dir: the directory must exist and be writable (checked before any rank
// starts NCCL); each rank logs to its own file there.
Status check_nccl_debug_dir(const std::string& dir);
std::string nccl_debug_file(const std::string& dir, std::string_view host, int rank);
inline constexpr std::string_view kNcclDebugSubsys = "INIT,NET,GRAPH";
// The variables NCCL reads for that log, in the order they are set.
std::vector<std::pair<std::string, std::string>> nccl_debug_env(const std::string& dir, std::string_view host,
                                                                int rank);

}  // namespace fabscope
