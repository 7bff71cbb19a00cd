// The report model's context section (report/report.h holds the whole report).
// What ran, where and how: the tool, the command line, the ranks and hosts, the backend and its library, the
// environment.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabscope {

struct ToolInfo {
  std::string name = "fabscope";
  std::string version;
  std::string git_id;
};

struct RankEntry {
  int rank = 0;
  std::string host;
  int pid = 0;
  int local_rank = 0;
  std::optional<uint64_t> peak_rss_bytes =
      std::nullopt;  // the process's peak resident set at the end (VmHWM); null: not read
};

// Where --nccl-debug-dir had NCCL log (each host writes its own ranks' files).
struct NcclDebugLog {
  std::string dir;
  std::string subsys;              // NCCL_DEBUG_SUBSYS: "INIT,NET,GRAPH"
  std::vector<std::string> files;  // one per rank, in rank order
};

// A report made by `fabscope import` from another tool's output: what it was read from.
// Such a report holds only what the files said; what they did not say is null.
struct ImportInfo {
  std::string tool;                    // "nccl-tests"
  std::optional<std::string> version;  // the tool's version where printed
  std::vector<std::string> files;      // as given on the command line
};

// A count or text an imported report may not know is 0 or "" here and null in the JSON
// (nranks, iterations, start_time, ...).
// The tcp backend: what the kernel's restart of an idle connection's window
// (net.ipv4.tcp_slow_start_after_idle=1) did to the engine's sends, over every rank
// (core/tcp_idle_restarts.h has what each rank counts).
struct TcpIdleRestartSummary {
  bool watched = false;  // the setting on and the congestion control subject to it
  uint64_t idle_sends = 0;
  uint64_t restarts = 0;
  double cwnd_before_segments = 0;  // mean over restarts
  double cwnd_after_segments = 0;
  double estimated_cost_s = 0;  // summed over ranks
  double busy_s = 0;            // summed over ranks: time with a message posted (inside the engine's calls)
};

struct RunContext {
  ToolInfo tool;
  std::vector<std::string> command_line;
  std::string start_time;  // ISO 8601 UTC
  std::string end_time;
  std::string backend;                                      // "mpi"
  std::string backend_library;                              // "Open MPI v4.1.4"
  std::string memory;                                       // "host" or "cuda"
  std::map<std::string, std::optional<std::string>> build;  // optional libraries found at build time
  int nranks = 0;
  std::vector<std::string> hosts;  // distinct, in rank order
  std::vector<RankEntry> ranks;
  std::map<std::string, std::string> environment;  // NCCL_*, UCX_*, OMPI_*, CUDA_* only
  std::optional<NcclDebugLog> nccl_debug;          // --nccl-debug-dir
  // --share-gpus: ranks shared GPUs, each its own NCCL host id (backend_library says how many)
  bool gpus_shared = false;
  std::optional<ImportInfo> imported;  // `fabscope import`; null for measured runs
  // The memory per rank the run was admitted with (sweep, p2p; host or GPU as `memory`
  // says); null where not estimated.
  std::optional<uint64_t> memory_estimate_bytes;
  std::optional<TcpIdleRestartSummary> tcp_idle_restarts;  // the tcp backend; null otherwise
};

}  // namespace fabscope
