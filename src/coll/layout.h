// Which values each rank's buffers hold before a collective and must hold after
// it, as lists of segments of a deterministic pattern (see pattern.h). Every rank
// computes its own expected output, so verification never moves data between ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "coll/collective.h"

namespace fabscope {

inline constexpr int kAllRanks = -1;

// `count` elements at element `offset` of a buffer, equal to pattern values of
// `src_rank` at indices index_base .. index_base + count - 1; src_rank kAllRanks means
// the reduction over every rank's values at those indices.
struct Segment {
  size_t offset = 0;
  size_t count = 0;
  int src_rank = 0;
  uint64_t index_base = 0;
};

struct BufferLayout {
  std::vector<Segment> input;     // in the send buffer, or the receive buffer when in place
  bool input_in_recv = false;     // in place: the input lives in the receive buffer
  std::vector<Segment> expected;  // in the receive buffer, after the collective
};

struct LayoutArgs {
  Collective coll;
  int rank = 0;
  int nranks = 1;
  int root = 0;
  bool in_place = false;
  ElementCounts counts;
  // Where this rank's in-place reduce-scatter/scatter output starts, in elements;
  // nccl's convention is rank * counts.recv_inplace_offset, MPI's is 0.
  size_t inplace_output_offset = 0;
};

// What buffer_layout() works out alike for every collective before it calls the
// collective's table entry (CollectiveInfo::layout) to fill in the segments.
struct LayoutCommon {
  size_t n = 1;          // ranks
  size_t r = 0;          // this rank
  size_t c = 0;          // counts.param: elements per call, or per rank's chunk
  bool is_root = false;  // this rank is the root
  // Where this rank's input starts: 0 in the send buffer, or its in-place slot.
  size_t in_off = 0;
  // Where a reduce-scatter/scatter output starts: 0, or inplace_output_offset in place.
  size_t out_off = 0;
};

// The input and expected segments of `a.coll` for one rank.
BufferLayout buffer_layout(const LayoutArgs& a);

}  // namespace fabscope
