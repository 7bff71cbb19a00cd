// fabscope's command line: CLI11 wiring only. Options become a command value, the
// library runs it, and its status becomes the exit code.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "app/commands.h"
#include "core/log.h"

namespace {

// The options backends take, as perftest names them where it has them.
void add_backend_options(CLI::App* cmd, fabscope::BackendOptions& o) {
  cmd->add_option("--tcp-if", o.tcp_interface, "tcp backend: use this network interface's IPv4 address");
  cmd->add_option("--tcp-addr", o.tcp_address, "tcp backend: use this local IPv4 address");
  cmd->add_option("--verbs-device", o.verbs_device, "verbs backend: RDMA device, e.g. mlx5_0 (perftest -d)");
  cmd->add_option("--verbs-port", o.verbs_port, "verbs backend: port (perftest -i; default 1)");
  cmd->add_option("--verbs-gid-index", o.verbs_gid_index,
                  "verbs backend: GID index (perftest -x; default -1: LID on InfiniBand, perftest's choice on RoCE)");
  cmd->add_option("--qps", o.verbs_qps, "verbs backend: RC queue pairs per peer (perftest -q; default 1)");
  cmd->add_option("--nccl-debug-dir", o.nccl_debug_dir,
                  "nccl backend: NCCL_DEBUG=INFO log (INIT,NET,GRAPH) of each rank into this existing directory");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fabscope;
  CLI::App app{"fabscope: benchmark collective communication and find where the fabric loses time"};
  app.require_subcommand(0, 1);
  bool show_version = false;
  app.add_flag("--version", show_version, "Print the version, git id and compiled-in backends");

  SweepCommand sweep;
  std::string log_level = "warn";
  auto* sweep_cmd = app.add_subcommand("sweep", "Time collectives over a range of sizes (run under mpirun)");
  sweep_cmd->add_option("collectives", sweep.collectives,
                        "Collectives: allreduce allgather reducescatter alltoall broadcast reduce gather scatter "
                        "sendrecv, or all");
  sweep_cmd->add_option("-b,--minbytes", sweep.min_bytes, "Smallest size, e.g. 8, 64K, 1M (default 32M)");
  sweep_cmd->add_option("-e,--maxbytes", sweep.max_bytes, "Largest size (default 32M)");
  sweep_cmd->add_option("-i,--stepbytes", sweep.step_bytes, "Additive step when -f is 1 (default 1M)");
  sweep_cmd->add_option("-f,--stepfactor", sweep.step_factor, "Multiplicative step (default 1: use -i)");
  sweep_cmd->add_option("-n,--iters", sweep.iters, "Timed iterations per size (default 20)");
  sweep_cmd->add_option("-w,--warmup_iters", sweep.warmup_iters, "Warm-up iterations per size (default 1)");
  sweep_cmd->add_option("-c,--check", sweep.check_iters, "Verification passes per size; 0 = none (default 1)");
  sweep_cmd->add_option("-d,--datatype", sweep.dtypes,
                        "int8 uint8 int32 uint32 int64 uint64 half bfloat16 float double, a comma list, or all "
                        "(default float)");
  sweep_cmd->add_option("-o,--op", sweep.ops, "sum prod min max avg, a comma list, or all (default sum)");
  sweep_cmd->add_option("-r,--root", sweep.root, "Root rank of broadcast, reduce, gather, scatter (default 0)");
  sweep_cmd->add_option("-a,--average", sweep.average,
                        "Time reported across ranks: 0 rank 0, 1 mean, 2 min, 3 max (default 1, as nccl-tests)");
  sweep_cmd->add_option("-G,--cudagraph", sweep.graph_launches,
                        "Capture the iterations in a CUDA graph and launch it N times (nccl; default 0: no graph)");
  sweep_cmd->add_option("-z,--blocking", sweep.blocking,
                        "0 asynchronous, 1 wait and barrier after each iteration, 2 wait, 3 wait and barrier with the "
                        "barrier not timed (as nccl-tests; default 0)");
  sweep_cmd->add_option("--seed", sweep.seed, "Seed of the verification data");
  sweep_cmd->add_option("--timeout", sweep.timeout_s,
                        "Seconds without progress after which the job ends, naming where it stopped; 0 = never "
                        "(default 300)");
  sweep_cmd->add_option("--backend", sweep.backend, "nccl, verbs, tcp, mpi or auto (default auto: the first usable)");
  add_backend_options(sweep_cmd, sweep.backend_options);
  sweep_cmd->add_option("--json", sweep.json_path, "Write the JSON report here (atomically, by rank 0)");
  sweep_cmd->add_option("--log-level", log_level, "error, warn, info or debug (default warn)");

  P2pCommand p2p;
  std::string p2p_log_level = "warn";
  auto* p2p_cmd = app.add_subcommand("p2p", "Point-to-point bandwidth or latency on many links at once (under mpirun)");
  p2p_cmd->add_option("--pattern", p2p.pattern,
                      "ring (every rank to the next, at once) or pairs (round-robin rounds covering every pair)");
  p2p_cmd->add_option("--pair", p2p.pair, "One pair of ranks, e.g. 0,5");
  p2p_cmd->add_option("--mode", p2p.mode, "bw (unidirectional), bibw (bidirectional) or lat (ping-pong)");
  p2p_cmd->add_option("-s,--size", p2p.size, "Message size (default 64K for bandwidth, 2 for latency)");
  p2p_cmd->add_flag("-a,--all", p2p.all_sizes, "Every power of two from 2 bytes to 8 MiB");
  p2p_cmd->add_option("-n,--iters", p2p.iters, "Messages per link and size (default 1000)");
  p2p_cmd->add_option("-w,--warmup_iters", p2p.warmup_iters, "Warm-up messages per link and size (default 50)");
  p2p_cmd->add_option("--window", p2p.window, "Messages in flight per flow in bandwidth modes (default 64)");
  p2p_cmd->add_option("--repeats", p2p.repeats, "Measure each round this many times in a row (default 1)");
  p2p_cmd->add_option("--timeout", p2p.timeout_s, "Seconds without progress before the job ends; 0 = never");
  p2p_cmd->add_option("--backend", p2p.backend, "nccl, verbs, tcp, mpi or auto (default auto: the first usable)");
  add_backend_options(p2p_cmd, p2p.backend_options);
  p2p_cmd->add_option("--json", p2p.json_path, "Write the JSON report here (atomically, by rank 0)");
  p2p_cmd->add_option("--log-level", p2p_log_level, "error, warn, info or debug (default warn)");

  ReportCommand report;
  auto* report_cmd = app.add_subcommand("report", "Render a JSON report as the nccl-tests table and findings");
  report_cmd->add_option("file", report.path, "A report written by fabscope --json")->required();

  TopoCommand topo;
  auto* topo_cmd = app.add_subcommand(
      "topo",
      "GPUs, NICs, NUMA and PCIe paths; the NIC NCCL picks per GPU; mapping findings. Live on this node, on every "
      "node under mpirun, or offline from files");
  topo_cmd->add_option("--hwloc-xml", topo.hwloc_xml, "lstopo XML of a node (repeatable)");
  topo_cmd->add_option("--nccl-topo", topo.nccl_topo,
                       "NCCL topology XML (NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE) or graph XML (repeatable)");
  topo_cmd->add_option("--nvidia-smi-topo", topo.nvidia_smi_topo, "Output of `nvidia-smi topo -m` (repeatable)");
  topo_cmd->add_option("--nccl-log", topo.nccl_log,
                       "NCCL_DEBUG=INFO output, any ranks and hosts, or a directory of *.log files such as "
                       "sweep --nccl-debug-dir writes (repeatable)");
  topo_cmd->add_option("--rdma-info", topo.rdma_info,
                       "Output of ibdev2netdev, ibv_devinfo, show_gids or `ls -l /sys/class/infiniband` (repeatable)");
  topo_cmd->add_option("--nccl-env", topo.nccl_env, "A shell env file whose NCCL_IB_HCA applies (repeatable)");
  topo_cmd->add_option("--nccl-ib-hca", topo.nccl_ib_hca,
                       "Judge every host by this NCCL_IB_HCA (default: each host's own from its log, an env file, or "
                       "the environment)");
  topo_cmd->add_option("--host", topo.host, "Offline: all files describe this one host");
  topo_cmd->add_option("--expect-rate", topo.expect_rate_gbits,
                       "Expected port rate in Gb/s; active ports below it are degraded (default: compare with peers)");
  topo_cmd->add_option("--json", topo.json_path, "Write the JSON report here (atomically)");
  std::string topo_log_level = "warn";
  topo_cmd->add_option("--log-level", topo_log_level, "error, warn, info or debug (default warn)");

  app.add_subcommand("backends", "List the backends: compiled in? usable here? if not, why");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    report_usage_error(e.what(), &argc, &argv);
    return kExitUsage;
  }

