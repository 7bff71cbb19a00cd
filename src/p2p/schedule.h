// Which links a p2p run measures, in rounds whose flows run at the same time.
//  ring:  every rank sends to the next at once (a ring collective's exact link load)
//  pairs: round-robin rounds of disjoint pairs (circle method) covering every pair
//  pair:  one pair of ranks
// Bandwidth rounds hold directed flows; a bidirectional run carries both directions of
// each pair at once. Latency (ping-pong) needs disjoint pairs, so its rounds are
// matchings.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/p2p_kinds.h"
#include "core/status.h"

namespace fabscope {

Result<P2pPattern> p2p_pattern_from_name(std::string_view text);
Result<P2pMode> p2p_mode_from_name(std::string_view text);

struct Flow {
  int src = 0;
  int dst = 0;
  bool operator==(const Flow&) const = default;
};
using Round = std::vector<Flow>;

// The circle method: n-1 rounds of n/2 disjoint pairs for even n, n rounds with one
// rank idle for odd n. Each pair appears exactly once, lower rank first.
std::vector<std::vector<std::pair<int, int>>> round_robin_pairs(int nranks);

// The rounds of a run. For bandwidth, flows are directed (pairs: each pair once per
// direction, in separate rounds); for bidirectional both directions are in one round;
// for latency each flow is a ping-pong initiated by src and rounds are disjoint.
Result<std::vector<Round>> p2p_schedule(P2pPattern pattern, P2pMode mode, int nranks, std::pair<int, int> pair);

// Link schedules: which pairs of a large job the link matrix measures (diagnose, p2p
// --schedule), every pair in both directions at once (bidirectional), in rounds of
// disjoint pairs.
//  all:    every pair of ranks (n-1 rounds): right for tens of ranks.
//  rail:   every pair of hosts, rail by rail: the k-th rank of one host with the k-th of
//          the other, every rail of a host pair in the same round, as NCCL's rings pair
//          GPUs across nodes (hosts - 1 rounds).
//  sample: rail pairs of hosts sampled within a round budget: with a fabric description,
//          hosts under one leaf first (every leaf at once); then the hosts next to each
//          other in rank order (NCCL's rings: two or three rounds); then rounds across leaves;
//          without one, rounds of the host round robin in a seeded order. Every round gives
//          every host one more partner; pairs not measured are judged by their hosts' other
//          links (the report's coverage says which).
// all, rail, sample ("auto" is the caller's: see pick_link_schedule).
Result<LinkSchedule> link_schedule_from_name(std::string_view text);

// Where a rank runs: its host and its index among that host's ranks.
struct RankPlace {
  std::string host;
  int local_rank = 0;
};

struct LinkPlanOptions {
  LinkSchedule schedule = LinkSchedule::kAll;
  size_t max_rounds = 0;  // sample: the rounds the budget allows (at least kMinSampleRounds)
  const std::map<std::string, std::string>* leaf_of = nullptr;  // host -> leaf (sample)
  uint64_t seed = 1;
};
inline constexpr size_t kMinSampleRounds = 3;  // a host judged against at least 3 partners

struct LinkPlan {
  LinkSchedule schedule = LinkSchedule::kAll;
  std::vector<Round> rounds;     // directed flows, both directions of each pair in one round
  size_t intra_leaf_rounds = 0;  // sample with a fabric: the first rounds, within leaves
  size_t ring_rounds = 0;        // sample: then hosts next to each other in rank order (the collective's ring)
};

// Hosts in the order their first rank appears.
std::vector<std::string> hosts_in_order(const std::vector<RankPlace>& ranks);
// The rounds of a schedule over these ranks. Errors: fewer than 2 ranks; rail or sample
// on a job with one host (nothing crosses the fabric: use all).
Result<LinkPlan> plan_links(const std::vector<RankPlace>& ranks, const LinkPlanOptions& options);
// The rounds of each schedule, to choose one within a budget: all (ranks - 1 or ranks),
// rail and sample (hosts - 1 or hosts).
size_t schedule_rounds(LinkSchedule schedule, const std::vector<RankPlace>& ranks);
// auto: on one host, or with one rank per host, all (every pair) if its rounds fit
// `max_rounds` and its links `max_links`; with several ranks on a host, rail if it fits
// (NCCL's rings pair GPUs rail by rail across nodes; all's cross-rail pairs are flows NCCL
// never makes, which on a rail-optimized fabric cross the spine and blur its faults:
// bench/fabric_sim's auto row, issue 39); else sample. The link cap keeps the analysis
// within its second: the rail matrix of 4,096 ranks (2,093,056 links) takes 0.79 s and
// 208 MiB (bench/README.md, issue 39 item 4), so auto measures every host pair up to
// 512 hosts of 8 GPUs and samples beyond.
inline constexpr size_t kMaxAutoLinks = size_t{1} << 21;
LinkSchedule pick_link_schedule(const std::vector<RankPlace>& ranks, size_t max_rounds,
                                size_t max_links = kMaxAutoLinks);
// The sample rounds whose links stay within `max_links` (a round measures about what a
// rail round does: every host with one partner, rail by rail), at least kMinSampleRounds:
// auto's sample takes the fewer of these and the rounds the budget fits, so that a large
// budget does not sample its way past the analysis' cap.
size_t sample_rounds_within(const std::vector<RankPlace>& ranks, size_t max_links = kMaxAutoLinks);
// The directed links a schedule measures in full (all: n(n-1); rail: each host pair's
// common rails, both ways).
size_t schedule_links(LinkSchedule schedule, const std::vector<RankPlace>& ranks);

// Diagnose's plan for the link matrix, shared with the fabric simulator (bench/fabric_sim)
// so that its scores are those of the plan diagnose makes. Of the budget, kDiagnoseReserve
// is kept for starting up, the analysis and the output; the measuring phases share the
// rest by weight; the links' share goes three quarters to the schedule's rounds (each sized
// for kMinLinkIters messages of the chunk at the collective's bus bandwidth, and
// kRoundOverheadS besides), a quarter to suspects (more partners, then alone).
inline constexpr double kDiagnoseReserve = 0.1;
inline constexpr double kCollectiveWeight = 0.4, kLinksWeight = 0.35, kNoiseWeight = 0.25;
inline constexpr int kMinLinkIters = 16;
inline constexpr double kRoundOverheadS = 0.002;
inline constexpr double kScheduleShare = 0.75;
inline constexpr uint64_t kDiagnoseLargestBytes = 16u << 20;  // diagnose's default largest size (-e 16M)
// The message size of the link matrix: the collective's largest size over the ranks, a
// power of two from 64 KiB to 4 MiB.
uint64_t link_chunk_bytes(uint64_t largest_bytes, int nranks);
// The schedule's rounds that fit the links' share of the budget (at least 1).
int link_rounds_that_fit(double links_share_s, uint64_t chunk_bytes, double busbw_gbps);

// Adaptive retest: `partners` more partners for each suspect host (a slow link's ends,
// hosts with few measured partners), hosts not yet measured with it, healthy first
// (`avoid` last), as rail pairs in rounds of disjoint host pairs.
std::vector<Round> suspect_rounds(const std::vector<RankPlace>& ranks, const std::vector<std::string>& suspects,
                                  const std::set<std::pair<std::string, std::string>>& measured,
                                  const std::set<std::string>& avoid, int partners, uint64_t seed);

}  // namespace fabscope
