// `fabscope watch`: a running job's snapshots from fabscope's NCCL profiler plugin
// (FABSCOPE_PROFILE_INTERVAL, docs/nccl-profiler.md), read as they appear and judged
// interval by interval: the links whose sends wait on the network most now, against the
// median link of the same interval and against the same link's own recent past;
// nccl.link_wait the interval a link turns slow; run.hang for a rank whose snapshots stop
// coming, or that moves nothing while the others do.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/status.h"
#include "diag/nccl_profile.h"
#include "report/finding.h"
#include "report/watch_section.h"

namespace fabscope {

// One peer and direction of a snapshot's interval: what it moved, and how long its steps
// waited on the network (SendWait for sends, RecvWait for receives), summed.
struct SnapshotLink {
  int peer = -1;
  bool send = true;
  uint64_t bytes = 0, steps = 0;
  uint64_t network_wait_ns = 0;
};

// A snapshot file's figures (fabscope-snapshot-*.json).
struct Snapshot {
  std::string file;
  std::string host;
  int pid = 0, rank = -1, nranks = 0;
  std::string comm;  // the communicator's id as written ("0x...")
  uint64_t seq = 0;
  double interval_s = 0;
  uint64_t start_ns = 0, end_ns = 0;
  std::vector<SnapshotLink> links;   // the interval's own figures
  std::vector<SnapshotLink> totals;  // since the communicator began (its bins, summed per peer and direction)
};

// Refused, naming the file and what is wrong: not JSON, not the plugin's, not a snapshot,
// a field missing or of the wrong kind.
Result<Snapshot> parse_snapshot(std::string_view text, const std::string& file);

struct WatchOptions {
  double slow_factor = 2.0;   // a link's wait per step over the median's (and over its own past)
  int past_intervals = 4;     // the link's own recent past: its last judged intervals
  int silent_intervals = 2;   // a rank this many intervals behind the others, and as long without a file
  double min_excess_us = 20;  // per step, beyond the median: below it no link is slow
  int max_points = 240;       // a link's series: beyond it, pairs of points merge (memory bounded)
  int plotted_links = 32;     // send links whose series the report keeps (the slow ones, then the highest)
};

// One judged interval of one communicator: its slowest sends.
struct WatchedLink {
  int rank = -1, peer = -1;
  std::string src_host, dst_host;
  std::string nic;  // the NIC(s) NCCL's log names for this rank's sends to the peer; "" without a log
  double wait_us_per_step = 0;
  double median_us = 0;           // the interval's median send link
  std::optional<double> past_us;  // the link's own recent past (median of its last intervals)
  bool slow = false;
};
struct WatchedInterval {
  std::string comm;
  uint64_t seq = 0;
  double start_s = 0, end_s = 0;  // from the communicator's first interval's start
  int ranks = 0;
  std::vector<WatchedLink> links;  // every send link, slowest first
};

class Watch {
 public:
  explicit Watch(WatchOptions o) : o_(o) {}
  // A snapshot seen at `now_s` (the watcher's clock). A repeat is ignored.
  Status add(const Snapshot& s, double now_s);
  // The communicators seen are one job (joined by shared processes), or an error naming a
  // file of each of two jobs.
  Status check_one_job() const;
  // The intervals every rank of the communicator that is not silent has reported (or that
  // the newest is `silent_intervals` past; with `flush`, every one), in order, each once;
  // the findings they raise (a link turning slow, a rank gone silent) are appended.
  std::vector<WatchedInterval> judge(double now_s, std::vector<Finding>& findings, bool flush = false);
  size_t snapshots() const { return seen_.size(); }
  // The longest snapshot interval seen (0 before any).
  double longest_interval_s() const;
  // The NICs of each rank's channels to each peer, from NCCL's logs (`--nccl-log`).
  void set_channel_nics(const std::vector<ChannelNic>& channels);
  // Every link seen, over the intervals judged so far: the report's watch section.
  WatchSection section() const;
  // The ranks of the job's largest communicator: (rank, host, pid), by rank.
  std::vector<std::tuple<int, std::string, int>> job_ranks() const;

 private:
  struct RankState {
    std::string host;
    int pid = 0;
    uint64_t latest = 0;
    double last_seen_s = 0;
    double interval_s = 0;
    bool silent = false;
  };
  struct Series {
    WatchLink link;
    uint64_t stride = 1;  // intervals per point: doubled each time the series is thinned
  };
  struct Comm {
    int nranks = 0;
    uint64_t origin_ns = 0;  // the first interval's start
    uint64_t judged = 0;     // intervals judged, 1..judged
    std::map<int, RankState> ranks;
    std::map<uint64_t, std::map<int, Snapshot>> pending;      // seq -> rank -> snapshot
    std::map<std::pair<int, int>, std::vector<double>> past;  // (rank, peer) -> wait per step, us
    std::set<std::pair<int, int>> raised;                     // links already named slow
    std::map<std::tuple<int, int, bool>, Series> series;      // (rank, peer, send) -> its series
  };
  void record(const std::string& id, Comm& c, const Snapshot& s, const WatchedInterval& iv);
  std::string nic_of(const Snapshot& s, int peer, bool send) const;
  WatchedInterval judge_interval(const std::string& id, Comm& c, uint64_t seq, std::vector<Finding>& findings);
  void find_silent(const std::string& id, Comm& c, double now_s, std::vector<Finding>& findings);

  WatchOptions o_;
  std::map<std::string, Comm> comms_;
  uint64_t intervals_ = 0;
  std::set<std::tuple<std::string, int, uint64_t>> seen_;  // (comm, rank, seq)
  std::map<std::string, std::string> first_file_;          // comm -> a file of it, to name
  // (host, pid, rank, peer, send) -> the NICs of its channels
  std::map<std::tuple<std::string, std::string, int, int, bool>, std::set<std::string>> nics_;
};

}  // namespace fabscope
