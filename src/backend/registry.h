// The explicit list of backends fabscope knows, in `--backend auto` preference
// order. Each entry says whether it was compiled in and whether it can run here,
// and why not, without creating anything.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "algo/transport.h"
#include "backend/backend.h"
#include "comm/context.h"
#include "core/log.h"

namespace fabscope {

struct Availability {
  bool compiled = false;
  bool usable = false;
  std::string detail;  // the library and version when usable; the reason when not
};

// Options some backends take (unknown ones are ignored by the others).
struct BackendOptions {
  std::string tcp_interface;   // --tcp-if
  std::string tcp_address;     // --tcp-addr
  std::string tcp_congestion;  // --tcp-cc: congestion control of every connection; "host": the host's; empty: cubic
  std::string verbs_device;    // --verbs-device (perftest -d); empty: the first with an ACTIVE port
  int verbs_port = 1;          // --verbs-port (perftest -i)
  int verbs_gid_index = -1;    // --verbs-gid-index (perftest -x; -1: LID on InfiniBand, perftest's GID choice on RoCE)
  uint32_t verbs_qps = 1;      // --qps (perftest -q)
  std::string nccl_debug_dir;  // --nccl-debug-dir: NCCL INFO logs, one file per rank
  // --share-gpus: more ranks on a node than GPUs, each rank presenting its own NCCL host
  // id (NCCL_HOSTID), so that NCCL connects them through its network transport.
  bool share_gpus = false;
  // --nccl-profile (app/nccl_profile_run.h): NCCL loads this profiler plugin, which writes
  // into this rank's own directory; empty: no profiling.
  std::string nccl_profiler_plugin;
  std::string nccl_profile_dir;
  double timeout_s = 300;       // --timeout: a backend that polls its own completions aborts after this
  std::set<std::string> given;  // the options above the user gave ("--qps"), to refuse those of another backend
};

struct BackendEntry {
  std::string_view name;
  std::string_view summary;
  std::function<Availability()> probe;
  std::function<Result<std::unique_ptr<Backend>>(const RankContext&, const BackendOptions&, const Logger&)> create;
  // The point-to-point Transport p2p measures with; every backend here has one.
  std::function<Result<std::unique_ptr<Transport>>(const RankContext&, const BackendOptions&, const Logger&)>
      create_transport;
};

const std::vector<BackendEntry>& backend_registry();
// "auto" picks the first usable entry; an unknown or unusable name is an error
// that lists the choices.
Result<const BackendEntry*> select_backend(std::string_view name);

}  // namespace fabscope
