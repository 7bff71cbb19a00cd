// fabscope's command line: CLI11 wiring only. Options become a command value, the
// library runs it, and its status becomes the exit code.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "app/commands.h"
#include "core/log.h"

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
  sweep_cmd->add_option("--seed", sweep.seed, "Seed of the verification data");
  sweep_cmd->add_option("--timeout", sweep.timeout_s,
                        "Seconds without progress after which the job ends, naming where it stopped; 0 = never "
                        "(default 300)");
  sweep_cmd->add_option("--backend", sweep.backend, "tcp, mpi or auto (default auto: the first usable)");
  sweep_cmd->add_option("--tcp-if", sweep.tcp_interface, "tcp backend: use this network interface's IPv4 address");
  sweep_cmd->add_option("--tcp-addr", sweep.tcp_address, "tcp backend: use this local IPv4 address");
  sweep_cmd->add_option("--json", sweep.json_path, "Write the JSON report here (atomically, by rank 0)");
  sweep_cmd->add_option("--log-level", log_level, "error, warn, info or debug (default warn)");

  ReportCommand report;
  auto* report_cmd = app.add_subcommand("report", "Render a JSON report as the nccl-tests table and findings");
  report_cmd->add_option("file", report.path, "A report written by fabscope --json")->required();

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
