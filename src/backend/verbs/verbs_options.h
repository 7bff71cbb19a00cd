// What the verbs backend is told: perftest's device, port and GID-index choices with
// perftest's defaults, and the queue pairs per peer.
#pragma once

#include <cstdint>
#include <string>

namespace fabscope {

struct VerbsOptions {
  std::string device;  // --verbs-device (perftest -d); empty: the first device whose `port` is ACTIVE
  int port = 1;        // --verbs-port (perftest -i, default 1)
  // --verbs-gid-index (perftest -x, default -1): -1 routes by LID on InfiniBand and picks
  // a GID on RoCE as perftest does (IPv4-mapped first, then RoCE v2); >= 0 uses that GID.
  int gid_index = -1;
  uint32_t qps = 1;                     // --qps (perftest -q, default 1): RC queue pairs per peer
  uint64_t max_write_bytes = 1u << 20;  // one RDMA write carries at most this much
  uint32_t max_recvs_in_flight = 128;   // per peer
  uint32_t send_queue_depth = 128;      // per queue pair
};

}  // namespace fabscope
