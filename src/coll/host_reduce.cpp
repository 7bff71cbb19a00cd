#include "coll/host_reduce.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace fabscope {

namespace {

template <typename T>
struct Arith {
  static T apply(T a, T b, ReduceOp op) {
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        if constexpr (std::is_integral_v<T>) {
          using U = std::make_unsigned_t<T>;
          return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
        } else {
          return a + b;
        }
      case ReduceOp::kProd:
        if constexpr (std::is_integral_v<T>) {
          using U = std::make_unsigned_t<T>;
          using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;  // no promotion to int
          return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
        } else {
          return a * b;
        }
      case ReduceOp::kMin:
        return std::min(a, b);
      case ReduceOp::kMax:
        return std::max(a, b);
    }
    return a;
  }
};

template <typename S, float (*ToF)(S), S (*FromF)(float)>
struct Arith16 {
  static S apply(S a, S b, ReduceOp op) { return FromF(Arith<float>::apply(ToF(a), ToF(b), op)); }
};

template <typename T, typename A>
void reduce_to(void* out, const void* a, const void* b, size_t count, ReduceOp op) {
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  // One switch outside the loop, so each loop is a simple vectorisable body.
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      for (size_t i = 0; i < count; ++i) o[i] = A::apply(x[i], y[i], ReduceOp::kSum);
      break;
    case ReduceOp::kProd:
      for (size_t i = 0; i < count; ++i) o[i] = A::apply(x[i], y[i], ReduceOp::kProd);
      break;
    case ReduceOp::kMin:
      for (size_t i = 0; i < count; ++i) o[i] = A::apply(x[i], y[i], ReduceOp::kMin);
      break;
    case ReduceOp::kMax:
      for (size_t i = 0; i < count; ++i) o[i] = A::apply(x[i], y[i], ReduceOp::kMax);
      break;
  }
}

}  // namespace

void host_reduce_to(void* out, const void* a, const void* b, size_t count, DataType dtype, ReduceOp op) {
  switch (dtype) {
    case DataType::kInt8:
      return reduce_to<int8_t, Arith<int8_t>>(out, a, b, count, op);
    case DataType::kUint8:
      return reduce_to<uint8_t, Arith<uint8_t>>(out, a, b, count, op);
    case DataType::kInt32:
      return reduce_to<int32_t, Arith<int32_t>>(out, a, b, count, op);
    case DataType::kUint32:
      return reduce_to<uint32_t, Arith<uint32_t>>(out, a, b, count, op);
    case DataType::kInt64:
      return reduce_to<int64_t, Arith<int64_t>>(out, a, b, count, op);
    case DataType::kUint64:
      return reduce_to<uint64_t, Arith<uint64_t>>(out, a, b, count, op);
    case DataType::kHalf:
      return reduce_to<Half, Arith16<Half, half_to_float, float_to_half>>(out, a, b, count, op);
    case DataType::kBfloat16:
      return reduce_to<Bfloat16, Arith16<Bfloat16, bfloat16_to_float, float_to_bfloat16>>(out, a, b, count, op);
    case DataType::kFloat:
      return reduce_to<float, Arith<float>>(out, a, b, count, op);
    case DataType::kDouble:
      return reduce_to<double, Arith<double>>(out, a, b, count, op);
  }
}

void host_reduce(void* inout, const void* in, size_t count, DataType dtype, ReduceOp op) {
  host_reduce_to(inout, inout, in, count, dtype, op);
}

}  // namespace fabscope
