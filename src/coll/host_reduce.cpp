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

// The arithmetic each stored type reduces with.
template <typename T>
struct ArithOf {
  using type = Arith<T>;
};
template <>
struct ArithOf<Half> {
  using type = Arith16<Half, half_to_float, float_to_half>;
};
template <>
struct ArithOf<Bfloat16> {
  using type = Arith16<Bfloat16, bfloat16_to_float, float_to_bfloat16>;
};
template <typename T>
using ArithFor = typename ArithOf<T>::type;

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
  visit_data_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    reduce_to<T, ArithFor<T>>(out, a, b, count, op);
  });
}

void host_reduce(void* inout, const void* in, size_t count, DataType dtype, ReduceOp op) {
  host_reduce_to(inout, inout, in, count, dtype, op);
}

}  // namespace fabscope
