// `fabscope watch DIR...`: a running job's snapshots (FABSCOPE_PROFILE_INTERVAL, written
// by fabscope's NCCL profiler plugin) read as they appear, each interval judged as every
// rank's snapshot of it is in (diag/watch.h): a line per interval with its slowest links,
// nccl.link_wait the interval a link turns slow, run.hang for a rank whose snapshots stop.
// Ends on SIGINT/SIGTERM, --duration, or with --once after reading what is there, with the
// report (findings and verdict) written as every command writes it. Exit 0 or 1 by the
// verdict, 2 on bad input (with --once, a file that is not a snapshot; live, such a file
// is skipped and counted, as it may be one being copied in). --nccl-log files and
// directories are read again as they grow: a watch started before its job finds the
// job's logs, and their channel lines, once NCCL writes them.
#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "app/command.h"
#include "app/run_context.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/stop_signal.h"
#include "diag/watch.h"
#include "topo/readers.h"

namespace fabscope {

namespace {

class WatchCommand final : public Command {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("dirs", dirs_,
                   "Where the job's ranks write their snapshots (FABSCOPE_PROFILE_DIR with FABSCOPE_PROFILE_INTERVAL "
                   "set): a shared directory, or each node's gathered")
        ->required();
    app.add_option("--interval", poll_s_, "Seconds between looks at the directories (default 1)");
    app.add_option("--duration", duration_s_, "End after this many seconds (default: at SIGINT or SIGTERM)");
    app.add_flag("--once", once_, "Read the snapshots there now, judge them, and end");
    app.add_option("--nccl-log", nccl_logs_,
                   "The job's NCCL_DEBUG=INFO log(s), files or directories: the NIC of each rank's channels, named "
                   "with a slow link");
    app.add_option("--slow-factor", slow_factor_,
                   "A link is slow whose sends wait this many times the median link's per step, and its own recent "
                   "past's (default 2)");
  }

  CommandOutcome run(const CommonOptions& common, int*, char***) override {
    if (Status s = check_options(); !s.ok()) return fail(s);
    auto out = make_reporters(common.output_files(), stdout);
    if (Status s = out->preflight(); !s.ok()) return fail(s);
    install_stop_signals();
    WatchOptions o;
    o.slow_factor = slow_factor_;
    Watch watch(o);
    Report report;
    report.context = make_local_run_context(common.command_line);
    report.context.backend = "nccl";
    report.context.memory = "none";
    const double t0 = steady_now_s();
    std::string ended;
    for (;;) {
      if (Status s = read_nccl_logs(watch); !s.ok()) return fail(s);
      if (Status s = look(watch, steady_now_s() - t0); !s.ok()) return fail(s);
      // Two jobs in one directory: judged on what is there (--once), or once every
      // communicator of the job has had two intervals to write its first snapshot.
      if (once_ || steady_now_s() - t0 >= 2 * watch.longest_interval_s()) {
        if (Status s = watch.check_one_job(); !s.ok()) return fail(s);
      }
      if (stop_signal() != 0) {
        ended = stop_signal_name(stop_signal());
      } else if (duration_s_ > 0 && steady_now_s() - t0 >= duration_s_) {
        ended = fmt::format("--duration {:g}", duration_s_);
      }
      const bool last = once_ || !ended.empty();  // at the end, every interval read is judged
      for (const WatchedInterval& iv : watch.judge(steady_now_s() - t0, report.findings, last)) print_interval(iv);
      if (last) break;
      std::this_thread::sleep_for(std::chrono::duration<double>(poll_s_));
    }
    if (watch.snapshots() == 0) {
      report.verdict.missing.push_back(fmt::format(
          "no snapshot in {}: run the job with NCCL_PROFILER_PLUGIN (fabscope's plugin), FABSCOPE_PROFILE_DIR and "
          "FABSCOPE_PROFILE_INTERVAL set",
          fmt::join(dirs_, ", ")));
    }
    for (const std::string& d : nccl_logs_) {
      if (std::filesystem::is_directory(d) && !log_dirs_seen_.contains(d)) {
        report.verdict.not_judged.push_back(
            fmt::format("the NICs of the links: --nccl-log {}: no *.log file appeared there while watching", d));
      }
    }
    for (const auto& [file, problem] : log_problems_) {
      report.verdict.not_judged.push_back(fmt::format("the NICs of the links: {}", problem));
    }
    if (!skipped_.empty()) {
      report.verdict.not_judged.push_back(
          fmt::format("files skipped, not snapshots: {} (e.g. {})", skipped_.size(), *skipped_.begin()));
    }
    report.watch = watch.section();
    // The job's ranks and hosts (its largest communicator), not this process's.
    if (auto ranks = watch.job_ranks(); !ranks.empty()) {
      report.context.ranks.clear();
      report.context.hosts.clear();
      for (const auto& [rank, host, pid] : ranks) {
        report.context.ranks.push_back({rank, host, pid, 0});
        if (std::find(report.context.hosts.begin(), report.context.hosts.end(), host) == report.context.hosts.end()) {
          report.context.hosts.push_back(host);
        }
      }
      report.context.nranks = static_cast<int>(ranks.size());
    }
    fmt::print("# watch: {} snapshots read, ended by {}\n", watch.snapshots(), ended.empty() ? "--once" : ended);
    return finish_report(*out, report);
  }

