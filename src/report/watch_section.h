// The report model's watch section (report/report.h holds the whole report): what
// `fabscope watch` read of a running job's snapshots, link by link over time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fabscope {

// One point of a link's series: an interval of the job (or, once a long watch has thinned
// its series, a run of consecutive intervals merged: `seq_first` to `seq_last`).
struct WatchPoint {
  uint64_t seq_first = 0, seq_last = 0;
  double start_s = 0, end_s = 0;  // from the communicator's first interval's start
  double wait_us_per_step = 0;    // the network's part per step (SendWait, RecvWait)
  uint64_t bytes = 0, steps = 0;
  bool slow = false;  // judged slow (against the median link and its own past) in any interval of it
};

// One rank's link to a peer in one direction, as its snapshots showed it.
struct WatchLink {
  std::string comm;  // the communicator's id ("0x...")
  int rank = -1, peer = -1;
  std::string direction;  // "send", "recv"
  std::string host, peer_host;
  std::string nic;  // the NIC(s) NCCL's log names for this rank's channels to the peer; "" without --nccl-log
  // Since the communicator began, at the last snapshot read (the plugin's totals).
  uint64_t bytes_total = 0, steps_total = 0;
  double network_wait_s_total = 0;
  // The last interval it moved in.
  double last_wait_us_per_step = 0;
  double last_bytes_per_s = 0;
  double median_wait_us_per_step = 0;  // over its points
  std::optional<uint64_t> slow_from;   // the interval nccl.link_wait named it in
  std::vector<WatchPoint> points;      // the plotted links' series; empty for the others
};

struct WatchSection {
  double interval_s = 0;         // the plugin's FABSCOPE_PROFILE_INTERVAL (the longest seen)
  uint64_t snapshots = 0;        // files read
  uint64_t intervals = 0;        // intervals judged, over every communicator
  int max_points = 0;            // a series is thinned (pairs merged) beyond this many points
  std::vector<WatchLink> links;  // slow ones first, then by median wait per step
};

}  // namespace fabscope
