// `fabscope topo`: the topology phase. Offline it reads the files an operator has;
// live it reads this node through hwloc and sysfs, and under mpirun every node: each
// node's first rank reads and analyses its node (with every local rank's CPU binding),
// and rank 0 puts the nodes together and compares them.
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/commands.h"
#include "app/run_context.h"
#include "comm/context.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/text.h"
#include "report/model_json.h"
#include "report/report_json.h"
#include "report/summary.h"
#include "report/topology_text.h"
#include "topo/mapping.h"
#include "topo/readers.h"
#include "topo/topo_report.h"

namespace fabscope {

namespace {

Status validate(const TopoCommand& cmd) {
  if (cmd.expect_rate_gbits < 0) {
    return Status::Invalid(
        fmt::format("--expect-rate {:g}: a rate in Gb/s must be 0 (none) or positive", cmd.expect_rate_gbits));
  }
  if (cmd.host && cmd.host->empty()) return Status::Invalid("--host: give a host name");
  if (cmd.host && !cmd.offline())
    return Status::Invalid("--host names the host files describe; give at least one file");
  return Status::Ok();
}

// --nccl-log also takes a directory, such as a sweep's --nccl-debug-dir: every *.log
// file in it, in name order.
Result<std::vector<std::string>> expand_log_dirs(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    std::vector<std::string> logs;
    for (const auto& entry : fs::directory_iterator(p, ec)) {
      if (entry.is_regular_file(ec) && entry.path().extension() == ".log") logs.push_back(entry.path().string());
    }
    if (ec) return Status::Invalid(fmt::format("--nccl-log {}: cannot list the directory: {}", p, ec.message()));
    if (logs.empty()) {
      return Status::Invalid(
          fmt::format("--nccl-log {}: the directory holds no *.log file (NCCL logs, e.g. from "
                      "sweep --nccl-debug-dir)",
                      p));
    }
    std::sort(logs.begin(), logs.end());
    out.insert(out.end(), logs.begin(), logs.end());
  }
  return out;
}

// Reads every file into `set`; with --host, each file's hosts merge into that one.
Status read_inputs(const TopoCommand& cmd, topo::TopologySet& set, std::map<std::string, std::string>& env,
                   std::string& env_origin) {
  using Reader = Status (*)(const std::string&, topo::TopologySet&);
  auto nccl_logs = expand_log_dirs(cmd.nccl_log);
  if (!nccl_logs.ok()) return nccl_logs.status();
  const std::pair<const std::vector<std::string>*, Reader> kinds[] = {
      {&cmd.hwloc_xml, topo::read_hwloc_xml},
      {&cmd.nccl_topo, topo::read_nccl_xml},
      {&cmd.nvidia_smi_topo, topo::read_nvidia_smi_topo},
      {&cmd.rdma_info, topo::read_rdma_text},
      {&*nccl_logs, topo::read_nccl_log}};
  for (const auto& [files, reader] : kinds) {
    for (const std::string& file : *files) {
      topo::TopologySet one;
      FABSCOPE_RETURN_IF_ERROR(reader(file, one));
      for (topo::HostTopology& h : one.hosts) {
        if (cmd.host) {
          topo::merge_host(set.host(*cmd.host), h);
        } else {
          topo::merge_host(set.host(h.host), h);
        }
      }
    }
  }
  for (const std::string& file : cmd.nccl_env) {
    std::map<std::string, std::string> vars;
    FABSCOPE_RETURN_IF_ERROR(topo::read_nccl_env(file, vars));
    for (auto& [k, v] : vars) {
      if (k == "NCCL_IB_HCA") env_origin = file;
      env[k] = v;
    }
  }
  return Status::Ok();
}

topo::CpuSet own_binding() {
  topo::CpuSet set;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &mask)) set.add(c, c);
    }
  }
  return set;
}

