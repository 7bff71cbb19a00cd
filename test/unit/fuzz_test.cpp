// Every fuzz target (test/fuzz/fuzz_targets.h) on mutated fixtures: each input must be
// read or refused with a Status, never crash, throw or hang. A bounded count with fixed
// seeds, so CI replays the same inputs (ASan/UBSan in the debug preset); long runs with
// other seeds are bench/fuzz_run's (figures in bench/README.md).
#include <gtest/gtest.h>

#include <cstdlib>

#include "fuzz/fuzz_targets.h"
#include "topo/xml.h"

namespace fabscope::fuzz {
namespace {

// FABSCOPE_FUZZ_COUNT raises the count for a longer local run.
uint64_t count_for(const Target& t) {
  if (const char* v = std::getenv("FABSCOPE_FUZZ_COUNT")) return std::strtoull(v, nullptr, 10);
  return t.name == "hwloc-xml" || t.name == "report" ? 400 : 1500;  // the slow ones: hwloc loads, every renderer
}

class FuzzTarget : public ::testing::TestWithParam<std::string_view> {};

TEST_P(FuzzTarget, MutatedFixturesAreReadOrRefusedNeverCrash) {
  const Target* t = find_target(GetParam());
  ASSERT_NE(t, nullptr);
  const auto corpus = load_corpus(*t, FABSCOPE_FIXTURES);
  ASSERT_FALSE(corpus.empty()) << "no seed corpus for " << t->name;
  // The unmutated fixtures are read (some are refused by design: NCCL's graph dumps are
  // not topologies), and none crashes.
  int seeds_read = 0;
  for (const std::string& seed : corpus)
    seeds_read += t->run(reinterpret_cast<const uint8_t*>(seed.data()), seed.size());
  EXPECT_GT(seeds_read, 0) << t->name;
  RunStats s;
  EXPECT_NO_THROW(s = run_mutations(*t, corpus, count_for(*t), /*seed=*/0xf022 + t->name.size()));
  // Both outcomes occur: the mutations are neither all harmless nor all refused.
  EXPECT_GT(s.accepted, 0u) << t->name;
  EXPECT_LT(s.accepted, s.inputs) << t->name;
  RecordProperty("inputs", static_cast<int>(s.inputs));
  RecordProperty("accepted", static_cast<int>(s.accepted));
}

std::vector<std::string_view> target_names() {
  std::vector<std::string_view> out;
  for (const Target& t : targets()) out.push_back(t.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllTargets, FuzzTarget, ::testing::ValuesIn(target_names()),
                         [](const ::testing::TestParamInfo<std::string_view>& i) {
                           std::string n(i.param);
                           for (char& c : n) {
                             if (c == '-') c = '_';
                           }
                           return n;
                         });

TEST(Fuzz, HostileInputsFromTheCampaign) {
  // The inputs of issue 14 that crashed: each must now be refused, by Status.
  const std::vector<std::pair<std::string_view, std::string>> cases = {
      {"report", "{\"schema\": 1e999}"},
      {"report", std::string(100000, '[') + std::string(100000, ']')},
      {"expectations", "{\"schema\": \"fabscope.expect/1\", \"expect\": [{\"p2p\": \"bw\", \"min_bw_gbps\": 1e999}]}"},
      {"nccl-tests", "{\"results\": [" + std::string(5000, '{')},
  };
  for (const auto& [name, text] : cases) {
    const Target* t = find_target(name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->run(reinterpret_cast<const uint8_t*>(text.data()), text.size()), 0) << name;
  }
}

TEST(Fuzz, XmlDepthIsCapped) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  auto r = topo::parse_xml(deep, "deep.xml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("deeper than"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace fabscope::fuzz
