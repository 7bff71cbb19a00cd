#include "backend/mpi/mpi_types.h"

#include <algorithm>

#include "coll/host_reduce.h"
#include "comm/mpi_check.h"

namespace fabscope {

namespace {

// MPI user operators for the 16-bit types: host_reduce's arithmetic (float, rounded back).
template <DataType T, ReduceOp Op>
void reduce_16bit(void* in, void* inout, int* len, MPI_Datatype*) {
  host_reduce(inout, in, static_cast<size_t>(*len), T, Op);
}

template <DataType T>
Status create_ops(MPI_Op (&ops)[4]) {
  MPI_User_function* fns[4] = {reduce_16bit<T, ReduceOp::kSum>, reduce_16bit<T, ReduceOp::kProd>,
                               reduce_16bit<T, ReduceOp::kMin>, reduce_16bit<T, ReduceOp::kMax>};
  for (int i = 0; i < 4; ++i) FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Op_create(fns[i], 1, &ops[i])));
  return Status::Ok();
}

int op_index(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return 0;
    case ReduceOp::kProd:
      return 1;
    case ReduceOp::kMin:
      return 2;
    case ReduceOp::kMax:
      return 3;
  }
  return 0;
}

}  // namespace

Result<MpiTypes> MpiTypes::create() {
  MpiTypes t;
  t.owned_ = true;
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Type_contiguous(2, MPI_BYTE, &t.half_)));
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Type_commit(&t.half_)));
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Type_contiguous(2, MPI_BYTE, &t.bf16_)));
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Type_commit(&t.bf16_)));
  FABSCOPE_RETURN_IF_ERROR(create_ops<DataType::kHalf>(t.half_ops_));
  FABSCOPE_RETURN_IF_ERROR(create_ops<DataType::kBfloat16>(t.bf16_ops_));
  return t;
}

MpiTypes::MpiTypes(MpiTypes&& o) noexcept : owned_(o.owned_), half_(o.half_), bf16_(o.bf16_) {
  std::copy(std::begin(o.half_ops_), std::end(o.half_ops_), half_ops_);
  std::copy(std::begin(o.bf16_ops_), std::end(o.bf16_ops_), bf16_ops_);
  o.owned_ = false;
}

MpiTypes::~MpiTypes() {
  if (!owned_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  for (MPI_Op& op : half_ops_) {
    if (op != MPI_OP_NULL) MPI_Op_free(&op);
  }
  for (MPI_Op& op : bf16_ops_) {
    if (op != MPI_OP_NULL) MPI_Op_free(&op);
  }
  if (half_ != MPI_DATATYPE_NULL) MPI_Type_free(&half_);
  if (bf16_ != MPI_DATATYPE_NULL) MPI_Type_free(&bf16_);
}

MPI_Datatype MpiTypes::datatype(DataType t) const {
  switch (t) {
    case DataType::kInt8:
      return MPI_INT8_T;
    case DataType::kUint8:
      return MPI_UINT8_T;
    case DataType::kInt32:
      return MPI_INT32_T;
    case DataType::kUint32:
      return MPI_UINT32_T;
    case DataType::kInt64:
      return MPI_INT64_T;
    case DataType::kUint64:
      return MPI_UINT64_T;
    case DataType::kHalf:
      return half_;
    case DataType::kBfloat16:
      return bf16_;
    case DataType::kFloat:
      return MPI_FLOAT;
    case DataType::kDouble:
      return MPI_DOUBLE;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op MpiTypes::op(DataType t, ReduceOp op) const {
  if (t == DataType::kHalf) return half_ops_[op_index(op)];
  if (t == DataType::kBfloat16) return bf16_ops_[op_index(op)];
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return MPI_SUM;
    case ReduceOp::kProd:
      return MPI_PROD;
    case ReduceOp::kMin:
      return MPI_MIN;
    case ReduceOp::kMax:
      return MPI_MAX;
  }
  return MPI_SUM;
}

}  // namespace fabscope
