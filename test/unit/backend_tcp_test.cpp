// The tcp transport's pure parts: which peers the handshake admits, which local
// address it listens on, and which congestion control its connections run.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "algo/collectives.h"
#include "backend/tcp/tcp_transport.h"

namespace fabscope {
namespace {

TcpHello hello(uint32_t rank) { return TcpHello{kTcpMagic, kTcpVersion, rank, 4, {}}; }

TEST(TcpHandshake, AdmitsOnlyHigherRanksOfThisJob) {
  std::vector<bool> connected(4, false);
  EXPECT_EQ(check_hello(hello(2), 1, 4, connected), "");
  EXPECT_EQ(check_hello(hello(3), 1, 4, connected), "");
  TcpHello h = hello(2);
  h.magic = 0x47455420;  // "GET ": an HTTP client, say
  EXPECT_NE(check_hello(h, 1, 4, connected).find("bad magic"), std::string::npos);
  h = hello(2);
  h.version = 1;  // the version that sent its token in clear
  EXPECT_NE(check_hello(h, 1, 4, connected).find("protocol version 1"), std::string::npos);
  h = hello(2);
  h.nranks = 8;
  EXPECT_NE(check_hello(h, 1, 4, connected).find("job of 8 ranks"), std::string::npos);
  EXPECT_NE(check_hello(hello(0), 1, 4, connected).find("does not connect to rank 1"), std::string::npos);
  EXPECT_NE(check_hello(hello(1), 1, 4, connected).find("does not connect"), std::string::npos);
  EXPECT_NE(check_hello(hello(4), 1, 4, connected).find("does not connect"), std::string::npos);
  connected[2] = true;
  EXPECT_NE(check_hello(hello(2), 1, 4, connected).find("already connected"), std::string::npos);
}

TEST(TcpHandshake, ProofsBindTokenRoleNoncesAndRanks) {
  TcpToken token{};
  for (size_t i = 0; i < token.size(); ++i) token[i] = static_cast<uint8_t>(i + 1);
  TcpNonce a{}, b{};
  ASSERT_TRUE(tcp_random(a.data(), a.size()).ok());
  ASSERT_TRUE(tcp_random(b.data(), b.size()).ok());
  ASSERT_NE(a, b);
  const TcpMac listener = tcp_proof(token, TcpRole::kListener, a, b, 2, 1, 4);
  // The same inputs give the same proof; it matches itself.
  EXPECT_TRUE(tcp_proof_matches(listener, tcp_proof(token, TcpRole::kListener, a, b, 2, 1, 4)));
  // Anything else gives another: the other role (no reflecting a proof back), swapped
  // nonces, other ranks or job size, and another token.
  EXPECT_FALSE(tcp_proof_matches(listener, tcp_proof(token, TcpRole::kConnector, a, b, 2, 1, 4)));
  EXPECT_FALSE(tcp_proof_matches(listener, tcp_proof(token, TcpRole::kListener, b, a, 2, 1, 4)));
  EXPECT_FALSE(tcp_proof_matches(listener, tcp_proof(token, TcpRole::kListener, a, b, 3, 1, 4)));
  EXPECT_FALSE(tcp_proof_matches(listener, tcp_proof(token, TcpRole::kListener, a, b, 2, 0, 4)));
  EXPECT_FALSE(tcp_proof_matches(listener, tcp_proof(token, TcpRole::kListener, a, b, 2, 1, 5)));
  TcpToken other = token;
  other[31] ^= 1;
  EXPECT_FALSE(tcp_proof_matches(listener, tcp_proof(other, TcpRole::kListener, a, b, 2, 1, 4)));
  // HMAC-SHA256 really: not all zeros, 32 bytes that differ from the token.
  EXPECT_NE(listener, TcpMac{});
  // The hello carries no token at all: only magic, version, ranks and a nonce.
  EXPECT_EQ(sizeof(TcpHello), 4 * sizeof(uint32_t) + sizeof(TcpNonce));
}

TEST(AlgoScratch, HoldsWhatTheEngineKeepsBetweenCalls) {
  const uint64_t b = 1 << 20;
  EXPECT_EQ(algo_scratch_bytes({Collective::kAllGather, Collective::kBroadcast, Collective::kGather}, b), 0u);
  EXPECT_EQ(algo_scratch_bytes({Collective::kAllReduce}, b), b);                       // the ring's landing area
  EXPECT_EQ(algo_scratch_bytes({Collective::kAllReduce, Collective::kReduce}, b), b);  // one buffer, reused
  EXPECT_EQ(algo_scratch_bytes({Collective::kAllToAll}, b), b);                        // in-place copy
  EXPECT_EQ(algo_scratch_bytes({Collective::kReduceScatter, Collective::kSendRecv}, b), 2 * b);  // both kept
}

TEST(TcpAddress, ChoosesTheRequestedOrTheObviousAddress) {
  auto local = choose_tcp_address({}, true);
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(*local, "127.0.0.1");
  TcpOptions by_addr;
  by_addr.address = "127.0.0.1";
  EXPECT_EQ(*choose_tcp_address(by_addr, false), "127.0.0.1");
  TcpOptions by_if;
  by_if.interface = "lo";
  EXPECT_EQ(*choose_tcp_address(by_if, false), "127.0.0.1");
}

TEST(TcpAddress, UnknownChoicesAreErrorsThatListTheAlternatives) {
  TcpOptions bad_addr;
  bad_addr.address = "203.0.113.77";
  auto a = choose_tcp_address(bad_addr, true);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(a.status().message().find("--tcp-addr 203.0.113.77 is not an IPv4 address of this host"),
            std::string::npos);
  EXPECT_NE(a.status().message().find("lo (127.0.0.1)"), std::string::npos) << a.status().message();
  TcpOptions bad_if;
  bad_if.interface = "nosuchif0";
  auto b = choose_tcp_address(bad_if, true);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("--tcp-if nosuchif0 has no IPv4 address"), std::string::npos);
}

std::string proc_word(const char* path) {
  std::ifstream in(path);
  std::string w;
  in >> w;
  return w;
}

bool allowed_unprivileged(const std::string& name) {
  std::ifstream in("/proc/sys/net/ipv4/tcp_allowed_congestion_control");
  for (std::string w; in >> w;) {
    if (w == name) return true;
  }
  return false;
}

// The default is cubic where this process may set it, the host's with --tcp-cc host, a
// name the host lacks an error that lists what it has.
TEST(TcpCongestion, DefaultsToCubicKeepsTheHostsOnAskingAndRefusesUnknown) {
  const std::string host = proc_word("/proc/sys/net/ipv4/tcp_congestion_control");
  auto kept = choose_tcp_congestion(kTcpCongestionHost);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(kept->name, host);
  EXPECT_EQ(kept->set, "");
  EXPECT_EQ(kept->why, "the host's, by --tcp-cc host");

  auto chosen = choose_tcp_congestion("");
  ASSERT_TRUE(chosen.ok()) << chosen.status().message();
  if (::geteuid() == 0 || allowed_unprivileged("cubic") || host == "cubic") {
    EXPECT_EQ(chosen->name, "cubic");
    EXPECT_NE(chosen->why.find("fabscope's default"), std::string::npos) << chosen->why;
    if (host != "cubic") {
      EXPECT_NE(chosen->why.find("the host's is " + host), std::string::npos) << chosen->why;
    }
  } else {
    EXPECT_EQ(chosen->name, host);
    EXPECT_NE(chosen->why.find("not available to this process"), std::string::npos) << chosen->why;
  }

  auto bad = choose_tcp_congestion("warp9");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--tcp-cc warp9: this host does not let fabscope use it"), std::string::npos);
  EXPECT_NE(bad.status().message().find("--tcp-cc host"), std::string::npos);
}

// A process without CAP_NET_ADMIN where cubic is not in tcp_allowed_congestion_control
// (Debian's default list is the host's default and reno) runs the host's and says why.
TEST(TcpCongestion, UnprivilegedProcessFallsBackToTheHostsAndSaysWhy) {
  const std::string host = proc_word("/proc/sys/net/ipv4/tcp_congestion_control");
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop to an unprivileged user";
  if (host == "cubic" || allowed_unprivileged("cubic")) GTEST_SKIP() << "cubic is open to every process here";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // the child drops root, chooses, and writes name and why
    ::close(fds[0]);
    if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0) ::_exit(3);
    auto c = choose_tcp_congestion("");
    const std::string out = c.ok() ? c->name + "\n" + c->why : "error: " + c.status().message();
    if (::write(fds[1], out.data(), out.size()) != static_cast<ssize_t>(out.size())) ::_exit(4);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string got;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof(buf))) > 0;) got.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(got.substr(0, got.find('\n')), host) << got;
  EXPECT_NE(got.find("fabscope's default cubic is not available to this process"), std::string::npos) << got;
}

