// The NIC counters (RDMA ports' sysfs counters, the drivers' ethtool statistics) on real
// dumps: each dump's values are laid out as the sysfs tree they came from, read back
// by the live reader, and the counters.link_errors rule is run on the changes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "diag/net_counters.h"
#include "diag/nic_counters.h"
#include "diag/rules.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;
const std::string kDir = FABSCOPE_FIXTURES "/ib-counters/";

std::string fixture(const std::string& name) {
  auto text = read_file(kDir + name);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : "";
}

class SysfsTree {
 public:
  explicit SysfsTree(const std::string& name = "a")
      : root_(fs::temp_directory_path() / ("fabscope-ib-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(root_);
  }
  ~SysfsTree() { fs::remove_all(root_); }
  void write(const std::string& dev, int port, const char* dir, const std::string& counter, uint64_t v) {
    const fs::path d = root_ / dev / "ports" / std::to_string(port) / dir;
    fs::create_directories(d);
    std::ofstream(d / counter) << v << "\n";
  }
  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

// `show_counters mlx5_bond_0` prints the files of hw_counters/: laid out as they were,
// the reader gives every one back (lifespan aside: the refresh period, not a count).
TEST(PortCounters, ReadsEveryHwCounterOfARealRoceDump) {
  std::istringstream in(
      fixture("notes-zh-rdma-tools_mlx5_bond_0-RoCE-hw_counters-show_counters-heavy-ECN-CNP.EXCERPT.txt"));
  SysfsTree tree;
  std::map<std::string, uint64_t> written;
  std::string line;
  const std::regex row("^([a-z_0-9]+): ([0-9]+)$");
  std::smatch m;
  while (std::getline(in, line)) {
    if (!std::regex_match(line, m, row)) continue;
    tree.write("mlx5_bond_0", 1, "hw_counters", m[1], std::stoull(m[2]));
    written[m[1]] = std::stoull(m[2]);
  }
  ASSERT_GE(written.size(), 30u);
  PortCounters got = read_port_counters(tree.root());
  ASSERT_EQ(got.size(), 1u);
  const auto& c = got.at({"mlx5_bond_0", 1});
  written.erase("lifespan");
  EXPECT_EQ(c, written);
  EXPECT_EQ(c.at("np_ecn_marked_roce_packets"), 21278189006u);
  EXPECT_EQ(c.at("np_cnp_sent"), 1052612505u);
  EXPECT_EQ(counter_kind("np_ecn_marked_roce_packets"), CounterKind::kCongestion);
  EXPECT_EQ(counter_kind("out_of_sequence"), CounterKind::kRetransmit);
  EXPECT_TRUE(read_port_counters("/nonexistent-sysfs").empty());
}

// The ConnectX-2 notes print, every 10 s, the non-zero port counters as value(+delta).
// One corrupt packet was injected on port 1 between 80 s and 90 s; port 2 counted it.
std::map<int, std::map<std::string, uint64_t>> block(const std::string& text, const std::string& title) {
  std::map<int, std::map<std::string, uint64_t>> ports;
  const size_t at = text.find(title);
  EXPECT_NE(at, std::string::npos) << title;
  std::istringstream in(text.substr(at + title.size()));
  std::string line;
  std::getline(in, line);  // the rest of the title line
  std::getline(in, line);  // column header
  const std::regex row("^([a-z_]+) +mlx4_0 +([0-9]+) +([0-9]+)(\\(\\+[0-9]+\\))?$");
  std::smatch m;
  while (std::getline(in, line) && !line.empty()) {
    if (std::regex_match(line, m, row)) ports[std::stoi(m[2])][m[1]] = std::stoull(m[3]);
  }
  return ports;
}

TEST(PortCounters, AnInjectedCorruptPacketIsALinkErrorOfThePortThatCountedIt) {
  const std::string notes =
      fixture("chester-gillon_ConnectX2-mlx4_sysfs-counters-deltas-before-after-pckt_drop-fault-injection_notes.txt");
  auto before = block(notes, "Statistics after 80 seconds");
  auto after = block(notes, "Statistics after 90 seconds");
  ASSERT_EQ(before.size(), 2u);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[2]["port_rcv_remote_physical_errors"], 1u);
  // The notes leave out counters at 0; sysfs has every one, so both trees get them all.
  SysfsTree t0("before"), t1("after");
  for (int port : {1, 2}) {
    for (const auto& [name, v] : after[port]) {
      t0.write("mlx4_0", port, "counters", name, before[port].count(name) ? before[port][name] : 0);
      t1.write("mlx4_0", port, "counters", name, v);
    }
  }
  CounterSnapshot s0, s1;
  s0.ports = read_port_counters(t0.root());
  s1.ports = read_port_counters(t1.root());
  CounterSample sample;
  sample.host = "node7";
  sample.phase = "allreduce float sum";
  counter_changes(s0, s1, sample);
  ASSERT_EQ(sample.ports.size(), 2u);
  EXPECT_EQ(sample.ports[0].counters.at("port_xmit_wait"), 5040994u - 45936u);
  EXPECT_EQ(sample.ports[1].counters.at("port_rcv_remote_physical_errors"), 1u);

  std::vector<CounterSample> samples = {sample};
  std::vector<Finding> findings;
  const Rule<CounterContext>* rule = find_rule(counter_rules(), "counters.link_errors");
  ASSERT_NE(rule, nullptr);
  FindingSink sink(rule->code, findings);
  rule->check(CounterContext{samples}, sink);
  ASSERT_EQ(findings.size(), 1u);  // port 2 only: port 1's waits are congestion, not errors
  EXPECT_EQ(findings[0].severity, Severity::kError);
  EXPECT_EQ(findings[0].subject, "host node7 mlx4_0 port 2");
  EXPECT_EQ(findings[0].hosts, std::vector<std::string>{"node7"});
  EXPECT_EQ(findings[0].evidence["counters"]["port_rcv_remote_physical_errors"], 1);
  EXPECT_NE(findings[0].message.find("allreduce float sum"), std::string::npos) << findings[0].message;

  // The same changes without the error: nothing.
  samples[0].ports[1].counters["port_rcv_remote_physical_errors"] = 0;
  findings.clear();
  rule->check(CounterContext{samples}, sink);
  EXPECT_TRUE(findings.empty());
}

// The ethtool classes name counters real mlx5 drivers have.
TEST(NicCounters, ClassesMatchRealMlx5Names) {
  std::set<std::string> names;
  for (const char* f :
       {"ethq-issue8_ConnectX-4Lx-mlx5_core-fw14.23_ethtool-S_leading-whitespace-stripped.txt",
        "lkml-bpf-2024-06-19_ConnectX-6Dx-100G-XDP-64B-overload_ethtool-S-nonzero-only_kernel6.5.EXCERPT.txt"}) {
    std::istringstream in(fixture(f));
    std::string line;
    const std::regex row("^ *([a-z_0-9]+): [0-9]+$");
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_match(line, m, row)) names.insert(m[1]);
    }
  }
  ASSERT_GT(names.size(), 700u);
  std::map<CounterKind, int> seen;
  for (const std::string& n : names) {
    if (auto k = counter_kind(n)) ++seen[*k];
  }
  EXPECT_EQ(counter_kind("rx_pcs_symbol_err_phy"), CounterKind::kLinkError);
  EXPECT_EQ(counter_kind("rx_prio3_pause"), CounterKind::kPause);
  EXPECT_EQ(counter_kind("tx_pause_storm_error_events"), CounterKind::kPause);
  EXPECT_FALSE(counter_kind("rx_prio3_pause_duration"));  // a duration, not a count
  EXPECT_FALSE(counter_kind("rx_bytes"));
  for (CounterKind k : {CounterKind::kLinkError, CounterKind::kDiscard, CounterKind::kPause, CounterKind::kPcieStall,
                        CounterKind::kCongestion}) {
    EXPECT_GT(seen[k], 0) << name(k) << " matches no counter of the real dumps";
  }
}

