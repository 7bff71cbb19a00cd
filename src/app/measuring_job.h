// The skeleton every measuring command (sweep, p2p, diagnose) runs through, in order:
// start (MPI, the command's own checks, the backend's name and options, the outputs
// agreed usable), a backend or a transport every rank agreed on, the run context, the
// measuring (a failure there ends the whole job: the other ranks may be waiting inside a
// collective), the expectations' findings, and the finish (verdict, outputs, every rank
// exiting as rank 0 decided). A command adds only what it measures between.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "app/run_context.h"
#include "backend/backend.h"
#include "core/progress.h"
#include "diag/expectations.h"
#include "report/report.h"
#include "sweep/sweep.h"

namespace fabscope {

class MeasuringJob {
 public:
  // Starts the job; on failure rank 0 has printed why (start_job).
  static Result<std::unique_ptr<MeasuringJob>> start(int* argc, char*** argv,
                                                     const std::function<Status(const RankContext&)>& check_options,
                                                     const CommonOptions& common);

  const RankContext& ctx() const { return *start_.ctx; }
  const Logger& log() const { return start_.log; }
  const BackendEntry& backend_entry() const { return *start_.backend; }
  Reporter& out() { return *start_.out; }
  Progress& progress() { return progress_; }

  // Before measuring, a failure every rank meets alike (a plan, a validation, an agreed
  // number): rank 0 prints it; returned on every rank.
  Status alike(const Status& status) const;
  template <class T>
  Status alike(const Result<T>& r) const {
    return alike(r.ok() ? Status::Ok() : r.status());
  }
  // The backend or transport of the job's backend entry, agreed by every rank (any rank's
  // failure is every rank's, printed by rank 0).
  Result<std::unique_ptr<Backend>> create_backend(const BackendOptions& options) const;
  Result<std::unique_ptr<Transport>> create_transport(const BackendOptions& options) const;
  // The report's run context for what ran (make_run_context, with the nccl options).
  RunContext run_context(std::string_view backend, const std::string& library, std::string_view memory,
                         const CommonOptions& common) const;

  // While measuring: a failure ends the whole job with its exit code.
  void measured(const Status& status);
  template <class T>
  T measured(Result<T> r) {
    if (!r.ok()) measured(r.status());
    return std::move(*r);
  }

  // Over TCP: every rank's account of the kernel's idle restarts (Backend or Transport
  // tcp_idle_restarts; null on every rank for other backends), summed into the report's
  // context on rank 0. Collective: every rank calls it.
  void record_tcp_idle_restarts(Report& report, const std::optional<TcpIdleRestarts>& mine);

  // The end: the expectations' findings (rank 0 holds them), then finish_job.
  CommandOutcome finish(Report& report, const std::optional<Expectations>& expectations);

 private:
  explicit MeasuringJob(JobStart start);
  JobStart start_;
  Progress progress_;
};

// The report's record of a sweep's settings, by name.
SweepSettings sweep_settings(const SweepOptions& o);

}  // namespace fabscope
