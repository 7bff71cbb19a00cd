#include "soak/mirror.h"

#include "report/model_json.h"

namespace fabscope {

namespace {

// SweepOptions::mirror: `doc` (rank 0's) to every rank (collective); `read` takes it in
// on the others. `what` names it in an error, which would be a fabscope defect.
template <typename Read>
Status mirror_from_rank0(const RankContext& ctx, const char* what, const Json& doc, Read read) {
  auto got = ctx.broadcast(ctx.rank() == 0 ? dump_json(doc) : std::string(), 0);
  if (!got.ok()) return got.status();
  if (ctx.rank() == 0) return Status::Ok();
  try {
    const Json j = Json::parse(*got);
    read(JsonIn(j, "", what));
  } catch (const std::exception& e) {
    return Status::Runtime(e.what());
  }
  return Status::Ok();
}

}  // namespace

Status mirror_point(const RankContext& ctx, SweepPoint& point, std::vector<StallEvent>& stalls) {
  const Json doc = ctx.rank() == 0 ? Json{{"point", to_json(point)}, {"stalls", to_json_array(stalls)}} : Json();
  return mirror_from_rank0(ctx, "rank 0's point", doc, [&](const JsonIn& in) {
    SweepPoint p;
    std::vector<StallEvent> st;
    in.field("point", p);
    in.field("stalls", st);
    point = std::move(p);
    stalls = std::move(st);
  });
}

// The interval's host counters and the links, gathered on rank 0.
Status mirror_interval(const RankContext& ctx, std::vector<CounterSample>& hosts, std::vector<LinkRecord>& links) {
  const Json doc = ctx.rank() == 0 ? Json{{"hosts", to_json_array(hosts)}, {"links", to_json_array(links)}} : Json();
  return mirror_from_rank0(ctx, "rank 0's interval", doc, [&](const JsonIn& in) {
    in.field("hosts", hosts);
    in.field("links", links);
  });
}

}  // namespace fabscope
