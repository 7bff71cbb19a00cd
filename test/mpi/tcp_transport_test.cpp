// The tcp transport and fabscope's algorithms over it, under mpirun: message order,
// zero-byte and large messages, a header that does not match the posted receive, and
// the per-step trace of a ring all-reduce.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <thread>

#include "algo/collectives.h"
#include "algo/exchange.h"
#include "backend/mpi/mpi_transport.h"
#include "backend/tcp/tcp_transport.h"
#include "coll/pattern.h"
#include "mpi_gtest.h"
#include "p2p/p2p.h"

namespace fabscope {
namespace {

std::unique_ptr<TcpTransport> transport() {
  auto t = TcpTransport::create(*g_ctx, TcpOptions{}, Logger());
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(*t);
}

TEST(TcpTransport, ManyMessagesArriveInOrderIncludingEmptyAndLargeOnes) {
  if (g_ctx->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto t = transport();
  const int n = g_ctx->size(), r = g_ctx->rank();
  const int next = (r + 1) % n, prev = (r + n - 1) % n;
  const std::vector<size_t> sizes = {0, 1, 7, 4096, 0, (size_t{48} << 20) + 3, 65536};
  std::vector<std::vector<uint8_t>> out(sizes.size()), in(sizes.size());
  Exchange ex(*t, nullptr, 0);
  for (size_t i = 0; i < sizes.size(); ++i) {
    out[i].resize(sizes[i]);
    for (size_t k = 0; k < sizes[i]; ++k) out[i][k] = static_cast<uint8_t>(k * 31 + i * 7 + static_cast<size_t>(r));
    in[i].assign(sizes[i], 0xee);
    ASSERT_TRUE(ex.recv(prev, in[i].data(), sizes[i]).ok());
  }
  for (size_t i = 0; i < sizes.size(); ++i) ASSERT_TRUE(ex.send(next, out[i].data(), sizes[i]).ok());
  Status s = ex.wait();
  ASSERT_TRUE(s.ok()) << s.message();
  for (size_t i = 0; i < sizes.size(); ++i) {
    for (size_t k = 0; k < sizes[i]; ++k) {
      ASSERT_EQ(in[i][k], static_cast<uint8_t>(k * 31 + i * 7 + static_cast<size_t>(prev))) << "message " << i;
    }
  }
}

TEST(TcpTransport, SelfAndOutOfRangePeersAreRefused) {
  auto t = transport();
  char b = 0;
  EXPECT_FALSE(t->post_send(g_ctx->rank(), &b, 1).ok());
  EXPECT_FALSE(t->post_recv(g_ctx->size(), &b, 1).ok());
  EXPECT_FALSE(t->post_send(-1, &b, 1).ok());
}

TEST(TcpTransport, AMessageOfTheWrongSizeIsAnErrorNotACorruption) {
  if (g_ctx->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto t = transport();
  std::vector<char> buf(100, 'x');
  if (g_ctx->rank() == 0) {
    Exchange ex(*t, nullptr, 0);
    ASSERT_TRUE(ex.send(1, buf.data(), 100).ok());
    EXPECT_TRUE(ex.wait().ok());
  } else if (g_ctx->rank() == 1) {
    std::vector<char> small(50, 'y');
    Exchange ex(*t, nullptr, 0);
    ASSERT_TRUE(ex.recv(0, small.data(), 50).ok());
    Status s = ex.wait();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("sent a 100-byte message where rank 1 expected 50 bytes"), std::string::npos)
        << s.message();
    EXPECT_EQ(small, std::vector<char>(50, 'y'));  // nothing of it landed
  }
  ASSERT_TRUE(g_ctx->barrier().ok());
}

// Stray and hostile connections to rank 0's listener during set-up: silent ones, one
// that sends garbage, one that cannot prove the job's token. Each is refused and logged, and none
// holds up the real peers (before, each silent one held the accept loop for 5 s).
TEST(TcpTransport, StrayAndHostileConnectionsAreRefusedWithoutStallingSetUp) {
  if (g_ctx->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  std::FILE* log_file = std::tmpfile();
  Logger log(LogLevel::kWarn, "[test]", log_file);
  std::vector<int> strays;
  TcpOptions o;
  o.setup_timeout_s = 20;
  if (g_ctx->rank() == 0) {
    // Synchronous: the strays are in the listener's backlog before any real peer can
    // connect (peers learn the port only after this returns).
    o.on_listening = [&](const std::string& addr, uint16_t port) {
      [&strays, addr, port] {
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_port = htons(port);
        inet_pton(AF_INET, addr.c_str(), &sa.sin_addr);
        for (int i = 0; i < 12; ++i) {
          int fd = ::socket(AF_INET, SOCK_STREAM, 0);
          if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) continue;
          if (i == 10) {
            const std::string garbage = "GET / HTTP/1.0\r\n\r\n" + std::string(40, 'A');
            (void)!::write(fd, garbage.data(), garbage.size());
          }
          if (i == 11) {  // a well-formed hello, then a made-up proof: it does not know the token
            TcpHello h{kTcpMagic, kTcpVersion, 1, static_cast<uint32_t>(g_ctx->size()), {}};
            TcpProof p{kTcpMagic, 1, {}};
            (void)!::write(fd, &h, sizeof(h));
            (void)!::write(fd, &p, sizeof(p));
          }
          strays.push_back(fd);  // the silent ones stay open and say nothing
        }
      }();
    };
  }
  const auto start = std::chrono::steady_clock::now();
  auto t = TcpTransport::create(*g_ctx, o, log);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int fd : strays) ::close(fd);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_LT(took, 10.0);
  if (g_ctx->rank() == 0) {
    std::fflush(log_file);
    std::rewind(log_file);
    std::string text;
    for (int c; (c = std::fgetc(log_file)) != EOF;) text += static_cast<char>(c);
    EXPECT_NE(text.find("refused a connection from 127.0.0.1"), std::string::npos) << text;
    EXPECT_NE(text.find("wrong proof of the job token"), std::string::npos) << text;
  }
  std::fclose(log_file);
  // The real connections work.
  std::vector<char> a(1000, static_cast<char>(g_ctx->rank())), b(1000, 'z');
  const int n = g_ctx->size(), r = g_ctx->rank();
  Exchange ex(**t, nullptr, 0);
  ASSERT_TRUE(ex.send((r + 1) % n, a.data(), a.size()).ok());
  ASSERT_TRUE(ex.recv((r + n - 1) % n, b.data(), b.size()).ok());
  ASSERT_TRUE(ex.wait().ok());
  EXPECT_EQ(b, std::vector<char>(1000, static_cast<char>((r + n - 1) % n)));
}

TEST(TcpAlgorithms, RingAllReduceTraceShowsEveryByteOnTheRingLinks) {
  auto t = transport();
  const int n = g_ctx->size(), r = g_ctx->rank();
  const size_t count = 1000003;  // not divisible by the rank count
  std::vector<float> send(count), recv(count, -1.0f);
  PatternSpec spec{DataType::kFloat, ReduceOp::kSum, 7, n};
  Segment in{0, count, r, 0};
  host_fill(send.data(), spec, std::span<const Segment>(&in, 1));
  CollCall call;
  call.coll = Collective::kAllReduce;
  call.op = ReduceOp::kSum;
  call.send = send.data();
  call.recv = recv.data();
  call.count = count;
  Scratch scratch;
  Trace trace;
  AlgoOptions o;
  o.slice_bytes = 64 * 1024;
  Status s = run_collective(call, *t, scratch, o, &trace);
  ASSERT_TRUE(s.ok()) << s.message();
  Segment expect{0, count, kAllRanks, 0};
  EXPECT_EQ(host_count_wrong(recv.data(), spec, std::span<const Segment>(&expect, 1)), 0u);
  if (n == 1) {
    EXPECT_TRUE(trace.records.empty());
    return;
  }
  // Balanced chunks: rank r sends every chunk but its own in reduce-scatter and every
  // chunk but r+1's in all-gather, all to the next rank; it receives as much from the previous.
  auto chunk = [&](int j) { return count / n + (static_cast<size_t>(j) < count % n ? 1 : 0); };
  const size_t expect_sent = (count - chunk(r)) * 4 + (count - chunk((r + 1) % n)) * 4;
  size_t sent = 0, received = 0;
  int max_step = 0;
  for (const StepRecord& rec : trace.records) {
    EXPECT_EQ(rec.peer, rec.is_send ? (r + 1) % n : (r + n - 1) % n);
    EXPECT_LE(rec.bytes, o.slice_bytes);
    EXPECT_LE(rec.posted_ns, rec.completed_ns);
    (rec.is_send ? sent : received) += rec.bytes;
    max_step = std::max(max_step, rec.step);
  }
  EXPECT_EQ(sent, expect_sent);
  EXPECT_EQ(max_step, 2 * (n - 1) - 1);
  size_t expect_received = (count - chunk((r + n - 1) % n)) * 4 + (count - chunk(r)) * 4;
  EXPECT_EQ(received, expect_received);
}

// All-to-all: every chunk arrives, in place and out of place, for chunks under a slice
// (every peer at once) and of several slices (rounds granted by the receivers). The trace
// holds every message: each chunk to its rank in slices, and in rounds one zero-byte
// grant to and from each peer; no slice of round s leaves before peer(s)'s grant arrived.
TEST(TcpAlgorithms, AllToAllGoesInRoundsTheReceiversGrant) {
  auto t = transport();
  const int n = g_ctx->size(), r = g_ctx->rank();
  AlgoOptions o;
  o.slice_bytes = 16 * 1024;
  for (const size_t per_rank : {size_t{1000}, size_t{4096}, size_t{4097}, size_t{50001}}) {
    for (const bool in_place : {false, true}) {
      SCOPED_TRACE(fmt::format("{} floats per rank, {}", per_rank, in_place ? "in place" : "out of place"));
      const size_t total = per_rank * static_cast<size_t>(n);
      std::vector<float> send(total), recv(total, -1.0f);
      PatternSpec spec{DataType::kFloat, ReduceOp::kSum, 11, n};
      // Chunk j of rank r's input is what rank j expects from r at offset r * per_rank.
      std::vector<Segment> mine, want;
      for (int j = 0; j < n; ++j) {
        mine.push_back({static_cast<size_t>(j) * per_rank, per_rank, r, static_cast<uint64_t>(j) * 1000003});
        want.push_back({static_cast<size_t>(j) * per_rank, per_rank, j, static_cast<uint64_t>(r) * 1000003});
      }
      host_fill(send.data(), spec, mine);
      if (in_place) recv = send;
      CollCall call;
      call.coll = Collective::kAllToAll;
      call.send = in_place ? recv.data() : send.data();
      call.recv = recv.data();
      call.count = per_rank;
      Scratch scratch;
      Trace trace;
      const Status s = run_collective(call, *t, scratch, o, &trace);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(host_count_wrong(recv.data(), spec, want), 0u);
      std::map<int, size_t> sent, received;
      std::map<int, int> grants_sent, grants_received;
      std::map<int, int64_t> grant_at, first_slice_at;
      for (const StepRecord& rec : trace.records) {
        EXPECT_LE(rec.bytes, o.slice_bytes);
        EXPECT_LE(rec.posted_ns, rec.completed_ns);
        EXPECT_GE(rec.step, 0);
        EXPECT_LE(rec.step, n - 2);
        if (rec.bytes == 0) {
          ++(rec.is_send ? grants_sent : grants_received)[rec.peer];
          if (!rec.is_send) grant_at[rec.peer] = rec.completed_ns;
          continue;
        }
        (rec.is_send ? sent : received)[rec.peer] += rec.bytes;
        if (rec.is_send && !first_slice_at.count(rec.peer)) first_slice_at[rec.peer] = rec.posted_ns;
        if (rec.is_send) {
          EXPECT_EQ(rec.step, (rec.peer - r + n) % n - 1) << "round s sends to rank r+s";
        } else {
          EXPECT_EQ(rec.step, (r - rec.peer + n) % n - 1) << "round s receives from rank r-s";
        }
      }
      const bool rounds = per_rank * sizeof(float) > o.slice_bytes;
      for (int j = 0; j < n; ++j) {
        if (j == r) continue;
        EXPECT_EQ(sent[j], per_rank * sizeof(float)) << "to rank " << j;
        EXPECT_EQ(received[j], per_rank * sizeof(float)) << "from rank " << j;
        EXPECT_EQ(grants_sent[j], rounds ? 1 : 0) << "grant to rank " << j;
        EXPECT_EQ(grants_received[j], rounds ? 1 : 0) << "grant from rank " << j;
        if (rounds) {
          EXPECT_GE(first_slice_at[j], grant_at[j]) << "a slice to rank " << j << " before its grant";
        }
      }
      if (n == 1) {
        EXPECT_TRUE(trace.records.empty());
      }
    }
  }
}

// A transport with no latency loop of its own: Transport::ping_pong's default, posts and
// polls, as verbs and nccl use it.
class PostPollOnly final : public Transport {
 public:
  explicit PostPollOnly(Transport& t) : t_(t) {}
  int rank() const override { return t_.rank(); }
  int size() const override { return t_.size(); }
  Result<uint64_t> post_send(int peer, const void* buf, size_t bytes) override {
    return t_.post_send(peer, buf, bytes);
  }
  Result<uint64_t> post_recv(int peer, void* buf, size_t bytes) override { return t_.post_recv(peer, buf, bytes); }
  Status poll(std::vector<Completion>& done, int timeout_ms) override { return t_.poll(done, timeout_ms); }
  std::string describe_peer(int peer) const override { return t_.describe_peer(peer); }

