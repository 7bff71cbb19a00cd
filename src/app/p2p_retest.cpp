#include "app/p2p_retest.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "diag/rules.h"
#include "report/model_json.h"

namespace fabscope {

namespace {

// Rank 0's list of links to retest, as every rank reads it.
Result<std::vector<P2pLink>> retest_list(const RankContext& ctx, const P2pSection& section,
                                         const FabricDescription* fabric) {
  auto shared = ctx.broadcast(ctx.rank() == 0 ? dump_json(to_json_array(links_to_retest(section, 32, fabric))) : "", 0);
  if (!shared.ok()) return shared.status();
  std::vector<P2pLink> suspects;
  try {
    const Json j = Json::parse(*shared);
    read(JsonIn(j, "", "rank 0's retest list"), suspects);
  } catch (const std::exception& e) {  // not what rank 0 sent: a fabscope defect
    return Status::Runtime(e.what());
  }
  return suspects;
}

}  // namespace

Status retest_alone(const RankContext& ctx, Transport& transport, const P2pOptions& options, Progress& progress,
                    std::vector<CounterSample>& counters, P2pSection& section, const FabricDescription* fabric) {
  // Each link once (bibw measures both directions at once). A second pass takes what the
  // first's results newly name: a host found fast alone leaves its slow links to judge.
  std::set<std::tuple<int, int, uint64_t>> measured;
  for (int pass = 0; pass < kRetestPasses; ++pass) {
    auto suspects = retest_list(ctx, section, fabric);
    if (!suspects.ok()) return suspects.status();
    size_t fresh = 0;
    for (const P2pLink& l : *suspects) {
      const bool both = options.mode == P2pMode::kBidirectional;
      const auto key =
          both ? std::make_tuple(std::min(l.src_rank, l.dst_rank), std::max(l.src_rank, l.dst_rank), l.size_bytes)
               : std::make_tuple(l.src_rank, l.dst_rank, l.size_bytes);
      if (!measured.insert(key).second) continue;
      ++fresh;
      P2pOptions alone = options;
      alone.rounds.clear();
      alone.pattern = P2pPattern::kPair;
      alone.pair = {l.src_rank, l.dst_rank};
      alone.sizes = {l.size_bytes};
      alone.repeats = 1;
      // Twice, each direction's better kept: a link slow alone is slow every time, while a
      // host's stall (a scheduler's hiccup, a page-cache flush) slows one measurement.
      std::vector<P2pLink> best;
      for (int attempt = 0; attempt < kAloneAttempts; ++attempt) {
        auto one = run_p2p(ctx, transport, alone, &progress, &counters);
        if (!one.ok()) return one.status();
        for (P2pLink& m : one->links) {
          auto it = std::find_if(best.begin(), best.end(), [&](const P2pLink& b) {
            return b.src_rank == m.src_rank && b.dst_rank == m.dst_rank && b.size_bytes == m.size_bytes;
          });
          if (it == best.end()) {
            best.push_back(std::move(m));
          } else if (m.bw_gbps > it->bw_gbps) {
            *it = std::move(m);
          }
        }
      }
      for (P2pLink& m : best) section.alone.push_back(std::move(m));
    }
    if (fresh == 0) break;
  }
  return Status::Ok();
}

Result<int> measure_suspects(const RankContext& ctx, Transport& transport, const P2pOptions& options,
                             const std::vector<RankPlace>& places, const FabricDescription* fabric, Progress& progress,
                             std::vector<CounterSample>* counters, P2pSection& section) {
  std::string extra;
  if (ctx.rank() == 0) {
    std::set<std::pair<std::string, std::string>> measured;
    for (const P2pLink& l : section.links) {
      if (l.src_host != l.dst_host)
        measured.insert({std::min(l.src_host, l.dst_host), std::max(l.src_host, l.dst_host)});
    }
    std::set<std::string> avoid;
    for (const P2pSizeContext& c : p2p_size_contexts(section, fabric)) {
      avoid.insert(c.slow_hosts.begin(), c.slow_hosts.end());
    }
    Json rounds = Json::array();
    for (const Round& round :
         suspect_rounds(places, link_suspects(section, fabric), measured, avoid, kSuspectPartners, 2)) {
      Json flows = Json::array();
      for (const Flow& f : round) flows.push_back({f.src, f.dst});
      rounds.push_back(std::move(flows));
    }
    extra = dump_json(rounds);
  }
  auto shared = ctx.broadcast(extra, 0);
  if (!shared.ok()) return shared.status();
  P2pOptions more = options;
  more.rounds.clear();
  try {
    for (const Json& round : Json::parse(*shared)) {
      Round r;
      for (const Json& f : round) r.push_back({f.at(0).get<int>(), f.at(1).get<int>()});
      more.rounds.push_back(std::move(r));
    }
  } catch (const std::exception& e) {  // not what rank 0 sent: a fabscope defect
    return Status::Runtime(e.what());
  }
  if (more.rounds.empty()) return 0;
  int first = 0;
  for (const P2pLink& l : section.links) first = std::max(first, l.round + 1);
  auto again = run_p2p(ctx, transport, more, &progress, counters);
  if (!again.ok()) return again.status();
  for (P2pLink& l : again->links) {
    l.round += first;
    section.links.push_back(std::move(l));
  }
  return static_cast<int>(more.rounds.size());
}

}  // namespace fabscope
