// The topo.* finding rules. Each is one function in topo/rules/<name>.cpp, listed in
// topo/rules/table.cpp. Host rules look at one host through a HostContext (the model,
// the NIC-choice prediction, the NCCL_IB_HCA in effect); fleet rules compare hosts.
// A rule can be run alone on a hand-built host:
//   HostContext ctx = prepare_host(host, options, std::nullopt);
//   FindingSink sink("topo.gdr_off", findings);
//   find_rule(host_rules(), "topo.gdr_off")->check(ctx, sink);
#pragma once

#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "report/rules.h"
#include "topo/mapping.h"
#include "topo/nic_choice.h"

namespace fabscope::topo {

struct HostContext {
  const HostTopology& host;
  const AnalysisOptions& options;
  HostAnalysis analysis;             // NCCL_IB_HCA in effect, selected NICs, mapping (GPU index order)
  std::optional<HcaFilter> filter;   // the NCCL_IB_HCA in effect, parsed
  std::string filter_error;          // ... or why it does not parse (a value from a log or environment)
  HostPaths paths;                   // pool, path classes, GPU order
  std::vector<GpuMapping> mappings;  // per GPU position

  // "node7", or "the host" when no source named it.
  std::string label() const;
  // A finding's subject: "host node7 GPU 3", or "GPU 3" for an unnamed host.
  std::string subject(const std::string& what) const;
  PathClass path(int gpu_position, int nic_position) const { return paths.paths[gpu_position][nic_position]; }
  // The hosts a finding about this host implicates: {its name}, none when unnamed.
  std::vector<std::string> hosts() const;
  // The NICs at PIX or PXB to some GPU.
  std::set<std::string> near_nics() const;
};

// Everything the host rules look at: the NCCL_IB_HCA in effect (`user_filter` from
// --nccl-ib-hca wins, then the host's NCCL log, then options.default_ib_hca), the paths
// and the NIC-choice prediction.
HostContext prepare_host(const HostTopology& host, const AnalysisOptions& options,
                         const std::optional<HcaFilter>& user_filter);

// Hosts compared with each other: (host, signature) as host_signature gives them.
struct FleetContext {
  std::vector<std::pair<std::string, std::string>> signatures;
  const TopologySet* set = nullptr;  // the hosts themselves, where the caller has them
};

std::span<const Rule<HostContext>> host_rules();
std::span<const Rule<FleetContext>> fleet_rules();

}  // namespace fabscope::topo
