// From a topology to what an operator needs: for every GPU the best NIC by path, the
// NIC NCCL would pick (closest path, then bandwidth, ties spread by GPU index, after
// NCCL_IB_HCA), the NIC it actually used where a log says; and the topo.* findings.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "report/report.h"
#include "topo/model.h"

namespace fabscope::topo {

struct AnalysisOptions {
  // NCCL_IB_HCA to judge every host by (--nccl-ib-hca); when absent, each host's own
  // value (from its NCCL log), else `default_ib_hca` (an env file or the environment).
  std::optional<std::string> ib_hca;
  std::optional<std::string> default_ib_hca;
  std::string default_ib_hca_origin;  // "environment", "FILE"
  double expect_rate_gbits = 0;       // --expect-rate: ports below it are degraded; 0 = peers only
};

struct GpuMapping {
  int gpu = -1;  // the GPU's index (not its position)
  PathClass best_path = PathClass::kUnknown;
  std::vector<std::string> best_nics;  // every usable NIC at best_path
  std::string nccl_choice;             // empty: NCCL would use no RDMA device
  PathClass nccl_choice_path = PathClass::kUnknown;
  std::vector<std::string> used_nics;  // from NCCL logs
  std::optional<bool> used_gdr;        // all channels with /GDRDMA (true), none or some without (false)
};

struct HostAnalysis {
  std::string host;
  std::optional<std::string> ib_hca;       // the NCCL_IB_HCA in effect
  std::string ib_hca_origin;               // "--nccl-ib-hca", "NCCL log", "environment", a file
  std::vector<std::string> selected_nics;  // devices NCCL would use
  std::vector<GpuMapping> gpus;
};

// Analyses every host; appends findings (code topo.*) to `findings`. An unparsable
// NCCL_IB_HCA is an error only when it came from the user (--nccl-ib-hca); from a log
// or environment it becomes a topo.hca_filter finding.
Result<std::vector<HostAnalysis>> analyze_topology(const TopologySet& set, const AnalysisOptions& options,
                                                   std::vector<Finding>& findings);

// What hosts are compared by: GPU count, RDMA devices with a port up, each GPU's near
// NICs. Hosts whose signature differs from a unique largest group of at least two get
// a topo.host_differs finding.
std::string host_signature(const HostTopology& host, const HostAnalysis& analysis);
void add_host_differs(const std::vector<std::pair<std::string, std::string>>& host_signatures,
                      std::vector<Finding>& findings);

}  // namespace fabscope::topo
