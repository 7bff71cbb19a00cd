#include "backend/mpi/mpi_backend.h"

#include <fmt/format.h>
#include <climits>
#include <cstring>

#include "backend/host_memory.h"
#include "backend/mpi/mpi_types.h"
#include "comm/mpi_check.h"

namespace fabscope {

namespace {

std::string library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, static_cast<size_t>(len));
  size_t cut = s.find_first_of("\r\n,");
  if (cut != std::string::npos) s.resize(cut);
  return s;
}

class MpiBackend final : public Backend {
 public:
  MpiBackend(MPI_Comm comm, int rank, int size, MpiTypes types)
      : comm_(comm), rank_(rank), size_(size), types_(std::move(types)) {}

  std::string_view name() const override { return "mpi"; }
  std::string library() const override { return library_version(); }
  Memory& memory() override { return memory_; }
  uint64_t max_count() const override { return static_cast<uint64_t>(INT_MAX); }
  Status wait() override { return Status::Ok(); }  // every call below is blocking
  Status prepare(const CollCall& c) override {
    // An out-of-place broadcast leaves the data in the root's receive buffer too (nccl's
    // semantics, which the sweep checks): copied once here, not timed in every call.
    if (c.coll == Collective::kBroadcast && !c.in_place && rank_ == c.root && c.count > 0) {
      std::memcpy(c.recv, c.send, c.count * element_size(c.dtype));
    }
    return Status::Ok();
  }
  // Open MPI's temporaries, freed after each call: a whole buffer for reduce-scatter,
  // reduce at the root and in-place send/recv (MPI_Sendrecv_replace), half of one for
  // ring all-reduce and in-place all-to-all, part of one for all-gather at 3 ranks
  // (Bruck), measured at 32 and 256 MiB with Open MPI 4.1. Its choice of algorithm
  // changes with sizes and ranks, so one buffer is allowed for any collective.
  uint64_t working_bytes(const std::vector<Collective>& collectives, uint64_t buffer_bytes) const override {
    return collectives.empty() ? 0 : buffer_bytes;
  }

  size_t inplace_output_offset(Collective c, int rank, const ElementCounts& counts) const override {
    // MPI_Reduce_scatter_block with MPI_IN_PLACE leaves the result at the start of the buffer.
    if (c == Collective::kReduceScatter) return 0;
    return Backend::inplace_output_offset(c, rank, counts);
  }

  Status run(const CollCall& c) override {
    if (c.count > static_cast<size_t>(INT_MAX)) {
      return Status::Invalid(
          fmt::format("{} elements exceed the mpi backend's limit of {} per call", c.count, INT_MAX));
    }
    const int n = static_cast<int>(c.count);
    const MPI_Datatype dt = types_.datatype(c.dtype);
    const MPI_Op op = c.op ? types_.op(c.dtype, *c.op) : MPI_OP_NULL;
    const bool avg = c.op == ReduceOp::kAvg;
    const bool is_root = rank_ == c.root;
    const void* in = c.in_place ? MPI_IN_PLACE : c.send;
    switch (c.coll) {
      case Collective::kAllReduce:
        FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Allreduce(in, c.recv, n, dt, op, comm_)));
        if (avg) host_divide(c.recv, c.count, c.dtype, size_);
        return Status::Ok();
      case Collective::kAllGather:
        return FABSCOPE_MPI(MPI_Allgather(in, n, dt, c.recv, n, dt, comm_));
      case Collective::kReduceScatter: {
        // In place, MPI reads the whole input from, and writes the result to the start of, the receive buffer.
        void* out = c.in_place ? const_cast<void*>(c.send) : c.recv;
        FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Reduce_scatter_block(in, out, n, dt, op, comm_)));
        if (avg) host_divide(out, c.count, c.dtype, size_);
        return Status::Ok();
      }
      case Collective::kAllToAll:
        return FABSCOPE_MPI(MPI_Alltoall(in, n, dt, c.recv, n, dt, comm_));
      case Collective::kBroadcast:
        // Out of place, the root sends from its send buffer; its receive buffer got the
        // data once, in prepare() (MPI_Bcast has one buffer; nccl's has two).
        return FABSCOPE_MPI(
            MPI_Bcast(!c.in_place && is_root ? const_cast<void*>(c.send) : c.recv, n, dt, c.root, comm_));
      case Collective::kReduce: {
        const void* src = c.in_place ? (is_root ? MPI_IN_PLACE : c.recv) : c.send;
        FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Reduce(src, c.recv, n, dt, op, c.root, comm_)));
        if (avg && is_root) host_divide(c.recv, c.count, c.dtype, size_);
        return Status::Ok();
      }
      case Collective::kGather: {
        const void* src = c.in_place && is_root ? MPI_IN_PLACE : c.send;
        return FABSCOPE_MPI(MPI_Gather(src, n, dt, c.recv, n, dt, c.root, comm_));
      }
      case Collective::kScatter: {
        void* dst = c.in_place && is_root ? MPI_IN_PLACE : c.recv;
        return FABSCOPE_MPI(MPI_Scatter(c.send, n, dt, dst, n, dt, c.root, comm_));
      }
      case Collective::kSendRecv: {
        const int next = (rank_ + 1) % size_;
        const int prev = (rank_ + size_ - 1) % size_;
        constexpr int kTag = 17;
        if (c.in_place) {
          return FABSCOPE_MPI(MPI_Sendrecv_replace(c.recv, n, dt, next, kTag, prev, kTag, comm_, MPI_STATUS_IGNORE));
        }
        return FABSCOPE_MPI(
            MPI_Sendrecv(c.send, n, dt, next, kTag, c.recv, n, dt, prev, kTag, comm_, MPI_STATUS_IGNORE));
      }
    }
    return Status::Invalid("unknown collective");
  }

 private:
  MPI_Comm comm_;
  int rank_;
  int size_;
  MpiTypes types_;
  HostMemory memory_;
};

}  // namespace

Availability probe_mpi_backend() {
  Availability a;
  a.compiled = true;
  a.usable = true;
  a.detail = library_version();
  return a;
}

Result<std::unique_ptr<Backend>> create_mpi_backend(const RankContext& ctx) {
  auto types = MpiTypes::create();
  if (!types.ok()) return types.status();
  return std::unique_ptr<Backend>(new MpiBackend(ctx.comm(), ctx.rank(), ctx.size(), std::move(*types)));
}

}  // namespace fabscope
