// The verbs entry of a build without rdma-core: listed, never usable, and saying why.
#include "backend/verbs/verbs_backend.h"

namespace fabscope {

namespace {
constexpr const char* kWhy =
    "not built: rdma-core (libibverbs) was not found when fabscope was configured; install libibverbs-dev and "
    "rebuild";
}

Availability probe_verbs_backend() { return Availability{false, false, kWhy}; }

Result<std::unique_ptr<Backend>> create_verbs_backend(const RankContext&, const VerbsOptions&, const Logger&) {
  return Status::Unavailable(kWhy);
}

Result<std::unique_ptr<Transport>> create_verbs_transport(const RankContext&, const VerbsOptions&, const Logger&) {
  return Status::Unavailable(kWhy);
}

}  // namespace fabscope
