// The environment variables a report may carry: NCCL_*, UCX_*, OMPI_* and CUDA_*,
// never the whole environment (tokens and passwords live there). Within those, a
// variable whose name looks secret keeps its name with the value "<redacted>".
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace fabscope {

inline constexpr std::string_view kRedacted = "<redacted>";

bool is_reported_env_name(std::string_view name);
// True for a name whose value must not reach a report: it contains SECRET, TOKEN,
// PASSWORD, PASSWD, CREDENTIAL, PRIVATE or AUTH, or a part between underscores is or
// ends in KEY (NCCL_IB_PKEY, InfiniBand's partition key, excepted: a fabric setting, not
// a secret), or it is Open MPI's per-job transport key (*precondition_transports).
// Case does not matter (OMPI_MCA_my_secret).
bool is_secret_env_name(std::string_view name);
// Filters "NAME=value" entries (as in environ) down to the reported ones, secrets redacted.
std::map<std::string, std::string> reported_environment(const char* const* envp);

}  // namespace fabscope
