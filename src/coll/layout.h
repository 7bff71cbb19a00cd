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

BufferLayout buffer_layout(const LayoutArgs& a);

}  // namespace fabscope
