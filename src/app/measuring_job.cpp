#include "app/measuring_job.h"

#include <iterator>
#include <span>

namespace fabscope {

MeasuringJob::MeasuringJob(JobStart start)
    : start_(std::move(start)), progress_(start_.ctx->rank() == 0 && Progress::wanted()) {}

Result<std::unique_ptr<MeasuringJob>> MeasuringJob::start(
    int* argc, char*** argv, const std::function<Status(const RankContext&)>& check_options,
    const CommonOptions& common) {
  auto started = start_job(argc, argv, check_options, common.backend, common);
  if (!started.ok()) return started.status();
  return std::unique_ptr<MeasuringJob>(new MeasuringJob(std::move(*started)));
}

Status MeasuringJob::alike(const Status& status) const {
  if (!status.ok() && ctx().rank() == 0) print_error(status.message());
  return status;
}

Result<std::unique_ptr<Backend>> MeasuringJob::create_backend(const BackendOptions& options) const {
  auto created = backend_entry().create(ctx(), options, log());
  FABSCOPE_RETURN_IF_ERROR(agree_or_report(ctx(), created.ok() ? Status::Ok() : created.status()));
  return created;
}

Result<std::unique_ptr<Transport>> MeasuringJob::create_transport(const BackendOptions& options) const {
  auto created = backend_entry().create_transport(ctx(), options, log());
  FABSCOPE_RETURN_IF_ERROR(agree_or_report(ctx(), created.ok() ? Status::Ok() : created.status()));
  return created;
}

RunContext MeasuringJob::run_context(std::string_view backend, const std::string& library, std::string_view memory,
                                     const CommonOptions& common) const {
  RunContext context = make_run_context(ctx(), backend, library, memory, common.command_line);
  record_nccl_options(context, ctx(), common.backend_options);
  return context;
}

void MeasuringJob::measured(const Status& status) {
  if (!status.ok()) end_job_on_failure(start_, progress_, status);
}

void MeasuringJob::record_tcp_idle_restarts(Report& report, const std::optional<TcpIdleRestarts>& mine) {
  if (!mine) return;  // alike on every rank: the same backend
  const TcpIdleRestarts& m = *mine;
  const double values[] = {m.watched ? 1.0 : 0.0,
                           static_cast<double>(m.idle_sends),
                           static_cast<double>(m.restarts),
                           m.cwnd_before,
                           m.cwnd_after,
                           m.cost_us,
                           m.busy_us};
  constexpr size_t kValues = std::size(values);
  auto all = measured(ctx().gather(std::span<const double>(values, kValues)));
  if (ctx().rank() != 0) return;
  TcpIdleRestarts sum;
  for (size_t r = 0; r + kValues <= all.size(); r += kValues) {
    TcpIdleRestarts rank;
    rank.watched = all[r] > 0;
    rank.idle_sends = static_cast<uint64_t>(all[r + 1]);
    rank.restarts = static_cast<uint64_t>(all[r + 2]);
    rank.cwnd_before = all[r + 3];
    rank.cwnd_after = all[r + 4];
    rank.cost_us = all[r + 5];
    rank.busy_us = all[r + 6];
    sum += rank;
  }
  TcpIdleRestartSummary s;
  s.watched = sum.watched;
  s.idle_sends = sum.idle_sends;
  s.restarts = sum.restarts;
  s.estimated_cost_s = sum.cost_us / 1e6;
  s.busy_s = sum.busy_us / 1e6;
  if (sum.restarts > 0) {
    s.cwnd_before_segments = sum.cwnd_before / static_cast<double>(sum.restarts);
    s.cwnd_after_segments = sum.cwnd_after / static_cast<double>(sum.restarts);
  }
  report.context.tcp_idle_restarts = s;
}

CommandOutcome MeasuringJob::finish(Report& report, const std::optional<Expectations>& expectations) {
  progress_.clear();
  if (expectations) add_expectation_findings(report, *expectations);
  return finish_job(start_, report);
}

SweepSettings sweep_settings(const SweepOptions& o) {
  SweepSettings s;
  s.min_bytes = o.sizes.min_bytes;
  s.max_bytes = o.sizes.max_bytes;
  s.step_bytes = o.sizes.step_bytes;
  s.step_factor = o.sizes.step_factor;
  s.iters = o.iters;
  s.warmup_iters = o.warmup_iters;
  s.check_iters = o.check_iters;
  s.average = std::string(name(o.average));
  s.seed = o.seed;
  s.graph_launches = o.graph_launches;
  s.blocking = o.blocking;
  return s;
}

}  // namespace fabscope
