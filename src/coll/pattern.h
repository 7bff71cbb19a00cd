// The deterministic data fabscope moves: element i of rank r under seed s is a
// function of (s, r, i), chosen per operator so that a reduction gives the same
// result in any order (integers wrap; floats stay exact small integers, products
// of +-1 with one factor 2 or 3), and every rank can compute expected outputs alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "coll/layout.h"
#include "core/dtype.h"

namespace fabscope {

struct PatternSpec {
  DataType dtype = DataType::kFloat;
  std::optional<ReduceOp> op;  // absent for collectives that do not reduce
  uint64_t seed = 0;
  int nranks = 1;
};

// Host memory: writes the input segments / counts elements that differ from the
// expected segments (exact, except avg of floating types: 2 ulp, as nccl-tests).
void host_fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments);
uint64_t host_count_wrong(const void* buffer, const PatternSpec& spec, std::span<const Segment> segments);

// Divides `count` elements in place by `divisor`, with the type's own arithmetic:
// how a backend without a native average turns a sum into one.
void host_divide(void* buffer, size_t count, DataType dtype, int divisor);

// One element's value as a double (exact for every type but 64-bit integers beyond
// 2^53), for tests and diagnostics.
double pattern_value(const PatternSpec& spec, int rank, uint64_t index);
double expected_value(const PatternSpec& spec, int src_rank, uint64_t index);

}  // namespace fabscope
