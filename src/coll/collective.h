// The collectives of `sweep`, one table entry each (all_collectives(), in
// collective.cpp): name, whether they reduce or have a root, bandwidth factors,
// element counts and in-place offsets, all as nccl-tests defines them
// (src/<collective>.cu there) so that numbers agree, and the buffer layout that
// verification expects (coll/layout.h).
//
// A new collective touches: the enum below; its table entry in collective.cpp, with
// its counts and layout functions beside it (a static_assert there checks that the
// table is in enum order); and each backend's switch over Collective
// (src/algo/collectives.cpp, src/backend/mpi/mpi_backend.cpp,
// src/backend/nccl/nccl_plan.cpp), which -Wswitch reports until it has a case.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
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

// Defined in coll/layout.h.
struct LayoutArgs;
struct LayoutCommon;
struct BufferLayout;

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
  // The element counts for `count` elements over `n` ranks, where `base` is the
  // per-rank chunk count / n rounded down to whole 16-byte units (element_counts()).
  ElementCounts (*counts)(size_t count, size_t base, size_t n);
  // Fills in the input and expected segments of `l` from what buffer_layout() worked
  // out for every collective alike (`k`).
  void (*layout)(const LayoutArgs& a, const LayoutCommon& k, BufferLayout& l);
};

const std::vector<CollectiveInfo>& all_collectives();
const CollectiveInfo& info(Collective c);
std::string_view name(Collective c);
// Accepts fabscope names and nccl-tests' (all_reduce, all_reduce_perf, ...).
Result<Collective> collective_from_name(std::string_view text);
// The one nccl-tests binary a text names ("..._all_reduce_perf.txt", "mpirun ... ./all_reduce_perf -b 8"),
// if it names exactly one ("reduce_perf" inside "all_reduce_perf" is not a second).
std::optional<Collective> collective_named_in(std::string_view text);
// The collectives a command line names, in its order; "all" is every one.
Result<std::vector<Collective>> collectives_from_names(const std::vector<std::string>& names);

// The element counts of `c` for a size of `count` elements of `element_bytes` each
// over `nranks` ranks: the table entry's counts, given the 16-byte-aligned chunk.
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