  if (show_version) {
    std::fputs(version_text().c_str(), stdout);
    return kExitOk;
  }
  if (app.got_subcommand("backends")) {
    std::fputs(backends_text().c_str(), stdout);
    return kExitOk;
  }
  if (app.got_subcommand("report")) {
    std::string text;
    Status s = run_report_command(report, text);
    if (!s.ok()) {
      print_error(s.message());
      return exit_code_for(s);
    }
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  if (app.got_subcommand("topo")) {
    auto level = parse_log_level(topo_log_level);
    if (!level.ok()) {
      report_usage_error(level.status().message(), &argc, &argv);
      return kExitUsage;
    }
    topo.log_level = *level;
    for (int i = 0; i < argc; ++i) topo.command_line.emplace_back(argv[i]);
    CommandOutcome outcome = run_topo_command(topo, &argc, &argv);
    if (!outcome.status.ok()) return exit_code_for(outcome.status);
    return outcome.verdict_failed ? kExitVerdictFail : kExitOk;
  }
  if (app.got_subcommand("p2p")) {
    auto level = parse_log_level(p2p_log_level);
    if (!level.ok()) {
      report_usage_error(level.status().message(), &argc, &argv);
      return kExitUsage;
    }
    p2p.log_level = *level;
    for (int i = 0; i < argc; ++i) p2p.command_line.emplace_back(argv[i]);
    CommandOutcome outcome = run_p2p_command(p2p, &argc, &argv);
    if (!outcome.status.ok()) return exit_code_for(outcome.status);
    return outcome.verdict_failed ? kExitVerdictFail : kExitOk;
  }
  if (app.got_subcommand("sweep")) {
    auto level = parse_log_level(log_level);
    if (!level.ok()) {
      report_usage_error(level.status().message(), &argc, &argv);
      return kExitUsage;
    }
    sweep.log_level = *level;
    for (int i = 0; i < argc; ++i) sweep.command_line.emplace_back(argv[i]);
    CommandOutcome outcome = run_sweep_command(sweep, &argc, &argv);
    if (!outcome.status.ok()) return exit_code_for(outcome.status);
    return outcome.verdict_failed ? kExitVerdictFail : kExitOk;
  }
  std::fputs(app.help().c_str(), stdout);
  return kExitOk;
}
