// The link watch on fake sysfs trees (class/net and class/infiniband laid out under a
// temporary directory): link states as read, flaps seen as edges between samples and as
// counter rises between them, downtime, the edge cap, and the sampling thread.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "core/clock.h"
#include "diag/link_watch.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// A sysfs tree under a directory of its own: net/<iface>/<file> and
// infiniband/<dev>/ports/<n>/<file>. Files are replaced whole (written aside, renamed),
// as the sampling thread may read them at any moment.
class LinkTree {
 public:
  LinkTree() {
    std::string dir = (fs::temp_directory_path() / "fabscope-links-XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << dir;
    root_ = dir;
  }
  ~LinkTree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  LinkTree(const LinkTree&) = delete;
  LinkTree& operator=(const LinkTree&) = delete;

  LinkSources sources() const { return {(root_ / "net").string(), (root_ / "infiniband").string()}; }
  void net(const std::string& iface, const std::string& file, const std::string& text) {
    write(root_ / "net" / iface / file, text);
  }
  void port(const std::string& dev, int n, const std::string& file, const std::string& text) {
    write(root_ / "infiniband" / dev / "ports" / std::to_string(n) / file, text);
  }
  void remove(const fs::path& relative) { fs::remove_all(root_ / relative); }
  const fs::path& root() const { return root_; }

 private:
  static void write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    const fs::path aside = file.string() + ".new";
    std::ofstream(aside) << text << "\n";
    fs::rename(aside, file);
  }
  fs::path root_;
};

const LinkHistory& find(const std::vector<LinkHistory>& all, const std::string& link) {
  for (const LinkHistory& h : all) {
    if (h.link == link) return h;
  }
  ADD_FAILURE() << "no history of " << link;
  static const LinkHistory none;
  return none;
}

constexpr double kNoPeriod = 3600;  // the thread stays asleep: sample_now() drives the samples

TEST(LinkStates, ReadsInterfacesAndPortsButNotLoopback) {
  LinkTree t;
  t.net("eth0", "carrier", "1");
  t.net("eth0", "operstate", "up");
  t.net("eth0", "carrier_changes", "2");
  t.net("eth1", "operstate", "down");  // admin down: carrier fails with EINVAL; here it is absent
  t.net("tun0", "operstate", "unknown");
  t.net("lo", "carrier", "1");
  t.net("lo", "carrier_changes", "0");
  std::ofstream(t.root() / "net" / "bonding_masters") << "bond0\n";  // a file, not an interface
  t.port("mlx5_0", 1, "state", "4: ACTIVE");
  t.port("mlx5_0", 1, "counters/link_downed", "3");
  t.port("mlx5_0", 1, "counters/symbol_error", "17");
  t.port("mlx5_0", 1, "counters/port_xmit_data", "123456");  // not a link counter
  t.port("mlx5_0", 2, "state", "1: DOWN");

  const std::vector<LinkState> s = read_link_states(t.sources());
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].link, "eth0");
  EXPECT_FALSE(s[0].rdma);
  EXPECT_TRUE(s[0].up);
  EXPECT_EQ(s[0].counters, (std::map<std::string, uint64_t>{{"carrier_changes", 2}}));
  EXPECT_EQ(s[1].link, "eth1");
  EXPECT_FALSE(s[1].up);
  EXPECT_TRUE(s[1].counters.empty());
  EXPECT_EQ(s[2].link, "mlx5_0/1");
  EXPECT_TRUE(s[2].rdma);
  EXPECT_TRUE(s[2].up);
  EXPECT_EQ(s[2].counters, (std::map<std::string, uint64_t>{{"link_downed", 3}, {"symbol_error", 17}}));
  EXPECT_EQ(s[3].link, "mlx5_0/2");
  EXPECT_FALSE(s[3].up);
  EXPECT_EQ(s[4].link, "tun0");
  EXPECT_TRUE(s[4].up);  // operstate "unknown": up

  EXPECT_TRUE(read_link_states({"/nonexistent-sysfs/net", "/nonexistent-sysfs/infiniband"}).empty());
}

