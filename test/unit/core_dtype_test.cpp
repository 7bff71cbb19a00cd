// Element types and reduction operators: names, sizes, parsing, and the 16-bit
// float conversions (checked against an independent nearest-value reference).
#include "core/dtype.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace fabscope {
namespace {

TEST(DataTypeNames, MatchNcclTests) {
  const std::vector<std::string> want = {"int8",   "uint8", "int32",    "uint32", "int64",
                                         "uint64", "half",  "bfloat16", "float",  "double"};
  ASSERT_EQ(kAllDataTypes.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(name(kAllDataTypes[i]), want[i]);
}

TEST(ReduceOpNames, MatchNcclTests) {
  const std::vector<std::string> want = {"sum", "prod", "min", "max", "avg"};
  ASSERT_EQ(kAllReduceOps.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(name(kAllReduceOps[i]), want[i]);
}

TEST(DataTypes, ElementSizesAndClasses) {
  EXPECT_EQ(element_size(DataType::kInt8), 1u);
  EXPECT_EQ(element_size(DataType::kUint8), 1u);
  EXPECT_EQ(element_size(DataType::kInt32), 4u);
  EXPECT_EQ(element_size(DataType::kUint32), 4u);
  EXPECT_EQ(element_size(DataType::kInt64), 8u);
  EXPECT_EQ(element_size(DataType::kUint64), 8u);
  EXPECT_EQ(element_size(DataType::kHalf), 2u);
  EXPECT_EQ(element_size(DataType::kBfloat16), 2u);
  EXPECT_EQ(element_size(DataType::kFloat), 4u);
  EXPECT_EQ(element_size(DataType::kDouble), 8u);
  EXPECT_EQ(sizeof(Half), 2u);
  EXPECT_EQ(sizeof(Bfloat16), 2u);

  for (DataType t : kAllDataTypes) {
    const bool want_float =
        t == DataType::kHalf || t == DataType::kBfloat16 || t == DataType::kFloat || t == DataType::kDouble;
    EXPECT_EQ(is_floating(t), want_float) << name(t);
    const bool want_signed = want_float || t == DataType::kInt8 || t == DataType::kInt32 || t == DataType::kInt64;
    EXPECT_EQ(is_signed(t), want_signed) << name(t);
  }
}

TEST(DataTypes, NamesParseBackToTheirType) {
  for (DataType t : kAllDataTypes) {
    auto r = data_type_from_name(name(t));
    ASSERT_TRUE(r.ok()) << name(t);
    EXPECT_EQ(*r, t);
  }
  for (ReduceOp op : kAllReduceOps) {
    auto r = reduce_op_from_name(name(op));
    ASSERT_TRUE(r.ok()) << name(op);
    EXPECT_EQ(*r, op);
  }
}

TEST(DataTypes, Aliases) {
  struct Case {
    const char* text;
    DataType type;
  };
  for (const Case& c :
       {Case{"char", DataType::kInt8}, Case{"int", DataType::kInt32}, Case{"fp16", DataType::kHalf},
        Case{"float16", DataType::kHalf}, Case{"bf16", DataType::kBfloat16}, Case{"fp32", DataType::kFloat},
        Case{"float32", DataType::kFloat}, Case{"fp64", DataType::kDouble}, Case{"float64", DataType::kDouble}}) {
    auto r = data_type_from_name(c.text);
    ASSERT_TRUE(r.ok()) << c.text;
    EXPECT_EQ(*r, c.type) << c.text;
  }
}

TEST(ParseDataTypes, SingleAndList) {
  auto one = parse_data_types("float");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<DataType>{DataType::kFloat});

  auto list = parse_data_types("int8,bf16,fp16,double");
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(*list, (std::vector<DataType>{DataType::kInt8, DataType::kBfloat16, DataType::kHalf, DataType::kDouble}));
}

TEST(ParseDataTypes, DuplicatesAndAliasesOfTheSameTypeCollapse) {
  auto r = parse_data_types("half,fp16,float16,float,fp32");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, (std::vector<DataType>{DataType::kHalf, DataType::kFloat}));
}

TEST(ParseDataTypes, All) {
  auto r = parse_data_types("all");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, std::vector<DataType>(kAllDataTypes.begin(), kAllDataTypes.end()));
}

