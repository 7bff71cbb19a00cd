// The report model: everything a run measured, in one value that renderers read.
// It maps one-to-one onto the JSON document (schema/fabscope.report.schema.json);
// report/report_json.h lists its sections, each with its to_json and from_json.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/fabric_section.h"
#include "report/finding.h"
#include "report/topology_section.h"

namespace fabscope {

inline constexpr const char* kReportSchema = "fabscope.report/1";

struct ToolInfo {
  std::string name = "fabscope";
  std::string version;
  std::string git_id;
};

struct RankEntry {
  int rank = 0;
  std::string host;
  int pid = 0;
  int local_rank = 0;
  std::optional<uint64_t> peak_rss_bytes =
      std::nullopt;  // the process's peak resident set at the end (VmHWM); null: not read
};

// Where --nccl-debug-dir had NCCL log (each host writes its own ranks' files).
struct NcclDebugLog {
  std::string dir;
  std::string subsys;              // NCCL_DEBUG_SUBSYS: "INIT,NET,GRAPH"
  std::vector<std::string> files;  // one per rank, in rank order
};

// A report made by `fabscope import` from another tool's output: what it was read from.
// Such a report holds only what the files said; what they did not say is null.
struct ImportInfo {
  std::string tool;                    // "nccl-tests"
  std::optional<std::string> version;  // the tool's version where printed
  std::vector<std::string> files;      // as given on the command line
};

// A count or text an imported report may not know is 0 or "" here and null in the JSON
// (nranks, iterations, start_time, ...).
struct RunContext {
  ToolInfo tool;
  std::vector<std::string> command_line;
  std::string start_time;  // ISO 8601 UTC
  std::string end_time;
  std::string backend;                                      // "mpi"
  std::string backend_library;                              // "Open MPI v4.1.4"
  std::string memory;                                       // "host" or "cuda"
  std::map<std::string, std::optional<std::string>> build;  // optional libraries found at build time
  int nranks = 0;
  std::vector<std::string> hosts;  // distinct, in rank order
  std::vector<RankEntry> ranks;
  std::map<std::string, std::string> environment;  // NCCL_*, UCX_*, OMPI_*, CUDA_* only
  std::optional<NcclDebugLog> nccl_debug;          // --nccl-debug-dir
  // --share-gpus: ranks shared GPUs, each its own NCCL host id (backend_library says how many)
  bool gpus_shared = false;
  std::optional<ImportInfo> imported;  // `fabscope import`; null for measured runs
  // The memory per rank the run was admitted with (sweep, p2p; host or GPU as `memory`
  // says); null where not estimated.
  std::optional<uint64_t> memory_estimate_bytes;
};

struct SweepSettings {
  uint64_t min_bytes = 0;
  uint64_t max_bytes = 0;
  uint64_t step_bytes = 0;
  uint64_t step_factor = 1;
  int iters = 0;
  int warmup_iters = 0;
  int check_iters = 0;
  std::string average;           // how per-rank times become time_us: rank0, mean, min, max ("" unknown)
  std::optional<uint64_t> seed;  // null in imported reports
  int graph_launches = 0;        // -G: iterations captured in a CUDA graph, launched this many times
  // -z: 0 asynchronous, 1 wait+barrier, 2 wait, 3 wait+barrier (barrier not timed); null where not known
  std::optional<int> blocking = 0;
  // -S: the table's rows end with the time each was measured (UTC).
  bool report_timestamps = false;
};

struct TimeStats {
  double min_us = 0;
  double median_us = 0;
  double mean_us = 0;
  double max_us = 0;
  double p99_us = 0;
};

struct RankTiming {
  int rank = 0;
  double median_us = 0;
  double mean_us = 0;
  double min_us = 0;
  double max_us = 0;
};

// When each rank entered and left every timed iteration, on clocks synchronised to
// rank 0's (sweep --arrivals; host-timed backends): whose late entry the others waited
// for, and how the iteration's span splits into that wait and the transfer after it.
struct RankArrival {
  int rank = 0;
  double late_us = 0;     // median over iterations: its entry after the first rank's
  int last_count = 0;     // iterations it entered last, by more than twice the clock bound
  double held_us = 0;     // mean per iteration: its entry after the next-latest rank's, when it was last
  double held_share = 0;  // the time it alone held the others, over the iterations' summed span
  // Inside the iterations: the time its process did not run (stopped, frozen, starved)
  // beyond what the next-most-stalled rank lost, mean per iteration and over the summed span.
  double stalled_us = 0;
  double stalled_share = 0;
};
struct ArrivalSplit {
  double clock_bound_us = 0;  // the largest error of a rank's clock against rank 0's
  int iterations = 0;
  double span_us = 0;      // mean per iteration: the last exit after the first entry
  double skew_us = 0;      // mean: the last entry after the first (waiting for late ranks)
  double transfer_us = 0;  // mean: the last exit after the last entry (the fabric's part)
  std::vector<RankArrival> ranks;
};

struct PlacementResult {
  double time_us = 0;  // nccl-tests' figure: loop time / iterations, reduced over ranks
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::optional<int64_t> wrong;  // elements wrong, summed over ranks; null when not checked
  std::vector<int> wrong_ranks;  // ranks that saw wrong elements
  int iterations = 0;            // 0: unknown (imported)
  // Consecutive iterations each sample is the mean of: 1 but where per-iteration device
  // markers would cost the loop more than kDeviceMarkerShare (short iterations on a GPU),
  // and with -G the iterations of one graph launch.
  int iterations_per_sample = 1;
  std::optional<TimeStats> iteration_us;  // per sample: the slowest rank's time; null where not known
  // Every timed iteration's time of the slowest rank, in order: the samples `compare`
  // tests for noise. Empty in reports from before it existed and where not known.
  std::vector<double> samples_us;
  std::vector<RankTiming> per_rank;
  std::optional<ArrivalSplit> arrivals;  // sweep --arrivals only
  // time_us is within kNearFloorFactor times the sweep's floor_us: a large share of it
  // may be the timing loop's own cost, not the collective's. False where no floor is known.
  bool near_floor = false;
};

struct SweepPoint {
  uint64_t size_bytes = 0;
  uint64_t count = 0;
  std::optional<PlacementResult> out_of_place;
  std::optional<PlacementResult> in_place;
  std::string time;  // when it was measured (both placements done), ISO 8601 UTC; "" unknown
};

struct Sweep {
  std::string collective;
  std::string dtype;
  std::optional<std::string> op;  // null for collectives that do not reduce
  std::string backend;
  std::optional<int> root;  // null for rootless collectives
  int nranks = 0;
  double busbw_factor = 1;
  // What timed each iteration for the per-iteration statistics (time_us is always the
  // host clock over the whole loop, as nccl-tests): "host", "cuda_event", or
  // "cuda_graph_launch" (events around each graph launch, divided by its iterations).
  std::string iteration_clock = "host";
  // The library API the collective was issued as ("ncclAlltoAll", "ncclSend/ncclRecv
  // (grouped)"); null where the backend does not say (fabscope's own algorithms, MPI)
  // and in reports from before it existed.
  std::optional<std::string> api;
  // How the figures were taken (--method): "nccl-tests" (back-to-back loop over moving
  // buffer offsets, loop time / iterations) or "osu" (each call between barriers on a
  // fixed buffer, the mean of the calls' times).
  std::string method = "nccl-tests";
  // This run's per-iteration floor: the same timed loop, clock reads and barriers
  // around an operation that does nothing, in microseconds (reduced over ranks as
  // time_us). Null where not measured (imported reports, reports before it existed).
  std::optional<double> floor_us;
  std::vector<SweepPoint> points;
};

// A figure within this many times its floor is marked near_floor.
inline constexpr double kNearFloorFactor = 5;

// Latency over ping-pong iterations, half the round trip, as perftest reports it.
struct LatencyStats {
  double min_us = 0;
  double max_us = 0;
  double typical_us = 0;  // median
  double avg_us = 0;
  double stdev_us = 0;
  double p99_us = 0;
  double p999_us = 0;
};

struct P2pLink {
  int round = 0;
  int repeat = 0;  // which of --repeats measurements of this round
  int src_rank = 0;
  int dst_rank = 0;
  std::string src_host;
  std::string dst_host;
  uint64_t size_bytes = 0;
  int iterations = 0;
  std::optional<double> bw_gbps;       // average, decimal GB/s (bandwidth modes)
  std::optional<double> bw_peak_gbps;  // best window of consecutive messages
  std::optional<double> msg_rate_mpps;
  // One-way latency (latency mode) as the method quotes it: the median of per-message
  // half round trips (perftest's typical), or the loop's mean (osu).
  std::optional<double> lat_us;
  std::optional<LatencyStats> lat;
  // The time per message (latency: lat_us; bandwidth: 1 / message rate) is within
  // kNearFloorFactor times the section's floor_us.
  bool near_floor = false;
};

// A link's figure in its mode: median one-way latency in lat mode, else average bandwidth
// (0 where not measured).
inline double link_value(const P2pLink& l, bool latency) {
  return latency ? l.lat_us.value_or(0) : l.bw_gbps.value_or(0);
}

// How the link matrix covered the job's pairs of hosts (diagnose; p2p --schedule). The
// measured pairs are those in `links`; the others are inferred from their hosts'
// measured links (judge_link_coverage, diag/findings.h) or left unjudged.
struct LinkCoverage {
  std::string schedule;  // all, rail, sample
  int rounds = 0;
  int intra_leaf_rounds = 0;  // sample with a fabric description: rounds within leaves
  int adaptive_rounds = 0;    // suspects measured with more partners
  int hosts = 0;
  uint64_t host_pairs = 0;  // pairs of distinct hosts
  uint64_t measured_host_pairs = 0;
  uint64_t inferred_slow = 0;                 // not measured: a slow host (or its leaf's uplinks) at an end
  uint64_t inferred_healthy = 0;              // not measured: both hosts healthy on every link measured
  uint64_t unjudged = 0;                      // not measured: an end with a slow link that no host explains
  std::vector<std::string> unmeasured_hosts;  // hosts in no measured link
};

struct P2pSection {
  std::string pattern;  // ring, pairs, pair
  std::string mode;     // bw, bibw, lat
  std::string backend;
  int window = 0;  // messages in flight per flow (bandwidth modes)
  int warmup_iters = 0;
  int repeats = 1;  // each round measured this many times in a row
  // --method: "perftest" (per-message stamps; typical = median) or "osu" (osu_latency's
  // loop mean; osu_bw's window of 64).
  std::string method = "perftest";
  // This run's per-message floor, microseconds: the same loops and clock reads around a
  // transport that completes every message at once (latency: per half round trip;
  // bandwidth: per message). Null where not measured.
  std::optional<double> floor_us;
  std::vector<P2pLink> links;
  // --retest: the suspects among `links` (slow links) measured again, each with no
  // other flow running: slow alone too is the link; fast alone is congestion.
  std::vector<P2pLink> alone;
  std::optional<LinkCoverage> coverage;  // diagnose and p2p --schedule; null otherwise
};

// One interface's counter changes over a phase.
struct InterfaceDelta {
  std::string name;
  std::map<std::string, uint64_t> deltas;  // rx_bytes, tx_bytes, rx_packets, ... (sysfs names)
  // The driver's statistics that diag/nic_counters.h classifies (ethtool -S names); empty
  // where the driver reports none.
  std::map<std::string, uint64_t> ethtool;
};

// One RDMA port's counter changes over a phase: its counters/ and hw_counters/.
struct PortDelta {
  std::string device;  // mlx5_0
  int port = 1;
  std::map<std::string, uint64_t> counters;
};

// A host's interface and RDMA port counters around one phase, beside what fabscope's ranks on that
// host moved in it (payload bytes; null where the backend does not count them).
struct CounterSample {
  std::string host;
  std::string phase;
  double duration_s = 0;
  std::optional<uint64_t> fabscope_tx_bytes;
  std::optional<uint64_t> fabscope_rx_bytes;
  std::vector<InterfaceDelta> interfaces;
  std::vector<PortDelta> ports;  // RDMA ports; empty on hosts without
};

// `fabscope diagnose`: which phases ran, in how long, and what the noise phase saw.
struct PhaseTiming {
  std::string name;  // topology, collective, links, noise
  double seconds = 0;
};
// One collective at one size measured again and again (noise phase): nccl-tests'
// time of each run, the first being the collective phase's.
struct CollectiveRepeats {
  std::string collective;
  uint64_t size_bytes = 0;
  std::vector<double> time_us;
  double cv = 0;  // coefficient of variation of time_us
};
// One link measured under load more than once (the link matrix and its noise repeat).
struct LinkVariation {
  int src_rank = 0;
  int dst_rank = 0;
  std::string src_host;
  std::string dst_host;
  std::vector<double> bw_gbps;  // under load, per repeat
  double cv = 0;
  std::optional<double> impact;  // alone bandwidth / loaded median (p2p --retest); null where not retested
};
// A directed link's busy time per call of a collective, from the engine's per-step
// trace (diag/link_trace.h; tcp and verbs).
struct LinkBusy {
  std::string collective;
  int src_rank = 0;
  int dst_rank = 0;
  int messages = 0;  // traced messages matched on both ends
  double busy_us = 0;
};
struct Diagnosis {
  std::vector<std::string> phases;  // asked for, in the order they ran
  double budget_s = 0;
  std::vector<PhaseTiming> timings;
  uint64_t link_size_bytes = 0;  // the link matrix's message size (the collective's chunk)
  std::vector<CollectiveRepeats> collective_noise;
  std::vector<LinkVariation> link_noise;  // links with more than one loaded measurement
  int traced_calls = 0;                   // calls of each collective traced (engine backends)
  std::vector<LinkBusy> link_busy;        // from the trace, per collective and link
};

// Where one collective's excess time went (diag/attribution.h): each cause's share of
// the time beyond what the median link allows; the shares and `unexplained` add to 1.
struct AttributionEntry {
  std::string kind;  // link, host, rank, nic, noise, unexplained
  std::string subject;
  std::vector<std::string> hosts;
  std::vector<int> ranks;
  double share = 0;
  double excess_us = 0;
  nlohmann::ordered_json evidence = nlohmann::ordered_json::object();
};
struct Attribution {
  std::string collective;
  uint64_t size_bytes = 0;
  int nranks = 0;
  double measured_us = 0;                 // nccl-tests' time of the collective at this size
  double ideal_us = 0;                    // what the median link allows under `model`
  std::string model;                      // "ring: 2(n-1)/n * S / B"
  double link_rate_gbps = 0;              // B: the median link of the link matrix
  double excess_us = 0;                   // measured - ideal (0 when it ran at the link rate)
  std::string method;                     // how the links' part was found: link_matrix, engine_trace or nccl_profile
  std::vector<AttributionEntry> entries;  // largest share first; unexplained last
};

// A timed iteration far outside its point's robust spread (diag/stall.h): the
// sweep.stall finding's record. Its point's figures are left as measured.
struct StallEvent {
  std::string collective;
  std::string dtype;
  std::optional<std::string> op;
  uint64_t size_bytes = 0;
  std::string placement;  // out_of_place, in_place
  int cycle = 0;          // the run cycle (-N), from 0
  int iteration = 0;      // the timed iteration, from 0
  std::string time;       // when it started (rank 0's clock), ISO 8601 UTC
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
  std::string placement;  // out_of_place, in_place
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

// `fabscope compare`: a baseline report and a current one, judged row by row
// (report/compare.h).
struct ComparedRun {
  std::string path;
  std::string made_by;  // "fabscope 0.4.0 (git 1a2b3c4)" or "nccl-tests 2.17.1, imported by fabscope ..."
  std::string backend;
  std::string backend_library;
  int nranks = 0;  // 0: unknown
  std::vector<std::string> hosts;
  std::string start_time;  // "" unknown
  std::string verdict;     // the run's own verdict
};
// A setting the two runs differ in (ranks, hosts, backend, library, -z, -G, ...).
struct SettingDifference {
  std::string setting;
  std::string baseline;
  std::string current;
};
struct ComparisonRow {
  std::string section;     // sweep, p2p, attribution
  std::string subject;     // "allreduce float sum out-of-place", "link h0 -> h1 (rank 0 -> 1)", ...
  std::string collective;  // sweep and attribution rows; "" for p2p
  std::string placement;   // sweep rows: out_of_place, in_place
  uint64_t size_bytes = 0;
  std::string metric;  // time_us, busbw_gbps, bw_gbps, lat_us, share
  bool higher_is_better = false;
  std::optional<double> baseline;  // null where the row is in one run only
  std::optional<double> current;
  // Relative change (current - baseline) / baseline; for `share`, the difference in
  // points of the measured time. Positive is more of the metric.
  std::optional<double> change;
  // regression, improvement, within_noise, unchanged, missing_in_current, missing_in_baseline
  std::string verdict;
  // What decided it: mann_whitney_u (per-iteration samples of both runs), spread (each
  // run's iteration statistics), threshold (no spread in one run: the threshold alone),
  // none (in one run only).
  std::string test;
  std::optional<double> p_value;  // mann_whitney_u
  std::optional<double> noise;    // spread: the relative change the runs' spread allows
  int baseline_samples = 0;
  int current_samples = 0;
  std::string reason;  // one line: why this verdict
};
struct Comparison {
  ComparedRun baseline;
  ComparedRun current;
  double threshold = 0.05;  // relative change below which nothing moved
  double alpha = 0.05;      // the rank test's significance level
  std::string crossover;    // "auto" (each sweep's half-bandwidth size) or a size in bytes
  bool strict = false;
  std::vector<SettingDifference> differences;
  std::vector<ComparisonRow> rows;
};

// `fabscope triage`: each file it was given, what it was taken as.
struct TriageFile {
  std::string path;
  std::vector<std::string> kinds;  // nccl-log, nccl-tests, nvidia-smi-topo, ...; empty: not recognised
  uint64_t bytes = 0;
  int lines = 0;
  std::string note;  // why it was skipped or only partly read; "" when read whole
};
struct TriageSection {
  std::vector<TriageFile> files;
  // The answer: the code and subject of the finding most likely the cause (the first
  // finding); "" when nothing was found.
  std::string answer_code;
  std::string answer_subject;
};

struct Verdict {
  std::string result = "pass";  // pass, fail, or inconclusive (nothing failed, but `missing` is not empty)
  std::vector<std::string> failed_codes;
  // The hosts the error findings implicate, sorted, and as a Slurm hostlist expression.
  std::vector<std::string> drain;
  std::string drain_hostlist;
  // What a judgement needs and the inputs lack ("no `NET/IB : Using` line: cannot tell
  // which NIC NET/IB/1 is"); set before decide_verdict.
  std::vector<std::string> missing;
  // What this run's shape left unjudged, and why ("links: ... needs 2 or more ranks; this
  // job has 1"), one sentence each: diagnose on one rank. Unlike `missing`, it leaves
  // the verdict pass or fail.
  std::vector<std::string> not_judged;
};

// NCCL's profiler plugin (libnccl-profiler-fabscope.so, src/nccl_profiler): how long each
// rank's proxy steps (one network transfer of one channel) waited in each state, per
// collective and size, joined with NCCL's log (which NIC carries which channel). Made by
// sweep/diagnose --nccl-profile (nccl backend) and diagnose --import-profile DIR.
inline constexpr int kProfileStates = 6;
// The step states in the order of ProfileLink's arrays: the GPU filling a send buffer, the
// receiver's credit, the network completing a send, the data arriving, the flush to GPU
// memory, the GPU consuming what arrived.
inline constexpr std::string_view kProfileStateNames[kProfileStates] = {"SendGPUWait", "SendPeerWait",  "SendWait",
                                                                        "RecvWait",    "RecvFlushWait", "RecvGPUWait"};
// One rank's traffic with one peer in one direction over one NIC, over the channels that
// use it and every call profiled. Its wait is wall-clock time: the length of the union of
// the intervals its steps and channels spent in a state (steps in flight together count
// once), so that per call it is never more than a call took.
struct ProfileLink {
  int rank = 0;
  int peer = 0;
  std::string direction;  // send | recv
  std::string nic;        // NCCL's log: the NIC of these channels ("NET/IB/1" -> mlx5_1); "" unknown
  int channels = 0;
  uint64_t ops = 0;         // proxy operations: one per call and channel
  uint64_t steps = 0;       // network transfers started
  uint64_t open_steps = 0;  // started and never completed (a transfer that hung)
  uint64_t bytes = 0;
  std::vector<double> wait_us = std::vector<double>(kProfileStates, 0.0);  // per state, wall-clock (JSON wall_us)
  std::vector<double> max_us = std::vector<double>(kProfileStates, 0.0);   // the longest single step per state
  // Calls profiled: operations per channel.
  double calls() const { return channels > 0 ? static_cast<double>(ops) / channels : 0; }
  // The network's part: SendWait for a send (posted until complete), RecvWait for a
  // receive (posted until the data arrived), wall-clock per call.
  double network_us_per_call() const;
};
struct ProfilePoint {
  std::string comm;         // the communicator: its name, or its id
  std::string collective;   // fabscope's name where NCCL's maps to one (allreduce), else NCCL's (Send)
  std::string func;         // NCCL's (AllReduce)
  std::string datatype;     // NCCL's (ncclFloat32)
  uint64_t count = 0;       // NCCL's count
  uint64_t size_bytes = 0;  // nccl-tests' size for it; 0 when the datatype is unknown
  std::string algo;
  std::string proto;
  uint64_t calls = 0;  // the most any rank profiled
  std::vector<ProfileLink> links;
};
struct ProfileSource {
  std::string comm;  // as ProfilePoint's
  int rank = 0;
  std::string host;
  int pid = 0;
  int api = 0;  // the plugin API version NCCL loaded (4: NCCL 2.27; 5: 2.28 and later)
  std::string file;
  bool complete = true;  // false: written at process exit, the communicator never destroyed
  uint64_t dropped_events = 0;
};
struct NcclProfileSection {
  std::string status;  // collected | no profiler data
  std::string detail;  // why there is none, or what is known about it
  std::vector<ProfileSource> ranks;
  std::vector<ProfilePoint> points;
};

struct Report {
  std::string schema = kReportSchema;
  RunContext context;
  std::optional<SweepSettings> sweep_settings;
  std::vector<Sweep> sweeps;
  std::optional<P2pSection> p2p;
  std::vector<CounterSample> counters;
  std::optional<TopologySection> topology;         // `fabscope topo`; null when not run
  std::optional<Diagnosis> diagnosis;              // `fabscope diagnose`; null for other commands
  std::vector<Attribution> attribution;            // diagnose: one per collective, at its largest size
  std::optional<Comparison> comparison;            // `fabscope compare`; null for other commands
  std::optional<TriageSection> triage;             // `fabscope triage`; null for other commands
  std::optional<NcclProfileSection> nccl_profile;  // --nccl-profile, --import-profile; null otherwise
  std::optional<FabricDescription> fabric;         // --fabric (Slurm's topology.conf); null otherwise
  std::optional<Timeline> timeline;                // sweep: cycles, stalls, link events; null otherwise
  std::vector<Finding> findings;
  Verdict verdict;
};

// The verdict the findings decide: fail when any finding is an error, naming their codes
// and the hosts they implicate (the drain list).
void decide_verdict(Report& report);

}  // namespace fabscope
