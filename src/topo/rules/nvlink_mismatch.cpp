// topo.nvlink_mismatch: NVLinks a topology file declares between GPUs that the
// machine's own NCCL graph did not find (error), or that only one side declares
// (warning).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "topo/rules.h"

namespace fabscope::topo {

void check_nvlink_mismatch(const HostContext& c, FindingSink& sink) {
  const HostTopology& h = c.host;
  std::vector<std::string> links;
  std::vector<std::string> one_sided;
  for (const Gpu& g : h.gpus) {
    for (const NvLink& l : g.nvlinks) {
      int peer = h.find_gpu_by_busid(l.target);
      if (peer < 0 || h.gpus[peer].busid == g.busid) continue;
      links.push_back(fmt::format("GPU {} -> GPU {} ({} links)", g.index, h.gpus[peer].index, l.count));
      const Gpu& p = h.gpus[peer];
      bool back = std::any_of(p.nvlinks.begin(), p.nvlinks.end(),
                              [&](const NvLink& x) { return normalize_busid(x.target) == g.busid; });
      if (!p.nvlinks.empty() && !back) one_sided.push_back(fmt::format("GPU {} -> GPU {}", g.index, p.index));
    }
  }
  const std::string intra = h.graph_intra_type.value_or("");
  if (!links.empty() && !intra.empty() && !intra.starts_with("NV")) {
    sink.add(Severity::kError, c.subject("NVLinks"), c.hosts(),
             fmt::format("the topology on {} declares NVLinks between GPUs ({}) but NCCL's graph for this machine "
                         "connects its GPUs over {}",
                         c.label(), fmt::join(links, ", "), intra),
             "NCCL will try peer-to-peer over links that do not exist: fix the <nvlink target> of each GPU in the "
             "topology file (a GPU without NVLink peers points at itself)",
             {{"host", h.host}, {"declared", links}, {"graph_intra", intra}});
  }
  if (!one_sided.empty()) {
    sink.add(Severity::kWarning, c.subject("NVLinks"), c.hosts(),
             fmt::format("NVLinks on {} declared by one side only: {}", c.label(), fmt::join(one_sided, ", ")),
             "an NVLink joins two GPUs: check the <nvlink target> bus ids in the topology file",
             {{"host", h.host}, {"one_sided", one_sided}});
  }
}

}  // namespace fabscope::topo
