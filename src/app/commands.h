// The commands fabscope runs, as library calls: the CLI parses options into these
// values and maps the returned status to an exit code. No command exits itself.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend/registry.h"
#include "core/exit_code.h"
#include "core/log.h"
#include "core/status.h"

namespace fabscope {

// Raw option values as the user typed them; validated by the command.
struct SweepCommand {
  std::vector<std::string> collectives;
  std::string min_bytes = "32M";
  std::string max_bytes = "32M";
  std::string step_bytes = "1M";
  uint64_t step_factor = 1;
  int iters = 20;
  int warmup_iters = 1;
  int check_iters = 1;
  std::string dtypes = "float";
  std::string ops = "sum";
  int root = 0;
  int average = 1;
  uint64_t seed = 0x5eed;
  double timeout_s = 300;
  int graph_launches = 0;  // -G
  int blocking = 0;        // -z
  std::string backend = "auto";
  BackendOptions backend_options;
  std::optional<std::string> json_path;
  LogLevel log_level = LogLevel::kWarn;
  std::vector<std::string> command_line;
};
struct CommandOutcome {
  Status status;                // already printed to stderr by rank 0
  bool verdict_failed = false;  // ran to the end, and the verdict is fail
};
// Runs under MPI (initialises and finalises it); prints the table on rank 0, and an
// error, if any, on rank 0 before MPI ends (so the launcher cannot kill it first).
CommandOutcome run_sweep_command(const SweepCommand& cmd, int* argc, char*** argv);

// True when a launcher (mpirun, srun) started this process.
bool launched_by_mpi();
// For a bad command line under a launcher: rank 0 prints `message`, then every rank
// waits for it, so no rank's early exit gets rank 0 killed before it could say why.
void report_usage_error(const std::string& message, int* argc, char*** argv);
void print_error(const std::string& message);

struct P2pCommand {
  std::string pattern = "ring";
  std::optional<std::string> pair;  // "A,B": one pair (implies pattern pair)
  std::string mode = "bw";
  std::optional<std::string> size;  // -s; default 64K for bandwidth, 2 for latency (perftest's)
  bool all_sizes = false;           // -a: 2 bytes to 8 MiB, powers of two (perftest's)
  std::optional<int> iters;         // -n; default 1000
  int warmup_iters = 50;
  int window = 64;
  int repeats = 1;
  double timeout_s = 300;
  std::string backend = "auto";
  std::optional<std::string> json_path;
  LogLevel log_level = LogLevel::kWarn;
  std::vector<std::string> command_line;
  BackendOptions backend_options;
};
CommandOutcome run_p2p_command(const P2pCommand& cmd, int* argc, char*** argv);

// `fabscope topo`: live (this node, or every node under mpirun) when no file is given,
// else offline from the files.
struct TopoCommand {
  std::vector<std::string> hwloc_xml;
  std::vector<std::string> nccl_topo;  // NCCL topology or graph XML
  std::vector<std::string> nvidia_smi_topo;
  std::vector<std::string> nccl_log;
  std::vector<std::string> rdma_info;  // ibdev2netdev / ibv_devinfo / show_gids / ls -l sysfs output
  std::vector<std::string> nccl_env;   // env files whose NCCL_IB_HCA applies
  std::optional<std::string> nccl_ib_hca;
  std::optional<std::string> host;  // offline: every file describes this one host
  double expect_rate_gbits = 0;
  std::optional<std::string> json_path;
  LogLevel log_level = LogLevel::kWarn;
  std::vector<std::string> command_line;
  bool offline() const {
    return !hwloc_xml.empty() || !nccl_topo.empty() || !nvidia_smi_topo.empty() || !nccl_log.empty() ||
           !rdma_info.empty() || !nccl_env.empty();
  }
};
CommandOutcome run_topo_command(const TopoCommand& cmd, int* argc, char*** argv);

struct ReportCommand {
  std::string path;
};
Status run_report_command(const ReportCommand& cmd, std::string& out);

std::string version_text();
std::string backends_text();

}  // namespace fabscope