TEST(ParseDataTypes, ErrorNamesTheBadValueAndListsAllowedNames) {
  for (const char* text : {"float8", "float,bogus", "", "float,", "FLOAT"}) {
    auto r = parse_data_types(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidInput);
  }
  auto r = parse_data_types("int8,bogus,float");
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("'bogus'"), std::string::npos) << msg;
  for (DataType t : kAllDataTypes) {
    EXPECT_NE(msg.find(std::string(name(t))), std::string::npos) << "missing " << name(t) << " in: " << msg;
  }
  EXPECT_NE(msg.find("all"), std::string::npos) << msg;
}

TEST(ParseReduceOps, ListsAllAndErrors) {
  auto one = parse_reduce_ops("avg");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<ReduceOp>{ReduceOp::kAvg});

  auto list = parse_reduce_ops("max,sum,max");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(*list, (std::vector<ReduceOp>{ReduceOp::kMax, ReduceOp::kSum}));

  auto all = parse_reduce_ops("all");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, std::vector<ReduceOp>(kAllReduceOps.begin(), kAllReduceOps.end()));

  auto bad = parse_reduce_ops("sum,mulsum");
  ASSERT_FALSE(bad.ok());
  const std::string& msg = bad.status().message();
  EXPECT_NE(msg.find("'mulsum'"), std::string::npos) << msg;
  for (ReduceOp op : kAllReduceOps) {
    EXPECT_NE(msg.find(std::string(name(op))), std::string::npos) << "missing " << name(op) << " in: " << msg;
  }
  EXPECT_FALSE(parse_reduce_ops("").ok());
  EXPECT_FALSE(parse_reduce_ops("Sum").ok());
}

// ---------------------------------------------------------------------------
// 16-bit floats. The reference rounds by searching the sorted list of all finite
// non-negative values of the format for the nearest one (ties to the even bit
// pattern), treating the first value past the largest finite one as 2^(emax+1),
// which becomes infinity: IEEE 754 round-to-nearest-even with overflow.

float half_bits_value(uint16_t bits) {  // independent decoder for bit patterns 0..0x7bff
  const int exp = (bits >> 10) & 0x1f;
  const int mant = bits & 0x3ff;
  if (exp == 0) return std::ldexp(static_cast<float>(mant), -24);
  return std::ldexp(static_cast<float>(1024 + mant), exp - 25);
}

struct Format {
  uint16_t max_finite_bits;  // largest finite positive pattern
  uint16_t inf_bits;
  double overflow_value;  // the value one step past the largest finite one
  double (*decode)(uint16_t);
};

