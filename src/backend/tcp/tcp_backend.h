// The tcp backend: fabscope's own algorithms over TCP sockets. The embedded default
// where no GPU and no RDMA device exist, and the vehicle that tests the algorithms.
#pragma once

#include "backend/registry.h"

namespace fabscope {

Availability probe_tcp_backend();
Result<std::unique_ptr<Backend>> create_tcp_backend(const RankContext& ctx, const BackendOptions& options,
                                                    const Logger& log);

Result<std::unique_ptr<Transport>> create_tcp_transport(const RankContext& ctx, const BackendOptions& options,
                                                        const Logger& log);

}  // namespace fabscope
