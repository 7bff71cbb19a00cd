// The NCCL profiler plugin interface, as NCCL's documentation and its
// plugins/profiler headers describe it (plugins/profiler/README.md): the structures
// NCCL passes and the table of functions it looks up by the symbol ncclProfiler_vN.
// Declared here from those facts, for the versions fabscope's plugin implements:
//   v4: NCCL 2.27 (init(context, mask, commName, commHash, ...); descriptor type is a byte)
//   v5: NCCL 2.28, and 2.29+ through NCCL's own v5 adapter (init(context, commId, mask,
//       commName, ...); 64-bit descriptor type; API events)
// The fields fabscope reads (proxy operations and steps, collectives and p2p calls) sit
// at the same offsets in both.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace fabscope::ncclprof {

using Result = int;  // ncclResult_t: an int-sized enum
inline constexpr Result kSuccess = 0;
inline constexpr Result kInternalError = 3;

// ncclDebugLogger_t; level 2 is WARN, 3 INFO; flags: 1 INIT, 16384 PROFILE.
using Logger = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);
inline constexpr int kLogWarn = 2;
inline constexpr int kLogInfo = 3;
inline constexpr unsigned long kLogInit = 1;

// Event types (ncclProfile*): bits of the activation mask and of the descriptor's type.
enum : uint64_t {
  kGroup = 1u << 0,
  kColl = 1u << 1,
  kP2p = 1u << 2,
  kProxyOp = 1u << 3,
  kProxyStep = 1u << 4,
  kProxyCtrl = 1u << 5,
  kKernelCh = 1u << 6,
  kNetPlugin = 1u << 7,
};

// Event states (ncclProfilerEventState_t) a proxy step goes through.
enum State : int {
  kProxyOpInProgress = 19,
  kSendGpuWait = 8,     // waiting for the GPU to fill the send buffer
  kSendPeerWait = 20,   // data ready, waiting for the receiver's credit (clear to send)
  kSendWait = 9,        // posted to the network, waiting for the send to complete
  kRecvWait = 10,       // receive posted, waiting for the data from the network
  kRecvFlushWait = 11,  // data arrived, waiting for the flush to GPU memory
  kRecvGpuWait = 12,    // waiting for the GPU to consume the data
};

struct CollDescr {
  uint64_t seq;
  const char* func;
  const void* send_buff;
  void* recv_buff;
  size_t count;
  int root;
  const char* datatype;
  uint8_t n_channels;
  uint8_t n_warps;
  const char* algo;
  const char* proto;
};
struct P2pDescr {
  const char* func;
  void* buff;
  const char* datatype;
  size_t count;
  int peer;
  uint8_t n_channels;
};
struct ProxyOpDescr {
  pid_t pid;           // the process that made the operation (PXN: maybe another)
  uint8_t channel_id;  // the channel
  int peer;            // the remote rank
  int n_steps;
  int chunk_size;
  int is_send;
};
struct ProxyStepDescr {
  int step;
};

// ncclProfilerEventDescr_v5_t (the members fabscope does not read are kept for the layout).
struct DescrV5 {
  uint64_t type;
  void* parent;
  int rank;
  union {
    struct {
      bool graph_captured;
      int group_depth;
    } group_api;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      int root;
      void* stream;
      bool graph_captured;
    } coll_api;
    CollDescr coll;
    P2pDescr p2p;
    ProxyOpDescr proxy_op;
    ProxyStepDescr proxy_step;
    struct {
      uint8_t channel_id;
      uint64_t ptimer;
    } kernel_ch;
    struct {
      int64_t id;
      void* data;
    } net_plugin;
    unsigned char pad[128];
  };
};

// ncclProfilerEventDescr_v4_t: the same but a one-byte type.
struct DescrV4 {
  uint8_t type;
  void* parent;
  int rank;
  union {
    CollDescr coll;
    P2pDescr p2p;
    ProxyOpDescr proxy_op;
    ProxyStepDescr proxy_step;
    unsigned char pad[128];
  };
};

// ncclProfilerEventStateArgs_v4/v5_t.
union StateArgs {
  struct {
    size_t trans_size;
  } proxy_step;
  struct {
    int appended_proxy_ops;
  } proxy_ctrl;
  struct {
    void* data;
  } net_plugin;
  struct {
    uint64_t ptimer;
  } kernel_ch;
};

struct ProfilerV5 {
  const char* name;
  Result (*init)(void** context, uint64_t comm_id, int* activation_mask, const char* comm_name, int n_nodes,
                 int n_ranks, int rank, Logger log);
  Result (*start_event)(void* context, void** handle, DescrV5* descr);
  Result (*stop_event)(void* handle);
  Result (*record_event_state)(void* handle, int state, StateArgs* args);
  Result (*finalize)(void* context);
};

