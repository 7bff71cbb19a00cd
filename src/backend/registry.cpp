#include "backend/registry.h"

#include <fmt/format.h>

#include "backend/mpi/mpi_backend.h"
#include "backend/mpi/mpi_transport.h"
#include "backend/nccl/nccl_backend.h"
#include "backend/tcp/tcp_backend.h"
#include "backend/verbs/verbs_backend.h"

namespace fabscope {

namespace {
VerbsOptions verbs_options(const BackendOptions& b) {
  VerbsOptions o;
  o.device = b.verbs_device;
  o.port = b.verbs_port;
  o.gid_index = b.verbs_gid_index;
  o.qps = b.verbs_qps;
  return o;
}
}  // namespace

const std::vector<BackendEntry>& backend_registry() {
  // In --backend auto preference order.
  static const std::vector<BackendEntry> kEntries = {
      {"nccl", "NCCL's collectives on GPU memory, one GPU per rank: what training jobs run", probe_nccl_backend,
       create_nccl_backend, create_nccl_transport},
      {"verbs", "fabscope's own algorithms over RC verbs (RDMA write with immediate) on host memory",
       probe_verbs_backend,
       [](const RankContext& c, const BackendOptions& b, const Logger& l) {
         return create_verbs_backend(c, verbs_options(b), l);
       },
       [](const RankContext& c, const BackendOptions& b, const Logger& l) {
         return create_verbs_transport(c, verbs_options(b), l);
       }},
      {"tcp", "fabscope's own algorithms over TCP sockets on host memory: knows which link every byte crossed",
       probe_tcp_backend, create_tcp_backend, create_tcp_transport},
      {"mpi", "MPI's own collectives on host memory: the reference line, runs anywhere MPI runs", probe_mpi_backend,
       [](const RankContext& ctx, const BackendOptions&, const Logger&) { return create_mpi_backend(ctx); },
       [](const RankContext& ctx, const BackendOptions&, const Logger&) { return create_mpi_transport(ctx); }},
  };
  return kEntries;
}

Result<const BackendEntry*> select_backend(std::string_view name) {
  const auto& entries = backend_registry();
  std::string names;
  for (const auto& e : entries) names += fmt::format("{}, ", e.name);
  names += "auto";
  if (name == "auto") {
    std::string reasons;
    for (const auto& e : entries) {
      Availability a = e.probe();
      if (a.usable) return &e;
      reasons += fmt::format("; {}: {}", e.name, a.detail);
    }
    return Status::Unavailable(fmt::format("--backend auto found no usable backend{}", reasons));
  }
  for (const auto& e : entries) {
    if (e.name != name) continue;
    Availability a = e.probe();
    if (!a.usable) return Status::Unavailable(fmt::format("backend '{}' is unavailable here: {}", name, a.detail));
    return &e;
  }
  return Status::Invalid(fmt::format("unknown backend '{}'; allowed: {}", name, names));
}

}  // namespace fabscope
