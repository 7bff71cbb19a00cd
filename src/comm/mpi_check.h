// Turns MPI return codes into a Status naming the failing call and where.
#pragma once

#include <mpi.h>
#include <string>

#include "core/status.h"

namespace fabscope {

std::string mpi_error_string(int code);
Status mpi_status(int code, const char* call, const char* file, int line);

// Success is tested inline: calls in timed loops pay one comparison, not a function call.
inline Status mpi_checked(int code, const char* call, const char* file, int line) {
  if (code == MPI_SUCCESS) [[likely]]
    return Status::Ok();
  return mpi_status(code, call, file, line);
}

#define FABSCOPE_MPI(call) ::fabscope::mpi_checked((call), #call, __FILE__, __LINE__)

}  // namespace fabscope
