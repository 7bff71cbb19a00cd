// The nccl backend: NCCL's collectives on GPU memory, one GPU per rank (the rank's
// local index among the visible devices), its ncclUniqueId sent over MPI. The
// communicator is non-blocking: every wait polls the stream and NCCL's asynchronous
// error, and aborts the communicator after --timeout without progress.
#pragma once

#include <memory>

#include "backend/registry.h"

namespace fabscope {

Availability probe_nccl_backend();
Result<std::unique_ptr<Backend>> create_nccl_backend(const RankContext& ctx, const BackendOptions& options,
                                                     const Logger& log);
// p2p over ncclSend/ncclRecv between GPU buffers.
Result<std::unique_ptr<Transport>> create_nccl_transport(const RankContext& ctx, const BackendOptions& options,
                                                         const Logger& log);

}  // namespace fabscope
