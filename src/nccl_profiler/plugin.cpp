// libnccl-profiler-fabscope.so: NCCL's profiler plugin interface (profiler_api.h), kept
// to what attributes GPU wait to the network: for every proxy step (one network
// transfer of one channel to or from one peer), the time it spent in each state
// (SendGPUWait, SendPeerWait, SendWait, RecvWait, RecvFlushWait, RecvGPUWait), summed
// per (collective and size, peer, channel, direction, state) with a log2 histogram, and
// the wall-clock time in each state: the union of the intervals of the steps in flight
// together, per channel and across the channels of each (collective and size, peer,
// direction) (busy_time.h). The sum counts 8 steps in flight on 4 channels 32 times;
// the wall-clock time never exceeds the calls'.
//
// The event path neither allocates nor locks: event records come from a fixed ring per
// thread (a record stopped on another thread is handed back by one atomic store), and the
// sums are relaxed atomic adds into a per-communicator table that is allocated zeroed at
// init (its pages are touched only where a bin is used). When a ring or a table is full,
// the event is dropped and counted ("dropped_events"), never waited for. They are sized
// for a sweep of every collective at the default size over up to 256 ranks with its 22
// calls enqueued back to back (`fabscope_profile_replay sweep`): the proxy starts the
// operations of every enqueued call at once (an all-to-all's 22 calls over 256 ranks hold
// some 30,000 records, its p2p calls 510 keys), and a free record is looked for in the
// whole ring, so a run of long-lived operations' records does not drop the step that
// meets it (with 64 records tried, 8 ranks and 16 channels dropped 2 events).
//
// At finalize (the communicator destroyed), and at process exit for a communicator never
// destroyed, it writes one JSON file per communicator into $FABSCOPE_PROFILE_DIR
// (written to a temporary name and renamed, so a reader never sees half a file).
// src/diag/nccl_profile.h reads it.
//
// With FABSCOPE_PROFILE_INTERVAL=S it also writes snapshots while the job runs: a thread
// of its own, every S seconds, writes each communicator's totals so far and the interval's
// own figures per peer and direction (bytes, steps, each state's summed and wall-clock
// time) as fabscope-snapshot-HOST-PID-cCOMM-rRANK-sSEQ.json, atomically, keeping the last
// FABSCOPE_PROFILE_KEEP (default 8) of each. It reads the tables with the same relaxed
// loads as the final write; NCCL's threads never wait for it (a finalize waits for the
// one snapshot being written of its own communicator, if any, before freeing it).
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nccl_profiler/busy_time.h"
#include "nccl_profiler/profiler_api.h"

