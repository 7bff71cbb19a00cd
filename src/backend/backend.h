// The Backend interface: one implementation per way of moving bytes (mpi now; tcp,
// verbs and nccl later). A backend moves data and says where its buffers live;
// timing, verification and reporting are the sweep's, not the backend's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "coll/call.h"
#include "coll/collective.h"
#include "coll/pattern.h"
#include "core/dtype.h"
#include "core/status.h"

namespace fabscope {

// Where a backend's buffers live, and how fabscope fills and checks them there
// (on the host for host memory; on the device, without copies, for GPU memory).
class Memory {
 public:
  virtual ~Memory() = default;
  virtual std::string_view kind() const = 0;
  // Whether `bytes_per_rank` for each of `ranks_here` ranks on this node fits, checked
  // before allocating so that a too-large -e is an error, not an out-of-memory kill.
  virtual Status check_capacity(uint64_t bytes_per_rank, int ranks_here) const = 0;
  virtual Result<void*> allocate(size_t bytes) = 0;
  virtual void release(void* buffer) = 0;
  virtual Status fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) = 0;
  virtual Result<uint64_t> count_wrong(const void* buffer, const PatternSpec& spec,
                                       std::span<const Segment> segments) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // The library underneath and its version, for the report ("Open MPI v4.1.4").
  virtual std::string library() const = 0;
  virtual Memory& memory() = 0;
  // Largest element count one call accepts (MPI counts are int).
  virtual uint64_t max_count() const { return UINT64_MAX; }
  // Starts (or, for a blocking backend, performs) one collective.
  virtual Status run(const CollCall& call) = 0;
  // Waits until everything run() started has completed.
  virtual Status wait() = 0;
  // Element offset in the receive buffer where an in-place reduce-scatter or scatter
  // leaves this rank's result; nccl's convention unless the library differs.
  virtual size_t inplace_output_offset(Collective, int rank, const ElementCounts& counts) const {
    return static_cast<size_t>(rank) * counts.recv_inplace_offset;
  }
};

}  // namespace fabscope
