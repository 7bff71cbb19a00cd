// What each algorithm step moved, per rank: the ground truth for attributing time to
// links. One record per message: step, peer, bytes, direction, posted and completed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fabscope {

struct StepRecord {
  int step = 0;
  int peer = 0;
  size_t bytes = 0;
  bool is_send = false;
  int64_t posted_ns = 0;
  int64_t completed_ns = 0;
};

struct Trace {
  std::vector<StepRecord> records;
  void clear() { records.clear(); }
};

}  // namespace fabscope
