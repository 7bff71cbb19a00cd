#include "topo/mapping.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "topo/rules.h"

namespace fabscope::topo {

std::string HostContext::label() const { return host.host.empty() ? std::string("the host") : host.host; }

std::string HostContext::subject(const std::string& what) const {
  return host.host.empty() ? what : "host " + host.host + " " + what;
}

std::vector<std::string> HostContext::hosts() const {
  return host.host.empty() ? std::vector<std::string>{} : std::vector<std::string>{host.host};
}

std::set<std::string> HostContext::near_nics() const {
  std::set<std::string> out;
  for (size_t g = 0; g < host.gpus.size(); ++g) {
    for (int n : paths.pool) {
      if (near(paths.paths[g][n])) out.insert(host.nics[n].name);
    }
  }
  return out;
}

HostContext prepare_host(const HostTopology& h, const AnalysisOptions& options,
                         const std::optional<HcaFilter>& user_filter) {
  HostContext c{h, options, {}, {}, {}, {}, {}};
  HostAnalysis& a = c.analysis;
  a.host = h.host;
  if (user_filter) {
    a.ib_hca = options.ib_hca;
    a.ib_hca_origin = "--nccl-ib-hca";
    c.filter = user_filter;
  } else {
    if (h.nccl_ib_hca) {
      a.ib_hca = h.nccl_ib_hca;
      a.ib_hca_origin = "NCCL log";
    } else if (options.default_ib_hca) {
      a.ib_hca = options.default_ib_hca;
      a.ib_hca_origin = options.default_ib_hca_origin;
    }
    if (a.ib_hca) {
      auto f = parse_hca_filter(*a.ib_hca);
      if (f.ok()) {
        c.filter = *f;
      } else {
        c.filter_error = f.status().message();
      }
    }
  }
  c.paths = host_paths(h);
  a.selected_nics = selected_nics(h, c.paths, c.filter);
  c.mappings = predict_mappings(h, c.paths, c.filter);
  for (int g : c.paths.order) a.gpus.push_back(c.mappings[g]);
  return c;
}

std::string host_signature(const HostTopology& h, const HostAnalysis& a, bool with_gpus) {
  std::vector<std::string> up;
  for (const Nic& n : h.nics) {
    if (n.rdma && usable(n)) up.push_back(n.name);
  }
  std::sort(up.begin(), up.end(), natural_less);
  std::vector<std::string> map;
  for (const GpuMapping& m : a.gpus) map.push_back(fmt::format("{}:{}", m.gpu, fmt::join(m.best_nics, "+")));
  if (!with_gpus) return fmt::format("rdma_up={}", fmt::join(up, ","));
  return fmt::format("gpus={} rdma_up={} near={}", h.gpus.size(), fmt::join(up, ","), fmt::join(map, ","));
}

void add_host_differs(const std::vector<std::pair<std::string, std::string>>& hosts, std::vector<Finding>& findings) {
  run_rules(fleet_rules(), FleetContext{hosts}, findings);
}

Result<std::vector<HostAnalysis>> analyze_topology(const TopologySet& set, const AnalysisOptions& options,
                                                   std::vector<Finding>& findings) {
  std::optional<HcaFilter> user_filter;
  if (options.ib_hca) {
    auto f = parse_hca_filter(*options.ib_hca);
    if (!f.ok()) return Status::Invalid("--nccl-ib-hca: " + f.status().message());
    user_filter = *f;
  }
  std::vector<HostAnalysis> result;
  FleetContext fleet;
  fleet.set = &set;
  for (const HostTopology& h : set.hosts) {
    HostContext c = prepare_host(h, options, user_filter);
    run_rules(host_rules(), c, findings);
    result.push_back(std::move(c.analysis));
  }
  // Hosts are compared on what the files describe of them: a host with no NIC in the files
  // is left out (its empty list is what the files leave out, as of a log stitched from other
  // runs or a host named on one line), and the GPUs count only where every host compared
  // lists its GPUs.
  bool all_gpus = true;
  for (const HostTopology& h : set.hosts) all_gpus &= h.nics.empty() || !h.gpus.empty();
  for (size_t i = 0; i < set.hosts.size(); ++i) {
    const HostTopology& h = set.hosts[i];
    if (!h.nics.empty()) fleet.signatures.emplace_back(h.host, host_signature(h, result[i], all_gpus));
  }
  run_rules(fleet_rules(), fleet, findings);
  return result;
}

}  // namespace fabscope::topo