namespace fabscope::ncclprof {
namespace {

constexpr int kMaxKeys = 2048;              // collective/size/algorithm combinations per communicator (p2p: per peer)
constexpr int kMaxBins = 16384;             // (key, peer, channel, direction) per communicator
constexpr int kCollRing = 16384;            // collective and p2p events kept for their proxy operations
constexpr int kPoolRecords = 32768;         // proxy-op and proxy-step records per thread (1.5 MiB)
constexpr int kMaxContexts = 256;           // communicators alive at once, for the exit flush
constexpr uint32_t kOtherKey = 0;           // steps whose collective is unknown (PXN, table full)
constexpr uint32_t kKindColl = 0x436f6c6c;  // handle kinds
constexpr uint32_t kKindOp = 0x4f705270;
constexpr uint32_t kKindStep = 0x53746570;

uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

template <typename T>
void add(T& v, T d) {
  __atomic_fetch_add(&v, d, __ATOMIC_RELAXED);
}
template <typename T>
T load(const T& v) {
  return __atomic_load_n(&v, __ATOMIC_ACQUIRE);
}

int state_index(int state) {
  switch (state) {
    case kSendGpuWait:
      return 0;
    case kSendPeerWait:
      return 1;
    case kSendWait:
      return 2;
    case kRecvWait:
      return 3;
    case kRecvFlushWait:
      return 4;
    case kRecvGpuWait:
      return 5;
    default:
      return -1;
  }
}

int bucket_of(uint64_t ns) {
  if (ns < (1ull << kFirstBucketLog2Ns)) return 0;
  const int b = 63 - __builtin_clzll(ns) - kFirstBucketLog2Ns + 1;
  return b >= kBuckets ? kBuckets - 1 : b;
}

struct StateSum {  // the count is the histogram's sum, one atomic add fewer per state
  uint64_t ns;     // summed over the steps
  uint64_t max_ns;
  uint64_t busy;     // BusyClock's word: the steps in this state now
  uint64_t wall_ns;  // the union of the steps' intervals in this state
  uint32_t hist[kBuckets];
};
uint64_t count_of(const StateSum& s) {
  uint64_t n = 0;
  for (int b = 0; b < kBuckets; ++b) n += __atomic_load_n(&s.hist[b], __ATOMIC_ACQUIRE);
  return n;
}

// One channel's steps to or from one peer, or (kGroup) every channel's: its wall_ns alone.
struct Bin {
  uint64_t tag;  // 0: free; else (key+1)<<40 | (peer+1)<<16 | channel<<8 | group<<1 | is_send
  uint64_t ops;
  uint64_t steps;
  uint64_t done_steps;
  uint64_t bytes;
  StateSum states[kStates];
};

struct Key {
  int state;  // 0 free, 1 being filled, 2 ready
  uint64_t hash;
  const char* id[4];  // NCCL's string pointers (func, datatype, algo, proto) as given
  uint64_t count;
  int peer;  // p2p: the peer; -1 for collectives
  uint8_t channels;
  bool p2p;
  char func[32];
  char datatype[32];
  char algo[32];
  char proto[16];
  uint64_t calls;
};

struct Context;
struct CollSlot {
  uint32_t kind;
  uint32_t key;
  Context* ctx;
};

struct Context {
  uint64_t magic;
  int api;
  uint64_t comm_id;
  char comm_name[128];
  int n_nodes;
  int n_ranks;
  int rank;
  pid_t pid;
  uint64_t start_ns;
  Logger log;
  int registry_slot;
  uint64_t dropped;
  uint64_t foreign_parents;  // proxy operations whose collective lives in another process (PXN)
  uint64_t unknown_states;
  uint32_t coll_cursor;
  CollSlot colls[kCollRing];
  Key keys[kMaxKeys];
  // The bins taken, in the order taken: each an index + 1 (0 until published), so that
  // readers go through these alone, not all kMaxBins (13 MB, untouched pages mostly: a
  // first snapshot that read every bin's tag faulted them in, 2.6-2.9 ms on one core,
  // which cost two ranks sharing an H200 9% of one sweep point's busbw).
  uint32_t n_used_bins;
  uint32_t used_bins[kMaxBins];
  Bin bins[kMaxBins];
};

// Calls f(bin) for every bin taken so far (a bin being published is met next time).
template <typename F>
void for_each_bin(const Context* c, F&& f) {
  const uint32_t n = __atomic_load_n(&c->n_used_bins, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < n && i < static_cast<uint32_t>(kMaxBins); ++i) {
    const uint32_t at = __atomic_load_n(&c->used_bins[i], __ATOMIC_ACQUIRE);
    if (at != 0) f(c->bins[at - 1]);
  }
}
constexpr uint64_t kMagic = 0x6661627363707266ull;

// A proxy operation's or step's record, in the ring of the thread that started it.
struct Record {
  uint32_t kind;
  int used;   // 1 while started and not stopped; cleared by stopEvent on any thread
  int state;  // the current state's index, -1 before the first
  Bin* bin;
  Bin* group;  // the bin of every channel to or from the same peer
  uint64_t since_ns;
  uint64_t trans_size;
};

struct Pool {
  Record records[kPoolRecords];
  uint32_t cursor;
};
thread_local Pool t_pool;

Context* g_contexts[kMaxContexts];

// The next free record from the cursor on; none free in the whole ring: the event is dropped.
Record* take_record(uint32_t kind) {
  Pool& p = t_pool;
  for (int i = 0; i < kPoolRecords; ++i) {
    Record& r = p.records[p.cursor++ % kPoolRecords];
    if (load(r.used) == 0) {
      r.kind = kind;
      r.state = -1;
      r.bin = nullptr;
      r.group = nullptr;
      r.trans_size = 0;
      __atomic_store_n(&r.used, 1, __ATOMIC_RELAXED);
      return &r;
    }
  }
  return nullptr;
}
void give_back(Record* r) { __atomic_store_n(&r->used, 0, __ATOMIC_RELEASE); }

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

void copy_name(char* dst, size_t n, const char* src) {
  if (src == nullptr) src = "";
  size_t i = 0;
  for (; i + 1 < n && src[i] != '\0'; ++i) dst[i] = src[i];
  dst[i] = '\0';
}

// The key of a collective or p2p call: NCCL's string pointers are its constants, so they
// identify the strings without comparing them.
uint32_t find_key(Context* c, bool p2p, const char* func, const char* datatype, const char* algo, const char* proto,
                  uint64_t count, int peer, uint8_t channels) {
  const uint64_t h =
      mix(reinterpret_cast<uintptr_t>(func) ^ mix(reinterpret_cast<uintptr_t>(datatype)) ^
          mix(reinterpret_cast<uintptr_t>(algo) + 1) ^ mix(reinterpret_cast<uintptr_t>(proto) + 2) ^ mix(count + 3) ^
          mix(static_cast<uint64_t>(peer) + 5) ^ (static_cast<uint64_t>(channels) << 7) ^ (p2p ? 1 : 0)) |
      1;
  const char* id[4] = {func, datatype, algo, proto};
  for (int i = 0; i < kMaxKeys - 1; ++i) {
    const uint32_t k = 1 + static_cast<uint32_t>((h + static_cast<uint64_t>(i)) % (kMaxKeys - 1));
    Key& key = c->keys[k];
    int st = load(key.state);
    if (st == 0) {
      int expected = 0;
      if (__atomic_compare_exchange_n(&key.state, &expected, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        key.hash = h;
        for (int j = 0; j < 4; ++j) key.id[j] = id[j];
        key.count = count;
        key.peer = peer;
        key.channels = channels;
        key.p2p = p2p;
        copy_name(key.func, sizeof key.func, func);
        copy_name(key.datatype, sizeof key.datatype, datatype);
        copy_name(key.algo, sizeof key.algo, algo);
        copy_name(key.proto, sizeof key.proto, proto);
        __atomic_store_n(&key.state, 2, __ATOMIC_RELEASE);
        return k;
      }
      st = expected;
    }
    while (st == 1) st = load(key.state);  // another thread is filling it: a few stores
    if (key.hash == h && key.count == count && key.peer == peer && key.channels == channels && key.p2p == p2p &&
        key.id[0] == func && key.id[1] == datatype && key.id[2] == algo && key.id[3] == proto) {
      return k;
    }
  }
  add(c->dropped, uint64_t{1});
  return kOtherKey;
}

constexpr uint64_t kGroup = 2;  // a tag's bit: the bin of every channel

Bin* find_bin(Context* c, uint32_t key, int peer, int channel, bool send, uint64_t group = 0) {
  const uint64_t tag = (static_cast<uint64_t>(key) + 1) << 40 | (static_cast<uint64_t>(peer + 1) & 0xffffff) << 16 |
                       (static_cast<uint64_t>(channel) & 0xff) << 8 | group | (send ? 1 : 0);
  const uint64_t h = mix(tag);
  for (int i = 0; i < kMaxBins; ++i) {
    const auto at = static_cast<uint32_t>((h + static_cast<uint64_t>(i)) % kMaxBins);
    Bin& b = c->bins[at];
    uint64_t t = load(b.tag);
    if (t == tag) return &b;
    if (t == 0) {
      uint64_t expected = 0;
      if (__atomic_compare_exchange_n(&b.tag, &expected, tag, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        const uint32_t slot = __atomic_fetch_add(&c->n_used_bins, 1u, __ATOMIC_ACQ_REL);  // < kMaxBins: one per bin
        __atomic_store_n(&c->used_bins[slot], at + 1, __ATOMIC_RELEASE);
        return &b;
      }
      if (expected == tag) return &b;
    }
  }
  return nullptr;
}

// The step enters state `idx` at `t`: one more in it, on its channel and across channels.
void open_state(Record* r, int idx, uint64_t t) {
  r->state = idx;
  r->since_ns = t;
  BusyClock::enter(&r->bin->states[idx].busy, t);
  if (r->group != nullptr) BusyClock::enter(&r->group->states[idx].busy, t);
}

// The time since the step entered its current state goes to that state: summed, and to
// the wall-clock time when it was the last step in that state.
void close_state(Record* r, uint64_t t) {
  if (r->state < 0 || r->bin == nullptr) return;
  const uint64_t d = t > r->since_ns ? t - r->since_ns : 0;
  StateSum& s = r->bin->states[r->state];
  if (const uint64_t w = BusyClock::leave(&s.busy, t); w > 0) add(s.wall_ns, w);
  if (r->group != nullptr) {
    StateSum& g = r->group->states[r->state];
    if (const uint64_t w = BusyClock::leave(&g.busy, t); w > 0) add(g.wall_ns, w);
  }
  add(s.ns, d);
  add(s.hist[bucket_of(d)], uint32_t{1});
  uint64_t m = __atomic_load_n(&s.max_ns, __ATOMIC_RELAXED);
  while (d > m && !__atomic_compare_exchange_n(&s.max_ns, &m, d, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

Result start(void* context, void** handle, uint64_t type, void* parent, const void* body) {
  *handle = nullptr;
  auto* c = static_cast<Context*>(context);
  if (c == nullptr || c->magic != kMagic) return kSuccess;
  if (type == kColl || type == kP2p) {
    uint32_t key;
    if (type == kColl) {
      const auto* d = static_cast<const CollDescr*>(body);
      key = find_key(c, false, d->func, d->datatype, d->algo, d->proto, d->count, -1, d->n_channels);
    } else {
      const auto* d = static_cast<const P2pDescr*>(body);
      key = find_key(c, true, d->func, d->datatype, nullptr, nullptr, d->count, d->peer, d->n_channels);
    }
    add(c->keys[key].calls, uint64_t{1});
    CollSlot& s = c->colls[__atomic_fetch_add(&c->coll_cursor, 1u, __ATOMIC_RELAXED) % kCollRing];
    s.kind = kKindColl;
    s.key = key;
    s.ctx = c;
    *handle = &s;
    return kSuccess;
  }
  if (type == kProxyOp) {
    const auto* d = static_cast<const ProxyOpDescr*>(body);
    uint32_t key = kOtherKey;
    if (d->pid == c->pid && parent != nullptr) {
      const auto* s = static_cast<const CollSlot*>(parent);
      if (s->kind == kKindColl && s->ctx == c) key = s->key;
    } else if (parent != nullptr) {
      add(c->foreign_parents, uint64_t{1});  // PXN: the collective is another process's
    }
    Bin* bin = find_bin(c, key, d->peer, d->channel_id, d->is_send != 0);
    Bin* group = find_bin(c, key, d->peer, 0, d->is_send != 0, kGroup);
    Record* r = bin != nullptr && group != nullptr ? take_record(kKindOp) : nullptr;
    if (r == nullptr) {
      add(c->dropped, uint64_t{1});
      return kSuccess;
    }
    r->bin = bin;
    r->group = group;
    add(bin->ops, uint64_t{1});
    *handle = r;
    return kSuccess;
  }
  if (type == kProxyStep) {
    auto* op = static_cast<Record*>(parent);
    if (op == nullptr || op->kind != kKindOp || op->bin == nullptr) return kSuccess;
    Record* r = take_record(kKindStep);
    if (r == nullptr) {
      add(c->dropped, uint64_t{1});
      return kSuccess;
    }
    r->bin = op->bin;  // its time starts with its first state (record)
    r->group = op->group;
    add(op->bin->steps, uint64_t{1});
    *handle = r;
    return kSuccess;
  }
  return kSuccess;  // not asked for: no handle
}

Result stop(void* handle) {
  if (handle == nullptr) return kSuccess;
  const uint32_t kind = *static_cast<const uint32_t*>(handle);
  if (kind == kKindColl) return kSuccess;  // enqueued; its slot stays for its proxy operations
  auto* r = static_cast<Record*>(handle);
  if (kind == kKindStep) {
    close_state(r, now_ns());
    add(r->bin->done_steps, uint64_t{1});
    add(r->bin->bytes, r->trans_size);
  }
  if (kind == kKindStep || kind == kKindOp) give_back(r);
  return kSuccess;
}

Result record(void* handle, int state, StateArgs* args) {
  if (handle == nullptr) return kSuccess;
  auto* r = static_cast<Record*>(handle);
  if (r->kind != kKindStep) return kSuccess;
  const int idx = state_index(state);
  if (args != nullptr && args->proxy_step.trans_size > 0) r->trans_size = args->proxy_step.trans_size;
  if (idx < 0 || idx == r->state) return kSuccess;  // SendPeerWait repeats while the peer has no credit
  const uint64_t t = now_ns();
  close_state(r, t);
  open_state(r, idx, t);
  return kSuccess;
}

// --- The file ---------------------------------------------------------------------

void json_string(FILE* f, const char* s) {
  fputc('"', f);
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(s); *p; ++p) {
    if (*p == '"' || *p == '\\') {
      fputc('\\', f);
      fputc(*p, f);
    } else if (*p < 0x20 || *p >= 0x7f) {
      fprintf(f, "\\u%04x", *p < 0x20 ? *p : '?');
    } else {
      fputc(*p, f);
    }
  }
  fputc('"', f);
}

void utc_now(char* out, size_t n) {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  tm t{};
  gmtime_r(&ts.tv_sec, &t);
  strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &t);
}

void write_keys(FILE* f, const Context* c) {
  bool first = true;
  for (int k = 0; k < kMaxKeys; ++k) {
    const Key& key = c->keys[k];
    if (k != static_cast<int>(kOtherKey) && load(key.state) != 2) continue;
    fprintf(f, "%s\n    {\"id\": %d, \"kind\": \"%s\", \"func\": ", first ? "" : ",", k,
            k == static_cast<int>(kOtherKey) ? "unknown"
            : key.p2p                        ? "p2p"
                                             : "collective");
    json_string(f, key.func);
    fputs(", \"datatype\": ", f);
    json_string(f, key.datatype);
    fprintf(f, ", \"count\": %" PRIu64 ", \"algo\": ", key.count);
    json_string(f, key.algo);
    fputs(", \"proto\": ", f);
    json_string(f, key.proto);
    fprintf(f, ", \"peer\": %d, \"channels\": %d, \"calls\": %" PRIu64 "}", key.peer, key.channels, load(key.calls));
    first = false;
  }
}

// One channel's states: the summed time, the steps, the longest, the histogram, the
// wall-clock time.
void write_states(FILE* f, const Bin& b) {
  bool first = true;
  for (int s = 0; s < kStates; ++s) {
    const StateSum& st = b.states[s];
    const uint64_t count = count_of(st);
    if (count == 0) continue;
    fprintf(f,
            "%s\"%s\": {\"ns\": %" PRIu64 ", \"wall_ns\": %" PRIu64 ", \"count\": %" PRIu64 ", \"max_ns\": %" PRIu64
            ", \"hist\": [",
            first ? "" : ", ", kStateNames[s], load(st.ns), load(st.wall_ns), count, load(st.max_ns));
    for (int h = 0; h < kBuckets; ++h) fprintf(f, "%s%u", h ? "," : "", load(st.hist[h]));
    fputs("]}", f);
    first = false;
  }
}

// The bins of one channel each ("bins"), or those of every channel to or from a peer
// ("peers": the wall-clock time per state alone).
void write_bins(FILE* f, const Context* c, bool groups) {
  bool first = true;
  for_each_bin(c, [&](const Bin& b) {
    const uint64_t tag = load(b.tag);
    if (tag == 0 || ((tag & kGroup) != 0) != groups) return;
    const int key = static_cast<int>((tag >> 40) - 1);
    const int peer = static_cast<int>((tag >> 16) & 0xffffff) - 1;
    const int channel = static_cast<int>((tag >> 8) & 0xff);
    const char* direction = (tag & 1) ? "send" : "recv";
    if (groups) {
      fprintf(f, "%s\n    {\"key\": %d, \"peer\": %d, \"direction\": \"%s\", \"wall_ns\": {", first ? "" : ",", key,
              peer, direction);
      bool first_state = true;
      for (int s = 0; s < kStates; ++s) {
        const uint64_t w = load(b.states[s].wall_ns);
        if (w == 0) continue;
        fprintf(f, "%s\"%s\": %" PRIu64, first_state ? "" : ", ", kStateNames[s], w);
        first_state = false;
      }
      fputs("}}", f);
    } else {
      fprintf(f,
              "%s\n    {\"key\": %d, \"peer\": %d, \"channel\": %d, \"direction\": \"%s\", \"ops\": %" PRIu64
              ", \"steps\": %" PRIu64 ", \"done_steps\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"states\": {",
              first ? "" : ",", key, peer, channel, direction, load(b.ops), load(b.steps), load(b.done_steps),
              load(b.bytes));
      write_states(f, b);
      fputs("}}", f);
    }
    first = false;
  });
}

// A snapshot's own part: its sequence number and interval, and per peer and direction the
// interval's figures (written by the snapshot writer, below).
struct SnapshotPart {
  uint64_t seq = 0;
  double interval_s = 0;
  int keep = 0;
  uint64_t interval_start_ns = 0, interval_end_ns = 0;
  uint64_t previous_write_ns =
      0;  // how long the communicator's last snapshot took: tables read, file written (0 for the first)
  void (*write_interval)(FILE*, const void*) = nullptr;
  const void* interval = nullptr;
};

void write_body(FILE* f, const Context* c, bool complete, const SnapshotPart* snap = nullptr) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  char when[64] = {};
  utc_now(when, sizeof when);
  fprintf(f, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n  \"plugin_api\": %d,\n  \"host\": ", kFormat,
          kFormatVersion, c->api);
  json_string(f, host);
  fprintf(f, ",\n  \"pid\": %d,\n  \"comm_id\": \"0x%016" PRIx64 "\",\n  \"comm_name\": ", static_cast<int>(c->pid),
          c->comm_id);
  json_string(f, c->comm_name);
  fprintf(f,
          ",\n  \"rank\": %d,\n  \"nranks\": %d,\n  \"nnodes\": %d,\n  \"written_utc\": \"%s\",\n"
          "  \"complete\": %s,\n  \"clock\": \"CLOCK_MONOTONIC\",\n  \"start_ns\": %" PRIu64 ",\n  \"end_ns\": %" PRIu64
          ",\n  \"dropped_events\": %" PRIu64 ",\n  \"foreign_parent_ops\": %" PRIu64
          ",\n  \"histogram\": {\"first_ns\": %d, \"factor\": 2, \"buckets\": %d},\n  \"keys\": [",
          c->rank, c->n_ranks, c->n_nodes, when, complete ? "true" : "false", c->start_ns,
          snap ? snap->interval_end_ns : now_ns(), load(c->dropped), load(c->foreign_parents), 1 << kFirstBucketLog2Ns,
          kBuckets);
  write_keys(f, c);
  fputs("\n  ],\n  \"bins\": [", f);
  write_bins(f, c, false);
  fputs("\n  ],\n  \"peers\": [", f);
  write_bins(f, c, true);
  if (snap != nullptr) {
    fprintf(f,
            "\n  ],\n  \"snapshot\": {\"seq\": %" PRIu64 ", \"interval_s\": %g, \"keep\": %d, \"start_ns\": %" PRIu64
            ", \"end_ns\": %" PRIu64 ", \"previous_write_ns\": %" PRIu64 "},\n  \"interval\": [",
            snap->seq, snap->interval_s, snap->keep, snap->interval_start_ns, snap->interval_end_ns,
            snap->previous_write_ns);
    snap->write_interval(f, snap->interval);
  }
  fputs("\n  ]\n}\n", f);
}

void warn(const Context* c, const char* what, const char* path, int err) {
  if (c->log != nullptr) {
    c->log(kLogWarn, kLogInit, __FILE__, __LINE__, "fabscope profiler: %s %s: %s", what, path, strerror(err));
  } else {
    fprintf(stderr, "fabscope profiler: %s %s: %s\n", what, path, strerror(err));
  }
}

// DIR/fabscope-KIND-HOST-PID-cCOMM-rRANK[-sSEQ].json; false where DIR is not set.
bool file_path(const Context* c, const char* kind, const uint64_t* seq, char* path, size_t n) {
  const char* dir = getenv(kDirVariable);
  if (dir == nullptr || *dir == '\0') return false;
  char host[128] = {};
  gethostname(host, sizeof host - 1);
  for (char* p = host; *p; ++p) {
    if (*p == '/' || *p == ' ') *p = '_';
  }
  char suffix[32] = "";
  if (seq != nullptr) snprintf(suffix, sizeof suffix, "-s%06" PRIu64, *seq);
  snprintf(path, n, "%s/fabscope-%s-%s-%d-c%016" PRIx64 "-r%d%s.json", dir, kind, host, static_cast<int>(c->pid),
           c->comm_id, c->rank, suffix);
  return true;
}

void write_file(const Context* c, bool complete, const SnapshotPart* snap = nullptr) {
  char path[4096];
  char tmp[4200];
  if (!file_path(c, snap ? "snapshot" : "profile", snap ? &snap->seq : nullptr, path, sizeof path)) {
    if (c->log != nullptr && snap == nullptr) {
      c->log(kLogWarn, kLogInit, __FILE__, __LINE__,
             "fabscope profiler: %s is not set; rank %d's profile is not written", kDirVariable, c->rank);
    }
    return;
  }
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE* f = fopen(tmp, "w");
  if (f == nullptr) {
    warn(c, "cannot write", tmp, errno);
    return;
  }
  write_body(f, c, complete, snap);
  const bool ok = fflush(f) == 0 && ferror(f) == 0;
  const int err = errno;
  if (fclose(f) != 0 || !ok) {
    warn(c, "cannot write", tmp, ok ? errno : err);
    unlink(tmp);
    return;
  }
  if (rename(tmp, path) != 0) {
    warn(c, "cannot rename to", path, errno);
    unlink(tmp);
    return;
  }
  if (c->log != nullptr && snap == nullptr) {
    c->log(kLogInfo, kLogInit, __FILE__, __LINE__, "fabscope profiler: wrote %s", path);
  }
}

// --- snapshots while the job runs -------------------------------------------------------

// One peer and direction's figures, summed over its keys and channels (bytes, steps, each
// state's time) and over its keys (each state's wall-clock time across channels).
struct PeerFigures {
  uint64_t bytes = 0, steps = 0;
  uint64_t ns[kStates] = {};
  uint64_t wall_ns[kStates] = {};
};

// A communicator's series, as the writer thread keeps it: its last totals per peer and
// direction (index 2 * (peer + 1) + is_send), to take the interval's figures from.
struct Series {
  const Context* ctx = nullptr;
  uint64_t seq = 0;
  uint64_t last_ns = 0;
  uint64_t write_ns = 0;  // its last snapshot's write, open to rename
  std::vector<PeerFigures> last;
};

struct IntervalFigures {
  const std::vector<PeerFigures>* now;
  const std::vector<PeerFigures>* before;
};

void totals_by_peer(const Context* c, std::vector<PeerFigures>& out) {
  out.assign(2 * (static_cast<size_t>(c->n_ranks) + 1), PeerFigures{});
  for_each_bin(c, [&](const Bin& b) {
    const uint64_t tag = load(b.tag);
    if (tag == 0) return;
    const int peer = static_cast<int>((tag >> 16) & 0xffffff) - 1;
    const size_t at = 2 * static_cast<size_t>(peer + 1) + (tag & 1);
    if (peer < -1 || at >= out.size()) return;
    PeerFigures& p = out[at];
    if ((tag & kGroup) != 0) {
      for (int s = 0; s < kStates; ++s) p.wall_ns[s] += load(b.states[s].wall_ns);
      return;
    }
    p.bytes += load(b.bytes);
    p.steps += load(b.done_steps);
    for (int s = 0; s < kStates; ++s) p.ns[s] += load(b.states[s].ns);
  });
}

// The interval's figures: each peer and direction that moved or waited since the last.
void write_interval(FILE* f, const void* arg) {
  const auto* iv = static_cast<const IntervalFigures*>(arg);
  bool first = true;
  for (size_t at = 0; at < iv->now->size(); ++at) {
    const PeerFigures& n = (*iv->now)[at];
    const PeerFigures b = at < iv->before->size() ? (*iv->before)[at] : PeerFigures{};
    uint64_t waited = 0;
    for (int s = 0; s < kStates; ++s) waited += n.ns[s] - b.ns[s];
    if (n.bytes == b.bytes && n.steps == b.steps && waited == 0) continue;
    fprintf(
        f,
        "%s\n    {\"peer\": %d, \"direction\": \"%s\", \"bytes\": %" PRIu64 ", \"steps\": %" PRIu64 ", \"states\": {",
        first ? "" : ",", static_cast<int>(at / 2) - 1, at % 2 ? "send" : "recv", n.bytes - b.bytes, n.steps - b.steps);
    bool first_state = true;
    for (int s = 0; s < kStates; ++s) {
      if (n.ns[s] == b.ns[s] && n.wall_ns[s] == b.wall_ns[s]) continue;
      fprintf(f, "%s\"%s\": {\"ns\": %" PRIu64 ", \"wall_ns\": %" PRIu64 "}", first_state ? "" : ", ", kStateNames[s],
              n.ns[s] - b.ns[s], n.wall_ns[s] - b.wall_ns[s]);
      first_state = false;
    }
    fputs("}}", f);
    first = false;
  }
}

// FABSCOPE_PROFILE_PROM: one Prometheus textfile per process for node_exporter's textfile
// collector, rewritten (temporary name, then rename) after each interval's snapshots,
// removed at exit. The names are those of `fabscope report --format prometheus` on a
// `fabscope watch` report; series per link (communicator, rank, peer, direction), never
// per step or channel, so a rank's lines grow with its peers only.
class PromFile {
 public:
  void open(const char* dir, const Context* c) {
    char host[128] = {};
    gethostname(host, sizeof host - 1);
    host_ = host;
    for (char& ch : host_) {
      if (ch == '/' || ch == ' ') ch = '_';
    }
    path_ = std::string(dir) + "/fabscope-nccl-" + host_ + "-" + std::to_string(static_cast<int>(c->pid)) + ".prom";
    host_ = escaped(host);
  }
  bool on() const { return !path_.empty(); }
  void begin() {
    for (std::string& f : families_) f.clear();
  }
  // A communicator's snapshot: its totals per peer and direction (`now`), and the
  // interval's figures (now less `before`).
  void add(const Context* c, const SnapshotPart& part, const std::vector<PeerFigures>& now,
           const std::vector<PeerFigures>& before) {
    if (!on()) return;
    char labels[512];
    snprintf(labels, sizeof labels, "comm=\"0x%016" PRIx64 "\",host=\"%s\",rank=\"%d\"", c->comm_id, host_.c_str(),
             c->rank);
    line(kPromSeq, labels, static_cast<double>(part.seq));
    line(kPromStamp, labels, static_cast<double>(time(nullptr)));
    const double seconds = static_cast<double>(part.interval_end_ns - part.interval_start_ns) / 1e9;
    for (size_t at = 2; at < now.size(); ++at) {  // 0 and 1: steps of no known peer
      const PeerFigures& n = now[at];
      if (n.steps == 0 && n.bytes == 0) continue;
      const PeerFigures b = at < before.size() ? before[at] : PeerFigures{};
      const bool send = at % 2 == 1;
      const int wait_state = send ? 2 : 3;  // SendWait, RecvWait: the network's part
      char link[640];
      snprintf(link, sizeof link, "%s,peer=\"%d\",direction=\"%s\"", labels, static_cast<int>(at / 2) - 1,
               send ? "send" : "recv");
      line(kPromBytes, link, static_cast<double>(n.bytes));
      line(kPromSteps, link, static_cast<double>(n.steps));
      line(kPromWait, link, static_cast<double>(n.ns[wait_state]) / 1e9);
      const uint64_t steps = n.steps - b.steps;
      if (steps > 0)
        line(kPromWaitPerStep, link,
             static_cast<double>(n.ns[wait_state] - b.ns[wait_state]) / 1e9 / static_cast<double>(steps));
      if (seconds > 0) line(kPromRate, link, static_cast<double>(n.bytes - b.bytes) / seconds);
    }
  }
  void write() {
    if (!on()) return;
    std::string text;
    for (int f = 0; f < kPromFamilies; ++f) {
      if (families_[f].empty()) continue;
      text += std::string("# HELP ") + kPromFamily[f].name + " " + kPromFamily[f].help + "\n# TYPE " +
              kPromFamily[f].name + " " + kPromFamily[f].type + "\n" + families_[f];
    }
    const std::string tmp = path_ + ".tmp";
    FILE* f = fopen(tmp.c_str(), "w");
    bool ok = f != nullptr;
    int err = errno;
    if (ok) {
      ok = fwrite(text.data(), 1, text.size(), f) == text.size() && fflush(f) == 0;
      err = errno;
      ok = fclose(f) == 0 && ok;
      ok = ok && rename(tmp.c_str(), path_.c_str()) == 0;
      if (!ok) err = errno;
    }
    if (ok) {
      written_ = true;
      return;
    }
    unlink(tmp.c_str());
    if (!warned_) fprintf(stderr, "fabscope profiler: cannot write %s: %s (said once)\n", path_.c_str(), strerror(err));
    warned_ = true;
  }
  void remove() {
    if (written_) unlink(path_.c_str());
  }

 private:
  static std::string escaped(const char* raw) {
    std::string out;
    for (const char* p = raw; *p; ++p) {
      if (*p == '\\' || *p == '"') out += '\\';
      if (*p == '\n') {
        out += "\\n";
        continue;
      }
      out += *p;
    }
    return out;
  }
  void line(int family, const char* labels, double value) {
    char buf[800];
    snprintf(buf, sizeof buf, "%s{%s} %.10g\n", kPromFamily[family].name, labels, value);
    families_[family] += buf;
  }
  std::string path_, host_;
  std::string families_[kPromFamilies];
  bool written_ = false, warned_ = false;
};

class SnapshotWriter {
 public:
  static SnapshotWriter& get() {
    static auto* w = new SnapshotWriter;  // never destroyed: stopped at exit, its thread joined
    return *w;
  }

  // From init: the first communicator reads the settings and starts the thread. A bad
  // interval is said once, and the profile is then written at the end only.
  void start_if_asked(const Context* c) {
    std::call_once(once_, [&] {
      const char* v = getenv(kIntervalVariable);
      const char* prom = getenv(kPromVariable);
      const bool want_json = v != nullptr && *v != '\0';
      const bool want_prom = prom != nullptr && *prom != '\0';
      if (!want_json && !want_prom) return;
      double s = kDefaultPromInterval;
      char* end = nullptr;
      if (want_json) {
        s = strtod(v, &end);
        if (end == v || *end != '\0' || !std::isfinite(s) || s < 0.01 || s > 86400) {
          say(c, kLogWarn,
              "fabscope profiler: %s=%s is not a number of seconds from 0.01 to 86400; writing the "
              "profile at the end only",
              kIntervalVariable, v);
          return;
        }
      }
      const char* k = getenv(kKeepVariable);
      keep_ = kDefaultKeep;
      if (k != nullptr && *k != '\0') {
        const long n = strtol(k, &end, 10);
        if (*end != '\0' || n < 2 || n > 100000) {
          say(c, kLogWarn, "fabscope profiler: %s=%s is not a count from 2 to 100000; keeping %d", kKeepVariable, k,
              kDefaultKeep);
        } else {
          keep_ = static_cast<int>(n);
        }
      }
      interval_s_ = s;
      json_ = want_json;
      if (want_prom) prom_.open(prom, c);
      thread_ = std::thread([this] { run(); });
    });
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    prom_.remove();
  }

  // Finalize: the communicator may be freed once no snapshot of it is being written.
  void wait_not_writing(const Context* c) const {
    while (writing_.load() == c) std::this_thread::yield();
  }

 private:
  static void say(const Context* c, int level, const char* fmt, const char* a, const char* b, int n = 0) {
    char line[512];
    snprintf(line, sizeof line, fmt, a, b, n);
    if (c->log != nullptr) {
      c->log(level, kLogInit, __FILE__, __LINE__, "%s", line);
    } else {
      fprintf(stderr, "%s\n", line);
    }
  }

  void run() {
    std::unique_lock<std::mutex> lock(m_);
    const auto period = std::chrono::duration<double>(interval_s_);
    auto next =
        std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
    while (!cv_.wait_until(lock, next, [this] { return stop_; })) {
      lock.unlock();
      prom_.begin();
      for (int i = 0; i < kMaxContexts; ++i) snapshot(i);
      prom_.write();
      lock.lock();
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
      if (next < std::chrono::steady_clock::now()) next = std::chrono::steady_clock::now();  // a slow write: no burst
    }
  }

  // Registry slot `i`'s communicator, if any: published as being written, checked to be
  // still registered (a finalize that took it first frees it: skipped), then written.
  void snapshot(int i) {
    const Context* c = __atomic_load_n(&g_contexts[i], __ATOMIC_SEQ_CST);
    if (c == nullptr) return;
    writing_.store(c);
    if (__atomic_load_n(&g_contexts[i], __ATOMIC_SEQ_CST) != c || c->magic != kMagic) {
      writing_.store(nullptr);
      return;
    }
    Series& s = series_[i];
    if (s.ctx != c) s = Series{c, 0, c->start_ns, 0, {}};
    const uint64_t t0 = now_ns();  // the snapshot's cost on this thread: the tables read, the file written
    totals_by_peer(c, now_);
    SnapshotPart part;
    part.seq = ++s.seq;
    part.interval_s = interval_s_;
    part.keep = keep_;
    part.interval_start_ns = s.last_ns;
    part.interval_end_ns = now_ns();
    part.previous_write_ns = s.write_ns;
    IntervalFigures figures{&now_, &s.last};
    part.write_interval = write_interval;
    part.interval = &figures;
    if (json_) {
      write_file(c, false, &part);
      s.write_ns = now_ns() - t0;
    }
    prom_.add(c, part, now_, s.last);
    if (json_ && s.seq > static_cast<uint64_t>(keep_)) {  // the oldest kept goes
      char old[4096];
      const uint64_t gone = s.seq - static_cast<uint64_t>(keep_);
      if (file_path(c, "snapshot", &gone, old, sizeof old)) unlink(old);
    }
    s.last.swap(now_);
    s.last_ns = part.interval_end_ns;
    writing_.store(nullptr);
  }

  std::once_flag once_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
  double interval_s_ = 0;
  bool json_ = false;  // FABSCOPE_PROFILE_INTERVAL set: the JSON snapshots
  PromFile prom_;      // FABSCOPE_PROFILE_PROM set: the textfile
  int keep_ = kDefaultKeep;
  std::atomic<const Context*> writing_{nullptr};
  Series series_[kMaxContexts];
  std::vector<PeerFigures> now_;
};

Result init_common(void** context, int api, uint64_t comm_id, int* mask, const char* comm_name, int n_nodes,
                   int n_ranks, int rank, Logger log) {
  *context = nullptr;
  // calloc: zero pages, touched only where a bin or key is used.
  auto* c = static_cast<Context*>(calloc(1, sizeof(Context)));
  if (c == nullptr) return kInternalError;
  c->magic = kMagic;
  c->api = api;
  c->comm_id = comm_id;
  copy_name(c->comm_name, sizeof c->comm_name, comm_name);
  c->n_nodes = n_nodes;
  c->n_ranks = n_ranks;
  c->rank = rank;
  c->pid = getpid();
  c->start_ns = now_ns();
  c->log = log;
  c->registry_slot = -1;
  copy_name(c->keys[kOtherKey].func, sizeof c->keys[kOtherKey].func, "unknown");
  c->keys[kOtherKey].peer = -1;
  for (int i = 0; i < kMaxContexts; ++i) {
    Context* expected = nullptr;
    if (__atomic_compare_exchange_n(&g_contexts[i], &expected, c, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      c->registry_slot = i;
      break;
    }
  }
  *mask = static_cast<int>(kColl | kP2p | kProxyOp | kProxyStep);
  *context = c;
  SnapshotWriter::get().start_if_asked(c);
  if (log != nullptr) {
    log(kLogInfo, kLogInit, __FILE__, __LINE__,
        "fabscope profiler: API v%d, communicator %s rank %d of %d, profile to %s", api,
        comm_name ? comm_name : "(unnamed)", rank, n_ranks, getenv(kDirVariable) ? getenv(kDirVariable) : "(unset)");
  }
  return kSuccess;
}

Result finalize(void* context) {
  auto* c = static_cast<Context*>(context);
  if (c == nullptr || c->magic != kMagic) return kSuccess;
  // Taken back from the exit flush's registry; if the flush took it first (the process
  // is exiting while NCCL finalizes), the flush writes it and it is not freed under it.
  if (c->registry_slot >= 0 && __atomic_exchange_n(&g_contexts[c->registry_slot], nullptr, __ATOMIC_ACQ_REL) != c) {
    return kSuccess;
  }
  SnapshotWriter::get().wait_not_writing(c);
  write_file(c, true);
  c->magic = 0;
  free(c);
  return kSuccess;
}

Result init_v5(void** context, uint64_t comm_id, int* mask, const char* comm_name, int n_nodes, int n_ranks, int rank,
               Logger log) {
  return init_common(context, 5, comm_id, mask, comm_name, n_nodes, n_ranks, rank, log);
}
Result start_v5(void* context, void** handle, DescrV5* d) {
  return start(context, handle, d->type, d->parent, &d->coll);
}
Result init_v4(void** context, int* mask, const char* comm_name, uint64_t comm_hash, int n_nodes, int n_ranks, int rank,
               Logger log) {
  return init_common(context, 4, comm_hash, mask, comm_name, n_nodes, n_ranks, rank, log);
}
Result start_v4(void* context, void** handle, DescrV4* d) {
  return start(context, handle, d->type, d->parent, &d->coll);
}

// A communicator never destroyed (a job that exits without ncclCommDestroy) still
// leaves its profile, marked incomplete.
__attribute__((destructor)) void flush_at_exit() {
  SnapshotWriter::get().stop();
  for (int i = 0; i < kMaxContexts; ++i) {
    Context* c = __atomic_exchange_n(&g_contexts[i], nullptr, __ATOMIC_ACQ_REL);
    if (c != nullptr && c->magic == kMagic) write_file(c, false);
  }
}

}  // namespace
}  // namespace fabscope::ncclprof

extern "C" {
__attribute__((visibility("default"))) fabscope::ncclprof::ProfilerV5 ncclProfiler_v5 = {
    "fabscope",
    fabscope::ncclprof::init_v5,
    fabscope::ncclprof::start_v5,
    fabscope::ncclprof::stop,
    fabscope::ncclprof::record,
    fabscope::ncclprof::finalize,
};
__attribute__((visibility("default"))) fabscope::ncclprof::ProfilerV4 ncclProfiler_v4 = {
    "fabscope",
    fabscope::ncclprof::init_v4,
    fabscope::ncclprof::start_v4,
    fabscope::ncclprof::stop,
    fabscope::ncclprof::record,
    fabscope::ncclprof::finalize,
};
}