double decode_half(uint16_t b) { return half_bits_value(b); }
double decode_bf16(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

const Format kHalfFormat{0x7bff, 0x7c00, 65536.0, decode_half};
const Format kBf16Format{0x7f7f, 0x7f80, std::ldexp(1.0, 128), decode_bf16};

// The correctly rounded pattern of a finite float.
uint16_t reference_round(const Format& fmt, float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  // Binary search for the largest pattern whose value is <= a (values grow with bits).
  uint32_t lo = 0;
  uint32_t hi = fmt.max_finite_bits;
  if (a >= fmt.decode(fmt.max_finite_bits)) {
    lo = fmt.max_finite_bits;
  } else {
    while (lo < hi) {
      uint32_t mid = (lo + hi + 1) / 2;
      if (fmt.decode(static_cast<uint16_t>(mid)) <= a) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
  }
  const double below = fmt.decode(static_cast<uint16_t>(lo));
  const double above = lo == fmt.max_finite_bits ? fmt.overflow_value : fmt.decode(static_cast<uint16_t>(lo + 1));
  const uint32_t above_bits = lo == fmt.max_finite_bits ? fmt.inf_bits : lo + 1;
  uint32_t pick;
  if (a == below) {
    pick = lo;
  } else if (a - below < above - a) {
    pick = lo;
  } else if (a - below > above - a) {
    pick = above_bits;
  } else {
    pick = (lo & 1) == 0 ? lo : above_bits;
  }
  return static_cast<uint16_t>(sign | pick);
}

bool half_is_nan(Half h) { return (h.bits & 0x7c00) == 0x7c00 && (h.bits & 0x3ff) != 0; }
bool bf16_is_nan(Bfloat16 b) { return (b.bits & 0x7f80) == 0x7f80 && (b.bits & 0x7f) != 0; }

TEST(Half, ReferenceDecoderAgreesWithHalfToFloat) {
  for (uint32_t b = 0; b <= 0x7bff; ++b) {
    ASSERT_EQ(half_to_float(Half{static_cast<uint16_t>(b)}), half_bits_value(static_cast<uint16_t>(b))) << b;
    ASSERT_EQ(half_to_float(Half{static_cast<uint16_t>(b | 0x8000)}), -half_bits_value(static_cast<uint16_t>(b))) << b;
  }
}

TEST(Half, ExactSmallIntegers) {
  for (int i = -2048; i <= 2048; ++i) {
    const float f = static_cast<float>(i);
    ASSERT_EQ(half_to_float(float_to_half(f)), f) << i;
  }
  EXPECT_EQ(float_to_half(1.0f).bits, 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f).bits, 0xc000);
  EXPECT_EQ(float_to_half(0.0f).bits, 0x0000);
  EXPECT_EQ(float_to_half(-0.0f).bits, 0x8000);
  EXPECT_EQ(float_to_half(65504.0f).bits, 0x7bff);
  EXPECT_EQ(float_to_half(0.5f).bits, 0x3800);
}

TEST(Half, RoundToNearestEvenTies) {
  // Above 2048 the spacing is 2: odd integers are ties.
  EXPECT_EQ(half_to_float(float_to_half(2049.0f)), 2048.0f);
  EXPECT_EQ(half_to_float(float_to_half(2051.0f)), 2052.0f);
  EXPECT_EQ(half_to_float(float_to_half(2053.0f)), 2052.0f);
  EXPECT_EQ(half_to_float(float_to_half(-2051.0f)), -2052.0f);
  // Just off a tie rounds to the nearer value.
  EXPECT_EQ(half_to_float(float_to_half(std::nextafter(2049.0f, 3000.0f))), 2050.0f);
  EXPECT_EQ(half_to_float(float_to_half(std::nextafter(2051.0f, 0.0f))), 2050.0f);
  // 1 + 2^-11 is the tie between 1 and 1 + 2^-10.
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f).bits, 0x3c00);
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f).bits, 0x3c02);
  // Rounding up across a binade.
  EXPECT_EQ(float_to_half(2.0f - 0x1p-12f).bits, 0x4000);
}

TEST(Half, OverflowToInfinity) {
  EXPECT_EQ(float_to_half(65519.0f).bits, 0x7bff);
  EXPECT_EQ(float_to_half(std::nextafter(65520.0f, 0.0f)).bits, 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f).bits, 0x7c00);  // the tie rounds to even: infinity
  EXPECT_EQ(float_to_half(-65520.0f).bits, 0xfc00);
  EXPECT_EQ(float_to_half(1e6f).bits, 0x7c00);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::max()).bits, 0x7c00);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()).bits, 0x7c00);
  EXPECT_EQ(float_to_half(-std::numeric_limits<float>::infinity()).bits, 0xfc00);
  EXPECT_TRUE(std::isinf(half_to_float(Half{0x7c00})));
  EXPECT_LT(half_to_float(Half{0xfc00}), 0.0f);
}

