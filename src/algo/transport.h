// The Transport interface fabscope's own algorithms are written against: post a
// send or a receive of a whole message to one peer, then poll for completions.
// Messages between two ranks complete in the order they were posted, per direction.
// tcp implements it over sockets; verbs over RC queue pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

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
};

}  // namespace fabscope
