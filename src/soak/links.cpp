#include "soak/links.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/clock.h"
#include "report/model_json.h"

namespace fabscope {

namespace {

// A link's history as the report keeps it.
LinkRecord link_record(const LinkHistory& h, const std::string& host) {
  LinkRecord r;
  r.host = host;
  r.link = h.link;
  r.rdma = h.rdma;
  r.up_at_start = h.up_at_start;
  r.up_at_end = h.up_at_end;
  r.flaps = h.flaps;
  r.downtime_s = h.downtime_s;
  for (const LinkEdge& e : h.edges) {
    r.edges.push_back({utc_timestamp_ns(e.utc_ns), static_cast<double>(e.utc_ns) * 1e-9, e.up, e.inferred});
  }
  r.edges_dropped = h.edges_dropped;
  r.counter_deltas = h.counter_deltas;
  return r;
}

// The links a host's flaps are judged on: its RDMA ports and its physical interfaces
// (a `device` in sysfs); on a host with no physical interface (a container, a network
// namespace), its interfaces that were up when the run began. Bridges and virtual
// interfaces of other workloads beside physical NICs come and go without being the fabric.
std::vector<LinkHistory> judged_links(std::vector<LinkHistory> all, const std::string& net_root) {
  auto physical = [&](const LinkHistory& h) {
    std::error_code ec;
    return !h.rdma && std::filesystem::exists(std::filesystem::path(net_root) / h.link / "device", ec);
  };
  const bool any_physical = std::any_of(all.begin(), all.end(), physical);
  std::erase_if(all, [&](const LinkHistory& h) {
    if (h.rdma) return false;
    return any_physical ? !physical(h) : !h.up_at_start;
  });
  return all;
}

}  // namespace

std::unique_ptr<LinkWatch> start_link_watch(const RankContext& ctx, const SweepOptions& o) {
  if (!o.watch_links || ctx.local_rank() != 0) return nullptr;
  return std::make_unique<LinkWatch>(LinkSources{}, o.link_watch_period_s);
}

Status gather_links(const RankContext& ctx, const LinkWatch* watch, std::vector<LinkRecord>& out) {
  Json mine = Json::array();
  if (watch) {
    for (const LinkHistory& h : judged_links(watch->histories(), LinkSources{}.net)) {
      mine.push_back(to_json(link_record(h, ctx.host())));
    }
  }
  auto all = ctx.gather_text(dump_json(mine));
  if (!all.ok()) return all.status();
  if (ctx.rank() != 0) return Status::Ok();
  out.clear();
  for (size_t r = 0; r < all->size(); ++r) {
    try {
      const Json j = Json::parse((*all)[r]);
      std::vector<LinkRecord> links;
      read(JsonIn(j, "", fmt::format("rank {}'s links", r)), links);
      for (LinkRecord& l : links) out.push_back(std::move(l));
    } catch (const std::exception& e) {  // not what the rank sent: a fabscope defect
      return Status::Runtime(e.what());
    }
  }
  return Status::Ok();
}

}  // namespace fabscope
