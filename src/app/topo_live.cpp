#include "app/topo_live.h"

#include <fmt/format.h>
#include <sched.h>

#include <charconv>
#include <cstdlib>

#include "app/run_context.h"
#include "core/text.h"
#include "report/model_json.h"
#include "topo/readers.h"
#include "topo/topo_report.h"

namespace fabscope {

topo::CpuSet own_binding() {
  topo::CpuSet set;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &mask)) set.add(c, c);
    }
  }
  return set;
}

int gpu_for_local_rank(const topo::HostTopology& h, int local_rank) {
  std::vector<int> visible;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && *v) {
    for (std::string_view item : split(v, ',')) {
      int idx = 0;
      auto r = std::from_chars(item.data(), item.data() + item.size(), idx);
      if (item.empty() || r.ec != std::errc() || r.ptr != item.data() + item.size()) {
        return -1;  // UUIDs: not resolvable without NVML
      }
      visible.push_back(idx);
    }
  } else {
    for (const topo::Gpu& g : h.gpus) visible.push_back(g.index);
    std::sort(visible.begin(), visible.end());
  }
  if (local_rank < 0 || local_rank >= static_cast<int>(visible.size())) return -1;
  return h.find_gpu(visible[local_rank]) >= 0 ? visible[local_rank] : -1;
}

Status gather_topology(const RankContext& ctx, const topo::AnalysisOptions& options, Report& report) {
  // Every rank's binding, known to every rank (each node's first rank needs its node's).
  topo::CpuSet mine = own_binding();
  auto bindings = ctx.gather_text(fmt::format("{} {}", ctx.rank(), mine.to_list()));
  std::string all;
  if (bindings.ok() && ctx.rank() == 0) {
    for (const std::string& b : *bindings) all += b + "\n";
  }
  auto shared = ctx.broadcast(all, 0);
  if (Status s = agree_or_report(ctx, !bindings.ok() ? bindings.status() : shared.status()); !s.ok()) return s;
  // Each node's first rank reads and analyses its node.
  std::string mine_json;
  Status local = Status::Ok();
  if (ctx.local_rank() == 0) {
    topo::TopologySet set;
    local = topo::read_hwloc_live(ctx.host(), set);
    if (local.ok()) {
      topo::HostTopology& h = set.host(ctx.host());
      LineReader lines(*shared);
      std::string_view line;
      while (lines.next(line)) {
        // "RANK CPULIST", as each rank sent it
        const std::vector<std::string_view> words = split_ws(line);
        int r = -1;
        if (words.empty() || std::from_chars(words[0].data(), words[0].data() + words[0].size(), r).ec != std::errc())
          continue;
        if (r < 0 || r >= ctx.size() || ctx.ranks()[r].host != ctx.host()) continue;
        auto cpus = topo::CpuSet::from_list(words.size() > 1 ? words[1] : std::string_view());
        int lr = ctx.ranks()[r].local_rank;
        h.ranks.push_back({r, lr, gpu_for_local_rank(h, lr), cpus.value_or(topo::CpuSet())});
      }
      topo::AnalysisOptions o = options;
      if (const char* v = std::getenv("NCCL_IB_HCA"); v && !o.default_ib_hca) {
        o.default_ib_hca = v;
        o.default_ib_hca_origin = "environment";
      }
      std::vector<Finding> findings;
      auto analyses = topo::analyze_topology(set, o, findings);
      if (!analyses.ok()) {
        local = analyses.status();
      } else {
        mine_json = dump_json(Json{{"host", to_json(topo::host_section(h, analyses->front()))},
                                   {"findings", to_json_array(findings)},
                                   {"signature", topo::host_signature(h, analyses->front())}});
      }
    }
  }
  if (Status s = agree_or_report(ctx, local); !s.ok()) return s;
  auto parts = ctx.gather_text(mine_json);
  if (Status s = agree_or_report(ctx, parts.status()); !s.ok()) return s;
  if (ctx.rank() != 0) return Status::Ok();
  TopologySection topology;
  std::vector<std::pair<std::string, std::string>> signatures;
  for (size_t r = 0; r < parts->size(); ++r) {
    const std::string& p = (*parts)[r];
    if (p.empty()) continue;
    // Each node's first rank sent its host entry, findings and signature.
    const std::string source = fmt::format("rank {}'s topology", r);
    try {
      const Json part = Json::parse(p);
      const JsonIn in(part, "", source);
      TopoHostEntry host;
      std::vector<Finding> findings;
      std::string signature;
      in.field("host", host);
      in.field("findings", findings);
      in.field("signature", signature);
      signatures.emplace_back(host.host, signature);
      topology.hosts.push_back(std::move(host));
      report.findings.insert(report.findings.end(), findings.begin(), findings.end());
    } catch (const std::exception& e) {  // not JSON, or not the shape sent: a fabscope defect
      print_error(e.what());
      return Status::Runtime(e.what());
    }
  }
  topo::add_host_differs(signatures, report.findings);
  report.topology = std::move(topology);
  return Status::Ok();
}

}  // namespace fabscope