 private:
  Status check_options() const {
    if (!(poll_s_ >= 0.05 && poll_s_ <= 3600)) {
      return Status::Invalid(fmt::format("--interval {}: give 0.05 to 3600 seconds between looks", poll_s_));
    }
    if (!(duration_s_ >= 0 && duration_s_ <= 30 * 86400.0)) {
      return Status::Invalid(fmt::format("--duration {}: give 0 (until a signal) to 2592000 seconds", duration_s_));
    }
    if (!(slow_factor_ > 1 && slow_factor_ <= 1000)) {
      return Status::Invalid(fmt::format("--slow-factor {}: give a factor above 1 (at most 1000)", slow_factor_));
    }
    for (const std::string& d : dirs_) {
      struct stat st {};
      if (::stat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        return Status::Invalid(
            fmt::format("'{}' is not a directory: give the directories the job's "
                        "FABSCOPE_PROFILE_DIR names",
                        d));
      }
    }
    // A log directory may be empty (the job not started yet); a path that is not there is a mistake.
    for (const std::string& l : nccl_logs_) {
      struct stat st {};
      if (::stat(l.c_str(), &st) != 0) {
        return Status::Invalid(
            fmt::format("--nccl-log {}: {}: give the job's NCCL_DEBUG=INFO log files or their "
                        "directory (NCCL_DEBUG_FILE's)",
                        l, std::strerror(errno)));
      }
    }
    return Status::Ok();
  }

  // The --nccl-log files (a directory's *.log) that are new or have grown since the last
  // look, read again whole: their channel lines name each link's NIC. NCCL writes them at
  // a communicator's start.
  Status read_nccl_logs(Watch& watch) {
    for (const std::string& path : nccl_logs_) {
      auto files = topo::nccl_log_files(path);
      if (!files.ok()) return files.status();
      if (!files->empty() && std::filesystem::is_directory(path)) log_dirs_seen_.insert(path);
      for (const std::string& f : *files) {
        struct stat st {};
        if (::stat(f.c_str(), &st) != 0) continue;  // removed since listed
        auto [at, fresh] = logs_.try_emplace(f);
        LogRead& r = at->second;
        const double now = steady_now_s();
        // Grown: read at once until it names a channel, then every 10 s (a later
        // communicator's lines) at most, so that a busy log is not read whole each look.
        if (!fresh && (r.size == static_cast<int64_t>(st.st_size) || (r.channels && now - r.at_s < 10))) continue;
        r.size = static_cast<int64_t>(st.st_size);
        r.at_s = now;
        auto text = read_file(f);
        if (!text.ok()) return text.status();
        auto channels = topo::nccl_log_channels(*text, f);
        if (!channels.ok()) {  // live, a log may not have its first INFO line yet
          if (once_) return channels.status();
          log_problems_[f] = channels.status().message();
          continue;
        }
        log_problems_.erase(f);
        r.channels = r.channels || !channels->empty();
        watch.set_channel_nics(*channels);
      }
    }
    return Status::Ok();
  }

  // New snapshot files of every directory, oldest sequence first within a rank.
  Status look(Watch& watch, double now_s) {
    std::vector<std::string> fresh;
    for (const std::string& d : dirs_) {
      DIR* dir = ::opendir(d.c_str());
      if (dir == nullptr) return Status::Invalid(fmt::format("'{}': {}", d, std::strerror(errno)));
      while (dirent* e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (!name.starts_with(kSnapshotPrefix) || !name.ends_with(".json")) continue;
        const std::string path = d + "/" + name;
        if (!read_.count(path) && !skipped_.count(path)) fresh.push_back(path);
      }
      ::closedir(dir);
    }
    std::sort(fresh.begin(), fresh.end());  // -sSEQ zero-padded: in order per rank
    for (const std::string& path : fresh) {
      auto text = read_file(path);
      if (!text.ok()) continue;  // removed since listed (the plugin keeps the last few)
      auto snap = parse_snapshot(*text, path);
      if (!snap.ok()) {
        if (once_) return snap.status();
        skipped_.insert(path);
        continue;
      }
      read_.insert(path);
      FABSCOPE_RETURN_IF_ERROR(watch.add(*snap, now_s));
    }
    return Status::Ok();
  }

  static void print_interval(const WatchedInterval& iv) {
    std::string top;
    for (size_t i = 0; i < iv.links.size() && i < 3; ++i) {
      const WatchedLink& l = iv.links[i];
      top += fmt::format("{}{} -> {}{} {:.0f} us ({:.1f}x median{}){}", i ? "; " : "", l.rank, l.peer,
                         l.nic.empty() ? "" : " (" + l.nic + ")", l.wait_us_per_step,
                         l.median_us > 0 ? l.wait_us_per_step / l.median_us : 0.0,
                         l.past_us ? fmt::format(", {:.1f}x its past", l.wait_us_per_step / *l.past_us) : "",
                         l.slow ? " SLOW" : "");
    }
    fmt::print("# comm {} interval {} ({:.1f}-{:.1f} s, {} ranks): network wait per step, slowest sends: {}\n", iv.comm,
               iv.seq, iv.start_s, iv.end_s, iv.ranks, top.empty() ? "none moved" : top);
    std::fflush(stdout);
  }

  static CommandOutcome fail(const Status& s) {
    print_error(s.message());
    return {s};
  }

  std::vector<std::string> dirs_;
  std::vector<std::string> nccl_logs_;
  double poll_s_ = 1;
  double duration_s_ = 0;
  bool once_ = false;
  double slow_factor_ = 2;
  std::set<std::string> read_, skipped_;
  struct LogRead {
    int64_t size = -1;
    double at_s = 0;        // when last read
    bool channels = false;  // has named a channel's NIC
  };
  std::map<std::string, LogRead> logs_;
  std::set<std::string> log_dirs_seen_;              // --nccl-log directories where a *.log appeared
  std::map<std::string, std::string> log_problems_;  // a log read without channel lines, and why
};

}  // namespace

std::unique_ptr<Command> make_watch_command() { return std::make_unique<WatchCommand>(); }

}  // namespace fabscope
