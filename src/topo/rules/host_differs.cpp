// topo.host_differs: hosts whose signature (GPU count, RDMA devices up, each GPU's near
// NICs) differs from a unique largest group of at least two hosts.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "topo/rules.h"

namespace fabscope::topo {

void check_host_differs(const FleetContext& c, FindingSink& sink) {
  const auto& hosts = c.signatures;
  if (hosts.size() < 2) return;
  std::map<std::string, std::vector<std::string>> groups;  // signature -> hosts
  for (const auto& [host, sig] : hosts) groups[sig].push_back(host);
  size_t largest = 0;
  int with_largest = 0;
  std::string majority;
  for (const auto& [sig, members] : groups) {
    if (members.size() > largest) {
      largest = members.size();
      with_largest = 1;
      majority = sig;
    } else if (members.size() == largest) {
      ++with_largest;
    }
  }
  // Only a unique largest group of at least two says what "normal" is.
  if (groups.size() < 2 || largest < 2 || with_largest != 1) return;
  const std::vector<std::string>& majority_hosts = groups[majority];
  for (const auto& [host, sig] : hosts) {
    if (sig == majority) continue;
    std::string label = host.empty() ? std::string("the host") : host;
    sink.add(Severity::kWarning, host.empty() ? std::string("the host") : fmt::format("host {}", label),
             host.empty() ? std::vector<std::string>{} : std::vector<std::string>{host},
             fmt::format("{} differs from {} of {} hosts ({}): {} against {}", label, largest, hosts.size(),
                         fmt::join(majority_hosts, ", "), sig, majority),
             "per-host device names or rails differ: one NCCL_IB_HCA or rail map cannot fit every host; check cabling "
             "and device naming",
             {{"host", host}, {"this", sig}, {"majority", majority}, {"majority_hosts", majority_hosts}});
  }
}

}  // namespace fabscope::topo
