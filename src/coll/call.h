// One collective call: what a backend or fabscope's own algorithms are asked to do.
#pragma once

#include <cstddef>
#include <optional>

#include "coll/collective.h"
#include "core/dtype.h"

namespace fabscope {

// One collective call, with buffers as nccl-tests passes them: in place, `send` is
// recv_base + rank * send_inplace_offset and `recv` is recv_base + rank * recv_inplace_offset.
struct CollCall {
  Collective coll = Collective::kAllReduce;
  DataType dtype = DataType::kFloat;
  std::optional<ReduceOp> op;  // set for reducing collectives
  int root = 0;
  const void* send = nullptr;
  void* recv = nullptr;
  size_t count = 0;  // nccl-tests' param count
  bool in_place = false;
};

}  // namespace fabscope
