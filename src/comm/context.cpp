#include "comm/context.h"

#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <map>

#include <climits>
#include <cstring>

#include "comm/heartbeat.h"
#include "comm/mpi_check.h"

namespace fabscope {

std::string mpi_error_string(int code) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, buf, &len) != MPI_SUCCESS) return fmt::format("MPI error {}", code);
  return std::string(buf, static_cast<size_t>(len));
}

Status mpi_status(int code, const char* call, const char* file, int line) {
  if (code == MPI_SUCCESS) return Status::Ok();
  const char* base = std::strrchr(file, '/');
  return Status::Runtime(
      fmt::format("{} failed: {} ({}:{})", call, mpi_error_string(code), base ? base + 1 : file, line));
}

std::string_view name(RankReduction r) {
  switch (r) {
    case RankReduction::kRank0:
      return "rank0";
    case RankReduction::kMean:
      return "mean";
    case RankReduction::kMin:
      return "min";
    case RankReduction::kMax:
      return "max";
  }
  return "?";
}

void distinguish_shared_host_names(std::vector<RankInfo>& ranks) {
  std::map<std::string, std::vector<int>> nodes_of;  // host name -> its nodes, in order of first rank
  for (const RankInfo& r : ranks) {
    auto& nodes = nodes_of[r.host];
    if (std::find(nodes.begin(), nodes.end(), r.node) == nodes.end()) nodes.push_back(r.node);
  }
  for (RankInfo& r : ranks) {
    const auto& nodes = nodes_of[r.host];
    if (nodes.size() < 2) continue;
    const auto at = std::find(nodes.begin(), nodes.end(), r.node) - nodes.begin();
    r.host = fmt::format("{}#{}", r.host, at);
  }
}

Result<std::unique_ptr<RankContext>> RankContext::create(int* argc, char*** argv) {
  std::unique_ptr<RankContext> ctx(new RankContext());
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    int provided = 0;
    // MPI_THREAD_SINGLE, as nccl-tests and OSU (MPI_Init): fabscope's other threads
    // (watchdog, heartbeat, stall monitor) never call MPI, and Open MPI 4.1 takes a lock
    // on every message at any higher level (an 8-byte allreduce between 2 ranks over
    // shared memory: 0.57 us at SINGLE, 0.75 us at FUNNELED on the development machine).
    int rc = MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
    if (rc != MPI_SUCCESS) return Status::Runtime(fmt::format("MPI_Init_thread failed: {}", mpi_error_string(rc)));
    ctx->initialized_here_ = true;
  }
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ctx->world_)));
  MPI_Comm_set_errhandler(ctx->world_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(ctx->world_, &ctx->rank_);
  MPI_Comm_size(ctx->world_, &ctx->size_);

  char host[HOST_NAME_MAX + 1] = {};
  gethostname(host, sizeof(host) - 1);
  ctx->host_ = host;

  MPI_Comm node = MPI_COMM_NULL;
  FABSCOPE_RETURN_IF_ERROR(
      FABSCOPE_MPI(MPI_Comm_split_type(ctx->world_, MPI_COMM_TYPE_SHARED, ctx->rank_, MPI_INFO_NULL, &node)));
  MPI_Comm_rank(node, &ctx->local_rank_);
  MPI_Comm_size(node, &ctx->local_size_);
  // The node: the world rank of its first rank, as the shared-memory split (what the MPI
  // library knows) groups them; host names alone are not enough (cloned images).
  int leader = ctx->rank_;
  Status bcast = FABSCOPE_MPI(MPI_Bcast(&leader, 1, MPI_INT, 0, node));
  MPI_Comm_free(&node);
  FABSCOPE_RETURN_IF_ERROR(bcast);

  // Every rank's host name, pid and local rank, on every rank.
  constexpr int kHostLen = 256;
  std::vector<char> my_host(kHostLen, '\0');
  std::strncpy(my_host.data(), host, kHostLen - 1);
  std::vector<char> hosts(static_cast<size_t>(kHostLen) * static_cast<size_t>(ctx->size_));
  FABSCOPE_RETURN_IF_ERROR(
      FABSCOPE_MPI(MPI_Allgather(my_host.data(), kHostLen, MPI_CHAR, hosts.data(), kHostLen, MPI_CHAR, ctx->world_)));
  int mine[3] = {static_cast<int>(getpid()), ctx->local_rank_, leader};
  std::vector<int> ids(3 * static_cast<size_t>(ctx->size_));
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Allgather(mine, 3, MPI_INT, ids.data(), 3, MPI_INT, ctx->world_)));
  for (int r = 0; r < ctx->size_; ++r) {
    RankInfo ri;
    ri.rank = r;
    ri.host = std::string(hosts.data() + static_cast<size_t>(r) * kHostLen);
    ri.pid = ids[3 * static_cast<size_t>(r)];
    ri.local_rank = ids[3 * static_cast<size_t>(r) + 1];
    ri.node = ids[3 * static_cast<size_t>(r) + 2];
    ctx->ranks_.push_back(std::move(ri));
  }
  distinguish_shared_host_names(ctx->ranks_);
  ctx->host_ = ctx->ranks_[static_cast<size_t>(ctx->rank_)].host;
  return ctx;
}

Status RankContext::start_heartbeat(const std::string& address, double period_s) {
  auto h = Heartbeat::start(*this, address, period_s);
  if (!h.ok()) return h.status();
  heartbeat_ = std::move(*h);
  return Status::Ok();
}

std::function<std::string()> RankContext::peer_view() const {
  const Heartbeat* h = heartbeat_.get();
  if (h == nullptr) return {};
  return [h] { return h->describe_silent(); };
}

