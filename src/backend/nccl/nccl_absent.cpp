// The nccl entry of a build without the CUDA toolkit or NCCL: listed, never usable,
// and saying why.
#include "backend/nccl/nccl_backend.h"

namespace fabscope {

namespace {
constexpr const char* kWhy =
    "not built: the CUDA toolkit (nvcc) or NCCL (nccl.h, libnccl) was not found when fabscope was configured; "
    "install them (or set NCCL_HOME) and rebuild";
}

Availability probe_nccl_backend() { return Availability{false, false, kWhy}; }

Result<std::unique_ptr<Backend>> create_nccl_backend(const RankContext&, const BackendOptions&, const Logger&) {
  return Status::Unavailable(kWhy);
}

Result<std::unique_ptr<Transport>> create_nccl_transport(const RankContext&, const BackendOptions&, const Logger&) {
  return Status::Unavailable(kWhy);
}

}  // namespace fabscope