// The GPU a rank with this local rank drives, by the rule the nccl backend uses: the
// local_rank-th visible GPU (CUDA_VISIBLE_DEVICES when it lists indices).
int gpu_for_local_rank(const topo::HostTopology& h, int local_rank) {
  std::vector<int> visible;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && *v) {
    for (std::string_view item : split(v, ',')) {
      int idx = 0;
      auto r = std::from_chars(item.data(), item.data() + item.size(), idx);
      if (item.empty() || r.ec != std::errc() || r.ptr != item.data() + item.size()) {
        return -1;  // UUIDs: not resolvable without NVML
      }
      visible.push_back(idx);
    }
  } else {
    for (const topo::Gpu& g : h.gpus) visible.push_back(g.index);
    std::sort(visible.begin(), visible.end());
  }
  if (local_rank < 0 || local_rank >= static_cast<int>(visible.size())) return -1;
  return h.find_gpu(visible[local_rank]) >= 0 ? visible[local_rank] : -1;
}

topo::AnalysisOptions analysis_options(const TopoCommand& cmd, const std::map<std::string, std::string>& env,
                                       const std::string& env_origin) {
  topo::AnalysisOptions o;
  o.ib_hca = cmd.nccl_ib_hca;
  if (auto it = env.find("NCCL_IB_HCA"); it != env.end()) {
    o.default_ib_hca = it->second;
    o.default_ib_hca_origin = env_origin;
  }
  o.expect_rate_gbits = cmd.expect_rate_gbits;
  return o;
}

CommandOutcome finish(const TopoCommand& cmd, Report& report, TopologySection topology) {
  CommandOutcome out;
  report.topology = std::move(topology);
  report.context.end_time = utc_timestamp();
  decide_verdict(report);
  out.verdict_failed = report.verdict.result != "pass";
  std::fputs((render_topology_text(*report.topology) + render_summary(report)).c_str(), stdout);
  std::fflush(stdout);
  if (cmd.json_path) {
    out.status = save_report(report, *cmd.json_path);
    if (!out.status.ok()) print_error(out.status.message());
  }
  return out;
}

// One process, no MPI: the files, or this node.
CommandOutcome run_local(const TopoCommand& cmd) {
  CommandOutcome out;
  Report report;
  report.context = make_local_run_context(cmd.command_line);
  topo::TopologySet set;
  std::map<std::string, std::string> env;
  std::string env_origin;
  Status s = cmd.json_path ? check_writable(*cmd.json_path) : Status::Ok();
  if (s.ok() && cmd.offline()) s = read_inputs(cmd, set, env, env_origin);
  if (s.ok() && !cmd.offline()) {
    const std::string host = report.context.hosts.front();
    s = topo::read_hwloc_live(host, set);
    if (s.ok()) {
      topo::HostTopology& h = set.host(host);
      h.ranks.push_back({0, 0, gpu_for_local_rank(h, 0), own_binding()});
      if (const char* v = std::getenv("NCCL_IB_HCA")) {
        env["NCCL_IB_HCA"] = v;
        env_origin = "environment";
      }
    }
  }
  if (!s.ok()) {
    print_error(s.message());
    out.status = s;
    return out;
  }
  auto analyses = topo::analyze_topology(set, analysis_options(cmd, env, env_origin), report.findings);
  if (!analyses.ok()) {
    print_error(analyses.status().message());
    out.status = analyses.status();
    return out;
  }
  return finish(cmd, report, topo::topology_section(set, *analyses));
}

