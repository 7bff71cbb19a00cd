// parse_size, format_size and SizeRange: how -b/-e/-i/-f become the sizes of a sweep.
#include "core/sizes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fabscope {
namespace {

uint64_t parse_ok(std::string_view text) {
  auto r = parse_size(text, "-b");
  EXPECT_TRUE(r.ok()) << "'" << text << "': " << r.status().message();
  return r.ok() ? *r : UINT64_MAX;
}

// Parses `text`, expects failure and returns the message.
std::string parse_error(std::string_view text, std::string_view what = "-e") {
  auto r = parse_size(text, what);
  EXPECT_FALSE(r.ok()) << "'" << text << "' parsed as " << (r.ok() ? *r : 0);
  if (r.ok()) return {};
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidInput);
  return r.status().message();
}

TEST(ParseSize, PlainNumbers) {
  EXPECT_EQ(parse_ok("0"), 0u);
  EXPECT_EQ(parse_ok("8"), 8u);
  EXPECT_EQ(parse_ok("1000"), 1000u);
  EXPECT_EQ(parse_ok("33554432"), 33554432u);
  EXPECT_EQ(parse_ok("007"), 7u);
  EXPECT_EQ(parse_ok("18446744073709551615"), UINT64_MAX);
}

TEST(ParseSize, BinarySuffixes) {
  EXPECT_EQ(parse_ok("1K"), 1024u);
  EXPECT_EQ(parse_ok("64K"), 65536u);
  EXPECT_EQ(parse_ok("64k"), 65536u);
  EXPECT_EQ(parse_ok("1M"), 1048576u);
  EXPECT_EQ(parse_ok("32M"), 32u << 20);
  EXPECT_EQ(parse_ok("8G"), 8ull << 30);
  EXPECT_EQ(parse_ok("8g"), 8ull << 30);
  EXPECT_EQ(parse_ok("2T"), 2ull << 40);
  EXPECT_EQ(parse_ok("0K"), 0u);
}

TEST(ParseSize, ByteAndIbSuffixes) {
  EXPECT_EQ(parse_ok("8B"), 8u);
  EXPECT_EQ(parse_ok("8b"), 8u);
  EXPECT_EQ(parse_ok("64KiB"), 65536u);
  EXPECT_EQ(parse_ok("64KB"), 65536u);
  EXPECT_EQ(parse_ok("1MiB"), 1u << 20);
  EXPECT_EQ(parse_ok("1GiB"), 1u << 30);
  EXPECT_EQ(parse_ok("1TiB"), 1ull << 40);
}

TEST(ParseSize, DecimalsThatAreWholeBytes) {
  EXPECT_EQ(parse_ok("1.5K"), 1536u);
  EXPECT_EQ(parse_ok("0.5K"), 512u);
  EXPECT_EQ(parse_ok(".5K"), 512u);
  EXPECT_EQ(parse_ok("1.25M"), 1310720u);
  EXPECT_EQ(parse_ok("2.5G"), 5ull << 29);
  EXPECT_EQ(parse_ok("0.001953125K"), 2u);  // 2/1024
  EXPECT_EQ(parse_ok("3.0"), 3u);
  EXPECT_EQ(parse_ok("1.5KiB"), 1536u);
}

TEST(ParseSize, SurroundingWhitespaceIsIgnored) {
  EXPECT_EQ(parse_ok(" 64K"), 65536u);
  EXPECT_EQ(parse_ok("64K "), 65536u);
  EXPECT_EQ(parse_ok("\t 8 \n"), 8u);
}

TEST(ParseSize, EmptyIsAnError) {
  std::string msg = parse_error("");
  EXPECT_NE(msg.find("empty"), std::string::npos) << msg;
  msg = parse_error("   ");
  EXPECT_NE(msg.find("empty"), std::string::npos) << msg;
}

TEST(ParseSize, ErrorsNameTheTextAndTheOption) {
  for (std::string_view bad : {"foo", "-1", "1.3", "12X", "1.1K", "K", "1..5K", "99999999999999999999", "1.2.3",
                               "16777216T", "17179869184G", "0.5", "1KX", "12 X"}) {
    std::string msg = parse_error(bad, "--maxbytes");
    EXPECT_NE(msg.find(std::string("'") + std::string(bad) + "'"), std::string::npos)
        << "message for '" << bad << "' does not quote it: " << msg;
    EXPECT_NE(msg.find("--maxbytes"), std::string::npos) << msg;
  }
}

