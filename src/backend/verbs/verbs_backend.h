// The verbs backend: fabscope's own algorithms over raw RC verbs on host memory.
// Usable where libibverbs sees a device with an ACTIVE port; otherwise it says why.
#pragma once

#include "backend/registry.h"
#include "backend/verbs/verbs_options.h"

namespace fabscope {

Availability probe_verbs_backend();
Result<std::unique_ptr<Backend>> create_verbs_backend(const RankContext& ctx, const VerbsOptions& options,
                                                      const Logger& log);
// The bare Transport, for p2p.
Result<std::unique_ptr<Transport>> create_verbs_transport(const RankContext& ctx, const VerbsOptions& options,
                                                          const Logger& log);

}  // namespace fabscope
