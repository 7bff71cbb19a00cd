#include "backend/verbs/verbs_backend.h"

#include <fmt/format.h>

#include "backend/algo_backend.h"
#include "backend/verbs/verbs_device.h"
#include "backend/verbs/verbs_transport.h"

namespace fabscope {

Availability probe_verbs_backend() {
  Availability a;
  a.compiled = true;
  const std::vector<VerbsDeviceSummary> devices = list_verbs_devices();
  if (devices.empty()) {
    a.detail = kNoVerbsDevice;
    return a;
  }
  for (const auto& d : devices) {
    for (const auto& p : d.ports) a.usable = a.usable || (d.error.empty() && p.active);
  }
  a.detail = a.usable ? fmt::format("libibverbs: {}", describe_verbs_devices(devices))
                      : fmt::format("no RDMA device has an ACTIVE port: {}", describe_verbs_devices(devices));
  return a;
}

Result<std::unique_ptr<Transport>> create_verbs_transport(const RankContext& ctx, const VerbsOptions& options,
                                                          const Logger& log) {
  auto t = VerbsTransport::create(ctx, options, log);
  if (!t.ok()) return t.status();
  return std::unique_ptr<Transport>(std::move(*t));
}

Result<std::unique_ptr<Backend>> create_verbs_backend(const RankContext& ctx, const VerbsOptions& options,
                                                      const Logger& log) {
  return make_algo_backend("verbs", create_verbs_transport(ctx, options, log));
}

}  // namespace fabscope
