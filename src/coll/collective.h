// The collectives of `sweep`, one table entry each: name, whether they reduce or
// have a root, element counts and in-place offsets, and bandwidth factors, all as
// nccl-tests defines them (src/<collective>.cu there), so that numbers agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace fabscope {

enum class Collective {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kReduce,
  kGather,
  kScatter,
  kSendRecv
};

struct CollectiveInfo {
  Collective id;
  std::string_view name;             // fabscope's name: "allreduce"
  std::string_view nccl_tests_name;  // the nccl-tests binary: "all_reduce_perf"
  bool reduces;                      // takes a reduction operator
  bool rooted;                       // has a root rank
  // algbw = param_count * element size * data_ranks_factor / time, where the factor is
  // 1 or the rank count (nccl-tests' *GetBw).
  bool algbw_times_nranks;
  // busbw = algbw * numerator(n) / n: 2(n-1), (n-1) or n (factor 1).
  enum class BusFactor { kOne, kRing, kAllReduce } bus_factor;
};

const std::vector<CollectiveInfo>& all_collectives();
const CollectiveInfo& info(Collective c);
std::string_view name(Collective c);
// Accepts fabscope names and nccl-tests' (all_reduce, all_reduce_perf, ...).
Result<Collective> collective_from_name(std::string_view text);

// Element counts for one size, as nccl-tests' *GetCollByteCount compute them from
// count = size / element size. Offsets are per rank: rank r's in-place send buffer is
// recv + r * send_inplace_offset, its in-place output is recv + r * recv_inplace_offset.
struct ElementCounts {
  size_t send = 0;
  size_t recv = 0;
  size_t param = 0;  // the count given to the collective call and printed as "count"
  size_t send_inplace_offset = 0;
  size_t recv_inplace_offset = 0;
};
ElementCounts element_counts(Collective c, size_t count, size_t element_bytes, int nranks);

// The size nccl-tests prints in its "size" column: max(send, recv) bytes.
inline uint64_t printed_size_bytes(const ElementCounts& e, size_t element_bytes) {
  return static_cast<uint64_t>(e.send > e.recv ? e.send : e.recv) * element_bytes;
}

double busbw_factor(Collective c, int nranks);
struct Bandwidth {
  double algbw_gbps = 0;  // decimal GB/s, as nccl-tests prints
  double busbw_gbps = 0;
};
Bandwidth bandwidth(Collective c, size_t param_count, size_t element_bytes, double seconds, int nranks);

}  // namespace fabscope
