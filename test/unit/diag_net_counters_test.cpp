#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "diag/findings.h"
#include "diag/net_counters.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;

TEST(NetCounters, ReadsSysfsStatisticsAndDiffsThem) {
  fs::path root = fs::temp_directory_path() / ("fabscope-net-" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto write = [&](const std::string& iface, const char* name, uint64_t v) {
    fs::create_directories(root / iface / "statistics");
    std::ofstream(root / iface / "statistics" / name) << v << "\n";
  };
  write("eth0", "tx_bytes", 1000);
  write("eth0", "rx_bytes", 50);
  write("lo", "tx_bytes", 7);
  NetCounters before = read_net_counters(root.string());
  write("eth0", "tx_bytes", 5000);
  write("eth0", "rx_bytes", 40);  // went back (a reset): counted as 0
  write("eth1", "tx_bytes", 9);   // appeared in between: no delta
  NetCounters after = read_net_counters(root.string());
  fs::remove_all(root);
  EXPECT_EQ(before.at("eth0").at("tx_bytes"), 1000u);
  auto d = counter_deltas(before, after);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].name, "eth0");
  EXPECT_EQ(d[0].deltas.at("tx_bytes"), 4000u);
  EXPECT_EQ(d[0].deltas.at("rx_bytes"), 0u);
  EXPECT_TRUE(read_net_counters("/nonexistent-sysfs").empty());
}

TEST(NetCounters, LiveSysfsHasLoopback) {
  NetCounters live = read_net_counters();
  ASSERT_TRUE(live.count("lo")) << "no /sys/class/net/lo";
  EXPECT_TRUE(live.at("lo").count("tx_bytes"));
}

CounterSample sample(uint64_t iface_tx, uint64_t fabscope_tx) {
  CounterSample s;
  s.host = "h1";
  s.phase = "p2p";
  s.fabscope_tx_bytes = fabscope_tx;
  s.fabscope_rx_bytes = 0;
  s.interfaces = {{"eth0", {{"tx_bytes", iface_tx}, {"rx_bytes", 0}}, {}}, {"lo", {{"tx_bytes", 1ull << 40}}, {}}};
  return s;
}

TEST(CounterFindings, TrafficBeyondFabscopesOwnIsForeign) {
  Report quiet;
  quiet.counters = {sample(105u << 20, 100u << 20)};  // headers only; loopback ignored
  add_counter_findings(quiet);
  EXPECT_TRUE(quiet.findings.empty());
  Report noisy;
  noisy.counters = {sample(900u << 20, 100u << 20), sample(400u << 20, 100u << 20)};
  add_counter_findings(noisy);
  ASSERT_EQ(noisy.findings.size(), 1u);
  EXPECT_EQ(noisy.findings[0].code, "counters.foreign_traffic");
  EXPECT_EQ(noisy.findings[0].subject, "host h1");
  EXPECT_NE(noisy.findings[0].evidence.dump().find("\"phases\":2"), std::string::npos);
  // A neighbour adding a fifth to a large phase: beyond TCP/IP's own few percent.
  Report fifth;
  fifth.counters = {sample(1200u << 20, 1000u << 20)};
  add_counter_findings(fifth);
  ASSERT_EQ(fifth.findings.size(), 1u);
  EXPECT_EQ(fifth.findings[0].code, "counters.foreign_traffic");
  Report uncounted;
  uncounted.counters = {sample(900u << 20, 0)};
  uncounted.counters[0].fabscope_tx_bytes.reset();  // e.g. a sweep over MPI: nothing to compare
  add_counter_findings(uncounted);
  EXPECT_TRUE(uncounted.findings.empty());
}

}  // namespace
}  // namespace fabscope
