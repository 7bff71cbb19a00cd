#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "app/commands.h"
#include "app/run_context.h"
#include "backend/registry.h"
#include "coll/collective.h"
#include "comm/context.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "diag/findings.h"
#include "report/report_json.h"
#include "report/summary.h"
#include "report/table.h"
#include "sweep/sweep.h"

namespace fabscope {

namespace {

Result<SweepOptions> build_options(const SweepCommand& cmd) {
  SweepOptions o;
  if (cmd.collectives.empty()) {
    std::string allowed;
    for (const auto& c : all_collectives()) allowed += fmt::format("{} ", c.name);
    return Status::Invalid(fmt::format("name at least one collective to sweep; allowed: {}all", allowed));
  }
  for (const std::string& name : cmd.collectives) {
    if (name == "all") {
      for (const auto& c : all_collectives()) o.collectives.push_back(c.id);
      continue;
    }
    auto c = collective_from_name(name);
    if (!c.ok()) return c.status();
    o.collectives.push_back(*c);
  }
  auto b = parse_size(cmd.min_bytes, "-b/--minbytes");
  if (!b.ok()) return b.status();
  auto e = parse_size(cmd.max_bytes, "-e/--maxbytes");
  if (!e.ok()) return e.status();
  auto i = parse_size(cmd.step_bytes, "-i/--stepbytes");
  if (!i.ok()) return i.status();
  o.sizes = {*b, *e, *i, cmd.step_factor};
  auto types = parse_data_types(cmd.dtypes);
  if (!types.ok()) return types.status();
  o.dtypes = *types;
  auto ops = parse_reduce_ops(cmd.ops);
  if (!ops.ok()) return ops.status();
  o.ops = *ops;
  o.iters = cmd.iters;
  o.warmup_iters = cmd.warmup_iters;
  o.check_iters = cmd.check_iters;
  o.root = cmd.root;
  if (cmd.average < 0 || cmd.average > 3) {
    return Status::Invalid(fmt::format(
        "-a/--average {} is not allowed; use 0 (rank 0), 1 (mean over ranks), 2 (min) or 3 (max)", cmd.average));
  }
  o.average = static_cast<RankReduction>(cmd.average);
  o.seed = cmd.seed;
  o.timeout_s = cmd.timeout_s;
  o.graph_launches = cmd.graph_launches;
  o.blocking = cmd.blocking;
  return o;
}

// Prints the nccl-tests table on rank 0 as results arrive.
class TablePrinter final : public SweepObserver {
 public:
  explicit TablePrinter(std::FILE* out) : out_(out) {}
  void on_sweep_begin(const Sweep& s) override {
    if (s.collective != current_) {
      finish();
      current_ = s.collective;
      emit(render_group_start(current_));
    }
  }
  void on_point(const Sweep& s, const SweepPoint& p) override {
    emit(render_row(s, p));
    footer_.add(p);
  }
  void on_sweep_end(const Sweep&) override {}
  void finish() {
    if (current_.empty()) return;
    emit(footer_.render(current_));
    footer_ = TableFooter();
    current_.clear();
  }
  void emit(const std::string& text) {
    std::fputs(text.c_str(), out_);
    std::fflush(out_);
  }

 private:
  std::FILE* out_;
  std::string current_;
  TableFooter footer_;
};

}  // namespace

CommandOutcome run_sweep_command(const SweepCommand& cmd, int* argc, char*** argv) {
  CommandOutcome out;
  auto options = build_options(cmd);
  auto job = start_job(
      argc, argv, [&](const RankContext&) { return options.ok() ? Status::Ok() : options.status(); }, cmd.backend,
      cmd.json_path, cmd.log_level);
  if (!job.ok()) {
    out.status = job.status();
    return out;
  }
  const RankContext& ctx = *job->ctx;
  const Logger& log = job->log;
  auto fail = [&](const Status& s) {
    out.status = s;
    return out;
  };
  if (Status s = agree_or_report(ctx, check_backend_options(*job->backend, cmd.backend_options)); !s.ok()) {
    return fail(s);
  }
  BackendOptions backend_options = cmd.backend_options;
  backend_options.timeout_s = cmd.timeout_s;
  auto backend = job->backend->create(ctx, backend_options, log);
  if (Status s = agree_or_report(ctx, backend.ok() ? Status::Ok() : backend.status()); !s.ok()) return fail(s);
  Backend& b = **backend;
  auto plan = plan_sweeps(ctx, b, *options);
  if (!plan.ok()) {
    if (ctx.rank() == 0) print_error(plan.status().message());  // planning fails alike on every rank
    return fail(plan.status());
  }
  log.info("backend {} ({}), {} ranks on {} hosts", b.name(), b.library(), ctx.size(), ctx.ranks().size());

  Report report;
  report.context = make_run_context(ctx, b.name(), b.library(), b.memory().kind(), cmd.command_line);
  report.context.nccl_debug = nccl_debug_log(ctx, cmd.backend_options);
  const SweepOptions& o = *options;
  report.sweep_settings = SweepSettings{o.sizes.min_bytes,
                                        o.sizes.max_bytes,
                                        o.sizes.step_bytes,
                                        o.sizes.step_factor,
                                        o.iters,
                                        o.warmup_iters,
                                        o.check_iters,
                                        std::string(name(o.average)),
                                        o.seed,
                                        o.graph_launches,
                                        o.blocking};

  TablePrinter printer(stdout);
  if (ctx.rank() == 0) printer.emit(render_preamble(report));
  Progress progress(ctx.rank() == 0 && Progress::wanted());
  auto sweeps = run_sweeps(**plan, &printer, &progress, &report.counters);
  if (!sweeps.ok()) {
    // A failure in the middle of collectives: the other ranks may be waiting inside
    // one, so the whole job ends here.
    progress.clear();
    log.error("{}", sweeps.status().message());
    ctx.abort(exit_code_for(sweeps.status()));
  }
  printer.finish();
  report.sweeps = std::move(*sweeps);
  report.context.end_time = utc_timestamp();
  add_sweep_findings(report);
  decide_verdict(report);
  out.verdict_failed = report.verdict.result != "pass";

  if (ctx.rank() == 0) {
    printer.emit(render_summary(report));
    if (cmd.json_path) {
      out.status = save_report(report, *cmd.json_path);
      if (out.status.ok()) {
        log.info("report written to {}", *cmd.json_path);
      } else {
        print_error(out.status.message());
      }
    }
  }
  return out;
}

}  // namespace fabscope
