#include "core/dtype.h"

#include "core/half_bits.h"
#include "core/text.h"

#include <fmt/format.h>
#include <bit>
#include <cmath>
#include <span>

namespace fabscope {

std::string_view name(DataType t) {
  switch (t) {
    case DataType::kInt8:
      return "int8";
    case DataType::kUint8:
      return "uint8";
    case DataType::kInt32:
      return "int32";
    case DataType::kUint32:
      return "uint32";
    case DataType::kInt64:
      return "int64";
    case DataType::kUint64:
      return "uint64";
    case DataType::kHalf:
      return "half";
    case DataType::kBfloat16:
      return "bfloat16";
    case DataType::kFloat:
      return "float";
    case DataType::kDouble:
      return "double";
  }
  return "?";
}

std::string_view name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kProd:
      return "prod";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kAvg:
      return "avg";
  }
  return "?";
}

size_t element_size(DataType t) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kUint8:
      return 1;
    case DataType::kHalf:
    case DataType::kBfloat16:
      return 2;
    case DataType::kInt32:
    case DataType::kUint32:
    case DataType::kFloat:
      return 4;
    case DataType::kInt64:
    case DataType::kUint64:
    case DataType::kDouble:
      return 8;
  }
  return 0;
}

bool is_floating(DataType t) {
  return t == DataType::kHalf || t == DataType::kBfloat16 || t == DataType::kFloat || t == DataType::kDouble;
}

bool is_signed(DataType t) {
  return t == DataType::kInt8 || t == DataType::kInt32 || t == DataType::kInt64 || is_floating(t);
}

namespace {

template <typename T, size_t N>
std::string list_names(const std::array<T, N>& all) {
  std::string out;
  for (T v : all) out += fmt::format("{}{}", out.empty() ? "" : ", ", name(v));
  return out;
}

template <typename T, typename F>
Result<std::vector<T>> parse_list(std::string_view text, F one, std::span<const T> all) {
  if (text == "all") return std::vector<T>(all.begin(), all.end());
  std::vector<T> out;
  for (std::string_view item : split(text, ',')) {
    auto r = one(item);
    if (!r.ok()) return r.status();
    bool dup = false;
    for (T v : out) dup = dup || v == *r;
    if (!dup) out.push_back(*r);
  }
  return out;
}

}  // namespace

std::string data_type_names() { return list_names(kAllDataTypes); }
std::string reduce_op_names() { return list_names(kAllReduceOps); }

Result<DataType> data_type_from_name(std::string_view n) {
  struct Alias {
    std::string_view name;
    DataType type;
  };
  static constexpr Alias kAliases[] = {
      {"int8", DataType::kInt8},     {"char", DataType::kInt8},     {"uint8", DataType::kUint8},
      {"int32", DataType::kInt32},   {"int", DataType::kInt32},     {"uint32", DataType::kUint32},
      {"int64", DataType::kInt64},   {"uint64", DataType::kUint64}, {"half", DataType::kHalf},
      {"float16", DataType::kHalf},  {"fp16", DataType::kHalf},     {"bfloat16", DataType::kBfloat16},
      {"bf16", DataType::kBfloat16}, {"float", DataType::kFloat},   {"float32", DataType::kFloat},
      {"fp32", DataType::kFloat},    {"double", DataType::kDouble}, {"float64", DataType::kDouble},
      {"fp64", DataType::kDouble},
  };
  for (const Alias& a : kAliases) {
    if (a.name == n) return a.type;
  }
  return Status::Invalid(fmt::format("unknown data type '{}'; allowed: {}", n, data_type_names() + ", all"));
}

Result<ReduceOp> reduce_op_from_name(std::string_view n) {
  for (ReduceOp op : kAllReduceOps) {
    if (name(op) == n) return op;
  }
  return Status::Invalid(fmt::format("unknown reduction operator '{}'; allowed: {}", n, reduce_op_names() + ", all"));
}

Result<std::vector<DataType>> parse_data_types(std::string_view text) {
  return parse_list<DataType>(text, data_type_from_name, std::span<const DataType>(kAllDataTypes));
}

Result<std::vector<ReduceOp>> parse_reduce_ops(std::string_view text) {
  return parse_list<ReduceOp>(text, reduce_op_from_name, std::span<const ReduceOp>(kAllReduceOps));
}

// IEEE 754 binary16 conversion with round to nearest, ties to even.
Half float_to_half(float f) { return Half{hd::float_to_half_bits(f)}; }
float half_to_float(Half h) { return hd::half_bits_to_float(h.bits); }
Bfloat16 float_to_bfloat16(float f) { return Bfloat16{hd::float_to_bfloat16_bits(f)}; }
float bfloat16_to_float(Bfloat16 b) { return hd::bfloat16_bits_to_float(b.bits); }

}  // namespace fabscope
