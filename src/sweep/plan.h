// A sweep plan as the layers that run it see it (sweep/measure.h, src/soak): the
// options, the sizes, and the buffers for the largest point, owned for the whole run.
// Commands hold it opaque (sweep/sweep.h: plan_sweeps).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "backend/backend.h"
#include "comm/context.h"
#include "sweep/sweep.h"

namespace fabscope {

// Buffers sized for the largest point, owned for the whole run.
class Buffers {
 public:
  explicit Buffers(Memory& mem) : mem_(mem) {}
  ~Buffers() {
    if (send_) mem_.release(send_);
    if (recv_) mem_.release(recv_);
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  Status allocate(size_t bytes) {
    auto s = mem_.allocate(bytes);
    if (!s.ok()) return s.status();
    send_ = static_cast<char*>(*s);
    auto r = mem_.allocate(bytes);
    if (!r.ok()) return r.status();
    recv_ = static_cast<char*>(*r);
    bytes_ = bytes;
    return Status::Ok();
  }
  char* send() const { return send_; }
  char* recv() const { return recv_; }
  size_t bytes() const { return bytes_; }

 private:
  Memory& mem_;
  char* send_ = nullptr;
  char* recv_ = nullptr;
  size_t bytes_ = 0;
};

class SweepPlan {
 public:
  SweepPlan(const RankContext& context, Backend& be, const SweepOptions& o)
      : ctx(context), backend(be), options(o), sizes(expand(o.sizes)), buffers(be.memory()) {}
  const RankContext& ctx;
  Backend& backend;
  SweepOptions options;
  std::vector<uint64_t> sizes;
  Buffers buffers;
  uint64_t memory_estimate_bytes = 0;
};

// One (collective, data type, operator) sweep of a plan; `op` only for a reducing collective.
struct SweepKey {
  Collective coll;
  DataType dtype;
  std::optional<ReduceOp> op;
};
// The plan's sweeps in the order they run: by collective, then data type, then operator.
std::vector<SweepKey> sweep_keys(const SweepOptions& options);

}  // namespace fabscope
