// One step of an algorithm: post its sends and receives, then wait for all of them,
// running a receive's callback (e.g. reduce the slice that arrived) as soon as it
// completes, while the other messages are still in flight.
#pragma once

#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "algo/trace.h"
#include "algo/transport.h"

namespace fabscope {

class Exchange {
 public:
  Exchange(Transport& transport, Trace* trace, int step) : t_(transport), trace_(trace), step_(step) {}
  // `step` labels the message in the trace; by default, the exchange's own step.
  Status send(int peer, const void* buf, size_t bytes, int step = -1);
  Status recv(int peer, void* buf, size_t bytes, std::function<void()> on_done = {}, int step = -1);
  // Waits for every posted message; a callback may post more (pipelining).
  Status wait();

 private:
  Transport& t_;
  Trace* trace_;
  int step_;
  size_t pending_ = 0;
  std::unordered_map<uint64_t, std::function<void()>> callbacks_;
  std::unordered_map<uint64_t, int> steps_;  // messages labelled with another step
  std::unordered_set<uint64_t> posted_;      // completions of other exchanges are not ours
  std::vector<Completion> done_;
};

}  // namespace fabscope
