// Element types and reduction operators, named as nccl-tests names them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace fabscope {

enum class DataType { kInt8, kUint8, kInt32, kUint32, kInt64, kUint64, kHalf, kBfloat16, kFloat, kDouble };
enum class ReduceOp { kSum, kProd, kMin, kMax, kAvg };

inline constexpr std::array kAllDataTypes = {DataType::kInt8,  DataType::kUint8,  DataType::kInt32, DataType::kUint32,
                                             DataType::kInt64, DataType::kUint64, DataType::kHalf,  DataType::kBfloat16,
                                             DataType::kFloat, DataType::kDouble};
inline constexpr std::array kAllReduceOps = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax,
                                             ReduceOp::kAvg};

std::string_view name(DataType t);
std::string_view name(ReduceOp op);
size_t element_size(DataType t);
bool is_floating(DataType t);
bool is_signed(DataType t);

// Parses one name, or a comma-separated list, or "all". Accepts the aliases
// nccl-tests accepts (int, char, fp16, bf16, fp32, fp64, ...).
Result<std::vector<DataType>> parse_data_types(std::string_view text);
// "int8, uint8, ..., double" and "sum, prod, ..., avg": for help texts and errors.
std::string data_type_names();
std::string reduce_op_names();
Result<std::vector<ReduceOp>> parse_reduce_ops(std::string_view text);
Result<DataType> data_type_from_name(std::string_view name);
Result<ReduceOp> reduce_op_from_name(std::string_view name);

// 16-bit floating point storage types; arithmetic goes through float.
struct Half {
  uint16_t bits;
};
struct Bfloat16 {
  uint16_t bits;
};
Half float_to_half(float f);  // round to nearest even
float half_to_float(Half h);
Bfloat16 float_to_bfloat16(float f);  // round to nearest even
float bfloat16_to_float(Bfloat16 b);

// Calls f with a value of the element type `t` stores (int8_t, ..., Half, Bfloat16,
// float, double): the one switch from a runtime type to templated code.
template <typename F>
decltype(auto) visit_data_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kInt8:
      return f(int8_t{});
    case DataType::kUint8:
      return f(uint8_t{});
    case DataType::kInt32:
      return f(int32_t{});
    case DataType::kUint32:
      return f(uint32_t{});
    case DataType::kInt64:
      return f(int64_t{});
    case DataType::kUint64:
      return f(uint64_t{});
    case DataType::kHalf:
      return f(Half{});
    case DataType::kBfloat16:
      return f(Bfloat16{});
    case DataType::kFloat:
      return f(float{});
    case DataType::kDouble:
      return f(double{});
  }
  return f(float{});
}

}  // namespace fabscope
