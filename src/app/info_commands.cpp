#include <fmt/format.h>

#include <cstdio>

#include "app/command.h"
#include "backend/registry.h"
#include "fabscope/version.h"

namespace fabscope {

namespace {

std::string found(const char* v) { return *v ? v : "not found"; }

// `fabscope backends`: each backend, compiled? usable here? if not, why.
class BackendsCommand final : public Command {
 public:
  void add_options(CLI::App&) override {}
  CommandOutcome run(const CommonOptions&, int*, char***) override {
    std::fputs(backends_text().c_str(), stdout);
    return {};
  }
};

}  // namespace

std::unique_ptr<Command> make_backends_command() { return std::make_unique<BackendsCommand>(); }

std::string version_text() {
  std::string backends;
  for (const BackendEntry& e : backend_registry()) {
    if (e.probe().compiled) backends += fmt::format("{}{}", backends.empty() ? "" : ", ", e.name);
  }
  return fmt::format(
      "fabscope {} (git {}, {} build)\n"
      "backends compiled in: {}\n"
      "optional libraries at build time: CUDA {}, NCCL {}, libibverbs {}\n",
      build::kVersion, build::kGitId, build::kBuildType, backends, found(build::kCudaVersion),
      found(build::kNcclVersion), found(build::kVerbsVersion));
}

std::string backends_text() {
  std::string out = fmt::format("{:<8} {:<9} {:<9} {}\n", "backend", "compiled", "usable", "detail");
  for (const BackendEntry& e : backend_registry()) {
    Availability a = e.probe();
    out += fmt::format("{:<8} {:<9} {:<9} {}\n", e.name, a.compiled ? "yes" : "no", a.usable ? "yes" : "no", a.detail);
    out += fmt::format("{:<8} {}\n", "", e.summary);
  }
  return out;
}

}  // namespace fabscope
