// Helpers of the nccl backend: fabscope's types and operators as NCCL's, CUDA errors
// as a Status, the NCCL and CUDA versions, and one collective call in words for errors.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <string>
#include <string_view>

#include "coll/call.h"
#include "core/status.h"

namespace fabscope {

// fabscope's types and operators as NCCL's (the values are NCCL's stable ABI).
ncclDataType_t nccl_type(DataType t);
ncclRedOp_t nccl_op(ReduceOp op);

// "out of memory (cudaErrorMemoryAllocation)"
std::string cuda_text(cudaError_t e);
// Ok on cudaSuccess, else "WHAT failed: " and the CUDA error.
Status cuda_check(cudaError_t e, std::string_view what);

// The version code of the NCCL linked in (ncclGetVersion), 0 when it fails.
int nccl_version_code();
// "12.4" from a CUDA version number (12040).
std::string cuda_version_string(int v);

// One collective call, in words, for errors: "allreduce float sum, 32 MiB (count
// 8388608), out-of-place".
std::string describe_call(const CollCall& c, int nranks);

}  // namespace fabscope
