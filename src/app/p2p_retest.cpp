#include "app/p2p_retest.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "diag/rules.h"
#include "report/model_json.h"

namespace fabscope {

Status retest_alone(const RankContext& ctx, Transport& transport, const P2pOptions& options, Progress& progress,
                    std::vector<CounterSample>& counters, P2pSection& section, const FabricDescription* fabric) {
  auto shared = ctx.broadcast(ctx.rank() == 0 ? dump_json(to_json_array(links_to_retest(section, 32, fabric))) : "", 0);
  if (!shared.ok()) return shared.status();
  std::vector<P2pLink> suspects;
  try {
    const Json j = Json::parse(*shared);
    read(JsonIn(j, "", "rank 0's retest list"), suspects);
  } catch (const std::exception& e) {  // not what rank 0 sent: a fabscope defect
    return Status::Runtime(e.what());
  }
  std::set<std::tuple<int, int, uint64_t>> measured;  // bibw measures both directions at once
  for (const P2pLink& l : suspects) {
    if (options.mode == P2pMode::kBidirectional &&
        !measured.insert({std::min(l.src_rank, l.dst_rank), std::max(l.src_rank, l.dst_rank), l.size_bytes}).second) {
      continue;
    }
    P2pOptions alone = options;
    alone.rounds.clear();
    alone.pattern = P2pPattern::kPair;
    alone.pair = {l.src_rank, l.dst_rank};
    alone.sizes = {l.size_bytes};
    alone.repeats = 1;
    auto one = run_p2p(ctx, transport, alone, &progress, &counters);
    if (!one.ok()) return one.status();
    for (P2pLink& m : one->links) section.alone.push_back(std::move(m));
  }
  return Status::Ok();
}

}  // namespace fabscope
