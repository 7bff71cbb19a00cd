// The tcp transport's account of the kernel's idle restart, under mpirun at 2 ranks on
// loopback: rank 0 sends rank 1 a large message (the window grows), both wait longer
// than any retransmission timeout, and rank 0 sends again. With
// net.ipv4.tcp_slow_start_after_idle=1 and cubic the kernel cuts the window on that send,
// and TcpIdleRestarts says so and what it cost; with the setting off, or with bbr, nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "backend/tcp/tcp_transport.h"
#include "mpi_gtest.h"

namespace fabscope {
namespace {

std::string idle_setting() {
  std::ifstream in("/proc/sys/net/ipv4/tcp_slow_start_after_idle");
  std::string w;
  in >> w;
  return w;
}

// Rank 0 sends `bytes` to rank 1 and both wait for it.
void move(TcpTransport& t, std::vector<char>& buf) {
  std::vector<Completion> done;
  const bool sender = g_ctx->rank() == 0;
  auto id = sender ? t.post_send(1, buf.data(), buf.size()) : t.post_recv(0, buf.data(), buf.size());
  ASSERT_TRUE(id.ok()) << id.status().message();
  while (done.empty()) ASSERT_TRUE(t.poll(done, 100).ok());
}

void send_idle_send(const std::string& cc, TcpIdleRestarts& out) {
  TcpOptions o;
  o.congestion = cc;
  auto t = TcpTransport::create(*g_ctx, o, Logger());
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::vector<char> buf(64 << 20, 'x');
  move(**t, buf);  // slow start grows the window
  move(**t, buf);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // > any RTO on loopback (200 ms + rtt)
  ASSERT_TRUE(g_ctx->barrier().ok());
  move(**t, buf);
  out = *(*t)->tcp_idle_restarts();
}

TEST(TcpIdleRestart, CubicAfterIdleIsCutAndCosted) {
  if (g_ctx->size() != 2) GTEST_SKIP() << "runs at 2 ranks";
  if (::geteuid() != 0) GTEST_SKIP() << "cubic needs CAP_NET_ADMIN where the host's default is not cubic";
  TcpIdleRestarts r;
  send_idle_send("cubic", r);
  if (g_ctx->rank() != 0) return;  // the receiver sends nothing
  if (idle_setting() != "1") {
    EXPECT_FALSE(r.watched);
    EXPECT_EQ(r.restarts, 0u);
    GTEST_SKIP() << "net.ipv4.tcp_slow_start_after_idle is not 1 here: nothing to restart";
  }
  EXPECT_TRUE(r.watched);
  // The send after the sleep is an idle one; the second send is too where the machine held
  // the receiver past a retransmission timeout between the first two (CI on 2 loaded cores
  // once counted 2 idle sends and 2 restarts): at least the one, at most all three.
  EXPECT_GE(r.idle_sends, 1u);
  EXPECT_LE(r.idle_sends, 3u);
  // On loopback the window may never have grown past the initial 10 segments (the path
  // needs no more), and then the restart leaves it as it is: a cut only from a larger one.
  ASSERT_LE(r.restarts, r.idle_sends);
  if (r.restarts >= 1) {
    EXPECT_LT(r.cwnd_after, r.cwnd_before);
    EXPECT_GT(r.cost_us, 0);
  }
  EXPECT_GT(r.busy_us, 0);
  EXPECT_LT(r.busy_us, 1.5e6);  // the sleep is not busy time
}

TEST(TcpIdleRestart, BbrIsLeftAlone) {
  if (g_ctx->size() != 2) GTEST_SKIP() << "runs at 2 ranks";
  TcpIdleRestarts r;
  send_idle_send("bbr", r);  // allowed without CAP_NET_ADMIN on Debian
  EXPECT_FALSE(r.watched);
  EXPECT_EQ(r.idle_sends, 0u);
  EXPECT_EQ(r.restarts, 0u);
}

}  // namespace
}  // namespace fabscope