 private:
  Transport& t_;
};

// p2p's latency loop on each transport (tcp's and mpi's own blocking loops, and the
// default over posts and polls): every round trip completes, the figure is what the
// method quotes (perftest: the median; osu: the loop's mean, which is the stamps' mean),
// the floor is measured and below the figure, and a bandwidth stream on the same
// transport afterwards is still in step (the loop left no byte behind, and tcp's socket
// is non-blocking again).
TEST(P2pLoops, EachTransportsLatencyLoopQuotesItsMethodAndLeavesTheStreamInStep) {
  if (g_ctx->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto tcp = transport();
  auto mpi = create_mpi_transport(*g_ctx);
  ASSERT_TRUE(mpi.ok()) << mpi.status().message();
  PostPollOnly generic(*tcp);
  const std::pair<const char*, Transport*> transports[] = {
      {"tcp", tcp.get()}, {"mpi", mpi->get()}, {"posts", &generic}};
  for (const auto& [what, t] : transports) {
    for (TimingMethod method : {TimingMethod::kPerftest, TimingMethod::kOsu}) {
      SCOPED_TRACE(std::string(what) + " " + std::string(name(method)));
      P2pOptions o;
      o.pattern = P2pPattern::kPair;
      o.pair = {0, 1};
      o.mode = P2pMode::kLatency;
      o.sizes = {8, 70000};
      o.iters = 300;
      o.warmup_iters = 10;
      o.method = method;
      auto lat = run_p2p(*g_ctx, *t, o, nullptr, nullptr);
      ASSERT_TRUE(lat.ok()) << lat.status().message();
      EXPECT_EQ(lat->method, method);
      ASSERT_TRUE(lat->floor_us.has_value());
      EXPECT_GT(*lat->floor_us, 0);
      if (g_ctx->rank() == 0) {
        ASSERT_EQ(lat->links.size(), 2u);
        for (const P2pLink& l : lat->links) {
          ASSERT_TRUE(l.lat.has_value() && l.lat_us.has_value());
          EXPECT_EQ(l.iterations, 300);
          EXPECT_GT(l.lat->min_us, 0);
          if (method == TimingMethod::kPerftest) {
            EXPECT_EQ(*l.lat_us, l.lat->typical_us);
          } else {
            EXPECT_NEAR(*l.lat_us, l.lat->avg_us, 1e-6 * l.lat->avg_us);
          }
          if (l.size_bytes == 70000) {
            EXPECT_LT(*lat->floor_us, *l.lat_us);
          }
        }
      }
      P2pOptions bw = o;
      bw.mode = P2pMode::kBandwidth;
      bw.sizes = {4096};
      bw.iters = 200;
      auto stream = run_p2p(*g_ctx, *t, bw, nullptr, nullptr);
      ASSERT_TRUE(stream.ok()) << stream.status().message();
      if (g_ctx->rank() == 0) {
        ASSERT_EQ(stream->links.size(), 1u);
        EXPECT_GT(stream->links[0].bw_gbps.value_or(0), 0);
      }
    }
  }
}

// A transport that stalls once on one rank, before the first post after `after` posts:
// of messages with bytes being sent (a sender late to its stream), or of any message
// (a receiver late to its stream, whatever it posts first).
class StallOnce final : public Transport {
 public:
  StallOnce(Transport& t, int rank, bool sends_only, int after, std::chrono::milliseconds stall)
      : t_(t), rank_(rank), sends_only_(sends_only), after_(after), stall_(stall) {}
  int rank() const override { return t_.rank(); }
  int size() const override { return t_.size(); }
  Result<uint64_t> post_send(int peer, const void* buf, size_t bytes) override {
    if (bytes > 0 || !sends_only_) count();
    return t_.post_send(peer, buf, bytes);
  }
  Result<uint64_t> post_recv(int peer, void* buf, size_t bytes) override {
    if (!sends_only_) count();
    return t_.post_recv(peer, buf, bytes);
  }
  Status poll(std::vector<Completion>& done, int timeout_ms) override { return t_.poll(done, timeout_ms); }
  std::string describe_peer(int peer) const override { return t_.describe_peer(peer); }

 private:
  void count() {
    if (t_.rank() == rank_ && posts_++ == after_) std::this_thread::sleep_for(stall_);
  }
  Transport& t_;
  int rank_;
  bool sends_only_;
  int after_;
  std::chrono::milliseconds stall_;
  int posts_ = 0;
};

// A sender or a receiver late to the timed stream (let out of the round's barrier late
// because a third rank stopped in it, or stopped itself just then) is not the link's
// time: with a 300 ms stall at either end, more than ten times the stream's own time,
// the bandwidth stays within a factor of 3 of the same stream without one. (Timed from
// the receiver's barrier, the stall would divide it by more than 10.)
TEST(P2pTiming, AStallBeforeTheStreamIsNotTheLinks) {
  if (g_ctx->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto tcp = transport();
  P2pOptions o;
  o.pattern = P2pPattern::kPair;
  o.pair = {0, 1};
  o.mode = P2pMode::kBandwidth;
  o.sizes = {65536};
  o.iters = 400;
  o.warmup_iters = 10;
  auto bandwidth = [&](Transport& t) {
    auto r = run_p2p(*g_ctx, t, o, nullptr, nullptr);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() && !r->links.empty() ? r->links[0].bw_gbps.value_or(0) : 0.0;
  };
  // The lower of two quiet runs, against the higher of two with each stall: a machine
  // shared with other tests varies, a stall counted against the link does not.
  const double quiet = std::min(bandwidth(*tcp), bandwidth(*tcp));
  const std::chrono::milliseconds stall(300);
  for (const bool sender : {true, false}) {
    SCOPED_TRACE(sender ? "the sender stalls before its first timed message"
                        : "the receiver stalls before its first post of the timed stream");
    double stalled = 0;
    for (int i = 0; i < 2; ++i) {
      StallOnce t(*tcp, sender ? 0 : 1, sender, o.warmup_iters, stall);
      stalled = std::max(stalled, bandwidth(t));
    }
    if (g_ctx->rank() == 0) {
      EXPECT_GT(quiet, 0);
      EXPECT_GT(stalled, quiet / 3) << "quiet " << quiet << " GB/s";
    }
  }
}

}  // namespace
}  // namespace fabscope