struct ProfilerV4 {
  const char* name;
  Result (*init)(void** context, int* activation_mask, const char* comm_name, uint64_t comm_hash, int n_nodes,
                 int n_ranks, int rank, Logger log);
  Result (*start_event)(void* context, void** handle, DescrV4* descr);
  Result (*stop_event)(void* handle);
  Result (*record_event_state)(void* handle, int state, StateArgs* args);
  Result (*finalize)(void* context);
};

static_assert(offsetof(DescrV5, parent) == 8 && offsetof(DescrV5, rank) == 16 && offsetof(DescrV5, coll) == 24);
static_assert(offsetof(DescrV4, parent) == 8 && offsetof(DescrV4, rank) == 16 && offsetof(DescrV4, coll) == 24);
static_assert(offsetof(ProxyOpDescr, channel_id) == 4 && offsetof(ProxyOpDescr, peer) == 8 &&
              offsetof(ProxyOpDescr, is_send) == 20);
static_assert(offsetof(CollDescr, count) == 32 && offsetof(CollDescr, datatype) == 48 &&
              offsetof(CollDescr, algo) == 64);

// Where the plugin writes, and what (the file's "format" and "version").
inline constexpr const char* kDirVariable = "FABSCOPE_PROFILE_DIR";
inline constexpr const char* kFormat = "fabscope-nccl-profile";
inline constexpr int kFormatVersion = 2;  // 2: the wall-clock time per state ("wall_ns", "peers")
// Snapshots while the job runs: every FABSCOPE_PROFILE_INTERVAL seconds, one file per rank
// and communicator (fabscope-snapshot-*.json, the profile's fields with "snapshot" and
// "interval"), the last FABSCOPE_PROFILE_KEEP of each kept (default kDefaultKeep).
inline constexpr const char* kIntervalVariable = "FABSCOPE_PROFILE_INTERVAL";
inline constexpr const char* kKeepVariable = "FABSCOPE_PROFILE_KEEP";
inline constexpr int kDefaultKeep = 8;
// Prometheus textfiles for node_exporter: with FABSCOPE_PROFILE_PROM=DIR, one file per
// process (DIR/fabscope-nccl-HOST-PID.prom, every communicator of it) rewritten each
// interval (FABSCOPE_PROFILE_INTERVAL, kDefaultPromInterval without it), removed at exit.
inline constexpr const char* kPromVariable = "FABSCOPE_PROFILE_PROM";
inline constexpr double kDefaultPromInterval = 15;
// The textfile's metric families, by the index the writers use; `fabscope report --format
// prometheus` writes the same ones for a `fabscope watch` report (report/prometheus_reporter.cpp).
// Labels: comm, host, rank, and for the link families peer and direction.
struct PromFamily {
  const char* name;
  const char* type;
  const char* help;
};
enum PromIndex { kPromBytes, kPromSteps, kPromWait, kPromWaitPerStep, kPromRate, kPromSeq, kPromStamp, kPromFamilies };
inline constexpr PromFamily kPromFamily[kPromFamilies] = {
    {"fabscope_nccl_link_bytes_total", "counter", "Bytes a rank's network transfers moved to or from a peer."},
    {"fabscope_nccl_link_steps_total", "counter", "Network transfers (proxy steps) of a rank to or from a peer."},
    {"fabscope_nccl_link_network_wait_seconds_total", "counter",
     "Time a rank's transfers to or from a peer waited on the network (SendWait, RecvWait), summed over steps."},
    {"fabscope_nccl_link_wait_per_step_seconds", "gauge",
     "Network wait per transfer to or from a peer in the last interval."},
    {"fabscope_nccl_link_bytes_per_second", "gauge", "Bytes moved to or from a peer per second in the last interval."},
    {"fabscope_nccl_snapshot_seq", "gauge", "The last interval's sequence number, per rank and communicator."},
    {"fabscope_nccl_snapshot_timestamp_seconds", "gauge",
     "When the last interval ended, seconds since the Unix epoch: a rank whose value stops rising is hung or dead."}};
// The step states, in the order of the file's "states" arrays.
inline constexpr int kStates = 6;
inline constexpr const char* kStateNames[kStates] = {"SendGPUWait", "SendPeerWait",  "SendWait",
                                                     "RecvWait",    "RecvFlushWait", "RecvGPUWait"};
// Histogram of step state durations: bucket 0 below 1 us (1024 ns), bucket k in
// [2^(9+k), 2^(10+k)) ns, the last everything from about 4.3 s.
inline constexpr int kBuckets = 24;
inline constexpr int kFirstBucketLog2Ns = 10;

}  // namespace fabscope::ncclprof
