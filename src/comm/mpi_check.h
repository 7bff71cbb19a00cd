// Turns MPI return codes into a Status naming the failing call and where.
#pragma once

#include <mpi.h>
#include <string>

#include "core/status.h"

namespace fabscope {

std::string mpi_error_string(int code);
Status mpi_status(int code, const char* call, const char* file, int line);

#define FABSCOPE_MPI(call) ::fabscope::mpi_status((call), #call, __FILE__, __LINE__)

}  // namespace fabscope
