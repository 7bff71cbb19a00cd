#include "backend/nccl/nccl_util.h"

#include <fmt/format.h>

#include "core/sizes.h"

namespace fabscope {

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::kInt8:
      return ncclInt8;
    case DataType::kUint8:
      return ncclUint8;
    case DataType::kInt32:
      return ncclInt32;
    case DataType::kUint32:
      return ncclUint32;
    case DataType::kInt64:
      return ncclInt64;
    case DataType::kUint64:
      return ncclUint64;
    case DataType::kHalf:
      return ncclFloat16;
    case DataType::kBfloat16:
      return ncclBfloat16;
    case DataType::kFloat:
      return ncclFloat32;
    case DataType::kDouble:
      return ncclFloat64;
  }
  return ncclFloat32;
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kProd:
      return ncclProd;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kAvg:
      return ncclAvg;
  }
  return ncclSum;
}

std::string cuda_text(cudaError_t e) { return fmt::format("{} ({})", cudaGetErrorString(e), cudaGetErrorName(e)); }

Status cuda_check(cudaError_t e, std::string_view what) {
  if (e == cudaSuccess) return Status::Ok();
  return Status::Runtime(fmt::format("{} failed: {}", what, cuda_text(e)));
}

int nccl_version_code() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return 0;
  return v;
}

std::string cuda_version_string(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

std::string describe_call(const CollCall& c, int nranks) {
  const CollectiveInfo& ci = info(c.coll);
  const uint64_t bytes = static_cast<uint64_t>(c.count) * element_size(c.dtype) *
                         (ci.algbw_times_nranks ? static_cast<uint64_t>(nranks) : 1);
  return fmt::format("{} {}{}{}, {} (count {}), {}", ci.name, name(c.dtype), c.op ? " " : "", c.op ? name(*c.op) : "",
                     format_size(bytes), c.count, c.in_place ? "in-place" : "out-of-place");
}

}  // namespace fabscope
