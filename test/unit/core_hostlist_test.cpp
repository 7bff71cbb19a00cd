#include <gtest/gtest.h>
#include <set>

#include "core/hostlist.h"

namespace fabscope {
namespace {

TEST(Hostlist, CompressesAsSlurmWrites) {
  EXPECT_EQ(compress_hostlist({"node03", "node07", "node08"}), "node[03,07-08]");
  EXPECT_EQ(compress_hostlist({"node8", "node9", "node10", "node12"}), "node[8-10,12]");
  EXPECT_EQ(compress_hostlist({"node09", "node10"}), "node[09-10]");
  EXPECT_EQ(compress_hostlist({"gpu1", "node2", "gpu2", "login"}), "gpu[1-2],login,node2");
  EXPECT_EQ(compress_hostlist({"node2", "node2"}), "node2");
  EXPECT_EQ(compress_hostlist({"n1", "n01"}), "n[01,1]");  // different padding: not one range
  EXPECT_EQ(compress_hostlist({}), "");
}

TEST(Hostlist, ExpandsWhatItCompresses) {
  const std::vector<std::vector<std::string>> lists = {
      {"node03", "node07", "node08"}, {"a1", "a2", "a3", "b", "c007"}, {"x9", "x10", "x11"}, {"h"}};
  for (const auto& hosts : lists) {
    auto back = expand_hostlist(compress_hostlist(hosts));
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(std::set<std::string>(back->begin(), back->end()), std::set<std::string>(hosts.begin(), hosts.end()));
  }
  auto e = expand_hostlist("rack[1-2]-gpu,n[08-10]");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e, (std::vector<std::string>{"rack1-gpu", "rack2-gpu", "n08", "n09", "n10"}));
}

TEST(Hostlist, MalformedExpressionsNameTheProblem) {
  for (const char* bad : {"node[1-3", "node1-3]", "node[3-1]", "node[a-b]", "n[[1]]", "", "a,,b", "a,", "n[1-2][3]"}) {
    auto r = expand_hostlist(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("hostlist"), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace fabscope
