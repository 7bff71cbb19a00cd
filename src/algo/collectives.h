// fabscope's own collective algorithms, written once against Transport, so that
// fabscope knows which link every byte crossed: ring all-reduce (reduce-scatter then
// all-gather), ring all-gather and reduce-scatter, pairwise all-to-all, pipelined
// chain broadcast and reduce, direct gather and scatter, and ring send/recv. Each step
// is sliced, and a receive's reduction runs as soon as its slice arrives.
#pragma once

#include <cstddef>
#include <vector>

#include "algo/trace.h"
#include "algo/transport.h"
#include "coll/call.h"

namespace fabscope {

// Host scratch memory the algorithms borrow, grown on demand and kept across calls.
class Scratch {
 public:
  // `forget` is told of every buffer before it is freed (Transport::forget_memory).
  explicit Scratch(Transport* forget = nullptr) : forget_(forget) {}
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  char* get(size_t bytes, int which);  // `which` selects one of a few independent buffers

 private:
  Transport* forget_;
  std::vector<char> buffers_[3];
};

struct AlgoOptions {
  size_t slice_bytes = 512 * 1024;  // messages are cut into slices of at most this size
};

// What a Scratch holds at most after running `collectives` with buffers of
// `buffer_bytes`: the ring's landing area (all-reduce, reduce-scatter) or the chain's
// partial sums (reduce) in one buffer, the outgoing copy of an in-place all-to-all or
// send/recv in another. Scratch keeps its buffers between calls.
uint64_t algo_scratch_bytes(const std::vector<Collective>& collectives, uint64_t buffer_bytes);

// Runs `call` on host memory over `t` (blocking). When `trace` is given, every message
// of every step is recorded in it.
Status run_collective(const CollCall& call, Transport& t, Scratch& scratch, const AlgoOptions& options, Trace* trace);

}  // namespace fabscope
