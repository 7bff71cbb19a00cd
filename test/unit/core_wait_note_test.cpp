// What a hang message names: the message a rank waits on (core/wait_note.h, noted by the
// engine's Exchange), and which rank writes the report when rank 0 is cut off.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "algo/exchange.h"
#include "comm/heartbeat.h"
#include "core/clock.h"
#include "core/wait_note.h"

namespace fabscope {
namespace {

// A transport whose every message completes only after `polls_before_done` polls of 50 ms
// that find nothing: a peer that is slow to send.
class SlowTransport final : public Transport {
 public:
  explicit SlowTransport(int polls_before_done) : left_(polls_before_done) {}
  int rank() const override { return 1; }
  int size() const override { return 4; }
  Result<uint64_t> post_send(int peer, const void*, size_t bytes) override { return add(peer, bytes, true); }
  Result<uint64_t> post_recv(int peer, void*, size_t bytes) override { return add(peer, bytes, false); }
  Status poll(std::vector<Completion>& done, int timeout_ms) override {
    ++polls;
    if (left_ > 0) {
      --left_;
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(timeout_ms, 50)));
      return Status::Ok();
    }
    for (const Completion& c : open_) done.push_back(c);
    open_.clear();
    return Status::Ok();
  }
  std::string describe_peer(int peer) const override { return "tcp 198.18.0." + std::to_string(peer + 1) + ":4000"; }
  int polls = 0;

 private:
  Result<uint64_t> add(int peer, size_t bytes, bool is_send) {
    open_.push_back({++next_id_, peer, bytes, is_send, 0, 0});
    return next_id_;
  }
  int left_;
  uint64_t next_id_ = 100;
  std::vector<Completion> open_;
};

TEST(WaitNote, AWaitPastAQuarterSecondNamesTheOldestOpenMessageItsPeerAndLink) {
  SlowTransport t(8);  // 8 empty polls of 50 ms: 400 ms with nothing
  Exchange ex(t, nullptr, 0);
  std::vector<char> buf(1 << 20);
  ASSERT_TRUE(ex.recv(2, buf.data(), buf.size()).ok());
  ASSERT_TRUE(ex.send(3, buf.data(), 4096).ok());
  const int64_t before = steady_now_ns();
  ASSERT_TRUE(ex.wait().ok());
  const auto w = current_wait(5.0);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->peer, 2);  // the receive, posted first
  EXPECT_EQ(w->bytes, 1u << 20);
  EXPECT_FALSE(w->is_send);
  EXPECT_EQ(w->link, "tcp 198.18.0.3:4000");
  // Its start is that of the first empty poll, not the moment it was noted.
  EXPECT_LE(w->since_ns, before + 100'000'000);
  EXPECT_GE(w->noted_ns - w->since_ns, Exchange::kNoteWaitNs);
  const std::string text = describe_wait(*w, "rank 2 (h2)", w->since_ns + 9'800'000'000);
  EXPECT_EQ(text, "a 1 MiB receive from rank 2 (h2), open 9.8 s, over tcp 198.18.0.3:4000");
  // Stale once not renewed.
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_FALSE(current_wait(0.05).has_value());
}

TEST(WaitNote, AShortWaitIsNotNoted) {
  // A first note, then a wait of 100 ms: below the quarter second, so the note stays the old one.
  note_wait(1, 8, true, 7, 0, "tcp x");
  SlowTransport t(2);
  Exchange ex(t, nullptr, 0);
  char b[64];
  ASSERT_TRUE(ex.recv(3, b, sizeof(b)).ok());
  ASSERT_TRUE(ex.wait().ok());
  const auto w = current_wait(5.0);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->peer, 1);
  EXPECT_TRUE(w->is_send);
  EXPECT_EQ(describe_wait(*w, "rank 1 (h1)", w->since_ns), "a 8 B send to rank 1 (h1), open 0.0 s, over tcp x");
}

TEST(Rank0Standby, TheLowestRankRank0HeardOnAnotherNode) {
  // Two nodes of two ranks: rank 2 is the first off rank 0's node.
  EXPECT_EQ(rank0_standby({0, 0, 2, 2}, {}), 2);
  // Rank 2 was already silent to rank 0: rank 3.
  EXPECT_EQ(rank0_standby({0, 0, 2, 2}, {2}), 3);
  // Every rank elsewhere silent: rank 0's own node's next rank.
  EXPECT_EQ(rank0_standby({0, 0, 2, 2}, {2, 3}), 1);
  // One rank per node (the virtual cluster): rank 1, or the next one rank 0 still heard.
  EXPECT_EQ(rank0_standby({0, 1, 2, 3}, {}), 1);
  EXPECT_EQ(rank0_standby({0, 1, 2, 3}, {1}), 2);
  // All on one node (one machine): rank 1.
  EXPECT_EQ(rank0_standby({0, 0, 0}, {}), 1);
  // Nobody left, or rank 0 alone.
  EXPECT_EQ(rank0_standby({0, 1}, {1}), -1);
  EXPECT_EQ(rank0_standby({0}, {}), -1);
}

}  // namespace
}  // namespace fabscope
