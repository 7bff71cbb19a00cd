// The nccl backend: each collective as its NCCL call (or a group of ncclSend/ncclRecv
// where the NCCL loaded has no call of its own, nccl_plan.h) on the communicator of
// nccl_comm.h, with GPU memory and CUDA event timing (nccl_device.h); and the probe that
// says whether NCCL can run here.
#include "backend/nccl/nccl_backend.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <nccl.h>
#include <optional>

#include "backend/nccl/nccl_comm.h"
#include "backend/nccl/nccl_device.h"
#include "backend/nccl/nccl_plan.h"
#include "backend/nccl/nccl_util.h"
#include "kernels/device_pattern.h"

// NCCL 2.28's all-to-all, gather and scatter, weak as nccl-tests declares them: null
// where the NCCL loaded at run time is older and lacks them.
#pragma weak ncclAlltoAll
#pragma weak ncclGather
#pragma weak ncclScatter

namespace fabscope {

namespace {

// Whether the NCCL loaded has its own all-to-all, gather and scatter: its version at
// run time, and the symbols themselves.
bool nccl_native_alltoall_gather_scatter() {
  return nccl_has_alltoall_gather_scatter(nccl_version_code()) && &ncclAlltoAll != nullptr && &ncclGather != nullptr &&
         &ncclScatter != nullptr;
}

class NcclBackend final : public Backend {
 public:
  explicit NcclBackend(std::unique_ptr<NcclComm> comm)
      : comm_(std::move(comm)),
        memory_(*comm_),
        clock_(comm_->stream()),
        native_(nccl_native_alltoall_gather_scatter()) {}
  ~NcclBackend() override = default;

  std::string_view name() const override { return "nccl"; }
  std::string library() const override { return comm_->library(); }
  Memory& memory() override { return memory_; }
  IterationClock* iteration_clock() override { return &clock_; }
  bool can_capture() const override { return true; }
  Result<std::unique_ptr<CapturedWork>> capture(const std::function<Status()>& enqueue) override {
    return comm_->capture(enqueue);
  }
  double watchdog_grace_s() const override { return kNcclHostGraceS; }
  Status inject_delay(uint64_t microseconds) override { return kernels::device_delay(microseconds, comm_->stream()); }
  std::string api(Collective c) const override {
    return std::string(nccl_api_name(plan_nccl_call(c, comm_->rank(), comm_->size(), 0, 0, native_).call));
  }
  bool in_place_checkable(Collective c) const override {
    return c != Collective::kAllToAll && c != Collective::kSendRecv;
  }

  Status run(const CollCall& c) override {
    last_ = c;
    ncclComm_t comm = comm_->comm();
    cudaStream_t stream = comm_->stream();
    const ncclDataType_t type = nccl_type(c.dtype);
    const ncclRedOp_t op = c.op ? nccl_op(*c.op) : ncclSum;
    // The plan depends only on the call's shape: made when that changes, not every
    // iteration (a grouped call's plan is a vector).
    if (!plan_ || plan_key_.coll != c.coll || plan_key_.root != c.root || plan_key_.count != c.count) {
      plan_ = plan_nccl_call(c.coll, comm_->rank(), comm_->size(), c.root, c.count, native_);
      plan_key_ = c;
    }
    const NcclPlan& plan = *plan_;
    switch (plan.call) {
      case NcclCall::kAllReduce:
        return comm_->check(ncclAllReduce(c.send, c.recv, c.count, type, op, comm, stream), "ncclAllReduce");
      case NcclCall::kAllGather:
        return comm_->check(ncclAllGather(c.send, c.recv, c.count, type, comm, stream), "ncclAllGather");
      case NcclCall::kReduceScatter:
        return comm_->check(ncclReduceScatter(c.send, c.recv, c.count, type, op, comm, stream), "ncclReduceScatter");
      case NcclCall::kBroadcast:
        return comm_->check(ncclBroadcast(c.send, c.recv, c.count, type, c.root, comm, stream), "ncclBroadcast");
      case NcclCall::kReduce:
        return comm_->check(ncclReduce(c.send, c.recv, c.count, type, op, c.root, comm, stream), "ncclReduce");
      case NcclCall::kAllToAll:
        return comm_->check(ncclAlltoAll(c.send, c.recv, c.count, type, comm, stream), "ncclAlltoAll");
      case NcclCall::kGather:
        return comm_->check(ncclGather(c.send, c.recv, c.count, type, c.root, comm, stream), "ncclGather");
      case NcclCall::kScatter:
        return comm_->check(ncclScatter(c.send, c.recv, c.count, type, c.root, comm, stream), "ncclScatter");
      case NcclCall::kGroupedSendRecv:
        break;
    }
    const size_t es = element_size(c.dtype);
    FABSCOPE_RETURN_IF_ERROR(comm_->check(ncclGroupStart(), "ncclGroupStart"));
    for (const PeerOp& p : plan.ops) {
      ncclResult_t r =
          p.send ? ncclSend(static_cast<const char*>(c.send) + p.offset * es, p.count, type, p.peer, comm, stream)
                 : ncclRecv(static_cast<char*>(c.recv) + p.offset * es, p.count, type, p.peer, comm, stream);
      if (r != ncclSuccess) {
        Status s = comm_->check(r, p.send ? "ncclSend" : "ncclRecv");
        (void)ncclGroupEnd();
        return s;
      }
    }
    const ncclResult_t end = ncclGroupEnd();
    if (end == ncclSuccess) return Status::Ok();  // no formatting on the timed path
    return comm_->check(end, fmt::format("ncclGroupEnd of {}", fabscope::name(c.coll)));
  }

  Status wait() override {
    return comm_->wait([this] { return fmt::format("NCCL {}", describe_call(last_, comm_->size())); });
  }

 private:
  std::unique_ptr<NcclComm> comm_;
  GpuMemory memory_;
  CudaEventClock clock_;
  CollCall last_;
  std::optional<NcclPlan> plan_;
  CollCall plan_key_;  // the call plan_ was made for (its collective, root and count)
  bool native_;        // NCCL's own all-to-all, gather and scatter (2.28 and later)
};

}  // namespace

Availability probe_nccl_backend() {
  Availability a;
  a.compiled = true;
  const std::string version = nccl_version_string(nccl_version_code());
  auto count = kernels::device_count();
  if (!count.ok()) {
    a.detail = fmt::format("NCCL {} is built in, but {}", version, count.status().message());
    return a;
  }
  a.usable = true;
  a.detail = fmt::format("NCCL {}, {} CUDA GPU{} visible", version, *count, *count == 1 ? "" : "s");
  return a;
}

Result<std::unique_ptr<Backend>> create_nccl_backend(const RankContext& ctx, const BackendOptions& options,
                                                     const Logger& log) {
  auto comm = NcclComm::create(ctx, options, log);
  if (!comm.ok()) return comm.status();
  return std::unique_ptr<Backend>(new NcclBackend(std::move(*comm)));
}

}  // namespace fabscope