TEST(ParseSize, ErrorReasons) {
  EXPECT_NE(parse_error("foo").find("does not start with a number"), std::string::npos);
  EXPECT_NE(parse_error("-1").find("does not start with a number"), std::string::npos);
  EXPECT_NE(parse_error("1.3").find("whole number of bytes"), std::string::npos);
  EXPECT_NE(parse_error("1.1K").find("whole number of bytes"), std::string::npos);
  EXPECT_NE(parse_error("12X").find("unknown unit 'X'"), std::string::npos);
  EXPECT_NE(parse_error("18446744073709551616").find("too large"), std::string::npos);
  EXPECT_NE(parse_error("16777216T").find("too large"), std::string::npos);
  EXPECT_NE(parse_error("1.2.3").find("two decimal points"), std::string::npos);
}

TEST(ParseSize, LargestValuesPerUnit) {
  // (2^24 - 1) TiB and (2^54 - 1) KiB are the largest that fit in 64 bits.
  EXPECT_EQ(parse_ok("16777215T"), ((1ull << 24) - 1) << 40);
  EXPECT_EQ(parse_ok("18014398509481983K"), ((1ull << 54) - 1) << 10);
  EXPECT_FALSE(parse_size("18014398509481984K", "-e").ok());
  // A fraction on top of the largest whole number still fits.
  EXPECT_EQ(parse_ok("16777215.5T"), (((1ull << 24) - 1) << 40) + (1ull << 39));
}

TEST(FormatSize, ExactBinaryUnits) {
  EXPECT_EQ(format_size(0), "0 B");
  EXPECT_EQ(format_size(1), "1 B");
  EXPECT_EQ(format_size(12), "12 B");
  EXPECT_EQ(format_size(1023), "1023 B");
  EXPECT_EQ(format_size(1024), "1 KiB");
  EXPECT_EQ(format_size(1536), "1536 B");
  EXPECT_EQ(format_size(65536), "64 KiB");
  EXPECT_EQ(format_size(64ull << 20), "64 MiB");
  EXPECT_EQ(format_size((1ull << 20) + 1024), "1025 KiB");
  EXPECT_EQ(format_size(8ull << 30), "8 GiB");
  EXPECT_EQ(format_size(3ull << 40), "3 TiB");
  EXPECT_EQ(format_size(1ull << 50), "1024 TiB");  // TiB is the largest unit
  EXPECT_EQ(format_size(UINT64_MAX), "18446744073709551615 B");
}

TEST(FormatSize, RoundTripsThroughParseSize) {
  for (uint64_t v : {0ull, 1ull, 8ull, 1000ull, 1024ull, 4096ull, 1536ull, 1ull << 20, 3ull << 30, 5ull << 40}) {
    std::string text = format_size(v);
    std::string squashed;
    for (char c : text) {
      if (c != ' ') squashed += c;
    }
    EXPECT_EQ(parse_ok(squashed), v) << text;
  }
}

SizeRange range(uint64_t min, uint64_t max, uint64_t step, uint64_t factor) {
  SizeRange r;
  r.min_bytes = min;
  r.max_bytes = max;
  r.step_bytes = step;
  r.step_factor = factor;
  return r;
}

TEST(SizeRange, DefaultsAreOneSizeOf32MiB) {
  SizeRange r;
  ASSERT_TRUE(validate(r).ok());
  EXPECT_EQ(expand(r), std::vector<uint64_t>{32ull << 20});
}

TEST(SizeRange, FactorSteps) {
  auto r = range(1024, 1 << 20, 1 << 20, 2);
  ASSERT_TRUE(validate(r).ok());
  std::vector<uint64_t> want;
  for (uint64_t s = 1024; s <= (1u << 20); s *= 2) want.push_back(s);
  EXPECT_EQ(want.size(), 11u);
  EXPECT_EQ(expand(r), want);
  // A max that is not reached exactly stops below it.
  EXPECT_EQ(expand(range(8, 100, 1, 4)), (std::vector<uint64_t>{8, 32}));
  EXPECT_EQ(expand(range(3, 3000, 0, 10)), (std::vector<uint64_t>{3, 30, 300, 3000}));  // max reached exactly
  EXPECT_EQ(expand(range(3, 2999, 0, 10)), (std::vector<uint64_t>{3, 30, 300}));
}

