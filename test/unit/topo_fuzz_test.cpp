// A randomized robustness test of every text parser: the real fixtures, mutated (bytes
// flipped, cut short, lines duplicated or dropped, random bytes and huge numbers
// spliced in) must give either a model or an error with a message, never a crash, an
// exception or a hang. Fixed seeds, so a failure replays; ASan/UBSan in the debug preset.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <random>

#include "topo/readers.h"
#include "topo/xml.h"

namespace fabscope::topo {
namespace {

const std::string kDir = FABSCOPE_FIXTURES;

std::vector<std::string> texts(const std::string& sub) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(kDir + "/" + sub)) {
    auto t = read_file(e.path().string());
    if (t.ok()) out.push_back(*t);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string mutate(std::string s, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  int edits = 1 + static_cast<int>(rng() % 8);
  static const std::vector<std::string> splices = {"99999999999999999999",
                                                   "-1",
                                                   "\0",
                                                   "\xff\xfe",
                                                   "<",
                                                   "</pci>",
                                                   "&#xFFFFFFFF;",
                                                   "NIC",
                                                   "GPU0",
                                                   "[",
                                                   "]",
                                                   " -> ",
                                                   "NET/IB/",
                                                   "==>",
                                                   ":",
                                                   "0x",
                                                   ",",
                                                   "\n",
                                                   "\t",
                                                   "SYSSYSSYS",
                                                   "NV",
                                                   "mlx5_",
                                                   "$ ",
                                                   "@"};
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 7) {
      case 0:  // flip bytes
        for (int k = 0; k < 4 && !s.empty(); ++k) s[pick(s.size())] = static_cast<char>(rng());
        break;
      case 1:  // truncate
        s.resize(pick(s.size() + 1));
        break;
      case 2: {  // delete a range
        size_t a = pick(s.size() + 1);
        s.erase(a, pick(200));
        break;
      }
      case 3: {  // duplicate a range
        size_t a = pick(s.size() + 1);
        s.insert(a, s.substr(a, pick(400)));
        break;
      }
      case 4: {  // splice a token
        const std::string& t = splices[pick(splices.size())];
        s.insert(pick(s.size() + 1), t);
        break;
      }
      case 5: {  // random bytes
        std::string r(pick(64), '\0');
        for (char& c : r) c = static_cast<char>(rng());
        s.insert(pick(s.size() + 1), r);
        break;
      }
      default:  // a very long line
        s.insert(pick(s.size() + 1), std::string(5000 + pick(5000), "9a -:,"[pick(6)]));
        break;
    }
  }
  return s;
}

void fuzz(const std::string& sub, const std::function<Status(std::string_view)>& parse, uint64_t seed) {
  auto inputs = texts(sub);
  ASSERT_FALSE(inputs.empty()) << sub;
  std::mt19937_64 rng(seed);
  int ok = 0;
  int rejected = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string t = mutate(inputs[i % inputs.size()], rng);
    Status s;
    EXPECT_NO_THROW(s = parse(t)) << sub << " iteration " << i;
    if (s.ok()) {
      ++ok;
    } else {
      ++rejected;
      EXPECT_FALSE(s.message().empty());
    }
  }
  // Both outcomes occur: the mutations are neither all harmless nor all fatal.
  EXPECT_GT(ok, 0) << sub;
  EXPECT_GT(rejected, 0) << sub;
  ::testing::Test::RecordProperty(sub + "_ok", ok);
  ::testing::Test::RecordProperty(sub + "_rejected", rejected);
}

// A reader of topology text, its result dropped: only the status matters here.
template <Status (*Parse)(std::string_view, std::string_view, TopologySet&)>
Status into_set(std::string_view text) {
  TopologySet set;
  return Parse(text, "fuzz", set);
}

TEST(TopoFuzz, NvidiaSmi) { fuzz("nvidia-smi-topo", into_set<parse_nvidia_smi_topo>, 1); }
TEST(TopoFuzz, NcclLog) { fuzz("nccl-logs", into_set<parse_nccl_log>, 2); }
TEST(TopoFuzz, RdmaText) { fuzz("rdma", into_set<parse_rdma_text>, 3); }
TEST(TopoFuzz, NcclXml) { fuzz("topo-xml", into_set<parse_nccl_xml>, 5); }

TEST(TopoFuzz, NcclEnv) {
  fuzz(
      "configs/oci-nccl-conf",
      [](std::string_view t) {
        std::map<std::string, std::string> env;
        return parse_nccl_env(t, "fuzz", env);
      },
      4);
}

TEST(TopoFuzz, XmlDepthIsCapped) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  auto r = parse_xml(deep, "deep.xml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("deeper than"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace fabscope::topo