// Slow start's extra round trips after a window cut, against the whole send at the old
// window: none without a cut; log2(before/after) less what moved meanwhile for a send
// longer than the ramp; for one that ends in the ramp, its round trips less its share.
// The kernel's restart: halved per RTO of idle beyond the first, floored at 10 segments
// (or the window itself when smaller); nothing when idle for less than one RTO.
TEST(TcpIdleRestart, RestartedWindowAsTheKernelComputesIt) {
  EXPECT_EQ(restarted_window(400, 150e3, 200e3), 400u);  // idle less than the RTO
  EXPECT_EQ(restarted_window(400, 300e3, 200e3), 200u);  // 1 RTO past it: halved once
  EXPECT_EQ(restarted_window(400, 1000e3, 200e3), 25u);  // 4 halvings
  EXPECT_EQ(restarted_window(400, 10e6, 200e3), 10u);    // down to the initial window
  EXPECT_EQ(restarted_window(8, 10e6, 200e3), 8u);       // a window under it stays
  EXPECT_EQ(restarted_window(400, 1000e3, 0), 400u);     // no RTO known: no cut
}

TEST(TcpIdleRestart, SlowStartExtraRoundTrips) {
  EXPECT_EQ(slow_start_extra_round_trips(100, 100, 1000), 0);
  EXPECT_EQ(slow_start_extra_round_trips(100, 0, 1000), 0);
  EXPECT_EQ(slow_start_extra_round_trips(100, 200, 1000), 0);
  // 10 -> 80: 3 round trips moving 10+20+40 = 70 segments, which would have taken 0.875 at 80.
  EXPECT_DOUBLE_EQ(slow_start_extra_round_trips(80, 10, 1000), 3 - 70.0 / 80);
  // 30 segments at window 10: 10 then 20, 2 round trips, against 30/80 of one at 80.
  EXPECT_DOUBLE_EQ(slow_start_extra_round_trips(80, 10, 30), 2 - 30.0 / 80);
}

}  // namespace
}  // namespace fabscope