TEST(Half, Subnormals) {
  EXPECT_EQ(float_to_half(0x1p-24f).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(0x1p-25f).bits, 0x0000);  // tie with 0: even
  EXPECT_EQ(float_to_half(std::nextafter(0x1p-25f, 1.0f)).bits, 0x0001);
  EXPECT_EQ(float_to_half(3 * 0x1p-25f).bits, 0x0002);  // tie between 1 and 2: even
  EXPECT_EQ(float_to_half(5 * 0x1p-25f).bits, 0x0002);  // tie between 2 and 3: even
  EXPECT_EQ(float_to_half(0x1p-26f).bits, 0x0000);
  EXPECT_EQ(float_to_half(-0x1p-24f).bits, 0x8001);
  EXPECT_EQ(float_to_half(1023 * 0x1p-24f).bits, 0x03ff);      // largest subnormal
  EXPECT_EQ(float_to_half(0x1p-14f).bits, 0x0400);             // smallest normal
  EXPECT_EQ(float_to_half(0x1p-14f - 0x1p-26f).bits, 0x0400);  // rounds up into the normals
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::denorm_min()).bits, 0x0000);
  EXPECT_EQ(half_to_float(Half{0x0001}), 0x1p-24f);
  EXPECT_EQ(half_to_float(Half{0x03ff}), 1023 * 0x1p-24f);
  EXPECT_EQ(half_to_float(Half{0x8200}), -0x1p-15f);
}

TEST(Half, NanStaysNan) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(half_is_nan(float_to_half(qnan)));
  EXPECT_TRUE(half_is_nan(float_to_half(-qnan)));
  // NaNs whose payload lives only in the low float bits must not become infinity.
  EXPECT_TRUE(half_is_nan(float_to_half(std::bit_cast<float>(0x7f800001u))));
  EXPECT_TRUE(half_is_nan(float_to_half(std::bit_cast<float>(0xff800fffu))));
  EXPECT_TRUE(std::isnan(half_to_float(Half{0x7c01})));
  EXPECT_TRUE(std::isnan(half_to_float(Half{0xfe00})));
}

TEST(Half, RoundTripOfAllBitPatterns) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const Half h{static_cast<uint16_t>(b)};
    const float f = half_to_float(h);
    const Half back = float_to_half(f);
    if (half_is_nan(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
      ASSERT_TRUE(half_is_nan(back)) << std::hex << b;
      ASSERT_EQ(back.bits & 0x8000, h.bits & 0x8000) << std::hex << b;
    } else {
      ASSERT_EQ(back.bits, h.bits) << std::hex << b;
    }
  }
}

TEST(Half, MatchesReferenceRoundingNearEveryValue) {
  // For every finite half: the value itself, the midpoint to the next one, and
  // the floats on either side of that midpoint.
  for (uint32_t b = 0; b <= 0x7bff; ++b) {
    const double v = half_bits_value(static_cast<uint16_t>(b));
    const double next = b == 0x7bff ? 65536.0 : half_bits_value(static_cast<uint16_t>(b + 1));
    const float mid = static_cast<float>((v + next) / 2);  // exact in float
    ASSERT_EQ(static_cast<double>(mid), (v + next) / 2);
    for (float f : {static_cast<float>(v), mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) {
      for (float s : {f, -f}) {
        ASSERT_EQ(float_to_half(s).bits, reference_round(kHalfFormat, s))
            << "f=" << s << " bits=" << std::hex << std::bit_cast<uint32_t>(s);
      }
    }
  }
}

TEST(Half, MatchesReferenceRoundingOnSampledFloats) {
  for (uint64_t i = 0; i <= 0xffffffffull; i += 9973) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(i));
    if (std::isnan(f)) {
      ASSERT_TRUE(half_is_nan(float_to_half(f))) << std::hex << i;
      continue;
    }
    if (std::isinf(f)) continue;
    ASSERT_EQ(float_to_half(f).bits, reference_round(kHalfFormat, f)) << "bits=" << std::hex << i;
  }
}

