// The report model's p2p section (report/report.h holds the whole report).
// Point-to-point: each link's bandwidth or latency, and which pairs the schedule covered.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/method.h"
#include "core/p2p_kinds.h"

namespace fabscope {

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
  LinkSchedule schedule = LinkSchedule::kAll;
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
  P2pPattern pattern = P2pPattern::kRing;
  P2pMode mode = P2pMode::kBandwidth;
  std::string backend;
  int window = 0;  // messages in flight per flow (bandwidth modes)
  int warmup_iters = 0;
  int repeats = 1;  // each round measured this many times in a row
  // --method: "perftest" (per-message stamps; typical = median) or "osu" (osu_latency's
  // loop mean; osu_bw's window of 64).
  TimingMethod method = TimingMethod::kPerftest;
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

}  // namespace fabscope