// Under a launcher: every node, compared.
CommandOutcome run_mpi(const TopoCommand& cmd, int* argc, char*** argv) {
  CommandOutcome out;
  auto job = start_job(
      argc, argv, [&](const RankContext&) { return Status::Ok(); }, "mpi", cmd.json_path, cmd.log_level);
  if (!job.ok()) {
    out.status = job.status();
    return out;
  }
  const RankContext& ctx = *job->ctx;
  // Every rank's binding, known to every rank (each node's first rank needs its node's).
  topo::CpuSet mine = own_binding();
  auto bindings = ctx.gather_text(fmt::format("{} {}", ctx.rank(), mine.to_list()));
  std::string all;
  if (bindings.ok() && ctx.rank() == 0) {
    for (const std::string& b : *bindings) all += b + "\n";
  }
  auto shared = ctx.broadcast(all, 0);
  if (Status s = agree_or_report(ctx, !bindings.ok() ? bindings.status() : shared.status()); !s.ok()) {
    out.status = s;
    return out;
  }
  // Each node's first rank reads and analyses its node.
  std::string mine_json;
  Status local = Status::Ok();
  if (ctx.local_rank() == 0) {
    topo::TopologySet set;
    local = topo::read_hwloc_live(ctx.host(), set);
    if (local.ok()) {
      topo::HostTopology& h = set.host(ctx.host());
      LineReader lines(*shared);
      std::string_view line;
      while (lines.next(line)) {
        // "RANK CPULIST", as each rank sent it
        const std::vector<std::string_view> words = split_ws(line);
        int r = -1;
        if (words.empty() || std::from_chars(words[0].data(), words[0].data() + words[0].size(), r).ec != std::errc())
          continue;
        if (r < 0 || r >= ctx.size() || ctx.ranks()[r].host != ctx.host()) continue;
        auto cpus = topo::CpuSet::from_list(words.size() > 1 ? words[1] : std::string_view());
        int lr = ctx.ranks()[r].local_rank;
        h.ranks.push_back({r, lr, gpu_for_local_rank(h, lr), cpus.value_or(topo::CpuSet())});
      }
      std::map<std::string, std::string> env;
      if (const char* v = std::getenv("NCCL_IB_HCA")) env["NCCL_IB_HCA"] = v;
      std::vector<Finding> findings;
      auto analyses = topo::analyze_topology(set, analysis_options(cmd, env, "environment"), findings);
      if (!analyses.ok()) {
        local = analyses.status();
      } else {
        mine_json = Json{{"host", to_json(topo::host_section(h, analyses->front()))},
                         {"findings", to_json_array(findings)},
                         {"signature", topo::host_signature(h, analyses->front())}}
                        .dump();
      }
    }
  }
  if (Status s = agree_or_report(ctx, local); !s.ok()) {
    out.status = s;
    return out;
  }
  auto parts = ctx.gather_text(mine_json);
  if (Status s = agree_or_report(ctx, parts.status()); !s.ok()) {
    out.status = s;
    return out;
  }
  if (ctx.rank() != 0) return out;
  Report report;
  report.context = make_run_context(ctx, "mpi", "", "host", cmd.command_line);
  report.context.backend = "none";
  report.context.memory = "none";
  TopologySection topology;
  std::vector<std::pair<std::string, std::string>> signatures;
  for (size_t r = 0; r < parts->size(); ++r) {
    const std::string& p = (*parts)[r];
    if (p.empty()) continue;
    // Each node's first rank sent its host entry, findings and signature.
    const std::string source = fmt::format("rank {}'s topology", r);
    try {
      const Json part = Json::parse(p);
      const JsonIn in(part, "", source);
      TopoHostEntry host;
      std::vector<Finding> findings;
      std::string signature;
      in.field("host", host);
      in.field("findings", findings);
      in.field("signature", signature);
      signatures.emplace_back(host.host, signature);
      topology.hosts.push_back(std::move(host));
      report.findings.insert(report.findings.end(), findings.begin(), findings.end());
    } catch (const std::exception& e) {  // not JSON, or not the shape sent: a fabscope defect
      print_error(e.what());
      out.status = Status::Runtime(e.what());
      return out;
    }
  }
  topo::add_host_differs(signatures, report.findings);
  return finish(cmd, report, std::move(topology));
}

}  // namespace

CommandOutcome run_topo_command(const TopoCommand& cmd, int* argc, char*** argv) {
  CommandOutcome out;
  if (Status s = validate(cmd); !s.ok()) {
    report_usage_error(s.message(), argc, argv);
    out.status = s;
    return out;
  }
  if (launched_by_mpi()) {
    if (cmd.offline()) {
      out.status = Status::Invalid(
          "topo reads files in one process: run it without mpirun, or give no file to "
          "examine every node live");
      report_usage_error(out.status.message(), argc, argv);
      return out;
    }
    return run_mpi(cmd, argc, argv);
  }
  return run_local(cmd);
}

}  // namespace fabscope
