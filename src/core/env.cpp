#include "core/env.h"

namespace fabscope {

bool is_reported_env_name(std::string_view name) {
  for (std::string_view prefix : {"NCCL_", "UCX_", "OMPI_", "CUDA_"}) {
    if (name.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

std::map<std::string, std::string> reported_environment(const char* const* envp) {
  std::map<std::string, std::string> out;
  if (envp == nullptr) return out;
  for (const char* const* e = envp; *e != nullptr; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = entry.substr(0, eq);
    if (is_reported_env_name(key)) out.emplace(std::string(key), std::string(entry.substr(eq + 1)));
  }
  return out;
}

}  // namespace fabscope
