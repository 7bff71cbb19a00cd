#include "backend/nccl/nccl_plan.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fabscope {

bool nccl_has_alltoall_gather_scatter(int version_code) {
  // NCCL_VERSION(2,28,0) is 22800; codes of the old encoding (2.8.4 is 2804) are older.
  return version_code >= 22800;
}

std::string_view nccl_api_name(NcclCall call) {
  switch (call) {
    case NcclCall::kAllReduce:
      return "ncclAllReduce";
    case NcclCall::kAllGather:
      return "ncclAllGather";
    case NcclCall::kReduceScatter:
      return "ncclReduceScatter";
    case NcclCall::kBroadcast:
      return "ncclBroadcast";
    case NcclCall::kReduce:
      return "ncclReduce";
    case NcclCall::kAllToAll:
      return "ncclAlltoAll";
    case NcclCall::kGather:
      return "ncclGather";
    case NcclCall::kScatter:
      return "ncclScatter";
    case NcclCall::kGroupedSendRecv:
      break;
  }
  return "ncclSend/ncclRecv (grouped)";
}

NcclPlan plan_nccl_call(Collective coll, int rank, int nranks, int root, size_t count, bool native) {
  NcclPlan p;
  if (native && (coll == Collective::kAllToAll || coll == Collective::kGather || coll == Collective::kScatter)) {
    p.call = coll == Collective::kAllToAll ? NcclCall::kAllToAll
             : coll == Collective::kGather ? NcclCall::kGather
                                           : NcclCall::kScatter;
    return p;
  }
  auto add = [&](bool send, int peer, size_t offset) { p.ops.push_back({send, peer, offset, count}); };
  switch (coll) {
    case Collective::kAllReduce:
      p.call = NcclCall::kAllReduce;
      break;
    case Collective::kAllGather:
      p.call = NcclCall::kAllGather;
      break;
    case Collective::kReduceScatter:
      p.call = NcclCall::kReduceScatter;
      break;
    case Collective::kBroadcast:
      p.call = NcclCall::kBroadcast;
      break;
    case Collective::kReduce:
      p.call = NcclCall::kReduce;
      break;
    case Collective::kAllToAll:
      // Block r of the send buffer goes to rank r; block r of the receive buffer
      // comes from rank r (itself included).
      p.call = NcclCall::kGroupedSendRecv;
      for (int r = 0; r < nranks; ++r) {
        add(true, r, static_cast<size_t>(r) * count);
        add(false, r, static_cast<size_t>(r) * count);
      }
      break;
    case Collective::kGather:
      p.call = NcclCall::kGroupedSendRecv;
      if (rank == root) {
        for (int r = 0; r < nranks; ++r) add(false, r, static_cast<size_t>(r) * count);
      }
      add(true, root, 0);
      break;
    case Collective::kScatter:
      p.call = NcclCall::kGroupedSendRecv;
      if (rank == root) {
        for (int r = 0; r < nranks; ++r) add(true, r, static_cast<size_t>(r) * count);
      }
      add(false, root, 0);
      break;
    case Collective::kSendRecv:
      p.call = NcclCall::kGroupedSendRecv;
      add(true, (rank + 1) % nranks, 0);
      add(false, (rank + nranks - 1) % nranks, 0);
      break;
  }
  return p;
}

Result<int> choose_device(int local_rank, int local_size, int visible_devices, std::string_view host,
                          const char* cuda_visible_devices, bool share) {
  const std::string visible = cuda_visible_devices ? fmt::format("CUDA_VISIBLE_DEVICES={}", cuda_visible_devices)
                                                   : std::string("CUDA_VISIBLE_DEVICES unset");
  if (visible_devices < 1) {
    return Status::Unavailable(fmt::format("host {} has no CUDA GPU visible ({})", host, visible));
  }
  if (share && local_rank >= 0) return local_rank % visible_devices;
  if (local_size > visible_devices) {
    return Status::Unavailable(fmt::format(
        "host {} runs {} ranks but has only {} CUDA GPU{} visible ({}); the nccl backend needs one GPU per rank: "
        "start at most {} rank{} per node (mpirun --map-by ppr:{}:node), make more GPUs visible, or give "
        "--share-gpus to let ranks share a GPU through NCCL's network transport",
        host, local_size, visible_devices, visible_devices == 1 ? "" : "s", visible, visible_devices,
        visible_devices == 1 ? "" : "s", visible_devices));
  }
  if (local_rank < 0 || local_rank >= visible_devices) {
    return Status::Runtime(fmt::format("local rank {} on host {} has no GPU among {} visible ({})", local_rank, host,
                                       visible_devices, visible));
  }
  return local_rank;
}

std::string shared_gpu_host_id(std::string_view host, int rank) { return fmt::format("{}-fabscope-r{}", host, rank); }

std::string nccl_version_string(int code) {
  if (code <= 0) return "unknown";
  // NCCL_VERSION(X,Y,Z): X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z after.
  if (code < 10000) return fmt::format("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
}

Status check_nccl_debug_dir(const std::string& dir) {
  if (dir.empty()) return Status::Invalid("--nccl-debug-dir '' is not allowed; give an existing writable directory");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    return Status::Invalid(
        fmt::format("--nccl-debug-dir '{}': {}; give an existing writable directory", dir, std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::Invalid(
        fmt::format("--nccl-debug-dir '{}' is not a directory; give an existing writable directory", dir));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return Status::Invalid(fmt::format("--nccl-debug-dir '{}' is not writable ({}); give a writable directory", dir,
                                       std::strerror(errno)));
  }
  return Status::Ok();
}

std::string nccl_debug_file(const std::string& dir, std::string_view host, int rank) {
  std::string safe_host;
  for (char c : host) safe_host += (c == '/' || c == ' ') ? '_' : c;
  const bool slash = !dir.empty() && dir.back() == '/';
  return fmt::format("{}{}nccl-{}-r{}.log", dir, slash ? "" : "/", safe_host, rank);
}

std::vector<std::pair<std::string, std::string>> nccl_debug_env(const std::string& dir, std::string_view host,
                                                                int rank) {
  // NCCL expands '%' in NCCL_DEBUG_FILE (%h host, %p pid), so a literal one is doubled.
  std::string file;
  for (char c : nccl_debug_file(dir, host, rank)) {
    if (c == '%') file += '%';
    file += c;
  }
  return {{"NCCL_DEBUG", "INFO"}, {"NCCL_DEBUG_SUBSYS", std::string(kNcclDebugSubsys)}, {"NCCL_DEBUG_FILE", file}};
}

}  // namespace fabscope
