// The Backend interface: one implementation per way of moving bytes (nccl, verbs, tcp,
// mpi; listed in backend/registry.cpp). A backend moves data and says where its buffers live;
// timing, verification and reporting are the sweep's, not the backend's.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>

#include "coll/call.h"
#include "coll/collective.h"
#include "coll/pattern.h"
#include "core/dtype.h"
#include "core/iteration_timer.h"
#include "core/status.h"
#include "core/tcp_idle_restarts.h"

namespace fabscope {

struct Trace;

// Where a backend's buffers live, and how fabscope fills and checks them there
// (on the host for host memory; on the device, without copies, for GPU memory).
class Memory {
 public:
  virtual ~Memory() = default;
  virtual std::string_view kind() const = 0;
  // Whether `bytes_per_rank` for each of `ranks_here` ranks on this node fits, checked
  // before allocating so that a too-large -e is an error, not an out-of-memory kill. The
  // error's message completes "X needs ...": what is needed, and what there is.
  virtual Status check_capacity(uint64_t bytes_per_rank, int ranks_here) const = 0;
  virtual Result<void*> allocate(size_t bytes) = 0;
  virtual void release(void* buffer) = 0;
  virtual Status fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments) = 0;
  virtual Result<uint64_t> count_wrong(const void* buffer, const PatternSpec& spec,
                                       std::span<const Segment> segments) = 0;
};

// Markers a backend records on its device's queue (CUDA events), and the device time
// between two of them, read after wait(): per-iteration times of work that the host
// only enqueues.
class IterationClock {
 public:
  virtual ~IterationClock() = default;
  virtual IterationTimer kind() const = 0;  // for the report: IterationTimer::kCudaEvent
  // Makes room for markers 0 .. count-1 (earlier markers are forgotten).
  virtual Status reset(size_t count) = 0;
  virtual Status mark(size_t index) = 0;
  virtual Result<double> elapsed_us(size_t from, size_t to) = 0;
};

// A sequence of calls captured once and replayed as one unit (a CUDA graph).
class CapturedWork {
 public:
  virtual ~CapturedWork() = default;
  // Enqueues one replay; completion is awaited with Backend::wait().
  virtual Status launch() = 0;
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
  // Called once after the sweep has filled a placement's buffers (the call at buffer
  // offset 0), before its timed and checked calls: work a backend would otherwise repeat
  // in every call without being part of the collective (mpi: the root's copy of an
  // out-of-place broadcast) is done here, outside the timed region.
  virtual Status prepare(const CollCall& /*call*/) { return Status::Ok(); }
  // Element offset in the receive buffer where an in-place reduce-scatter or scatter
  // leaves this rank's result; nccl's convention unless the library differs.
  virtual size_t inplace_output_offset(Collective, int rank, const ElementCounts& counts) const {
    return static_cast<size_t>(rank) * counts.recv_inplace_offset;
  }
  // The library API a collective is issued as, for the report ("ncclAlltoAll",
  // "ncclSend/ncclRecv (grouped)"); "" where the backend does not say.
  virtual std::string api(Collective /*coll*/) const { return {}; }
  // Whether an in-place call of `coll` gives a defined result. nccl's all-to-all
  // (ncclAlltoAll, or grouped send/recv before NCCL 2.28) and sendrecv on one buffer
  // race: nccl-tests times them in place but reports no errors, and so does the sweep
  // (#wrong N/A).
  virtual bool in_place_checkable(Collective) const { return true; }
  // A device clock when run() only enqueues work; none (host timing) otherwise.
  // Records every message of the calls that follow into `trace` (nullptr stops): true
  // where the backend runs fabscope's own algorithms (tcp, verbs), false elsewhere.
  virtual bool set_trace(Trace* /*trace*/) { return false; }
  virtual IterationClock* iteration_clock() { return nullptr; }
  // Over TCP (fabscope's engine on the tcp transport): what the kernel's idle restart did
  // to this rank's sends; null for the other backends.
  virtual std::optional<TcpIdleRestarts> tcp_idle_restarts() const { return std::nullopt; }
  // Whether capture() works: the calls `enqueue` makes become one replayable unit.
  virtual bool can_capture() const { return false; }
  virtual Result<std::unique_ptr<CapturedWork>> capture(const std::function<Status()>& /*enqueue*/) {
    return Status::Unavailable("backend '" + std::string(name()) + "' cannot capture its calls into a CUDA graph");
  }
  // Makes this rank late by `microseconds`, in line with its calls (a straggler on
  // purpose): on the device's queue for nccl, the host sleeping for the others.
  virtual Status inject_delay(uint64_t microseconds) {
    std::this_thread::sleep_for(std::chrono::microseconds(microseconds));
    return Status::Ok();
  }
  // Host memory a rank's calls of `collectives` use beyond the send and receive buffers,
  // at most, when those are `buffer_bytes` each: the engine's scratch, the MPI library's
  // temporaries. Part of the sweep's memory estimate (a test holds peak RSS to it).
  virtual uint64_t working_bytes(const std::vector<Collective>& /*collectives*/, uint64_t /*buffer_bytes*/) const {
    return 0;
  }
  // Seconds the sweep's watchdog waits beyond --timeout, so that a backend which
  // enforces the timeout itself (and aborts its communicator) can do so and say why.
  virtual double watchdog_grace_s() const { return 0; }
};

}  // namespace fabscope
