#include "core/env.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace fabscope {

bool is_reported_env_name(std::string_view name) {
  for (std::string_view prefix : {"NCCL_", "UCX_", "OMPI_", "CUDA_"}) {
    if (name.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

bool is_secret_env_name(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (std::string_view word :
       {"SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE", "AUTH", "PRECONDITION_TRANSPORTS"}) {
    if (upper.find(word) != std::string::npos) return true;
  }
  for (std::string_view part : split(upper, '_')) {
    if (part == "PKEY") continue;
    if (part.size() >= 3 && part.substr(part.size() - 3) == "KEY") return true;
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
    if (!is_reported_env_name(key)) continue;
    out.emplace(std::string(key), is_secret_env_name(key) ? std::string(kRedacted) : std::string(entry.substr(eq + 1)));
  }
  return out;
}

}  // namespace fabscope
