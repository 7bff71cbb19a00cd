#include "app/command.h"

#include <fmt/format.h>

#include <cmath>

#include "app/run_context.h"
#include "coll/collective.h"
#include "core/text.h"

namespace fabscope {

OutputFiles CommonOptions::output_files() const {
  OutputFiles files;
  for (const auto& [format, path] : output_paths) {
    if (path) files[format] = *path;
  }
  return files;
}

std::string collective_names() {
  std::string out;
  for (const CollectiveInfo& c : all_collectives()) out += fmt::format("{} ", c.name);
  return out + "or all";
}

std::string backend_names() {
  std::string out;
  for (const BackendEntry& b : backend_registry()) out += fmt::format("{}, ", b.name);
  return out + "or auto";
}

CLI::Validator non_negative_integer() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const std::string_view v = trim(value);
        if (v.empty() || v.front() != '-') return "";
        return fmt::format("{} is negative; give a whole number >= 0", value);
      },
      "UINT", "non-negative integer");
}

void add_common_options(CLI::App& app, unsigned which, CommonOptions& v) {
  if (which & kOutputFiles) {
    for (const OutputFormat& f : output_formats()) {
      app.add_option(std::string(f.option), v.output_paths[std::string(f.name)], std::string(f.help));
    }
  }
  if (which & kLogLevel) app.add_option("--log-level", v.log_level_name, "error, warn, info or debug (default warn)");
  if (which & kTimeout) {
    app.add_option("--timeout", v.timeout_s,
                   "Seconds without progress after which the job ends, naming where it stopped; 0 = never "
                   "(default 300)");
  }
  if (which & kBackendChoice) {
    app.add_option("--backend", v.backend,
                   fmt::format("{} (default auto: the first usable, in this order)", backend_names()));
    // The options backends take, as perftest names them where it has them.
    BackendOptions& o = v.backend_options;
    // Each records that it was given: an option of another backend than the job's is refused.
    auto given = [&o](const char* name) { return [&o, name](const std::string&) { o.given.insert(name); }; };
    app.add_option("--tcp-if", o.tcp_interface, "tcp backend: use this network interface's IPv4 address")
        ->each(given("--tcp-if"));
    app.add_option("--tcp-addr", o.tcp_address, "tcp backend: use this local IPv4 address")->each(given("--tcp-addr"));
    app.add_option("--tcp-cc", o.tcp_congestion,
                   "tcp backend: TCP congestion control of every connection, e.g. cubic or bbr, or host for the "
                   "host's net.ipv4.tcp_congestion_control (default cubic where this process may use it, else the "
                   "host's; backend_library says which ran and why)")
        ->each(given("--tcp-cc"));
    app.add_option("--verbs-device", o.verbs_device, "verbs backend: RDMA device, e.g. mlx5_0 (perftest -d)")
        ->each(given("--verbs-device"));
    app.add_option("--verbs-port", o.verbs_port, "verbs backend: port (perftest -i; default 1)")
        ->each(given("--verbs-port"));
    app.add_option("--verbs-gid-index", o.verbs_gid_index,
                   "verbs backend: GID index (perftest -x; default -1: LID on InfiniBand, perftest's choice on RoCE)")
        ->each(given("--verbs-gid-index"));
    app.add_option("--qps", o.verbs_qps, "verbs backend: RC queue pairs per peer (perftest -q; default 1)")
        ->check(non_negative_integer())
        ->each(given("--qps"));
    app.add_option("--nccl-debug-dir", o.nccl_debug_dir,
                   "nccl backend: NCCL_DEBUG=INFO log (INIT,NET,GRAPH) of each rank into this existing directory")
        ->each(given("--nccl-debug-dir"));
    app.add_flag(
           "--share-gpus", o.share_gpus,
           "nccl backend: let several ranks share a GPU (rank i of a node takes GPU i mod the GPUs visible); each "
           "rank presents its own NCCL host id, so NCCL connects every pair through its network transport "
           "(Socket, or IB through the NIC): the network path on a one-GPU machine, a node's NICs in loopback")
        ->each(given("--share-gpus"));
  }
}

int exit_code(const CommandOutcome& outcome) {
  if (!outcome.status.ok()) return exit_code_for(outcome.status);
  if (outcome.verdict_failed) return kExitVerdictFail;
  return outcome.verdict_inconclusive ? kExitInconclusive : kExitOk;
}

CommandOutcome run_command(Command& command, CommonOptions& common, unsigned which, int* argc, char*** argv) {
  if (which & kLogLevel) {
    auto level = parse_log_level(common.log_level_name);
    if (!level.ok()) {
      report_usage_error(level.status().message(), argc, argv);
      return {level.status()};
    }
    common.log_level = *level;
  }
  if ((which & kTimeout) && (!(common.timeout_s >= 0) || std::isinf(common.timeout_s))) {
    const Status bad = Status::Invalid(fmt::format(
        "--timeout {} is not allowed; use a finite number of seconds >= 0 (0 disables it)", common.timeout_s));
    report_usage_error(bad.message(), argc, argv);
    return {bad};
  }
  common.command_line.assign(*argv, *argv + *argc);
  common.backend_options.timeout_s = common.timeout_s;
  return command.run(common, argc, argv);
}

}  // namespace fabscope