// A real flap: the carrier drops (and carrier_down_count with it: not a second flap),
// comes back after about 50 ms.
TEST(LinkWatch, ADownThenUpIsOneFlapWithItsDowntime) {
  LinkTree t;
  t.net("eth0", "carrier", "1");
  t.net("eth0", "carrier_down_count", "4");
  t.net("eth0", "carrier_up_count", "5");
  LinkWatch w(t.sources(), kNoPeriod);
  const int64_t before_ns = system_now_ns();
  t.net("eth0", "carrier", "0");
  t.net("eth0", "carrier_down_count", "5");
  w.sample_now();
  std::this_thread::sleep_for(milliseconds(50));
  t.net("eth0", "carrier", "1");
  t.net("eth0", "carrier_up_count", "6");
  w.sample_now();
  const int64_t after_ns = system_now_ns();

  const auto hs = w.histories();
  ASSERT_EQ(hs.size(), 1u);
  const LinkHistory& h = hs[0];
  EXPECT_TRUE(h.up_at_start);
  EXPECT_TRUE(h.up_at_end);
  EXPECT_EQ(h.flaps, 1);
  ASSERT_EQ(h.edges.size(), 2u);
  EXPECT_FALSE(h.edges[0].up);
  EXPECT_TRUE(h.edges[1].up);
  EXPECT_FALSE(h.edges[0].inferred);
  EXPECT_FALSE(h.edges[1].inferred);
  EXPECT_GE(h.edges[0].utc_ns, before_ns);
  EXPECT_LE(h.edges[0].utc_ns, h.edges[1].utc_ns);
  EXPECT_LE(h.edges[1].utc_ns, after_ns);
  EXPECT_GT(h.downtime_s, 0.03);
  EXPECT_LT(h.downtime_s, 2.0);
  EXPECT_EQ(h.edges_dropped, 0u);
  EXPECT_EQ(h.counter_deltas, (std::map<std::string, uint64_t>{{"carrier_down_count", 1}, {"carrier_up_count", 1}}));

  // stop() wakes the thread at once, however long its period.
  const auto t0 = std::chrono::steady_clock::now();
  w.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  w.stop();  // again: nothing
}

// Flaps shorter than the period: the state is the same at both samples, the down counter
// rose. On kernels before 4.16, carrier_changes (two per flap) stands in.
TEST(LinkWatch, ADownCounterRiseWithoutAStateChangeIsInferredFlaps) {
  LinkTree t;
  t.net("eth0", "carrier", "1");
  t.net("eth0", "carrier_changes", "6");
  t.net("eth0", "carrier_down_count", "3");
  t.net("eth1", "carrier", "1");
  t.net("eth1", "carrier_changes", "10");
  t.net("eth2", "carrier", "0");  // down throughout, came up and went down again once
  t.net("eth2", "carrier_down_count", "1");
  LinkWatch w(t.sources(), kNoPeriod);
  t.net("eth0", "carrier_changes", "10");
  t.net("eth0", "carrier_down_count", "5");
  t.net("eth1", "carrier_changes", "14");
  t.net("eth2", "carrier_down_count", "2");
  w.sample_now();
  w.stop();

  const auto hs = w.histories();
  const LinkHistory& eth0 = find(hs, "eth0");
  EXPECT_EQ(eth0.flaps, 2);
  ASSERT_EQ(eth0.edges.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(eth0.edges[i].inferred);
    EXPECT_EQ(eth0.edges[i].up, i % 2 == 1);  // down, up, down, up
    EXPECT_EQ(eth0.edges[i].utc_ns, eth0.edges[0].utc_ns);
  }
  EXPECT_EQ(eth0.downtime_s, 0);
  EXPECT_TRUE(eth0.up_at_end);
  EXPECT_EQ(eth0.counter_deltas.at("carrier_down_count"), 2u);
  EXPECT_EQ(eth0.counter_deltas.at("carrier_changes"), 4u);

  const LinkHistory& eth1 = find(hs, "eth1");
  EXPECT_EQ(eth1.flaps, 2);
  EXPECT_EQ(eth1.edges.size(), 4u);

  const LinkHistory& eth2 = find(hs, "eth2");
  EXPECT_EQ(eth2.flaps, 1);
  ASSERT_EQ(eth2.edges.size(), 2u);
  EXPECT_TRUE(eth2.edges[0].up);  // up, then down again
  EXPECT_FALSE(eth2.edges[1].up);
  EXPECT_FALSE(eth2.up_at_start);
  EXPECT_FALSE(eth2.up_at_end);
  EXPECT_GT(eth2.downtime_s, 0);  // down the whole watch
}

TEST(LinkWatch, AnRdmaPortsLinkDownedCountsItsFlaps) {
  LinkTree t;
  t.port("mlx5_0", 1, "state", "4: ACTIVE");
  t.port("mlx5_0", 1, "counters/link_downed", "1");
  t.port("mlx5_0", 1, "counters/symbol_error", "10");
  t.port("mlx5_0", 1, "counters/port_rcv_errors", "7");
  LinkWatch w(t.sources(), kNoPeriod);
  t.port("mlx5_0", 1, "state", "1: DOWN");  // a flap the samples see
  t.port("mlx5_0", 1, "counters/link_downed", "2");
  t.port("mlx5_0", 1, "counters/symbol_error", "13");
  w.sample_now();
  t.port("mlx5_0", 1, "state", "4: ACTIVE");
  w.sample_now();
  t.port("mlx5_0", 1, "counters/link_downed", "4");      // two they miss
  t.port("mlx5_0", 1, "counters/port_rcv_errors", "3");  // went back (a reset): 0
  w.sample_now();

  const auto hs = w.histories();
  ASSERT_EQ(hs.size(), 1u);
  const LinkHistory& h = hs[0];
  EXPECT_EQ(h.link, "mlx5_0/1");
  EXPECT_TRUE(h.rdma);
  EXPECT_EQ(h.flaps, 3);
  ASSERT_EQ(h.edges.size(), 6u);
  EXPECT_FALSE(h.edges[0].inferred);
  EXPECT_FALSE(h.edges[1].inferred);
  EXPECT_TRUE(h.edges[2].inferred);
  EXPECT_EQ(h.counter_deltas,
            (std::map<std::string, uint64_t>{{"link_downed", 3}, {"port_rcv_errors", 0}, {"symbol_error", 3}}));
}

