// The nccl p2p transport: fabscope's point-to-point messages as ncclSend/ncclRecv
// between GPU buffers, on the communicator of nccl_comm.h.
#include "backend/nccl/nccl_backend.h"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <deque>

#include "backend/nccl/nccl_comm.h"
#include "backend/nccl/nccl_device.h"
#include "backend/nccl/nccl_util.h"
#include "core/clock.h"
#include "core/idle_wait.h"

namespace fabscope {

namespace {

// p2p over ncclSend/ncclRecv. Posted messages are issued together, as one NCCL group,
// when poll() is next called (NCCL needs a rank's sends and receives in one group to
// progress them together); a group's messages complete when its event does.
class NcclTransport final : public Transport {
 public:
  NcclTransport(std::unique_ptr<NcclComm> comm, std::vector<std::string> hosts)
      : comm_(std::move(comm)), memory_(*comm_), hosts_(std::move(hosts)) {}
  ~NcclTransport() override {
    for (auto& b : in_flight_) cudaEventDestroy(b.event);
    for (cudaEvent_t e : spare_) cudaEventDestroy(e);
  }

  int rank() const override { return comm_->rank(); }
  int size() const override { return comm_->size(); }
  Memory* memory() override { return &memory_; }
  std::string library() const override { return comm_->library(); }
  std::string describe_peer(int peer) const override {
    const std::string host = peer >= 0 && static_cast<size_t>(peer) < hosts_.size() ? hosts_[peer] : "?";
    return fmt::format("nccl rank {} ({})", peer, host);
  }

  Result<uint64_t> post_send(int peer, const void* buf, size_t bytes) override {
    return post(true, peer, const_cast<void*>(buf), bytes);
  }
  Result<uint64_t> post_recv(int peer, void* buf, size_t bytes) override { return post(false, peer, buf, bytes); }

  // Completed batches, as they complete; yields the core while none does (NCCL's proxy
  // thread may share it). No clock read while batches complete: one per completed batch
  // (its completion time), and the poll's start only at its first check.
  Status poll(std::vector<Completion>& done, int timeout_ms) override {
    if (!pending_.empty()) FABSCOPE_RETURN_IF_ERROR(flush());
    double start = -1;
    const size_t before = done.size();
    return wait_yielding(
        [&]() -> Result<bool> {
          FABSCOPE_RETURN_IF_ERROR(take_completed(done));
          return done.size() > before || in_flight_.empty();
        },
        [&]() -> Result<bool> {
          FABSCOPE_RETURN_IF_ERROR(comm_->async_error([] { return std::string("NCCL p2p"); }));
          const double now = steady_now_s();
          if (start < 0) start = now;
          if (comm_->timeout_s() > 0 && now - last_progress_s_ > comm_->timeout_s()) {
            return comm_->abort_with(fmt::format(
                "NCCL p2p on {}: {} messages made no progress for {} s (--timeout); the NCCL communicator was aborted",
                comm_->where(), in_flight_.front().ops.size(), comm_->timeout_s()));
          }
          return (now - start) * 1e3 >= timeout_ms;
        });
  }

 private:
  struct Batch {
    cudaEvent_t event = nullptr;
    std::vector<Completion> ops;
  };
  struct Pending {
    Completion c;
    void* buf = nullptr;
  };

  // Moves the batches whose events have fired, in order, to `done`.
  Status take_completed(std::vector<Completion>& done) {
    while (!in_flight_.empty()) {
      cudaError_t e = cudaEventQuery(in_flight_.front().event);
      if (e == cudaErrorNotReady) return Status::Ok();
      if (e != cudaSuccess)
        return comm_->abort_with(fmt::format("NCCL p2p on {}: CUDA error {}", comm_->where(), cuda_text(e)));
      const int64_t now = steady_now_ns();
      Batch& b = in_flight_.front();
      for (Completion& c : b.ops) {
        c.completed_ns = now;
        done.push_back(c);
      }
      spare_.push_back(b.event);
      b.ops.clear();
      spare_ops_.push_back(std::move(b.ops));  // its storage serves a later batch
      in_flight_.pop_front();
      last_progress_s_ = static_cast<double>(now) * 1e-9;
    }
    return Status::Ok();
  }

  Result<uint64_t> post(bool send, int peer, void* buf, size_t bytes) {
    if (peer < 0 || peer >= size() || peer == rank()) {
      return Status::Invalid(fmt::format("peer {} is not another rank of this job (0 to {})", peer, size() - 1));
    }
    Pending p;
    p.c.id = next_id_++;
    p.c.peer = peer;
    p.c.bytes = bytes;
    p.c.is_send = send;
    p.c.posted_ns = steady_now_ns();
    p.buf = buf;
    pending_.push_back(p);
    return p.c.id;
  }

  Status flush() {
    ncclComm_t comm = comm_->comm();
    cudaStream_t stream = comm_->stream();
    FABSCOPE_RETURN_IF_ERROR(comm_->check(ncclGroupStart(), "ncclGroupStart"));
    for (const Pending& p : pending_) {
      ncclResult_t r = p.c.is_send ? ncclSend(p.buf, p.c.bytes, ncclUint8, p.c.peer, comm, stream)
                                   : ncclRecv(p.buf, p.c.bytes, ncclUint8, p.c.peer, comm, stream);
      if (r != ncclSuccess) {
        Status s = comm_->check(r, p.c.is_send ? "ncclSend" : "ncclRecv");
        (void)ncclGroupEnd();
        return s;
      }
    }
    FABSCOPE_RETURN_IF_ERROR(comm_->check(ncclGroupEnd(), "ncclGroupEnd of p2p messages"));
    Batch b;
    if (!spare_.empty()) {
      b.event = spare_.back();
      spare_.pop_back();
    } else {
      FABSCOPE_RETURN_IF_ERROR(
          cuda_check(cudaEventCreateWithFlags(&b.event, cudaEventDisableTiming), "cudaEventCreateWithFlags"));
    }
    FABSCOPE_RETURN_IF_ERROR(cuda_check(cudaEventRecord(b.event, stream), "cudaEventRecord"));
    if (!spare_ops_.empty()) {
      b.ops = std::move(spare_ops_.back());
      spare_ops_.pop_back();
    }
    for (const Pending& p : pending_) b.ops.push_back(p.c);
    pending_.clear();
    if (in_flight_.empty()) last_progress_s_ = steady_now_s();
    in_flight_.push_back(std::move(b));
    return Status::Ok();
  }

  std::unique_ptr<NcclComm> comm_;
  GpuMemory memory_;
  std::vector<std::string> hosts_;
  std::vector<Pending> pending_;
  std::deque<Batch> in_flight_;
  std::vector<cudaEvent_t> spare_;
  std::vector<std::vector<Completion>> spare_ops_;  // emptied batches' op lists, kept for reuse
  uint64_t next_id_ = 1;
  double last_progress_s_ = 0;
};

}  // namespace

Result<std::unique_ptr<Transport>> create_nccl_transport(const RankContext& ctx, const BackendOptions& options,
                                                         const Logger& log) {
  auto comm = NcclComm::create(ctx, options, log);
  if (!comm.ok()) return comm.status();
  std::vector<std::string> hosts;
  for (const RankInfo& r : ctx.ranks()) hosts.push_back(r.host);
  return std::unique_ptr<Transport>(new NcclTransport(std::move(*comm), std::move(hosts)));
}

}  // namespace fabscope
