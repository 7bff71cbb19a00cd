// The environment variables a report may carry: NCCL_*, UCX_*, OMPI_* and CUDA_*,
// never the whole environment (tokens and passwords live there).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace fabscope {

bool is_reported_env_name(std::string_view name);
// Filters "NAME=value" entries (as in environ) down to the reported ones.
std::map<std::string, std::string> reported_environment(const char* const* envp);

}  // namespace fabscope
