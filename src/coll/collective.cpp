#include "coll/collective.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cctype>

#include "coll/layout.h"

namespace fabscope {

namespace {

// Element counts (nccl-tests' *GetCollByteCount), shared by collectives that move
// data alike. `base` is the per-rank chunk.

// Every rank's buffers hold the whole count.
ElementCounts whole_counts(size_t count, size_t /*base*/, size_t /*n*/) { return {count, count, count, 0, 0}; }
// One chunk in, n chunks out; in place, rank r's input is chunk r of the output.
ElementCounts gather_counts(size_t /*count*/, size_t base, size_t n) { return {base, base * n, base, base, 0}; }
// n chunks in, one chunk out; in place, rank r's output is chunk r of the input.
ElementCounts scatter_counts(size_t /*count*/, size_t base, size_t n) { return {base * n, base, base, 0, base}; }
// n chunks in, n chunks out; in place, input and output share the receive buffer.
ElementCounts alltoall_counts(size_t /*count*/, size_t base, size_t n) { return {base * n, base * n, base, 0, 0}; }

// Expected layouts (see coll/layout.h), one per collective in table order.

void allreduce_layout(const LayoutArgs& a, const LayoutCommon& k, BufferLayout& l) {
  l.input = {{k.in_off, k.c, a.rank, 0}};
  l.expected = {{0, k.c, kAllRanks, 0}};
}

void allgather_layout(const LayoutArgs& a, const LayoutCommon& k, BufferLayout& l) {
  l.input = {{k.in_off, k.c, a.rank, 0}};
  for (size_t j = 0; j < k.n; ++j) l.expected.push_back({j * k.c, k.c, static_cast<int>(j), 0});
}

void reducescatter_layout(const LayoutArgs& a, const LayoutCommon& k, BufferLayout& l) {
  l.input = {{0, k.n * k.c, a.rank, 0}};
  l.expected = {{k.out_off, k.c, kAllRanks, k.r * k.c}};
}

void alltoall_layout(const LayoutArgs& a, const LayoutCommon& k, BufferLayout& l) {
  l.input = {{0, k.n * k.c, a.rank, 0}};
  for (size_t j = 0; j < k.n; ++j) l.expected.push_back({j * k.c, k.c, static_cast<int>(j), k.r * k.c});
}

void broadcast_layout(const LayoutArgs& a, const LayoutCommon& k, BufferLayout& l) {
  if (k.is_root) l.input = {{0, k.c, a.root, 0}};
  l.expected = {{0, k.c, a.root, 0}};
}

void reduce_layout(const LayoutArgs& a, const LayoutCommon& k, BufferLayout& l) {
  l.input = {{0, k.c, a.rank, 0}};
  if (k.is_root) l.expected = {{0, k.c, kAllRanks, 0}};
}

void gather_layout(const LayoutArgs& a, const LayoutCommon& k, BufferLayout& l) {
  l.input = {{k.in_off, k.c, a.rank, 0}};
  if (k.is_root) {
    for (size_t j = 0; j < k.n; ++j) l.expected.push_back({j * k.c, k.c, static_cast<int>(j), 0});
  }
}

void scatter_layout(const LayoutArgs& a, const LayoutCommon& k, BufferLayout& l) {
  if (k.is_root) l.input = {{0, k.n * k.c, a.root, 0}};
  l.expected = {{k.out_off, k.c, a.root, k.r * k.c}};
}

void sendrecv_layout(const LayoutArgs& a, const LayoutCommon& k, BufferLayout& l) {
  l.input = {{0, k.c, a.rank, 0}};
  l.expected = {{0, k.c, static_cast<int>((k.r + k.n - 1) % k.n), 0}};
}

using BF = CollectiveInfo::BusFactor;
// Fields: id, name, nccl-tests name, reduces, rooted, algbw_times_nranks, bus factor,
// counts, layout.
constexpr auto kCollectives = std::to_array<CollectiveInfo>({
    {Collective::kAllReduce, "allreduce", "all_reduce_perf", true, false, false, BF::kAllReduce, whole_counts,
     allreduce_layout},
    {Collective::kAllGather, "allgather", "all_gather_perf", false, false, true, BF::kRing, gather_counts,
     allgather_layout},
    {Collective::kReduceScatter, "reducescatter", "reduce_scatter_perf", true, false, true, BF::kRing, scatter_counts,
     reducescatter_layout},
    {Collective::kAllToAll, "alltoall", "alltoall_perf", false, false, true, BF::kRing, alltoall_counts,
     alltoall_layout},
    {Collective::kBroadcast, "broadcast", "broadcast_perf", false, true, false, BF::kOne, whole_counts,
     broadcast_layout},
    {Collective::kReduce, "reduce", "reduce_perf", true, true, false, BF::kOne, whole_counts, reduce_layout},
    {Collective::kGather, "gather", "gather_perf", false, true, true, BF::kRing, gather_counts, gather_layout},
    {Collective::kScatter, "scatter", "scatter_perf", false, true, true, BF::kRing, scatter_counts, scatter_layout},
    {Collective::kSendRecv, "sendrecv", "sendrecv_perf", false, false, false, BF::kOne, whole_counts, sendrecv_layout},
});

// info() indexes the table by enum value, and every entry has its functions.
constexpr bool table_is_complete_and_in_enum_order() {
  for (size_t i = 0; i < kCollectives.size(); ++i) {
    const CollectiveInfo& e = kCollectives[i];
    if (static_cast<size_t>(e.id) != i || e.counts == nullptr || e.layout == nullptr) return false;
  }
  return true;
}
static_assert(table_is_complete_and_in_enum_order(),
              "kCollectives: entry i must be the Collective with value i, with counts and layout");

}  // namespace

const std::vector<CollectiveInfo>& all_collectives() {
  static const std::vector<CollectiveInfo> kTable(kCollectives.begin(), kCollectives.end());
  return kTable;
}

const CollectiveInfo& info(Collective c) { return kCollectives[static_cast<size_t>(c)]; }
std::string_view name(Collective c) { return info(c).name; }

Result<std::vector<Collective>> collectives_from_names(const std::vector<std::string>& names) {
  std::vector<Collective> out;
  // Each collective once: "allreduce all_reduce_perf" or "all allreduce" would time the
  // same rows twice, and compare could not tell them apart.
  auto add = [&](Collective c, const std::string& given) -> Status {
    if (std::find(out.begin(), out.end(), c) != out.end()) {
      return Status::Invalid(
          fmt::format("collective '{}' is named twice ({} is already in the list{})", given, name(c),
                      std::find(names.begin(), names.end(), "all") != names.end() ? "; 'all' holds every one" : ""));
    }
    out.push_back(c);
    return Status::Ok();
  };
  for (const std::string& given : names) {
    if (given == "all") {
      for (const auto& c : all_collectives()) FABSCOPE_RETURN_IF_ERROR(add(c.id, given));
      continue;
    }
    auto c = collective_from_name(given);
    if (!c.ok()) return c.status();
    FABSCOPE_RETURN_IF_ERROR(add(*c, given));
  }
  return out;
}

std::optional<Collective> collective_named_in(std::string_view text) {
  std::vector<const CollectiveInfo*> found;
  for (const CollectiveInfo& c : all_collectives()) {
    if (text.find(c.nccl_tests_name) != std::string_view::npos) found.push_back(&c);
  }
  std::vector<const CollectiveInfo*> kept;  // the names no other found name contains
  for (const CollectiveInfo* c : found) {
    bool inside = false;
    for (const CollectiveInfo* o : found) {
      inside |= o != c && o->nccl_tests_name.find(c->nccl_tests_name) != std::string_view::npos;
    }
    if (!inside) kept.push_back(c);
  }
  if (kept.size() != 1) return std::nullopt;
  return kept[0]->id;
}

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
  return info(c).counts(count, base, n);
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
