// The mpi backend: MPI's own collectives on host memory, the reference line.
#pragma once

#include <memory>

#include "backend/registry.h"

namespace fabscope {

Availability probe_mpi_backend();
Result<std::unique_ptr<Backend>> create_mpi_backend(const RankContext& ctx);

}  // namespace fabscope
