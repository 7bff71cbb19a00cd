#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "backend/host_memory.h"
#include "core/progress.h"

namespace fabscope {
namespace {

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  int c;
  while ((c = std::fgetc(f)) != EOF) out += static_cast<char>(c);
  return out;
}

TEST(Progress, RewritesOneLineAndClearsIt) {
  std::FILE* f = std::tmpfile();
  {
    Progress p(true, f);
    p.update("allreduce 1 MiB [1/4]");
    p.update("ab");
  }  // destructor clears the line
  std::string s = contents(f);
  EXPECT_EQ(s.find('\n'), std::string::npos);
  EXPECT_NE(s.find("\rallreduce 1 MiB [1/4]"), std::string::npos);
  EXPECT_NE(s.find("\rab                   "), std::string::npos);  // padded over the longer line
  EXPECT_EQ(s.back(), '\r');
  std::fclose(f);
}

TEST(Progress, DisabledWritesNothing) {
  std::FILE* f = std::tmpfile();
  {
    Progress p(false, f);
    p.update("x");
  }
  EXPECT_TRUE(contents(f).empty());
  std::fclose(f);
}

TEST(HostMemory, ReadsMemAvailable) {
  EXPECT_EQ(mem_available_bytes("MemTotal:  100 kB\nMemFree: 5 kB\nMemAvailable:    2048 kB\n"), 2048u * 1024);
  EXPECT_FALSE(mem_available_bytes("MemTotal: 1 kB\n").has_value());
}

TEST(HostMemory, ReadsThePeakResidentSet) {
  EXPECT_EQ(vm_hwm_bytes("Name:\tfabscope\nVmPeak:\t  9000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n"), 1234u * 1024);
  EXPECT_FALSE(vm_hwm_bytes("Name:\tx\n").has_value());
  // This process has one, at least as large as a buffer it touched.
  std::vector<char> touched(size_t{32} << 20, 1);
  auto peak = peak_rss_bytes();
  ASSERT_TRUE(peak.has_value());
  EXPECT_GE(*peak, touched.size());
}

TEST(HostMemory, RefusesWhatCannotFit) {
  HostMemory m;
  EXPECT_TRUE(m.check_capacity(1 << 20, 4).ok());
  Status s = m.check_capacity(1ull << 50, 4);  // a petabyte per rank
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(s.message().find("of host memory per rank"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("is available"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace fabscope
