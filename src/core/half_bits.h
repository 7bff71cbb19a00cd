// 16-bit float conversions (round to nearest even) and bit casts, written once for
// the host and the GPU kernels: plain C++ that nvcc also compiles __host__ __device__.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define FABSCOPE_HD __host__ __device__
#else
#define FABSCOPE_HD
#endif

namespace fabscope::hd {

template <typename To, typename From>
FABSCOPE_HD inline To bits_as(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

// IEEE binary16 and bfloat16 from and to float, rounding to nearest even.
FABSCOPE_HD inline uint16_t float_to_half_bits(float f) {
  uint32_t x = bits_as<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {                                               // below 2^-14: subnormal or zero
    // Adding 0.5 aligns the subnormal half's ulp (2^-24) with float's ulp at 0.5,
    // so the float addition does the rounding.
    float v = bits_as<float>(abs) + 0.5f;
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(bits_as<uint32_t>(v) - 0x3f000000u));
  }
  uint32_t mant_odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + mant_odd;  // re-bias the exponent (-112 << 23) and round
  return static_cast<uint16_t>(sign | (abs >> 13));
}

FABSCOPE_HD inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t out;
  if (exp == 0) {
    if (mant == 0) {
      out = sign;
    } else {  // subnormal: mant * 2^-24
      float v = static_cast<float>(mant) * 5.9604644775390625e-08f;
      out = sign | bits_as<uint32_t>(v);
    }
  } else if (exp == 31) {
    out = sign | 0x7f800000u | (mant << 13);
  } else {
    out = sign | ((exp + 112) << 23) | (mant << 13);
  }
  return bits_as<float>(out);
}

FABSCOPE_HD inline uint16_t float_to_bfloat16_bits(float f) {
  uint32_t x = bits_as<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return static_cast<uint16_t>(x >> 16);
}

FABSCOPE_HD inline float bfloat16_bits_to_float(uint16_t b) { return bits_as<float>(static_cast<uint32_t>(b) << 16); }

}  // namespace fabscope::hd
