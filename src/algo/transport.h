// The Transport interface fabscope's own algorithms are written against: post a
// send or a receive of a whole message to one peer, then poll for completions.
// Messages between two ranks complete in the order they were posted, per direction.
// tcp implements it over sockets; verbs over RC queue pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "core/tcp_idle_restarts.h"
#include "core/watchdog.h"

namespace fabscope {

class Memory;

struct Completion {
  uint64_t id = 0;
  int peer = 0;
  size_t bytes = 0;
  bool is_send = false;
  int64_t posted_ns = 0;     // steady clock
  int64_t completed_ns = 0;  // steady clock
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // A peer must be another rank; a zero-byte message is allowed and still matched.
  virtual Result<uint64_t> post_send(int peer, const void* buf, size_t bytes) = 0;
  virtual Result<uint64_t> post_recv(int peer, void* buf, size_t bytes) = 0;
  // Makes progress and appends what completed; waits up to timeout_ms when nothing did.
  virtual Status poll(std::vector<Completion>& done, int timeout_ms) = 0;
  // "tcp 198.18.0.2:40123": how this rank reaches `peer`, for messages and reports.
  virtual std::string describe_peer(int peer) const = 0;
  // Called before memory that may have been sent from or received into is freed, so a
  // transport that registers memory (verbs) drops what it holds for that range.
  virtual void forget_memory(const void* /*buf*/, size_t /*bytes*/) {}
  // What carries the bytes, for reports: "TCP sockets on 198.18.0.2", "Open MPI v4.1.4".
  virtual std::string library() const { return ""; }
  // Where message buffers must live when not in host memory (GPU memory for nccl);
  // nullptr: any host memory.
  virtual Memory* memory() { return nullptr; }
  // The tcp transport: what the kernel's idle restart did to this rank's sends so far;
  // null for the others.
  virtual std::optional<TcpIdleRestarts> tcp_idle_restarts() const { return std::nullopt; }

  // The latency loop (p2p --mode lat): `count` round trips of `bytes` with `peer`, the
  // initiator sending first, the other echoing. The initiator, given `stamps` (count + 1
  // entries), writes stamp_now(ticks) before the first round trip and after each. One
  // virtual call per loop, none per message: a transport overrides it with its own
  // blocking calls (mpi: MPI_Send and MPI_Recv, as osu_latency; tcp: the socket's send and
  // receive, as sockperf); this default posts and polls. Needs no other message of this
  // transport in flight. `wd` is told of every round trip.
  virtual Status ping_pong(int peer, bool initiator, const void* send, void* recv, size_t bytes, int count,
                           int64_t* stamps, bool ticks, Watchdog& wd) {
    std::vector<Completion> done;
    done.reserve(2);
    auto wait_for = [&](size_t n) -> Status {
      size_t got = 0;
      while (got < n) {
        done.clear();
        FABSCOPE_RETURN_IF_ERROR(poll(done, 100));
        got += done.size();
      }
      return Status::Ok();
    };
    if (stamps) stamps[0] = stamp_now(ticks);
    for (int i = 0; i < count; ++i) {
      auto r = post_recv(peer, recv, bytes);
      if (!r.ok()) return r.status();
      if (initiator) {
        auto s = post_send(peer, send, bytes);
        if (!s.ok()) return s.status();
        FABSCOPE_RETURN_IF_ERROR(wait_for(2));
        if (stamps) stamps[i + 1] = stamp_now(ticks);
      } else {
        FABSCOPE_RETURN_IF_ERROR(wait_for(1));
        auto s = post_send(peer, send, bytes);
        if (!s.ok()) return s.status();
        FABSCOPE_RETURN_IF_ERROR(wait_for(1));
      }
      wd.beat();
    }
    return Status::Ok();
  }
};

}  // namespace fabscope