TEST(SizeRange, FactorOverridesStep) { EXPECT_EQ(expand(range(1, 16, 5, 2)), (std::vector<uint64_t>{1, 2, 4, 8, 16})); }

TEST(SizeRange, AdditiveSteps) {
  EXPECT_EQ(expand(range(0, 300, 100, 1)), (std::vector<uint64_t>{0, 100, 200, 300}));
  EXPECT_EQ(expand(range(8, 30, 10, 1)), (std::vector<uint64_t>{8, 18, 28}));
  EXPECT_EQ(expand(range(1 << 20, 4 << 20, 1 << 20, 1)), (std::vector<uint64_t>{1 << 20, 2 << 20, 3 << 20, 4 << 20}));
}

TEST(SizeRange, MinEqualsMax) {
  EXPECT_EQ(expand(range(4096, 4096, 0, 1)), std::vector<uint64_t>{4096});
  EXPECT_EQ(expand(range(4096, 4096, 1, 1)), std::vector<uint64_t>{4096});
  EXPECT_EQ(expand(range(4096, 4096, 1, 2)), std::vector<uint64_t>{4096});
  EXPECT_EQ(expand(range(0, 0, 0, 1)), std::vector<uint64_t>{0});
}

TEST(SizeRange, MinAboveMaxIsAnError) {
  auto r = range(2048, 1024, 1, 2);
  Status st = validate(r);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(st.message().find("-b"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("-e"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("2048"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("1024"), std::string::npos) << st.message();
  EXPECT_TRUE(expand(r).empty());
}

TEST(SizeRange, FactorZeroIsAnError) {
  auto r = range(8, 1024, 8, 0);
  Status st = validate(r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("-f"), std::string::npos) << st.message();
  EXPECT_TRUE(expand(r).empty());
}

TEST(SizeRange, ZeroStepWithoutFactorIsAnErrorWhenMinBelowMax) {
  auto r = range(8, 1024, 0, 1);
  Status st = validate(r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("-i"), std::string::npos) << st.message();
  EXPECT_TRUE(expand(r).empty());
}

TEST(SizeRange, FactorFromZeroIsAnError) {
  auto r = range(0, 1024, 0, 2);
  EXPECT_FALSE(validate(r).ok());
  EXPECT_TRUE(expand(r).empty());
}

TEST(SizeRange, StopsAtTheTopOfTheRangeWithoutWrapping) {
  // Additive: the next size would wrap past 2^64.
  auto add = range(UINT64_MAX - 10, UINT64_MAX, 8, 1);
  EXPECT_EQ(expand(add), (std::vector<uint64_t>{UINT64_MAX - 10, UINT64_MAX - 2}));
  // Doubling: 2^63 * 2 wraps to 0.
  auto dbl = range(1ull << 62, UINT64_MAX, 0, 2);
  EXPECT_EQ(expand(dbl), (std::vector<uint64_t>{1ull << 62, 1ull << 63}));
}

TEST(SizeRange, LargeFactorDoesNotProduceWrappedSizes) {
  // 2^60 * 1000 does not fit in 64 bits, so 2^60 is the only size; every size
  // after the first must be the previous one times the factor.
  auto r = range(1ull << 60, UINT64_MAX, 0, 1000);
  ASSERT_TRUE(validate(r).ok());
  std::vector<uint64_t> sizes = expand(r);
  EXPECT_EQ(sizes, std::vector<uint64_t>{1ull << 60});
}

TEST(SizeRange, EverySizeIsWithinTheRangeAndFollowsTheStep) {
  for (uint64_t factor : {1ull, 2ull, 3ull, 7ull}) {
    for (uint64_t min : {1ull, 8ull, 1000ull}) {
      auto r = range(min, 1ull << 24, 4093, factor);
      std::vector<uint64_t> s = expand(r);
      ASSERT_FALSE(s.empty());
      EXPECT_EQ(s.front(), min);
      for (size_t i = 0; i < s.size(); ++i) {
        EXPECT_LE(s[i], r.max_bytes);
        if (i > 0) {
          EXPECT_EQ(s[i], factor > 1 ? s[i - 1] * factor : s[i - 1] + 4093);
        }
      }
      uint64_t next = factor > 1 ? s.back() * factor : s.back() + 4093;
      EXPECT_GT(next, r.max_bytes) << "stopped early";
    }
  }
}

}  // namespace
}  // namespace fabscope
