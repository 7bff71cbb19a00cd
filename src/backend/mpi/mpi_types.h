// MPI datatypes and operators for fabscope's element types. MPI has no 16-bit float
// types, so half and bfloat16 get a 2-byte datatype and user-defined operators that
// compute in float.
#pragma once

#include <mpi.h>

#include "core/dtype.h"
#include "core/status.h"

namespace fabscope {

class MpiTypes {
 public:
  static Result<MpiTypes> create();
  MpiTypes(MpiTypes&& other) noexcept;
  MpiTypes& operator=(MpiTypes&&) = delete;
  MpiTypes(const MpiTypes&) = delete;
  ~MpiTypes();

  MPI_Datatype datatype(DataType t) const;
  // avg maps to MPI_SUM: the caller divides afterwards.
  MPI_Op op(DataType t, ReduceOp op) const;

 private:
  MpiTypes() = default;
  bool owned_ = false;
  MPI_Datatype half_ = MPI_DATATYPE_NULL;
  MPI_Datatype bf16_ = MPI_DATATYPE_NULL;
  MPI_Op half_ops_[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};  // sum, prod, min, max
  MPI_Op bf16_ops_[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
};

}  // namespace fabscope