bool RankContext::rank0_silent() const {
  if (heartbeat_ == nullptr || rank_ == 0) return false;
  for (const auto& [rank, seconds] : heartbeat_->silent_ranks()) {
    if (rank == 0) return true;
  }
  return false;
}

bool RankContext::writes_for_silent_rank0() const {
  return heartbeat_ != nullptr && heartbeat_->writes_for_silent_rank0();
}

std::vector<std::string> RankContext::waits_heard(int64_t from_ns, int64_t to_ns, int64_t after_ns) const {
  std::vector<std::string> out;
  if (heartbeat_ == nullptr) return out;
  for (const auto& [r, text] : heartbeat_->waits_heard(from_ns, to_ns, after_ns)) {
    out.push_back(fmt::format("rank {} ({}) waited for {}", r, ranks_[static_cast<size_t>(r)].host, text));
  }
  return out;
}

RankContext::~RankContext() {
  heartbeat_.reset();
  if (world_ != MPI_COMM_NULL) MPI_Comm_free(&world_);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initialized_here_ && !finalized) MPI_Finalize();
}

Status RankContext::barrier() const { return FABSCOPE_MPI(MPI_Barrier(world_)); }

Status RankContext::agree(const Status& local) const {
  int my_fail = local.ok() ? INT_MAX : rank_;
  int first = INT_MAX;
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Allreduce(&my_fail, &first, 1, MPI_INT, MPI_MIN, world_)));
  if (first == INT_MAX) return Status::Ok();
  // The failing rank's message and kind travel to every rank.
  std::string message = first == rank_ ? local.message() : std::string();
  int kind = first == rank_ ? static_cast<int>(local.kind()) : 0;
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Bcast(&kind, 1, MPI_INT, first, world_)));
  auto msg = broadcast(message, first);
  if (!msg.ok()) return msg.status();
  std::string text = first == 0 || size_ == 1 ? *msg : fmt::format("rank {} ({}): {}", first, ranks_[first].host, *msg);
  switch (static_cast<ErrorKind>(kind)) {
    case ErrorKind::kInvalidInput:
      return Status::Invalid(text);
    case ErrorKind::kUnavailable:
      return Status::Unavailable(text);
    default:
      return Status::Runtime(text);
  }
}

Result<double> RankContext::reduce(double value, RankReduction how) const {
  double out = value;
  switch (how) {
    case RankReduction::kRank0:
      FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Bcast(&out, 1, MPI_DOUBLE, 0, world_)));
      return out;
    case RankReduction::kMean:
      FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, world_)));
      return out / size_;
    case RankReduction::kMin:
      FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MIN, world_)));
      return out;
    case RankReduction::kMax:
      FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, world_)));
      return out;
  }
  return out;
}

Result<int64_t> RankContext::sum(int64_t value) const {
  int64_t out = 0;
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_SUM, world_)));
  return out;
}

Result<std::vector<double>> RankContext::gather(std::span<const double> values) const {
  std::vector<double> all;
  if (rank_ == 0) all.resize(values.size() * static_cast<size_t>(size_));
  FABSCOPE_RETURN_IF_ERROR(
      FABSCOPE_MPI(MPI_Gather(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, all.data(),
                              static_cast<int>(values.size()), MPI_DOUBLE, 0, world_)));
  return all;
}

namespace {
// MPI_Gatherv of `n` items from every rank to rank 0: the items concatenated in rank
// order, and each rank's count.
template <typename T>
Status gather_counts_and_items(MPI_Comm comm, int rank, int size, const T* items, int n, MPI_Datatype type,
                               std::vector<T>& all, std::vector<int>& counts) {
  counts.assign(rank == 0 ? static_cast<size_t>(size) : 0, 0);
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm)));
  std::vector<int> displs(counts.size());
  int total = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    displs[i] = total;
    total += counts[i];
  }
  all.assign(static_cast<size_t>(total), T{});
  return FABSCOPE_MPI(MPI_Gatherv(items, n, type, all.data(), counts.data(), displs.data(), type, 0, comm));
}
}  // namespace

Result<std::vector<double>> RankContext::gather_varying(std::span<const double> values) const {
  std::vector<double> all;
  std::vector<int> counts;
  FABSCOPE_RETURN_IF_ERROR(gather_counts_and_items(world_, rank_, size_, values.data(), static_cast<int>(values.size()),
                                                   MPI_DOUBLE, all, counts));
  return all;
}

Result<std::vector<std::string>> RankContext::gather_text(const std::string& text) const {
  std::vector<char> all;
  std::vector<int> counts;
  FABSCOPE_RETURN_IF_ERROR(
      gather_counts_and_items(world_, rank_, size_, text.data(), static_cast<int>(text.size()), MPI_CHAR, all, counts));
  std::vector<std::string> out;
  size_t at = 0;
  for (int c : counts) {
    out.emplace_back(all.data() + at, static_cast<size_t>(c));
    at += static_cast<size_t>(c);
  }
  return out;
}

Result<std::string> RankContext::broadcast(const std::string& value, int root) const {
  uint64_t len = value.size();
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Bcast(&len, 1, MPI_UINT64_T, root, world_)));
  std::string out = rank_ == root ? value : std::string(len, '\0');
  if (len > 0) {
    FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Bcast(out.data(), static_cast<int>(len), MPI_CHAR, root, world_)));
  }
  return out;
}

void RankContext::abort(int exit_code) const {
  MPI_Abort(world_ == MPI_COMM_NULL ? MPI_COMM_WORLD : world_, exit_code);
  std::_Exit(exit_code);
}

}  // namespace fabscope
