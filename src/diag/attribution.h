// Attribution (diagnose, phase 6): for each collective at its largest size, the measured
// time (the median of its runs: the collective phase and the noise phase's repeats) against the ideal time at the
// median link rate of the link matrix (the time at which its bus bandwidth would equal that rate, i.e. the model of
// nccl-tests' bus bandwidth: a ring all-reduce moves 2(n-1)/n * S per rank), and the excess split over the causes the
// other phases found:
//   - ranks that alone held the others back (sweep arrivals, rank.straggler), each its
//     held and stalled time;
//   - the link that bounds the collective (the ring's r -> r+1 links, or every pair for
//     all-to-all, gather and scatter; between their hosts where the link matrix has one
//     rank per host), when the findings flag it: a slow host
//     (p2p.slow_host), a slow link (p2p.slow_link), or traffic not fabscope's
//     (p2p.congested_link, counters.foreign_traffic on its hosts: noise); its part is
//     S * busbw factor * (1/B_link - 1/B_median);
//     When a topology finding (topo.nic_far, gpu_without_near_nic, nic_shared,
//     port_degraded, pcie_degraded) implicates one of its hosts, it is that host's NIC
//     path (kind nic);
//     Over NCCL, with its profiler plugin's data (report.nccl_profile), the link whose
//     sends waited longest on the network per call bounds it instead, by its wait beyond
//     the median link's (method nccl_profile);
//   - run-to-run variance of the collective (diagnosis.collective_noise), to the hosts
//     with foreign traffic when there are any, less what a named rank held the others
//     back longer in the measured run than in the best (its time in each run,
//     CollectiveRepeats::held): a rank stopped now and then varies the runs, and the
//     rank's part is then its time in the measured run;
//   - the rest, unexplained.
// Shares are of the excess and add up to 1. Pure: reads the report, writes
// report.attribution.
#pragma once

#include "report/report.h"

namespace fabscope {

// Below this share of the excess a rank is not named (healthy ranks wait a little).
inline constexpr double kMinRankShare = 0.1;
// Foreign traffic on a link's hosts explains the link's slowness when it ran below this
// fraction of the median.
inline constexpr double kNoiseSlowdown = 0.9;
// Run-to-run variance below this coefficient of variation is not noise.
inline constexpr double kNoiseCv = 0.05;

// Needs the report's findings (add_*_findings first) and diagnosis.link_noise (as
// evidence). Without a link matrix there is no link rate to compare with, and no
// attribution.
void attribute(Report& report);

// The ranks that alone held the others back for kRunsHeldShare or more of some run's time
// (`time_us`, one per run), with their time holding them in every run, from each run's
// arrivals (`runs`, in the same order): CollectiveRepeats::held. None where a run has no
// arrivals.
std::vector<RunsHeld> runs_held(const std::vector<double>& time_us,
                                const std::vector<std::optional<ArrivalSplit>>& runs);

// The links of the link matrix measured again under load (`again`: the noise phase),
// with their variation, and alone / loaded where retested.
std::vector<LinkVariation> link_variation(const P2pSection& p2p, const std::vector<P2pLink>& again);

}  // namespace fabscope
