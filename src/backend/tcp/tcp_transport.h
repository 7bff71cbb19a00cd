// The tcp transport: one TCP connection per pair of ranks, set up through the MPI
// bootstrap, non-blocking sockets driven by poll(). Listening sockets bind only to the
// chosen address and accept only peers that present the job's random token; every
// message header is checked before its payload is read.
#pragma once

#include <poll.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "algo/transport.h"
#include "backend/tcp/tcp_auth.h"
#include "comm/context.h"
#include "core/log.h"

namespace fabscope {

struct TcpOptions {
  std::string interface;   // --tcp-if: use this interface's IPv4 address
  std::string address;     // --tcp-addr: use this local IPv4 address
  std::string congestion;  // --tcp-cc: every connection's congestion control (TCP_CONGESTION); "host": the
                           // host's default; empty: kTcpCongestionDefault where this process may use it
  double setup_timeout_s = 60;
  // Called once this rank listens, with its address and port (tests aim stray
  // connections at it; diagnostics may log it).
  std::function<void(const std::string& address, uint16_t port)> on_listening;
};

// The engine's congestion control when --tcp-cc is not given, and the word that keeps the host's.
inline constexpr const char* kTcpCongestionDefault = "cubic";
inline constexpr const char* kTcpCongestionHost = "host";

// The congestion control every connection runs, and why that one.
struct TcpCongestion {
  std::string name;  // what the connections run
  std::string set;   // what fabscope sets on each connection (TCP_CONGESTION); empty: leave the host's
  std::string why;   // "--tcp-cc", "fabscope's default ...", "the host's: ..."
};

// --tcp-cc's value (TcpOptions::congestion) made a choice on this host: the named one if
// this process may set it (else an error listing what the host offers), the host's for
// "host", and for none kTcpCongestionDefault where it may be set, else the host's and why.
Result<TcpCongestion> choose_tcp_congestion(const std::string& wanted);

// The window the kernel leaves a connection idle for `idle_us` with retransmission timeout
// `rto_us` (tcp_cwnd_restart): halved for each timeout of idle past the first, down to
// the initial window (10 segments) or the window itself if smaller.
uint32_t restarted_window(uint32_t before, double idle_us, double rto_us);

// The round trips a send of `segments` loses to a window cut from `before` to `after`
// segments, against sending it all at `before`: slow start doubles the window each round
// trip, so reaching it again takes log2(before/after) of them, less what moved meanwhile.
double slow_start_extra_round_trips(double before, double after, double segments);

// The local IPv4 address to listen on: --tcp-addr, else --tcp-if's address, else
// 127.0.0.1 when every rank is on this host, else the first interface that is up
// and not loopback (by name).
Result<std::string> choose_tcp_address(const TcpOptions& options, bool all_ranks_local);

// Wire format. The handshake is tcp_auth.h's. Message header: magic, flags (0), payload length.
struct TcpHeader {
  uint32_t magic;
  uint32_t flags;
  uint64_t bytes;
};
class TcpTransport final : public Transport {
 public:
  static Result<std::unique_ptr<TcpTransport>> create(const RankContext& ctx, const TcpOptions& options,
                                                      const Logger& log);
  ~TcpTransport() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Result<uint64_t> post_send(int peer, const void* buf, size_t bytes) override;
  Result<uint64_t> post_recv(int peer, void* buf, size_t bytes) override;
  Status poll(std::vector<Completion>& done, int timeout_ms) override;
  // sockperf's loop: the connection made blocking for the loop's length, each message
  // one sendmsg and one recvmsg (header and payload together).
  Status ping_pong(int peer, bool initiator, const void* send, void* recv, size_t bytes, int count, int64_t* stamps,
                   bool ticks, Watchdog& wd) override;
  std::string describe_peer(int peer) const override;
  std::string library() const override {
    return "TCP sockets on " + local_address_ + ", congestion control " + congestion_.name + " (" + congestion_.why +
           "), slow start after idle " + idle_restart_;
  }
  const std::string& local_address() const { return local_address_; }
  std::optional<TcpIdleRestarts> tcp_idle_restarts() const override;

 private:
  struct SendOp {
    uint64_t id;
    const char* buf;
    size_t bytes;
    TcpHeader header;
    size_t done = 0;  // of sizeof(header) + bytes
    int64_t posted_ns;
  };
  struct RecvOp {
    uint64_t id;
    char* buf;
    size_t bytes;
    TcpHeader header;
    size_t done = 0;
    int64_t posted_ns;
  };
  struct Conn {
    int fd = -1;
    std::string addr;
    std::deque<SendOp> sends;
    std::deque<RecvOp> recvs;
    int64_t last_sent_ns = 0;  // when bytes last went into this connection's socket
  };

  TcpTransport() = default;
  Status progress_send(int peer, Conn& c, std::vector<Completion>& done);
  Status progress_recv(int peer, Conn& c, std::vector<Completion>& done);
  Status progress_all(std::vector<Completion>& done);
  // Before a send's first bytes on a connection idle for longer than the shortest
  // retransmission timeout: whether the kernel will restart it, and by how much.
  void note_idle_restart(Conn& c, size_t bytes);
  // A connection's first message posted (busy) or its last one done: the rank's time
  // with any message posted, the idle restarts' yardstick.
  void conn_busy(bool busy);
  Status send_whole(int peer, const void* buf, size_t bytes);
  Status recv_whole(int peer, void* buf, size_t bytes);

  int rank_ = 0;
  int size_ = 1;
  std::string local_address_;
  TcpCongestion congestion_;  // every connection's congestion control, and why
  std::string idle_restart_;  // net.ipv4.tcp_slow_start_after_idle: on, off or unknown
  std::vector<Conn> conns_;
  std::vector<pollfd> pollfds_;
  uint64_t next_id_ = 1;
  TcpIdleRestarts idle_;
  int busy_conns_ = 0;         // connections with a message posted
  int64_t busy_since_ns_ = 0;  // when the first of them was queued
};

}  // namespace fabscope