TEST(LinkWatch, ALinkStillDownAtStopHasItsDowntimeCounted) {
  LinkTree t;
  t.net("eth0", "carrier", "1");
  t.net("eth1", "operstate", "down");  // down from the start
  LinkWatch w(t.sources(), kNoPeriod);
  t.net("eth0", "carrier", "0");
  w.sample_now();
  std::this_thread::sleep_for(milliseconds(40));
  w.stop();
  t.net("eth0", "carrier", "1");
  w.sample_now();  // after stop(): nothing

  const auto hs = w.histories();
  const LinkHistory& eth0 = find(hs, "eth0");
  EXPECT_TRUE(eth0.up_at_start);
  EXPECT_FALSE(eth0.up_at_end);
  EXPECT_EQ(eth0.flaps, 1);
  EXPECT_EQ(eth0.edges.size(), 1u);
  EXPECT_GT(eth0.downtime_s, 0.03);
  EXPECT_LT(eth0.downtime_s, 2.0);
  const LinkHistory& eth1 = find(hs, "eth1");
  EXPECT_FALSE(eth1.up_at_start);
  EXPECT_FALSE(eth1.up_at_end);
  EXPECT_EQ(eth1.flaps, 0);
  EXPECT_TRUE(eth1.edges.empty());
  EXPECT_GE(eth1.downtime_s, eth0.downtime_s);
}

TEST(LinkWatch, EdgesBeyondTheCapAreCountedNotKept) {
  LinkTree t;
  t.net("eth0", "carrier", "1");
  t.net("eth0", "carrier_down_count", "0");
  LinkWatch w(t.sources(), kNoPeriod);
  t.net("eth0", "carrier_down_count", std::to_string(kMaxEdges));  // 2 * kMaxEdges edges
  w.sample_now();
  t.net("eth0", "carrier", "0");
  t.net("eth0", "carrier_down_count", std::to_string(kMaxEdges + 1));
  w.sample_now();
  w.stop();

  const LinkHistory h = w.histories().at(0);
  EXPECT_EQ(h.flaps, static_cast<int>(kMaxEdges) + 1);
  EXPECT_EQ(h.edges.size(), kMaxEdges);
  EXPECT_EQ(h.edges_dropped, kMaxEdges + 1);
  EXPECT_TRUE(h.edges.back().inferred);  // the first ones are kept
  EXPECT_FALSE(h.up_at_end);
}

TEST(LinkWatch, ALinkThatGoesAwayIsDownOneThatAppearsIsIgnored) {
  LinkTree t;
  t.net("eth0", "carrier", "1");
  t.net("eth0", "carrier_down_count", "2");
  t.port("mlx5_0", 1, "state", "4: ACTIVE");
  LinkWatch w(t.sources(), kNoPeriod);
  t.remove("net/eth0");
  t.remove("infiniband/mlx5_0");
  t.net("eth9", "carrier", "1");
  w.sample_now();
  w.stop();

  const auto hs = w.histories();
  ASSERT_EQ(hs.size(), 2u);
  EXPECT_EQ(hs[0].link, "eth0");
  EXPECT_FALSE(hs[0].up_at_end);
  EXPECT_EQ(hs[0].flaps, 1);
  EXPECT_EQ(hs[0].counter_deltas.at("carrier_down_count"), 0u);  // its last value kept
  EXPECT_EQ(hs[1].link, "mlx5_0/1");
  EXPECT_FALSE(hs[1].up_at_end);
}

// The thread alone: a flap of 100 ms, sampled every 10 ms, seen while it runs.
TEST(LinkWatch, TheThreadSeesAFlapWhileRunning) {
  LinkTree t;
  t.net("eth0", "carrier", "1");
  t.port("mlx5_1", 1, "state", "4: ACTIVE");
  LinkWatch w(t.sources(), 0.01);
  t.net("eth0", "carrier", "0");
  std::this_thread::sleep_for(milliseconds(100));
  t.net("eth0", "carrier", "1");
  std::this_thread::sleep_for(milliseconds(100));

  const auto hs = w.histories();
  ASSERT_EQ(hs.size(), 2u);
  const LinkHistory& eth0 = find(hs, "eth0");
  EXPECT_EQ(eth0.flaps, 1);
  ASSERT_EQ(eth0.edges.size(), 2u);
  EXPECT_FALSE(eth0.edges[0].up);
  EXPECT_TRUE(eth0.edges[1].up);
  EXPECT_TRUE(eth0.up_at_end);
  EXPECT_GT(eth0.downtime_s, 0.03);
  EXPECT_LT(eth0.downtime_s, 2.0);
  const LinkHistory& port = find(hs, "mlx5_1/1");
  EXPECT_EQ(port.flaps, 0);
  EXPECT_EQ(port.downtime_s, 0);
}

}  // namespace
}  // namespace fabscope
