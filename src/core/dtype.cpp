#include "core/dtype.h"

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

std::string list_names_types() {
  std::string out;
  for (DataType t : kAllDataTypes) out += fmt::format("{}{}", out.empty() ? "" : ", ", name(t));
  return out + ", all";
}

std::string list_names_ops() {
  std::string out;
  for (ReduceOp op : kAllReduceOps) out += fmt::format("{}{}", out.empty() ? "" : ", ", name(op));
  return out + ", all";
}

template <typename T, typename F>
Result<std::vector<T>> parse_list(std::string_view text, F one, std::span<const T> all) {
  if (text == "all") return std::vector<T>(all.begin(), all.end());
  std::vector<T> out;
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    auto r = one(item);
    if (!r.ok()) return r.status();
    bool dup = false;
    for (T v : out) dup = dup || v == *r;
    if (!dup) out.push_back(*r);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

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
  return Status::Invalid(fmt::format("unknown data type '{}'; allowed: {}", n, list_names_types()));
}

Result<ReduceOp> reduce_op_from_name(std::string_view n) {
  for (ReduceOp op : kAllReduceOps) {
    if (name(op) == n) return op;
  }
  return Status::Invalid(fmt::format("unknown reduction operator '{}'; allowed: {}", n, list_names_ops()));
}

Result<std::vector<DataType>> parse_data_types(std::string_view text) {
  return parse_list<DataType>(text, data_type_from_name, std::span<const DataType>(kAllDataTypes));
}

Result<std::vector<ReduceOp>> parse_reduce_ops(std::string_view text) {
  return parse_list<ReduceOp>(text, reduce_op_from_name, std::span<const ReduceOp>(kAllReduceOps));
}

// IEEE 754 binary16 conversion with round to nearest, ties to even.
Half float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    return Half{static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u))};
  }
  if (abs >= 0x477ff000u) return Half{static_cast<uint16_t>(sign | 0x7c00u)};  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {                                                     // below 2^-14: subnormal or zero
    // Let the FPU do the rounding: adding 0.5 aligns the subnormal half's ulp (2^-24) to float's ulp at 0.5.
    float v = std::bit_cast<float>(abs) + 0.5f;
    return Half{static_cast<uint16_t>(sign | static_cast<uint16_t>(std::bit_cast<uint32_t>(v) - 0x3f000000u))};
  }
  uint32_t mant_odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + mant_odd;  // re-bias exponent (-112 << 23) and round
  return Half{static_cast<uint16_t>(sign | (abs >> 13))};
}

float half_to_float(Half h) {
  uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1fu;
  uint32_t mant = h.bits & 0x3ffu;
  uint32_t out;
  if (exp == 0) {
    if (mant == 0) {
      out = sign;
    } else {  // subnormal: value = mant * 2^-24
      float v = static_cast<float>(mant) * 0x1p-24f;
      out = sign | std::bit_cast<uint32_t>(v);
    }
  } else if (exp == 31) {
    out = sign | 0x7f800000u | (mant << 13);
  } else {
    out = sign | ((exp + 112) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(out);
}

Bfloat16 float_to_bfloat16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return Bfloat16{static_cast<uint16_t>((x >> 16) | 0x40u)};  // quiet nan
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return Bfloat16{static_cast<uint16_t>(x >> 16)};
}

float bfloat16_to_float(Bfloat16 b) { return std::bit_cast<float>(static_cast<uint32_t>(b.bits) << 16); }

}  // namespace fabscope
