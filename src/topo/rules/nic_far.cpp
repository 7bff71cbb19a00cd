// topo.nic_far: a GPU that uses (NCCL log: error) or would use (prediction: warning) a
// NIC farther than its nearest one.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "topo/rules.h"

namespace fabscope::topo {

void check_nic_far(const HostContext& c, FindingSink& sink) {
  const HostTopology& h = c.host;
  for (int g : c.paths.order) {
    const GpuMapping& m = c.mappings[g];
    if (m.best_nics.empty()) continue;
    bool reported = false;
    for (const std::string& used : m.used_nics) {
      int n = h.find_nic(used);
      if (n < 0 || c.path(g, n) == PathClass::kUnknown || !better(m.best_path, c.path(g, n))) continue;
      reported = true;
      sink.add(Severity::kError, c.subject(fmt::format("GPU {} NIC {}", m.gpu, used)), c.hosts(),
               fmt::format("GPU {} on {} uses {} ({}) while {} is {}", m.gpu, c.label(), used, path_name(c.path(g, n)),
                           fmt::join(m.best_nics, ", "), path_name(m.best_path)),
               "check NCCL_IB_HCA and the rank-to-GPU binding; NCCL_CROSS_NIC and PXN can also route through a far "
               "NIC",
               {{"host", h.host},
                {"gpu", m.gpu},
                {"used", used},
                {"used_path", path_name(c.path(g, n))},
                {"best", m.best_nics},
                {"best_path", path_name(m.best_path)},
                {"source", "NCCL log"}});
    }
    if (!reported && m.used_nics.empty() && !m.nccl_choice.empty() && better(m.best_path, m.nccl_choice_path)) {
      const auto& ib_hca = c.analysis.ib_hca;
      sink.add(Severity::kWarning, c.subject(fmt::format("GPU {} NIC {}", m.gpu, m.nccl_choice)), c.hosts(),
               fmt::format("GPU {} on {} would use {} ({}) although {} is {}: NCCL_IB_HCA{} leaves it out", m.gpu,
                           c.label(), m.nccl_choice, path_name(m.nccl_choice_path), fmt::join(m.best_nics, ", "),
                           path_name(m.best_path), ib_hca ? " '" + *ib_hca + "'" : ""),
               "include the near device in NCCL_IB_HCA",
               {{"host", h.host},
                {"gpu", m.gpu},
                {"nccl_choice", m.nccl_choice},
                {"choice_path", path_name(m.nccl_choice_path)},
                {"best", m.best_nics},
                {"best_path", path_name(m.best_path)},
                {"source", "prediction"}});
    }
  }
}

}  // namespace fabscope::topo
