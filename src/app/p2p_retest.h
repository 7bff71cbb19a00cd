// p2p --retest, and diagnose's link phase: the slow links of a p2p section measured
// again, each alone.
#pragma once

#include <vector>

#include "algo/transport.h"
#include "comm/context.h"
#include "core/progress.h"
#include "p2p/p2p.h"
#include "p2p/schedule.h"

namespace fabscope {

// --retest: rank 0 names the slow links of `section` and two links of each slow host;
// every rank then measures each of them alone (pattern pair, that link's size),
// kAloneAttempts times, and rank 0 keeps each direction's best in section.alone. Up to
// kRetestPasses times: a host fast alone is not slow, and its slow links are named next.
inline constexpr int kAloneAttempts = 2;
inline constexpr int kRetestPasses = 2;
Status retest_alone(const RankContext& ctx, Transport& transport, const P2pOptions& options, Progress& progress,
                    std::vector<CounterSample>& counters, P2pSection& section,
                    const FabricDescription* fabric = nullptr);

// The adaptive part of a sampled link schedule: rank 0 names the suspects of `section`
// (a slow link's ends, slow ranks' and slow hosts' hosts), each gets kSuspectPartners
// partners it has not had (healthy hosts first), and every rank measures those rounds
// like the others; their links join section.links. Returns the rounds added.
inline constexpr int kSuspectPartners = 3;
Result<int> measure_suspects(const RankContext& ctx, Transport& transport, const P2pOptions& options,
                             const std::vector<RankPlace>& places, const FabricDescription* fabric, Progress& progress,
                             std::vector<CounterSample>* counters, P2pSection& section);

}  // namespace fabscope
