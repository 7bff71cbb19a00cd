// Transport over MPI point-to-point (MPI_Isend/MPI_Irecv, polled with MPI_Testsome),
// so that p2p measures MPI's links with the same code as tcp's and verbs'.
#pragma once

#include <memory>

#include "algo/transport.h"
#include "comm/context.h"

namespace fabscope {

Result<std::unique_ptr<Transport>> create_mpi_transport(const RankContext& ctx);

}  // namespace fabscope
