#include "coll/layout.h"

namespace fabscope {

BufferLayout buffer_layout(const LayoutArgs& a) {
  const size_t n = static_cast<size_t>(a.nranks);
  const size_t r = static_cast<size_t>(a.rank);
  const size_t c = a.counts.param;
  const bool is_root = a.rank == a.root;
  BufferLayout l;
  l.input_in_recv = a.in_place;
  // Where this rank's input starts: the send buffer, or its in-place slot.
  const size_t in_off = a.in_place ? r * a.counts.send_inplace_offset : 0;

  switch (a.coll) {
    case Collective::kAllReduce:
      l.input = {{in_off, c, a.rank, 0}};
      l.expected = {{0, c, kAllRanks, 0}};
      break;
    case Collective::kAllGather:
      l.input = {{in_off, c, a.rank, 0}};
      for (size_t j = 0; j < n; ++j) l.expected.push_back({j * c, c, static_cast<int>(j), 0});
      break;
    case Collective::kReduceScatter:
      l.input = {{0, n * c, a.rank, 0}};
      l.expected = {{a.in_place ? a.inplace_output_offset : 0, c, kAllRanks, r * c}};
      break;
    case Collective::kAllToAll:
      l.input = {{0, n * c, a.rank, 0}};
      for (size_t j = 0; j < n; ++j) l.expected.push_back({j * c, c, static_cast<int>(j), r * c});
      break;
    case Collective::kBroadcast:
      if (is_root) l.input = {{0, c, a.root, 0}};
      l.expected = {{0, c, a.root, 0}};
      break;
    case Collective::kReduce:
      l.input = {{0, c, a.rank, 0}};
      if (is_root) l.expected = {{0, c, kAllRanks, 0}};
      break;
    case Collective::kGather:
      l.input = {{in_off, c, a.rank, 0}};
      if (is_root) {
        for (size_t j = 0; j < n; ++j) l.expected.push_back({j * c, c, static_cast<int>(j), 0});
      }
      break;
    case Collective::kScatter:
      if (is_root) l.input = {{0, n * c, a.root, 0}};
      l.expected = {{a.in_place ? a.inplace_output_offset : 0, c, a.root, r * c}};
      break;
    case Collective::kSendRecv:
      l.input = {{0, c, a.rank, 0}};
      l.expected = {{0, c, static_cast<int>((r + n - 1) % n), 0}};
      break;
  }
  return l;
}

}  // namespace fabscope
