// The sweep.*, p2p.* and counters.* finding rules: one function each in
// diag/rules/<name>.cpp, listed per area in diag/rules/table.cpp, run by
// diag/findings.h. Each looks at one small context, which a test can build by hand.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "report/report.h"
#include "report/rules.h"

namespace fabscope {

// A host or link below this fraction of its reference is flagged (latency: above its
// inverse).
inline constexpr double kSlowRatio = 0.5;
// A link across oversubscribed uplinks reads its rate or its uplinks' share, the lower: a
// link at a quarter of its rate under a 2:1 share reads half of it. One below this
// fraction of its share's reference (and not below kSlowRatio) is measured again alone:
// slow alone, it is the link.
inline constexpr double kShareSuspectRatio = 0.8;
// A rank that alone held the others back for this share of a placement's time is a
// straggler (rank.straggler).
inline constexpr double kStragglerShare = 0.2;
// perf.dip: a size below this fraction of the lower of its neighbours' bandwidth, where
// both neighbours reach at least kDipFloor of the sweep's peak.
inline constexpr double kDipRatio = 0.5;
inline constexpr double kDipFloor = 0.05;
// perf.plateau: sizes within this fraction of the peak bus bandwidth are on the plateau.
inline constexpr double kPlateauBand = 0.05;

// nccl.link_wait: a link whose network wait per channel and call is this many times the
// median of the other links of the same call, by at least this much per call.
inline constexpr double kWaitFactor = 2.0;
inline constexpr double kMinWaitExcessUs = 20.0;
// tcp.idle_restart: restarts whose estimated cost is at least this share of the time the
// ranks were sending.
inline constexpr double kIdleRestartShare = 0.02;

// A link's down intervals from its edges (unix seconds): each down edge to the next up
// edge, one still open to `end_unix_s`; an inferred flap is an instant.
struct LinkDownInterval {
  double from_unix_s = 0;
  double to_unix_s = 0;
  bool inferred = false;
};
std::vector<LinkDownInterval> link_down_intervals(const LinkRecord& link, double end_unix_s);

struct SweepContext {
  const Report& report;                 // its sweeps and ranks
  std::string host_of(int rank) const;  // "?" for a rank the context does not list
};

// The p2p links of one message size, and how each host's links compare with the rest.
struct P2pSizeContext {
  uint64_t size_bytes = 0;
  bool latency = false;  // lat mode: lower is better
  std::vector<const P2pLink*> links;
  struct HostComparison {
    std::string host;
    size_t touching = 0;         // links with this host at either end
    size_t avoiding = 0;         // the others
    double median_touching = 0;  // of goodness(): bandwidth, or 1 / latency
    double median_avoiding = 0;
    bool slow = false;        // median_touching below kSlowRatio of median_avoiding, and not fast alone
    size_t retested = 0;      // its links to other hosts measured again alone (p2p --retest)
    double median_alone = 0;  // their median goodness
  };
  std::vector<HostComparison> hosts;  // hosts with links both touching and avoiding them
  std::set<std::string> slow_hosts;   // the hosts marked slow
  // The links that touch no slow host: their median goodness (the reference; 0 with
  // fewer than two such links), and those below kSlowRatio of it.
  double reference = 0;
  std::vector<const P2pLink*> slow_links;
  // Links across oversubscribed uplinks between kSlowRatio and kShareSuspectRatio of the
  // reference for their share: their share may hide a slow link (retested alone).
  std::vector<const P2pLink*> share_suspects;
  // Where a host runs several ranks in the links (rail by rail): each rank's links to
  // other hosts (what its NIC carries) against the other links between hosts, on hosts
  // not slow; a rank alone slow is its NIC.
  struct RankComparison {
    int rank = 0;
    std::string host;
    size_t touching = 0;
    double median_touching = 0;
    double median_avoiding = 0;
    // Other ranks of its host whose links are slow too, though less (below kSharedRatio):
    // the NIC this rank's traffic shares (a GPU on another's NIC). Their slow links follow
    // from this rank's and are not judged apart (`folded` of them).
    std::vector<int> sharing;
    size_t folded = 0;
    // With a fabric description: leaves whose uplinks' congestion this rank's traffic
    // across rails explains (its host under them), not named apart.
    std::vector<std::string> folded_uplinks;
  };
  std::vector<RankComparison> slow_ranks;
  // With a fabric description (report.fabric): the leaves whose uplinks the slow links
  // share. `whole_leaf`: every host under the leaf was slow on its links across leaves
  // while its links within the leaf were not (the hosts are not marked slow then).
  struct UplinkGroup {
    std::string leaf;
    bool whole_leaf = false;
    std::vector<std::string> hosts;  // the leaf's hosts in the links
    std::vector<const P2pLink*> links;
    double median = 0;       // of the group's links
    double inside_leaf = 0;  // median of the links within the leaf (0: none measured)
  };
  std::vector<UplinkGroup> uplinks;
  // This size's links measured again alone (p2p --retest), and the one of a link.
  std::vector<const P2pLink*> alone;
  const P2pLink* alone_of(const P2pLink& link) const;
  // A goodness (see below) as the mode writes it: "12.50 us" or "1.234 GB/s".
  std::string show(double goodness) const;
};
// Higher is better for both modes: bandwidth, or 1 / latency.
double goodness(const P2pLink& link);
// A leaf's uplinks are named when at least this many slow links cross them.
inline constexpr size_t kUplinkMinLinks = 4;
// A rank is judged against the others (p2p.slow_nic) with at least this many links.
inline constexpr size_t kRankMinLinks = 4;
// A rank of a slow rank's host whose links carry less than this share of the others' is
// taken to share its NIC (p2p.slow_nic names it; its links are not judged apart).
inline constexpr double kSharedRatio = 0.75;

// The contexts of a p2p section, one per message size in increasing order. With a
// fabric description, slow links that share a leaf's uplinks are grouped.
std::vector<P2pSizeContext> p2p_size_contexts(const P2pSection& p2p, const FabricDescription* fabric = nullptr);
// The links worth measuring again alone: every size's slow links (at most `limit`),
// a few of each uplink group's, and kHostRetests of each slow host's not yet retested.
inline constexpr size_t kHostRetests = 2;
std::vector<P2pLink> links_to_retest(const P2pSection& p2p, size_t limit = 32,
                                     const FabricDescription* fabric = nullptr);
// The hosts worth measuring with more partners (adaptive retest, sampled schedules): the
// ends of every size's slow links, the hosts of slow ranks and slow hosts.
std::vector<std::string> link_suspects(const P2pSection& p2p, const FabricDescription* fabric = nullptr);

struct CounterContext {
  const std::vector<CounterSample>& counters;
};

std::span<const Rule<SweepContext>> sweep_rules();
std::span<const Rule<P2pSizeContext>> p2p_rules();
std::span<const Rule<CounterContext>> counter_rules();

}  // namespace fabscope
