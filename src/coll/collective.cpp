#include "coll/collective.h"

#include <fmt/format.h>
#include <cctype>

namespace fabscope {

const std::vector<CollectiveInfo>& all_collectives() {
  using BF = CollectiveInfo::BusFactor;
  static const std::vector<CollectiveInfo> kTable = {
      {Collective::kAllReduce, "allreduce", "all_reduce_perf", true, false, false, BF::kAllReduce},
      {Collective::kAllGather, "allgather", "all_gather_perf", false, false, true, BF::kRing},
      {Collective::kReduceScatter, "reducescatter", "reduce_scatter_perf", true, false, true, BF::kRing},
      {Collective::kAllToAll, "alltoall", "alltoall_perf", false, false, true, BF::kRing},
      {Collective::kBroadcast, "broadcast", "broadcast_perf", false, true, false, BF::kOne},
      {Collective::kReduce, "reduce", "reduce_perf", true, true, false, BF::kOne},
      {Collective::kGather, "gather", "gather_perf", false, true, true, BF::kRing},
      {Collective::kScatter, "scatter", "scatter_perf", false, true, true, BF::kRing},
      {Collective::kSendRecv, "sendrecv", "sendrecv_perf", false, false, false, BF::kOne},
  };
  return kTable;
}

const CollectiveInfo& info(Collective c) { return all_collectives()[static_cast<size_t>(c)]; }
std::string_view name(Collective c) { return info(c).name; }

Result<Collective> collective_from_name(std::string_view text) {
  std::string squashed;
  for (char ch : text) {
    if (ch != '_' && ch != '-') squashed += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  if (squashed.size() > 4 && squashed.ends_with("perf")) squashed.resize(squashed.size() - 4);
  for (const CollectiveInfo& c : all_collectives()) {
    if (c.name == squashed) return c.id;
  }
  std::string allowed;
  for (const CollectiveInfo& c : all_collectives()) allowed += fmt::format("{}{}", allowed.empty() ? "" : ", ", c.name);
  return Status::Invalid(fmt::format("unknown collective '{}'; allowed: {}", text, allowed));
}

ElementCounts element_counts(Collective c, size_t count, size_t element_bytes, int nranks) {
  const size_t n = static_cast<size_t>(nranks);
  // Per-rank chunks are rounded down to a multiple of 16 bytes, as nccl-tests does.
  const size_t align_mask = element_bytes >= 16 ? 0 : (16 / element_bytes - 1);
  const size_t base = (count / n) & ~align_mask;
  ElementCounts e;
  switch (c) {
    case Collective::kAllReduce:
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      e.send = e.recv = e.param = count;
      break;
    case Collective::kAllGather:
      e = {base, base * n, base, base, 0};
      break;
    case Collective::kReduceScatter:
      e = {base * n, base, base, 0, base};
      break;
    case Collective::kAllToAll:
      e = {base * n, base * n, base, 0, 0};
      break;
    case Collective::kGather:
      e = {base, base * n, base, base, 0};
      break;
    case Collective::kScatter:
      e = {base * n, base, base, 0, base};
      break;
  }
  return e;
}

double busbw_factor(Collective c, int nranks) {
  const double n = nranks;
  switch (info(c).bus_factor) {
    case CollectiveInfo::BusFactor::kOne:
      return 1.0;
    case CollectiveInfo::BusFactor::kRing:
      return (n - 1) / n;
    case CollectiveInfo::BusFactor::kAllReduce:
      return 2 * (n - 1) / n;
  }
  return 1.0;
}

Bandwidth bandwidth(Collective c, size_t param_count, size_t element_bytes, double seconds, int nranks) {
  double bytes = static_cast<double>(param_count * element_bytes);
  if (info(c).algbw_times_nranks) bytes *= nranks;
  Bandwidth bw;
  if (seconds <= 0) return bw;
  bw.algbw_gbps = bytes / 1.0e9 / seconds;
  bw.busbw_gbps = bw.algbw_gbps * busbw_factor(c, nranks);
  return bw;
}

}  // namespace fabscope
