// From a topology to what an operator needs: for every host the NCCL_IB_HCA in effect,
// the NICs NCCL would use and each GPU's mapping (topo/nic_choice.h), and the topo.*
// findings its rules make (topo/rules.h).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "report/report.h"
#include "topo/model.h"
#include "topo/nic_choice.h"

namespace fabscope::topo {

struct AnalysisOptions {
  // NCCL_IB_HCA to judge every host by (--nccl-ib-hca); when absent, each host's own
  // value (from its NCCL log), else `default_ib_hca` (an env file or the environment).
  std::optional<std::string> ib_hca;
  std::optional<std::string> default_ib_hca;
  std::string default_ib_hca_origin;  // "environment", "FILE"
  double expect_rate_gbits = 0;       // --expect-rate: ports below it are degraded; 0 = peers only
  // triage: a port that is not up is a warning (on a ticket, the likeliest cause) unless the
  // files show it unused; topo on a live host says it as information.
  bool down_ports_warn = false;
};

struct HostAnalysis {
  std::string host;
  std::optional<std::string> ib_hca;       // the NCCL_IB_HCA in effect
  std::string ib_hca_origin;               // "--nccl-ib-hca", "NCCL log", "environment", a file
  std::vector<std::string> selected_nics;  // devices NCCL would use
  std::vector<GpuMapping> gpus;            // in GPU index order
};

// Analyses every host and runs the host rules on each, then the fleet rules across
// them; appends their findings to `findings`. An unparsable NCCL_IB_HCA is an error
// only when it came from the user (--nccl-ib-hca); from a log or environment it becomes
// a topo.hca_filter finding.
Result<std::vector<HostAnalysis>> analyze_topology(const TopologySet& set, const AnalysisOptions& options,
                                                   std::vector<Finding>& findings);

// What the files lack for a judgement of each host's mapping, one line each: no GPU or
// no NIC on a host, a NET/IB/k used without the list that names it, no path between
// GPUs and NICs (unless GPUDirect RDMA on every channel shows the NICs are near).
// `topo` on files and `triage` report an inconclusive verdict with these.
std::vector<std::string> missing_inputs(const TopologySet& set, const std::vector<HostAnalysis>& analyses);

// What hosts are compared by: GPU count, RDMA devices with a port up, each GPU's near
// NICs (without GPUs: the RDMA devices alone, where some host's files list none). Hosts
// whose signature differs from a unique largest group of at least two get a
// topo.host_differs finding.
std::string host_signature(const HostTopology& host, const HostAnalysis& analysis, bool with_gpus = true);
void add_host_differs(const std::vector<std::pair<std::string, std::string>>& host_signatures,
                      std::vector<Finding>& findings);

}  // namespace fabscope::topo
