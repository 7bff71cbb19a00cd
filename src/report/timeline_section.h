// The report model's timeline section (report/report.h holds the whole report).
// A long sweep's timeline: cycles or intervals, stalls, and link events.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/counters_section.h"
#include "report/sweep_section.h"

namespace fabscope {

// A timed iteration far outside its point's robust spread (diag/stall.h): the
// sweep.stall finding's record. Its point's figures are left as measured.
struct StallEvent {
  std::string collective;
  std::string dtype;
  std::optional<std::string> op;
  uint64_t size_bytes = 0;
  Placement placement = Placement::kOutOfPlace;
  int cycle = 0;      // the run cycle (-N), from 0
  int iteration = 0;  // the timed iteration, from 0
  std::string time;   // when it started (rank 0's clock), ISO 8601 UTC
  double start_unix_s = 0;
  double duration_us = 0;   // the slowest rank's time of that iteration
  double median_us = 0;     // the point's median iteration in that cycle
  double threshold_us = 0;  // the rule's bound for that point
  // Ranks whose own time of that iteration was under half the slowest rank's: they
  // entered late and the others waited for them. Empty: every rank waited alike.
  std::vector<int> late_ranks;
  // What the ranks said they waited on while it lasted (their heartbeat carries the
  // message of fabscope's engine open longest, once open a quarter second): "rank 3 (h3)
  // waited for a 256 KiB receive from rank 2 (h2), open 2.9 s, over tcp ...". Empty over
  // backends whose messages fabscope does not post (mpi, nccl) or a stall too short.
  std::vector<std::string> waits;
};

// One link's state over the run, as the host's link watch saw it (diag/link_watch.h):
// its down and up edges at about 10 Hz, and its link counters' changes.
struct LinkEdgeRecord {
  std::string time;  // ISO 8601 UTC
  double unix_s = 0;
  bool up = false;
  bool inferred = false;  // seen only as a counter step between two samples (down and up within a period)
};
struct LinkRecord {
  std::string host;
  std::string link;  // interface (eth0) or RDMA port (mlx5_0/1)
  bool rdma = false;
  bool up_at_start = false;
  bool up_at_end = false;
  int flaps = 0;  // down edges
  double downtime_s = 0;
  std::vector<LinkEdgeRecord> edges;
  uint64_t edges_dropped = 0;
  std::map<std::string, uint64_t> counter_deltas;  // carrier_changes, link_downed, ...
};

// A long run's figures interval by interval (a cycle, or the cycles of a period), so no
// hiccup hides in a whole run's average.
struct TimelinePoint {
  std::string collective;
  std::string dtype;
  std::optional<std::string> op;
  uint64_t size_bytes = 0;
  Placement placement = Placement::kOutOfPlace;
  int iterations = 0;
  double time_us = 0;  // nccl-tests' figure over the interval: its loops' time / iterations
  double busbw_gbps = 0;
  double median_us = 0;  // of the interval's iterations (the slowest rank's time each)
  double p99_us = 0;
  double max_us = 0;
  int stalls = 0;
};
struct TimelineInterval {
  int index = 0;
  int first_cycle = 0;
  int cycles = 0;
  std::string start;  // ISO 8601 UTC
  std::string end;
  double seconds = 0;
  std::vector<TimelinePoint> points;
  // Each host's interface and RDMA port counters over the interval (carrier_changes
  // and the ports' link_downed among them): phase "interval N".
  std::vector<CounterSample> hosts;
};
struct Timeline {
  int run_cycles = 1;                // -N; 0: until stopped
  std::optional<double> duration_s;  // --duration
  double interval_s = 0;             // an interval closes at the first cycle end this long after it opened
  int cycles_completed = 0;          // every point of the cycle measured
  std::string ended_by = "cycles";   // cycles, duration, signal SIGINT|SIGTERM, watchdog, running
  std::string hang;                  // the watchdog's message where it ended the run (run.hang)
  double max_downtime_s = 0;         // --max-downtime: a link's downtime beyond it fails the run
  std::optional<int> max_stalls;     // --max-stalls: stalls beyond it fail the run; null: no limit
  bool links_watched = false;        // a link watch ran on every host
  std::vector<TimelineInterval> intervals;
  std::vector<StallEvent> stalls;  // at most kMaxStallEvents kept, the first ones
  uint64_t stalls_dropped = 0;
  std::vector<LinkRecord> links;  // every host's links
};
inline constexpr size_t kMaxStallEvents = 200;

}  // namespace fabscope
