#include "core/utf8.h"

#include <gtest/gtest.h>

namespace fabscope {
namespace {

TEST(ValidUtf8, KeepsWellFormedTextAndReplacesEveryBadByte) {
  EXPECT_EQ(valid_utf8("node07 GB/s"), "node07 GB/s");
  EXPECT_EQ(valid_utf8("\xC3\xA9t\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x94\xA5"),
            "\xC3\xA9t\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x94\xA5");
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(valid_utf8("a\xFF"
                       "b"),
            "a" + r + "b");
  EXPECT_EQ(valid_utf8("\xC0\xAF"), r + r);                  // overlong '/'
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), r + r + r);          // a surrogate
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), r + r + r + r);  // above U+10FFFF
  EXPECT_EQ(valid_utf8("x\xE2\x86"), "x" + r + r);           // cut short at the end
  EXPECT_EQ(valid_utf8(std::string_view("\0z", 2)), std::string("\0z", 2));
}

}  // namespace
}  // namespace fabscope
