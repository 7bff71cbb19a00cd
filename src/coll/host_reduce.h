// Element-wise reduction on host memory, with the element type's own arithmetic
// (integers wrap; half and bfloat16 compute in float and round back), as the
// algorithms of the tcp and verbs backends combine partial results.
#pragma once

#include <cstddef>

#include "core/dtype.h"

namespace fabscope {

// inout[i] = inout[i] op in[i]; avg reduces as sum (divide once at the end).
void host_reduce(void* inout, const void* in, size_t count, DataType dtype, ReduceOp op);
// out[i] = a[i] op b[i]; out may alias a or b.
void host_reduce_to(void* out, const void* a, const void* b, size_t count, DataType dtype, ReduceOp op);

}  // namespace fabscope
