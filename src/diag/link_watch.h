// Link flaps during long runs (soaks). One rank per host runs a LinkWatch: it reads the
// state of every network interface and RDMA port once at the start, then a thread samples
// them about 10 times a second until stop(), recording each down/up edge with its
// wall-clock time and the time each link spent down. A flap shorter than the period shows
// only as a rise of the link's down counter (carrier_down_count, link_downed) between two
// samples; it is recorded as an inferred down/up pair of zero duration.
// Each sample reads a few small sysfs files per link (open/read/close), nothing more: the
// links and the paths of their files are fixed at the start.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fabscope {

// Where the links are read (tests point these at a temporary tree).
struct LinkSources {
  std::string net = "/sys/class/net";
  std::string infiniband = "/sys/class/infiniband";
};

// One link's state at one moment: a network interface ("eth0") or an RDMA port ("mlx5_0/1").
// - interfaces: up when `carrier` reads 1 (it fails with EINVAL while the interface is
//   administratively down: down); without a `carrier` file, when `operstate` is "up" or
//   "unknown". Counters: carrier_changes, carrier_up_count, carrier_down_count (kernel 4.16+).
// - RDMA ports: up when ports/<n>/state is 4 ("4: ACTIVE"). Counters from ports/<n>/counters:
//   link_downed, link_error_recovery, symbol_error, port_rcv_errors.
struct LinkState {
  std::string link;
  bool rdma = false;
  bool up = false;
  std::map<std::string, uint64_t> counters;  // only the files present
};
// Every interface under `sources.net` except "lo", and every port under
// `sources.infiniband`/*/ports/*, in name order. A directory that does not exist has no links.
std::vector<LinkState> read_link_states(const LinkSources& sources);

struct LinkEdge {
  int64_t utc_ns = 0;     // when the sample saw it: system_clock, ns since the Unix epoch
  bool up = false;        // the link's new state
  bool inferred = false;  // seen only as a rise of the down counter between two samples
};

// One link over a watch.
struct LinkHistory {
  std::string link;
  bool rdma = false;
  bool up_at_start = false, up_at_end = false;  // up_at_end: at the last sample
  int flaps = 0;                                // down edges, inferred ones included
  double downtime_s = 0;        // summed down intervals (steady clock); one still open counts up to the last sample
  std::vector<LinkEdge> edges;  // the first kMaxEdges edges; `edges_dropped` counts the rest
  size_t edges_dropped = 0;
  // Rise of each counter present at the start, summed over consecutive samples where it
  // was read: end - start for a counter that only grows; a step back (a reset) adds 0, so
  // what it counts after a reset is still counted. A link that went away keeps its last
  // values.
  std::map<std::string, uint64_t> counter_deltas;
};
inline constexpr size_t kMaxEdges = 256;

class LinkWatch {
 public:
  // Reads every link once (the start), then a thread samples every period_s until stop().
  // Links that appear later are ignored; one that goes away is down from then on.
  explicit LinkWatch(LinkSources sources = {}, double period_s = 0.1);
  ~LinkWatch();  // stops
  LinkWatch(const LinkWatch&) = delete;
  LinkWatch& operator=(const LinkWatch&) = delete;

  // Stops the thread and takes a last sample; idempotent, and safe from several threads.
  void stop();
  // A copy of every link seen at the start, in name order; callable while running.
  std::vector<LinkHistory> histories() const;
  // One sample now, from the calling thread, as the thread takes every period (for tests).
  // Does nothing after stop().
  void sample_now();

 private:
  // Per link: the files a sample reads, what the previous sample saw, the history so far.
  struct Watched;  // link_watch.cpp
  void run();
  void sample_locked();  // mu_ held

  const double period_s_;
  mutable std::mutex mu_;  // guards everything below but thread_
  std::condition_variable wake_;
  bool stopping_ = false;  // the thread is to exit
  bool stopped_ = false;   // the last sample is taken: histories are final
  std::vector<Watched> links_;
  int64_t last_sample_ns_ = 0;  // steady clock
  std::once_flag stop_once_;
  std::thread thread_;
};

}  // namespace fabscope
