// The tcp transport and fabscope's algorithms over it, under mpirun: message order,
// zero-byte and large messages, a header that does not match the posted receive, and
// the per-step trace of a ring all-reduce.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "algo/collectives.h"
#include "algo/exchange.h"
#include "backend/tcp/tcp_transport.h"
#include "coll/pattern.h"

namespace fabscope {
namespace {

RankContext* g_ctx = nullptr;

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

}  // namespace
}  // namespace fabscope

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto ctx = fabscope::RankContext::create(&argc, &argv);
  if (!ctx.ok()) return 1;
  fabscope::g_ctx = ctx->get();
  int rc = RUN_ALL_TESTS();
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, (*ctx)->comm());
  return worst;
}