// Live: the kernel's ethtool interface on this machine's interfaces. Every statistic a
// driver reports reads back; kept are exactly the classified ones, with the same values
// a moment later or more; loopback has none.
TEST(NicCounters, LiveEthtoolReadsDriverStatisticsAndKeepsTheClassifiedOnes) {
  NetCounters net = read_net_counters();
  std::vector<std::string> interfaces;
  for (const auto& [name, v] : net) interfaces.push_back(name);
  NicStats raw = read_ethtool_stats(interfaces, /*all=*/true);
  NicStats kept = read_ethtool_stats(interfaces);
  EXPECT_FALSE(raw.count("lo"));
  if (raw.empty()) GTEST_SKIP() << "no interface here has driver statistics (" << interfaces.size() << " interfaces)";
  size_t counters = 0;
  for (const auto& [iface, stats] : raw) counters += stats.size();
  EXPECT_GT(counters, 0u);
  for (const auto& [iface, stats] : kept) {
    ASSERT_TRUE(raw.count(iface)) << iface;
    for (const auto& [counter, v] : stats) {
      EXPECT_TRUE(counter_kind(counter)) << iface << " " << counter;
      ASSERT_TRUE(raw.at(iface).count(counter)) << counter;
      EXPECT_GE(v, raw.at(iface).at(counter)) << counter;  // read after: counters only grow
    }
  }
  for (const auto& [iface, stats] : raw) {
    for (const auto& [counter, v] : stats) {
      if (counter_kind(counter)) {
        EXPECT_TRUE(kept.count(iface) && kept.at(iface).count(counter)) << counter;
      }
    }
  }
}

}  // namespace
}  // namespace fabscope
