#include "backend/mpi/mpi_transport.h"

#include <fmt/format.h>
#include <climits>

#include "comm/mpi_check.h"
#include "core/clock.h"

namespace fabscope {

namespace {

class MpiTransport final : public Transport {
 public:
  MpiTransport(MPI_Comm comm, int rank, int size) : comm_(comm), rank_(rank), size_(size) {}
  ~MpiTransport() override {
    for (MPI_Request& r : requests_) {
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
      }
    }
    MPI_Comm_free(&comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string describe_peer(int peer) const override { return fmt::format("mpi rank {}", peer); }
  std::string library() const override {
    char buf[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(buf, &len);
    std::string s(buf, static_cast<size_t>(len));
    return s.substr(0, s.find_first_of("\r\n,"));
  }

  Result<uint64_t> post_send(int peer, const void* buf, size_t bytes) override {
    FABSCOPE_RETURN_IF_ERROR(check(peer, bytes));
    MPI_Request req;
    FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, peer, 0, comm_, &req)));
    return track(req, peer, bytes, true);
  }
  Result<uint64_t> post_recv(int peer, void* buf, size_t bytes) override {
    FABSCOPE_RETURN_IF_ERROR(check(peer, bytes));
    MPI_Request req;
    FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, peer, 0, comm_, &req)));
    return track(req, peer, bytes, false);
  }

  // osu_latency's loop: blocking MPI_Send and MPI_Recv, on this transport's own
  // communicator (tag 1, apart from post/poll's tag 0).
  Status ping_pong(int peer, bool initiator, const void* send, void* recv, size_t bytes, int count, int64_t* stamps,
                   bool ticks, Watchdog& wd) override {
    FABSCOPE_RETURN_IF_ERROR(check(peer, bytes));
    if (active_ != 0) return Status::Runtime("mpi: a latency loop started with messages in flight");
    const int n = static_cast<int>(bytes);
    constexpr int kTag = 1;
    if (stamps) stamps[0] = stamp_now(ticks);
    for (int i = 0; i < count; ++i) {
      if (initiator) {
        FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Send(send, n, MPI_BYTE, peer, kTag, comm_)));
        FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Recv(recv, n, MPI_BYTE, peer, kTag, comm_, MPI_STATUS_IGNORE)));
        if (stamps) stamps[i + 1] = stamp_now(ticks);
      } else {
        FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Recv(recv, n, MPI_BYTE, peer, kTag, comm_, MPI_STATUS_IGNORE)));
        FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Send(send, n, MPI_BYTE, peer, kTag, comm_)));
      }
      wd.beat();
    }
    return Status::Ok();
  }

  // No allocation and no clock read until a test finds nothing: the deadline is only
  // needed when waiting, the completion time only when something completed.
  Status poll(std::vector<Completion>& done, int timeout_ms) override {
    if (active_ == 0) return Status::Ok();
    if (indices_.size() < requests_.size()) {
      indices_.resize(requests_.size());
      statuses_.resize(requests_.size());
    }
    int* indices = indices_.data();
    MPI_Status* statuses = statuses_.data();
    int64_t deadline = 0;
    for (unsigned spin = 0;; ++spin) {
      int outcount = 0;
      FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(
          MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &outcount, indices, statuses)));
      if (outcount > 0 && outcount != MPI_UNDEFINED) {
        const int64_t now = steady_now_ns();
        for (int i = 0; i < outcount; ++i) {
          Op& op = ops_[static_cast<size_t>(indices[i])];
          if (!op.is_send) {
            int got = 0;
            MPI_Get_count(&statuses[i], MPI_BYTE, &got);
            if (static_cast<size_t>(got) != op.bytes) {
              return Status::Runtime(
                  fmt::format("mpi: rank {} sent {} bytes where rank {} expected {}", op.peer, got, rank_, op.bytes));
            }
          }
          done.push_back({op.id, op.peer, op.bytes, op.is_send, op.posted_ns, now});
          free_.push_back(static_cast<size_t>(indices[i]));
          --active_;
        }
        return Status::Ok();
      }
      if (spin % 64 != 0) continue;  // the clock every 64 empty tests
      const int64_t now = steady_now_ns();
      if (spin == 0) deadline = now + static_cast<int64_t>(timeout_ms) * 1000000;
      if (now >= deadline) return Status::Ok();
    }
  }

 private:
  struct Op {
    uint64_t id = 0;
    int peer = 0;
    size_t bytes = 0;
    bool is_send = false;
    int64_t posted_ns = 0;
  };

  Status check(int peer, size_t bytes) const {
    if (peer < 0 || peer >= size_ || peer == rank_) {
      return Status::Invalid(fmt::format("mpi: rank {} cannot exchange with rank {}", rank_, peer));
    }
    if (bytes > static_cast<size_t>(INT_MAX)) {
      return Status::Invalid(fmt::format("mpi: a {}-byte message exceeds MPI's int count", bytes));
    }
    return Status::Ok();
  }

  uint64_t track(MPI_Request req, int peer, size_t bytes, bool is_send) {
    size_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = requests_.size();
      requests_.push_back(MPI_REQUEST_NULL);
      ops_.emplace_back();
    }
    requests_[slot] = req;
    ops_[slot] = {next_id_++, peer, bytes, is_send, steady_now_ns()};
    ++active_;
    return ops_[slot].id;
  }

  MPI_Comm comm_;
  int rank_;
  int size_;
  std::vector<MPI_Request> requests_;
  std::vector<Op> ops_;
  std::vector<size_t> free_;
  std::vector<int> indices_;  // MPI_Testsome's outputs, kept between polls
  std::vector<MPI_Status> statuses_;
  size_t active_ = 0;
  uint64_t next_id_ = 1;
};

}  // namespace

Result<std::unique_ptr<Transport>> create_mpi_transport(const RankContext& ctx) {
  MPI_Comm comm;
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Comm_dup(ctx.comm(), &comm)));
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  return std::unique_ptr<Transport>(new MpiTransport(comm, ctx.rank(), ctx.size()));
}

}  // namespace fabscope