TEST(Bfloat16, ExactSmallIntegers) {
  for (int i = -256; i <= 256; ++i) {
    const float f = static_cast<float>(i);
    ASSERT_EQ(bfloat16_to_float(float_to_bfloat16(f)), f) << i;
  }
  EXPECT_EQ(float_to_bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(float_to_bfloat16(-2.0f).bits, 0xc000);
  EXPECT_EQ(float_to_bfloat16(-0.0f).bits, 0x8000);
}

TEST(Bfloat16, RoundToNearestEvenTies) {
  EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(257.0f)), 256.0f);
  EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(259.0f)), 260.0f);
  EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(261.0f)), 260.0f);
  EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(-259.0f)), -260.0f);
  EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(std::nextafter(257.0f, 1e6f))), 258.0f);
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x3f808000u)).bits, 0x3f80);  // tie, even below
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x3f818000u)).bits, 0x3f82);  // tie, even above
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x3f808001u)).bits, 0x3f81);
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x3f80ffffu)).bits, 0x3f81);
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x3fffffffu)).bits, 0x4000);  // across a binade
}

TEST(Bfloat16, OverflowToInfinity) {
  const float max_bf16 = std::bit_cast<float>(0x7f7f0000u);
  EXPECT_EQ(float_to_bfloat16(max_bf16).bits, 0x7f7f);
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x7f7f7fffu)).bits, 0x7f7f);
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x7f7f8000u)).bits, 0x7f80);  // tie: even is infinity
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::max()).bits, 0x7f80);
  EXPECT_EQ(float_to_bfloat16(-std::numeric_limits<float>::max()).bits, 0xff80);
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::infinity()).bits, 0x7f80);
  EXPECT_EQ(float_to_bfloat16(-std::numeric_limits<float>::infinity()).bits, 0xff80);
}

TEST(Bfloat16, Subnormals) {
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x00010000u)).bits, 0x0001);
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x00008000u)).bits, 0x0000);  // tie with 0
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x00008001u)).bits, 0x0001);
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x00018000u)).bits, 0x0002);  // tie between 1 and 2
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x007fffffu)).bits, 0x0080);  // up to the smallest normal
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::denorm_min()).bits, 0x0000);
  EXPECT_EQ(float_to_bfloat16(-std::numeric_limits<float>::denorm_min()).bits, 0x8000);
  EXPECT_EQ(bfloat16_to_float(Bfloat16{0x0001}), std::bit_cast<float>(0x00010000u));
}

TEST(Bfloat16, NanStaysNan) {
  EXPECT_TRUE(bf16_is_nan(float_to_bfloat16(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(bf16_is_nan(float_to_bfloat16(std::bit_cast<float>(0x7f800001u))));  // payload only in low bits
  EXPECT_TRUE(bf16_is_nan(float_to_bfloat16(std::bit_cast<float>(0xff80ffffu))));
  EXPECT_TRUE(bf16_is_nan(float_to_bfloat16(std::bit_cast<float>(0x7fffffffu))));  // must not carry into sign
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0xff800001u)).bits & 0x8000, 0x8000);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(Bfloat16{0x7f81})));
}

TEST(Bfloat16, RoundTripOfAllBitPatterns) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const Bfloat16 h{static_cast<uint16_t>(b)};
    const float f = bfloat16_to_float(h);
    ASSERT_EQ(std::bit_cast<uint32_t>(f), b << 16);
    const Bfloat16 back = float_to_bfloat16(f);
    if (bf16_is_nan(h)) {
      ASSERT_TRUE(bf16_is_nan(back)) << std::hex << b;
      ASSERT_EQ(back.bits & 0x8000, h.bits & 0x8000) << std::hex << b;
    } else {
      ASSERT_EQ(back.bits, h.bits) << std::hex << b;
    }
  }
}

TEST(Bfloat16, MatchesReferenceRoundingOnSampledFloats) {
  for (uint64_t i = 0; i <= 0xffffffffull; i += 9973) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(i));
    if (std::isnan(f)) {
      ASSERT_TRUE(bf16_is_nan(float_to_bfloat16(f))) << std::hex << i;
      continue;
    }
    if (std::isinf(f)) continue;
    ASSERT_EQ(float_to_bfloat16(f).bits, reference_round(kBf16Format, f)) << "bits=" << std::hex << i;
  }
}

}  // namespace
}  // namespace fabscope
