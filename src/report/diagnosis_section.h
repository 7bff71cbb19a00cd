// The report model's diagnosis section (report/report.h holds the whole report).
// `fabscope diagnose`: its phases, the noise and trace figures, and where the collective's excess time went
// (attribution).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/named_enum.h"

namespace fabscope {

// `fabscope diagnose`: which phases ran, in how long, and what the noise phase saw.
struct PhaseTiming {
  std::string name;  // topology, collective, links, noise
  double seconds = 0;
};
// A rank's time holding the others back in each run of a collective (its arrivals: held
// and stalled, mean per iteration), in the order of the runs' times.
struct RunsHeld {
  int rank = 0;
  std::vector<double> us;
};
// One collective at one size measured again and again (noise phase): nccl-tests'
// time of each run, the first being the collective phase's.
struct CollectiveRepeats {
  std::string collective;
  uint64_t size_bytes = 0;
  std::vector<double> time_us;
  double cv = 0;  // coefficient of variation of time_us
  // Where every run recorded arrivals (host-timed backends): the ranks that alone held the
  // others back for kRunsHeldShare or more of some run's time, their time in every run.
  // What lets the attribution tell a straggler's uneven stalls from run-to-run noise.
  std::vector<RunsHeld> held;
};
// A rank holding the others back for less than this share of every run's time is left
// out of CollectiveRepeats::held.
inline constexpr double kRunsHeldShare = 0.05;
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
enum class AttributionKind { kLink, kHost, kRank, kNic, kNoise, kUnexplained };
template <>
struct EnumNames<AttributionKind> {
  static constexpr std::pair<AttributionKind, std::string_view> kNames[] = {
      {AttributionKind::kLink, "link"},   {AttributionKind::kHost, "host"},
      {AttributionKind::kRank, "rank"},   {AttributionKind::kNic, "nic"},
      {AttributionKind::kNoise, "noise"}, {AttributionKind::kUnexplained, "unexplained"}};
};
// How the links' part of an attribution was found: the link matrix's rates, the busy
// time fabscope's engine traced per link, or NCCL's profiler plugin.
enum class AttributionMethod { kLinkMatrix, kEngineTrace, kNcclProfile };
template <>
struct EnumNames<AttributionMethod> {
  static constexpr std::pair<AttributionMethod, std::string_view> kNames[] = {
      {AttributionMethod::kLinkMatrix, "link_matrix"},
      {AttributionMethod::kEngineTrace, "engine_trace"},
      {AttributionMethod::kNcclProfile, "nccl_profile"}};
};

struct AttributionEntry {
  AttributionKind kind = AttributionKind::kUnexplained;
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
  double measured_us = 0;                                     // nccl-tests' time of the collective at this size
  double ideal_us = 0;                                        // what the median link allows under `model`
  std::string model;                                          // "ring: 2(n-1)/n * S / B"
  double link_rate_gbps = 0;                                  // B: the median link of the link matrix
  double excess_us = 0;                                       // measured - ideal (0 when it ran at the link rate)
  AttributionMethod method = AttributionMethod::kLinkMatrix;  // how the links' part was found
  std::vector<AttributionEntry> entries;                      // largest share first; unexplained last
};

}  // namespace fabscope
