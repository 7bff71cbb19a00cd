// fabscope's own collective algorithms, written once against Transport, so that
// fabscope knows which link every byte crossed: ring all-reduce (reduce-scatter then
// all-gather), ring all-gather and reduce-scatter, pairwise all-to-all, pipelined
// chain broadcast and reduce, direct gather and scatter, and ring send/recv. Each step
// is sliced, and a receive's reduction runs as soon as its slice arrives.
#pragma once

#include <cstddef>
#include <vector>

#include "algo/exchange.h"
#include "algo/trace.h"
#include "algo/transport.h"
#include "coll/call.h"

namespace fabscope {

// The all-to-all rounds' flags (collectives.cpp), indexed by round s in 1..n-1.
struct RoundFlags {
  std::vector<char> granted;        // [s]: peer(s) granted round s
  std::vector<char> granting;       // [s]: token for round s to peer(-s): 1 due, 2 sent
  std::vector<char> sent_round;     // [s]: round s's data posted
  std::vector<size_t> sent_slices;  // [s]: slices of round s the transport has taken
  // All cleared for `size` entries; no allocation once they have held that many.
  void reset(size_t size);
};

// What the algorithms keep between calls, so that a call in a timed loop allocates
// nothing once warm: host buffers grown on demand, the all-to-all rounds' flags, and the
// storage of finished exchanges' message lists. The backend owns one and lends it to
// every call (run_collective); one call at a time.
class Scratch {
 public:
  // The host buffers, each kept at the largest size asked of it.
  enum class Slot {
    kIncoming,  // data that arrives to be reduced: the ring's landing area (all-reduce,
                // reduce-scatter), the chain's partial sums (reduce)
    kOutgoing,  // the data to send, copied aside when an in-place all-to-all or
                // send/recv would overwrite it with what arrives
    kCount,
  };

  // `forget` is told of every buffer before it is freed (Transport::forget_memory).
  explicit Scratch(Transport* forget = nullptr) : forget_(forget) {}
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  char* get(size_t bytes, Slot slot);  // the buffer of `slot`, grown to at least `bytes`
  RoundFlags& round_flags() { return round_flags_; }
  ExchangeLists* exchange_lists() { return &exchange_lists_; }

 private:
  Transport* forget_;
  std::vector<char> buffers_[static_cast<size_t>(Slot::kCount)];
  RoundFlags round_flags_;
  ExchangeLists exchange_lists_;
};

struct AlgoOptions {
  size_t slice_bytes = 512 * 1024;  // messages are cut into slices of at most this size
};

// What a Scratch's host buffers hold at most after running `collectives` with buffers
// of `buffer_bytes`: the ring's landing area (all-reduce, reduce-scatter) or the chain's
// partial sums (reduce) in Slot::kIncoming, the outgoing copy of an in-place all-to-all
// or send/recv in Slot::kOutgoing. Scratch keeps its buffers between calls.
uint64_t algo_scratch_bytes(const std::vector<Collective>& collectives, uint64_t buffer_bytes);

// Runs `call` on host memory over `t` (blocking). When `trace` is given, every message
// of every step is recorded in it.
Status run_collective(const CollCall& call, Transport& t, Scratch& scratch, const AlgoOptions& options, Trace* trace);

}  // namespace fabscope
