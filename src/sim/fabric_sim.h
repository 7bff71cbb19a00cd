// The fabric simulator: synthetic fabrics of 64 to 4,096 ranks (8 GPUs and 8 NICs per
// node; rail-optimized or fat-tree; leaf uplinks with oversubscription), faults injected
// by seed, and the report fabscope's diagnose would have measured on them (the link
// matrix by a link schedule, suspects retested alone, the all-reduce with every rank's
// arrivals, interface counters, the topology), for diagnose's analysis unchanged.
// bench/fabric_sim.cpp scores the findings against the faults; the unit tests check it.
//
// The flow model: a flow's rate is the least share it gets of each resource it crosses
// (its sender's NIC, its receiver's NIC, and across leaves an uplink of each leaf, the
// flows of a round spread over the uplinks in turn as adaptive routing balances them),
// times measurement noise. Resources are shared equally among the flows of a round that
// cross them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "p2p/schedule.h"
#include "report/report.h"
#include "topo/model.h"

namespace fabscope::sim {

enum class FabricKind { kRailOptimized, kFatTree };
std::string_view name(FabricKind k);

struct FabricSpec {
  FabricKind kind = FabricKind::kRailOptimized;
  int nodes = 8;
  int gpus_per_node = 8;  // one rank and one NIC each
  // Fat tree: hosts under one leaf (ToR). Rail-optimized: nodes of one rail group, whose
  // rail k NICs share rail k's leaf; the group is the fabric description's leaf.
  int nodes_per_leaf = 16;
  // A leaf's uplinks: its NICs / oversubscription of them (at least one), together
  // carrying its NICs' rate / oversubscription.
  double oversubscription = 1.0;  // a leaf's host-facing capacity over its uplink capacity
  double nic_gbps = 50;           // GB/s per NIC and direction (400 Gb/s)
  double nvlink_gbps = 200;       // within a node
  double noise_cv = 0.03;         // measurement noise of every figure
};

enum class FaultKind { kSlowLink, kSlowNic, kSlowHost, kCongestedUplink, kStraggler, kWrongNic, kNoisyNeighbour };
std::string_view name(FaultKind k);
Result<FaultKind> fault_from_name(std::string_view text);
inline constexpr FaultKind kAllFaults[] = {FaultKind::kSlowLink,        FaultKind::kSlowNic,   FaultKind::kSlowHost,
                                           FaultKind::kCongestedUplink, FaultKind::kStraggler, FaultKind::kWrongNic,
                                           FaultKind::kNoisyNeighbour};

struct Fault {
  FaultKind kind = FaultKind::kSlowLink;
  std::string host;  // every kind but the uplink
  std::string peer;  // slow link: the other host
  int rank = -1;     // slow link (the rail's rank on `host`), slow NIC, straggler, wrong NIC
  int peer_rank = -1;
  std::string leaf;     // congested uplink
  int uplink = -1;      // of the leaf's uplinks (modulo their count)
  int rail = -1;        // congested uplink, rail-optimized: the rail whose leaf it is
  int far_nic = -1;     // wrong NIC: the NIC (local index) the rank uses instead of its own
  double factor = 1.0;  // capacity left (slow kinds), foreign share (noisy neighbour)
  std::string describe() const;
};

struct Fabric {
  FabricSpec spec;
  std::vector<std::string> hosts;
  std::vector<RankPlace> ranks;  // rank r: host r / gpus_per_node, local r % gpus_per_node
  FabricDescription description;
  std::vector<Fault> faults;
};

// Validates the spec (nodes >= 2, gpus >= 1, leaves of >= 1 node, uplinks >= 1,
// oversubscription >= 1, rates > 0) and places `faults` by seed, on distinct hosts.
Result<Fabric> make_fabric(const FabricSpec& spec, const std::vector<FaultKind>& faults, uint64_t seed);

struct SimOptions {
  // > 0: diagnose's own plan for this --budget (auto): the rounds the links' share fits at
  // the simulated all-reduce's bus bandwidth (link_rounds_that_fit), the schedule
  // pick_link_schedule takes for them, each round charged its modelled time (its slowest
  // flow's messages, or a round's time where diagnose cuts the flow), and suspects'
  // rounds and retests measured only while the links' share lasts. `schedule` and
  // `max_rounds` are then ignored.
  double budget_s = 0;
  LinkSchedule schedule = LinkSchedule::kRail;
  size_t max_rounds = 0;        // sample: the rounds the budget gives
  bool adaptive = true;         // sample: suspects measured with kAdaptivePartners more partners
  bool describe_fabric = true;  // the analysis gets the fabric description (report.fabric)
  bool retest = true;           // suspects measured again alone (links_to_retest)
  uint64_t chunk_bytes = 4 << 20;
  // A host's topology (an NCCL topology file of the node model): every host gets a copy,
  // with the NIC each GPU uses; the wrong-NIC host's GPU uses a far one. Without it, the
  // report has no topology and no topo.* findings.
  const topo::HostTopology* host_template = nullptr;
};
inline constexpr int kAdaptivePartners = 3;

// What the plan of a budgeted run (SimOptions::budget_s) came to.
struct SimPlanned {
  LinkSchedule schedule = LinkSchedule::kRail;
  int fit_rounds = 0;       // the rounds the links' share fits (pick_link_schedule's input)
  int rounds = 0;           // the schedule's
  int adaptive_rounds = 0;  // suspects' rounds measured
  int adaptive_cut = 0;     // suspects' rounds the share had no time left for
  int retests = 0, retests_cut = 0;
  double links_share_s = 0;  // the links phase's share of the budget
  double links_used_s = 0;   // the modelled time of what was measured
};
// What diagnose would have measured, before its analysis (findings, attribution, verdict
// empty; topo.* findings present, as the topology phase makes them on each node).
Result<Report> simulate(const Fabric& fabric, const SimOptions& options, uint64_t seed, SimPlanned* planned = nullptr);

// The flow model's rate of each flow of `round` beside the others (GB/s, in order), with
// the fabric's faults: what the simulator predicts for a round measured elsewhere (the
// realism check, bench/sim_realism.sh). Noise as the spec's noise_cv (0: none).
std::vector<double> model_rates(const Fabric& fabric, const Round& round);

// Diagnose's analysis on a report (what `fabscope diagnose` runs after measuring).
void analyze(Report& report);

// How the findings and the attribution's top entry match the injected faults.
struct Score {
  int faults = 0;
  int faults_found = 0;                     // a finding of an expected code names the fault's place
  int findings = 0;                         // warnings and errors that name a cause (p2p, rank, counters, topo)
  int findings_true = 0;                    // of those, naming an injected fault
  bool top_named = false;                   // the attribution's first entry (not unexplained) names a fault
  bool top_entry = false;                   // there is such an entry
  std::vector<std::string> false_findings;  // "code: subject" of findings naming no fault
  std::vector<std::string> missed;          // faults no finding names
};
Score score(const Fabric& fabric, const Report& analyzed);

}  // namespace fabscope::sim
