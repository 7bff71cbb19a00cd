#include <fmt/format.h>

#include <cstdio>

#include "app/commands.h"
#include "app/run_context.h"
#include "backend/registry.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/sizes.h"
#include "diag/findings.h"
#include "diag/net_counters.h"
#include "p2p/p2p.h"
#include "report/p2p_table.h"
#include "report/report_json.h"
#include "report/summary.h"

namespace fabscope {

namespace {

Result<P2pOptions> build_p2p_options(const P2pCommand& cmd) {
  P2pOptions o;
  auto mode = p2p_mode_from_name(cmd.mode);
  if (!mode.ok()) return mode.status();
  o.mode = *mode;
  if (cmd.pair) {
    int a = -1, b = -1;
    char tail = 0;
    if (std::sscanf(cmd.pair->c_str(), "%d,%d%c", &a, &b, &tail) != 2) {
      return Status::Invalid(fmt::format("--pair '{}' is not two ranks like 0,5", *cmd.pair));
    }
    o.pattern = P2pPattern::kPair;
    o.pair = {a, b};
  } else {
    auto pattern = p2p_pattern_from_name(cmd.pattern);
    if (!pattern.ok()) return pattern.status();
    if (*pattern == P2pPattern::kPair) return Status::Invalid("--pattern pair needs --pair A,B");
    o.pattern = *pattern;
  }
  const bool latency = o.mode == P2pMode::kLatency;
  if (cmd.all_sizes && cmd.size) return Status::Invalid("give either -s SIZE or -a, not both");
  if (cmd.all_sizes) {
    o.sizes.clear();
    for (uint64_t s = 2; s <= (8u << 20); s *= 2) o.sizes.push_back(s);
  } else {
    auto size = parse_size(cmd.size.value_or(latency ? "2" : "64K"), "-s/--size");
    if (!size.ok()) return size.status();
    o.sizes = {*size};
  }
  o.iters = cmd.iters.value_or(1000);
  o.warmup_iters = cmd.warmup_iters;
  o.window = cmd.window;
  o.repeats = cmd.repeats;
  o.timeout_s = cmd.timeout_s;
  return o;
}

}  // namespace

CommandOutcome run_p2p_command(const P2pCommand& cmd, int* argc, char*** argv) {
  CommandOutcome out;
  auto options = build_p2p_options(cmd);
  auto job = start_job(
      argc, argv, [&](const RankContext& c) { return options.ok() ? validate(*options, c.size()) : options.status(); },
      cmd.backend, cmd.json_path, cmd.log_level);
  if (!job.ok()) {
    out.status = job.status();
    return out;
  }
  const RankContext& ctx = *job->ctx;
  const Logger& log = job->log;
  const BackendEntry* entry = job->backend;
  if (Status s = agree_or_report(ctx, check_backend_options(*entry, cmd.backend_options)); !s.ok()) {
    out.status = s;
    return out;
  }
  BackendOptions backend_options = cmd.backend_options;
  backend_options.timeout_s = cmd.timeout_s;
  auto transport = entry->create_transport(ctx, backend_options, log);
  if (Status s = agree_or_report(ctx, transport.ok() ? Status::Ok() : transport.status()); !s.ok()) {
    out.status = s;
    return out;
  }

  Report report;
  Memory* memory = (*transport)->memory();
  report.context =
      make_run_context(ctx, entry->name, (*transport)->library(), memory ? memory->kind() : "host", cmd.command_line);
  report.context.nccl_debug = nccl_debug_log(ctx, cmd.backend_options);
  Progress progress(ctx.rank() == 0 && Progress::wanted());
  auto section = run_p2p(ctx, **transport, *options, &progress, &report.counters);
  if (!section.ok()) {
    progress.clear();
    log.error("{}", section.status().message());
    ctx.abort(exit_code_for(section.status()));
  }
  section->backend = std::string(entry->name);
  report.p2p = std::move(*section);
  report.context.end_time = utc_timestamp();
  add_p2p_findings(report);
  add_counter_findings(report);
  decide_verdict(report);
  if (ctx.rank() == 0) {
    std::fputs((render_p2p(report) + render_summary(report)).c_str(), stdout);
    std::fflush(stdout);
    if (cmd.json_path) {
      out.status = save_report(report, *cmd.json_path);
      if (!out.status.ok()) print_error(out.status.message());
    }
  }
  return out;
}

}  // namespace fabscope
