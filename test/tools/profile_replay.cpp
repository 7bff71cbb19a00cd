// Drives fabscope's NCCL profiler plugin as NCCL does, through dlopen and its
// ncclProfiler_v5 table, with no GPU: the events of a ring all-reduce's proxy (per call,
// per channel, one send operation to rank+1 and one receive from rank-1, each a few
// steps through their states), for every rank of a communicator in turn.
//
//   profile_replay replay PLUGIN DIR NRANKS [SLOW_SRC SLOW_DST FACTOR]
//     writes each rank's profile into DIR; sends of SLOW_SRC to SLOW_DST wait FACTOR
//     times longer in SendWait (a slow link).
//   profile_replay overlap PLUGIN DIR CHANNELS STEPS WAIT_US CALLS
//     rank 0 of 2: per call, STEPS steps on each of CHANNELS channels in flight together,
//     to and from rank 1, each in SendWait (RecvWait) for about WAIT_US, entering and
//     leaving a few us apart, as NCCL's proxy keeps 8 steps of every channel posted. Prints
//     one JSON object: what the driver's own clock saw (the calls' durations, the union
//     of the steps' intervals bracketed from inside and outside, their sum), in us.
//   profile_replay sweep PLUGIN DIR NRANKS CHANNELS [HOLD_S]
//     every collective at the default size (32 MiB, 22 calls: warm-up, 20 timed, check)
//     as NCCL's proxy sees them with the calls enqueued back to back: the operations of
//     every call started first, then each call's steps, 8 in flight per operation; ring
//     collectives over CHANNELS channels, p2p ones over 2 per peer. Ranks 0 (the root)
//     and 1 of NRANKS are driven. Prints the operations and steps driven per rank. With
//     HOLD_S, each rank's communicator stays open that long after its events (snapshots
//     of its full tables: bench/nccl_profiler_overhead.sh).
//   profile_replay timeline PLUGIN DIR NRANKS SECONDS SLOW_SRC SLOW_DST FACTOR FROM_S
//     every rank's communicator open at once for SECONDS of wall time, ring all-reduce
//     calls one after another (each rank's part in turn); from FROM_S seconds on, sends of
//     SLOW_SRC to SLOW_DST wait FACTOR times longer (a link turning slow), and the receives
//     behind them too. With FABSCOPE_PROFILE_INTERVAL set, the plugin's snapshots follow the
//     run; every communicator is finalized at the end. Prints the calls made.
//   profile_replay cost PLUGIN STEPS [DIR]
//     the plugin's cost per proxy step (start, three states, stop) and per proxy
//     operation, in ns, on this machine: bench/nccl_profiler_overhead.sh. With DIR, the
//     profile (and, with FABSCOPE_PROFILE_INTERVAL, the snapshots) is written there.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "nccl_profiler/busy_time.h"
#include "nccl_profiler/profiler_api.h"

using namespace fabscope::ncclprof;

namespace {

// NCCL's string constants: the plugin keys calls by these pointers, as NCCL's are.
const char* const kAllReduce = "AllReduce";
const char* const kAllGather = "AllGather";
const char* const kReduceScatter = "ReduceScatter";
const char* const kBroadcast = "Broadcast";
const char* const kReduce = "Reduce";
const char* const kSend = "Send";
const char* const kRecv = "Recv";
const char* const kFloat = "ncclFloat32";
const char* const kRingAlgo = "RING";
const char* const kSimple = "SIMPLE";

ProfilerV5* load(const char* path) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "profile_replay: cannot load %s: %s\n", path, dlerror());
    std::exit(2);
  }
  auto* p = static_cast<ProfilerV5*>(dlsym(lib, "ncclProfiler_v5"));
  if (p == nullptr) {
    std::fprintf(stderr, "profile_replay: %s has no ncclProfiler_v5\n", path);
    std::exit(2);
  }
  return p;
}

void* start_coll(ProfilerV5* p, void* ctx, int rank, size_t count, const char* func = kAllReduce,
                 uint8_t channels = 2) {
  DescrV5 d{};
  d.type = kColl;
  d.rank = rank;
  d.coll = {0, func, nullptr, nullptr, count, 0, kFloat, channels, 16, kRingAlgo, kSimple};
  void* h = nullptr;
  p->start_event(ctx, &h, &d);
  p->stop_event(h);  // enqueued; its proxy operations follow
  return h;
}

void* start_p2p(ProfilerV5* p, void* ctx, int rank, size_t count, int peer, bool send, uint8_t channels) {
  DescrV5 d{};
  d.type = kP2p;
  d.rank = rank;
  d.p2p = {send ? kSend : kRecv, nullptr, kFloat, count, peer, channels};
  void* h = nullptr;
  p->start_event(ctx, &h, &d);
  p->stop_event(h);
  return h;
}

void* start_op(ProfilerV5* p, void* ctx, void* coll, int rank, int peer, int channel, bool send) {
  DescrV5 d{};
  d.type = kProxyOp;
  d.parent = coll;
  d.rank = rank;
  static const pid_t pid = getpid();  // NCCL passes its pid in the descriptor: no system call per event
  d.proxy_op = {pid, static_cast<uint8_t>(channel), peer, 4, 1 << 19, send ? 1 : 0};
  void* h = nullptr;
  p->start_event(ctx, &h, &d);
  return h;
}

void* start_step(ProfilerV5* p, void* ctx, void* op, int rank, int step) {
  DescrV5 d{};
  d.type = kProxyStep;
  d.parent = op;
  d.rank = rank;
  d.proxy_step.step = step;
  void* h = nullptr;
  p->start_event(ctx, &h, &d);
  return h;
}

void state(ProfilerV5* p, void* h, int s, size_t bytes, int sleep_us) {
  StateArgs a{};
  a.proxy_step.trans_size = bytes;
  p->record_event_state(h, s, &a);
  if (sleep_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
}

// One rank's part of one ring all-reduce call: per channel a send to rank+1 and a receive
// from rank-1, a few steps each through their states; `send_us` and `recv_us` are the
// network waits, `gpu_us` the GPU's.
void ring_call(ProfilerV5* p, void* ctx, int rank, int nranks, int send_us, int recv_us, int gpu_us) {
  constexpr int kChannels = 2, kSteps = 4;
  constexpr size_t kChunk = 1 << 19;
  const int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
  void* coll = start_coll(p, ctx, rank, 4u << 20);
  for (int ch = 0; ch < kChannels; ++ch) {
    void* send = start_op(p, ctx, coll, rank, next, ch, true);
    void* recv = start_op(p, ctx, coll, rank, prev, ch, false);
    for (int s = 0; s < kSteps; ++s) {
      void* st = start_step(p, ctx, send, rank, s);
      state(p, st, kSendGpuWait, kChunk, gpu_us);
      state(p, st, kSendPeerWait, kChunk, 0);
      state(p, st, kSendWait, kChunk, send_us);
      p->stop_event(st);
      void* rt = start_step(p, ctx, recv, rank, s);
      state(p, rt, kRecvWait, kChunk, recv_us);
      state(p, rt, kRecvFlushWait, kChunk, 0);
      state(p, rt, kRecvGpuWait, kChunk, gpu_us);
      p->stop_event(rt);
    }
    p->stop_event(send);
    p->stop_event(recv);
  }
}

int replay(const char* plugin, const char* dir, int nranks, int slow_src, int slow_dst, double factor) {
  ProfilerV5* p = load(plugin);
  setenv(kDirVariable, dir, 1);
  constexpr int kCalls = 3, kWaitUs = 300;
  for (int rank = 0; rank < nranks; ++rank) {
    void* ctx = nullptr;
    int mask = 0;
    if (p->init(&ctx, 0x5eed, &mask, "replay", 1, nranks, rank, nullptr) != kSuccess) return 1;
    const int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
    const int send_us = rank == slow_src && next == slow_dst ? static_cast<int>(kWaitUs * factor) : kWaitUs;
    const int recv_us = prev == slow_src && rank == slow_dst ? static_cast<int>(kWaitUs * factor) : kWaitUs;
    for (int call = 0; call < kCalls; ++call) ring_call(p, ctx, rank, nranks, send_us, recv_us, 20);
    p->finalize(ctx);
  }
  return 0;
}

int timeline(const char* plugin, const char* dir, int nranks, double seconds, int slow_src, int slow_dst, double factor,
             double from_s) {
  ProfilerV5* p = load(plugin);
  setenv(kDirVariable, dir, 1);
  std::vector<void*> ctx(static_cast<size_t>(nranks));
  for (int rank = 0; rank < nranks; ++rank) {
    int mask = 0;
    if (p->init(&ctx[static_cast<size_t>(rank)], 0x5eec, &mask, "timeline", 1, nranks, rank, nullptr) != kSuccess) {
      return 1;
    }
  }
  constexpr int kWaitUs = 200;
  const auto t0 = std::chrono::steady_clock::now();
  const auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  long calls = 0;
  while (since() < seconds) {
    const bool slow = since() >= from_s;
    for (int rank = 0; rank < nranks; ++rank) {
      const int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
      const int send_us = slow && rank == slow_src && next == slow_dst ? static_cast<int>(kWaitUs * factor) : kWaitUs;
      const int recv_us = slow && prev == slow_src && rank == slow_dst ? static_cast<int>(kWaitUs * factor) : kWaitUs;
      ring_call(p, ctx[static_cast<size_t>(rank)], rank, nranks, send_us, recv_us, 5);
    }
    ++calls;
  }
  for (void* c : ctx) p->finalize(c);
  std::printf("{\"calls\": %ld, \"seconds\": %.3f}\n", calls, since());
  return 0;
}

uint64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // the plugin's clock
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// When the driver asked a step into its network state and out of it: the plugin's own
// times lie inside [before, after] of each.
struct Bracket {
  uint64_t enter_before = 0, enter_after = 0, leave_before = 0, leave_after = 0;
};

// What one overlapping call's steps did, by the driver's clock (index 0 send, 1 receive).
struct OverlapTotals {
  double call_us = 0, call_min_us = 1e300;
  double lo_us[2] = {0, 0}, hi_us[2] = {0, 0}, sum_us[2] = {0, 0};
};

void add_call(const std::vector<Bracket>& br, const std::vector<int>& dir, OverlapTotals& t) {
  for (int d = 0; d < 2; ++d) {
    std::vector<Interval> lo, hi;
    for (size_t i = 0; i < br.size(); ++i) {
      if (dir[i] != d) continue;
      lo.push_back({br[i].enter_after, br[i].leave_before});
      hi.push_back({br[i].enter_before, br[i].leave_after});
      t.sum_us[d] += static_cast<double>(br[i].leave_before - br[i].enter_after) / 1e3;
    }
    t.lo_us[d] += static_cast<double>(union_length_ns(lo)) / 1e3;
    t.hi_us[d] += static_cast<double>(union_length_ns(hi)) / 1e3;
  }
}

int overlap(const char* plugin, const char* dir, int channels, int steps, int wait_us, int calls) {
  ProfilerV5* p = load(plugin);
  setenv(kDirVariable, dir, 1);
  void* ctx = nullptr;
  int mask = 0;
  if (p->init(&ctx, 0x0e1a, &mask, "overlap", 1, 2, 0, nullptr) != kSuccess) return 1;
  constexpr size_t kChunk = 1 << 19;
  constexpr int kStaggerUs = 20;
  OverlapTotals t;
  for (int call = 0; call < calls; ++call) {
    const uint64_t start = mono_ns();
    void* coll = start_coll(p, ctx, 0, 1u << 20, kAllReduce, static_cast<uint8_t>(channels));
    std::vector<void*> ops, hs;
    std::vector<int> dirs;
    for (int ch = 0; ch < channels; ++ch) {
      for (int d = 0; d < 2; ++d) ops.push_back(start_op(p, ctx, coll, 0, 1, ch, d == 0));
    }
    for (size_t o = 0; o < ops.size(); ++o) {  // every step posted at once
      for (int s = 0; s < steps; ++s) {
        hs.push_back(start_step(p, ctx, ops[o], 0, s));
        dirs.push_back(static_cast<int>(o % 2));
        if (o % 2 == 0) state(p, hs.back(), kSendGpuWait, kChunk, 0);
      }
    }
    std::vector<Bracket> br(hs.size());
    for (size_t i = 0; i < hs.size(); ++i) {  // into the network a little apart
      br[i].enter_before = mono_ns();
      state(p, hs[i], dirs[i] == 0 ? kSendWait : kRecvWait, kChunk, 0);
      br[i].enter_after = mono_ns();
      std::this_thread::sleep_for(std::chrono::microseconds(kStaggerUs));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(wait_us));
    for (size_t i = 0; i < hs.size(); ++i) {  // and out, in the same order
      br[i].leave_before = mono_ns();
      p->stop_event(hs[i]);
      br[i].leave_after = mono_ns();
      std::this_thread::sleep_for(std::chrono::microseconds(kStaggerUs));
    }
    for (void* o : ops) p->stop_event(o);
    const double us = static_cast<double>(mono_ns() - start) / 1e3;
    t.call_us += us;
    t.call_min_us = std::min(t.call_min_us, us);
    add_call(br, dirs, t);
  }
  p->finalize(ctx);
  std::printf(
      "{\"calls\": %d, \"channels\": %d, \"steps\": %d, \"call_us\": %.3f, \"call_min_us\": %.3f, "
      "\"send_wall_lo_us\": %.3f, \"send_wall_hi_us\": %.3f, \"send_sum_us\": %.3f, "
      "\"recv_wall_lo_us\": %.3f, \"recv_wall_hi_us\": %.3f, \"recv_sum_us\": %.3f}\n",
      calls, channels, steps, t.call_us, t.call_min_us, t.lo_us[0], t.hi_us[0], t.sum_us[0], t.lo_us[1], t.hi_us[1],
      t.sum_us[1]);
  return 0;
}

// ---- sweep ---------------------------------------------------------------------------

// One collective as NCCL's proxy moves it: ring collectives over kCollChannels channels
// to rank+1 and from rank-1, the others (p2p) over kP2pChannels channels per peer.
enum class Shape { kRing, kAllToAll, kGather, kScatter, kSendRecv };
struct SweepColl {
  const char* func;  // ring shapes' collective; p2p shapes' events are Send and Recv
  Shape shape;
  double ring_factor;  // ring: bytes moved each way per byte of the call
  int channels;        // ring: the channels
};
struct OpPlan {
  int peer;
  int channel;
  bool send;
  int steps;
};
constexpr int kP2pChannels = 2, kInFlight = 8, kSweepCalls = 22;
constexpr uint64_t kSweepBytes = 32ull << 20, kSweepChunk = 1 << 19;

int steps_for(double bytes, int channels) {
  return std::max(1, static_cast<int>((bytes / channels + kSweepChunk - 1) / kSweepChunk));
}

std::vector<OpPlan> plan_call(const SweepColl& c, int rank, int n) {
  std::vector<OpPlan> ops;
  const auto peer_ops = [&](int peer, bool send, double bytes) {
    for (int ch = 0; ch < kP2pChannels; ++ch) ops.push_back({peer, ch, send, steps_for(bytes, kP2pChannels)});
  };
  const double b = static_cast<double>(kSweepBytes);
  switch (c.shape) {
    case Shape::kRing:
      for (int ch = 0; ch < c.channels; ++ch) {
        const int steps = steps_for(b * c.ring_factor, c.channels);
        ops.push_back({(rank + 1) % n, ch, true, steps});
        ops.push_back({(rank + n - 1) % n, ch, false, steps});
      }
      break;
    case Shape::kAllToAll:
      for (int q = 0; q < n; ++q) {
        if (q == rank) continue;
        peer_ops(q, true, b / n);
        peer_ops(q, false, b / n);
      }
      break;
    case Shape::kGather:
    case Shape::kScatter:
      for (int q = 0; q < n; ++q) {
        if (q == rank || (rank != 0 && q != 0)) continue;
        peer_ops(q, (c.shape == Shape::kGather) == (rank != 0), b / n);
      }
      break;
    case Shape::kSendRecv:
      peer_ops((rank + 1) % n, true, b);
      peer_ops((rank + n - 1) % n, false, b);
      break;
  }
  return ops;
}

// One operation's steps, kInFlight posted at a time, through their states.
struct ActiveOp {
  void* op;
  OpPlan plan;
  int started = 0;
  std::deque<void*> posted;
};

void post_steps(ProfilerV5* p, void* ctx, int rank, ActiveOp& a) {
  while (a.started < a.plan.steps && static_cast<int>(a.posted.size()) < kInFlight) {
    void* h = start_step(p, ctx, a.op, rank, a.started++);
    state(p, h, a.plan.send ? kSendGpuWait : kRecvWait, kSweepChunk, 0);
    if (a.plan.send) state(p, h, kSendWait, kSweepChunk, 0);
    a.posted.push_back(h);
  }
}

// The operations of one call progressed together until every step is done.
long progress_call(ProfilerV5* p, void* ctx, int rank, std::vector<ActiveOp>& ops) {
  long steps = 0;
  for (bool busy = true; busy;) {
    busy = false;
    for (ActiveOp& a : ops) {
      post_steps(p, ctx, rank, a);
      if (a.posted.empty()) continue;
      busy = true;
      void* h = a.posted.front();
      a.posted.pop_front();
      if (!a.plan.send) state(p, h, kRecvGpuWait, kSweepChunk, 0);
      p->stop_event(h);
      ++steps;
    }
  }
  for (ActiveOp& a : ops) p->stop_event(a.op);
  return steps;
}

// One call's events (the collective, or a Send and a Recv per peer) and its operations.
std::vector<ActiveOp> start_call(ProfilerV5* p, void* ctx, const SweepColl& c, int rank, int n) {
  std::vector<ActiveOp> ops;
  const bool ring = c.shape == Shape::kRing;
  void* parent = ring ? start_coll(p, ctx, rank, kSweepBytes / 4, c.func, static_cast<uint8_t>(c.channels)) : nullptr;
  for (const OpPlan& o : plan_call(c, rank, n)) {
    // A p2p call per peer and direction, its channels' operations after it.
    if (!ring && o.channel == 0) parent = start_p2p(p, ctx, rank, kSweepBytes / 4 / n, o.peer, o.send, kP2pChannels);
    ops.push_back({start_op(p, ctx, parent, rank, o.peer, o.channel, o.send), o, 0, {}});
  }
  return ops;
}

int sweep(const char* plugin, const char* dir, int nranks, int channels, double hold_s) {
  ProfilerV5* p = load(plugin);
  setenv(kDirVariable, dir, 1);
  const double ring = 1.0 * (nranks - 1) / nranks;
  const SweepColl colls[] = {{kAllReduce, Shape::kRing, 2 * ring, channels},
                             {kAllGather, Shape::kRing, ring, channels},
                             {kReduceScatter, Shape::kRing, ring, channels},
                             {kBroadcast, Shape::kRing, 1.0, channels},
                             {kReduce, Shape::kRing, 1.0, channels},
                             {nullptr, Shape::kAllToAll, 0, 0},
                             {nullptr, Shape::kGather, 0, 0},
                             {nullptr, Shape::kScatter, 0, 0},
                             {nullptr, Shape::kSendRecv, 0, 0}};
  for (int rank = 0; rank < 2; ++rank) {
    void* ctx = nullptr;
    int mask = 0;
    if (p->init(&ctx, 0x5eeb, &mask, "sweep", 1, nranks, rank, nullptr) != kSuccess) return 1;
    long ops = 0, steps = 0;
    for (const SweepColl& c : colls) {
      // Enqueued back to back: the proxy has every call's operations before the first ends.
      std::vector<std::vector<ActiveOp>> calls;
      for (int i = 0; i < kSweepCalls; ++i) calls.push_back(start_call(p, ctx, c, rank, nranks));
      for (auto& call : calls) {
        ops += static_cast<long>(call.size());
        steps += progress_call(p, ctx, rank, call);
      }
    }
    if (hold_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(hold_s));  // snapshots of full tables
    p->finalize(ctx);
    std::printf("rank %d ops %ld steps %ld\n", rank, ops, steps);
  }
  return 0;
}

int cost(const char* plugin, long steps, const char* dir) {
  ProfilerV5* p = load(plugin);
  // Without DIR nothing is written: only the event path is timed. With DIR (and
  // FABSCOPE_PROFILE_INTERVAL), the snapshots are written there while the events run.
  if (dir != nullptr) {
    setenv(kDirVariable, dir, 1);
  } else {
    unsetenv(kDirVariable);
  }
  void* ctx = nullptr;
  int mask = 0;
  p->init(&ctx, 0xc057, &mask, "cost", 1, 2, 0, nullptr);
  void* coll = start_coll(p, ctx, 0, 1u << 20);
  constexpr int kStepsPerOp = 8;
  const auto t0 = std::chrono::steady_clock::now();
  long done = 0;
  while (done < steps) {
    void* op = start_op(p, ctx, coll, 0, 1, static_cast<int>(done / kStepsPerOp % 16), true);
    for (int s = 0; s < kStepsPerOp; ++s, ++done) {
      void* st = start_step(p, ctx, op, 0, s);
      state(p, st, kSendGpuWait, 1 << 19, 0);
      state(p, st, kSendPeerWait, 1 << 19, 0);
      state(p, st, kSendWait, 1 << 19, 0);
      p->stop_event(st);
    }
    p->stop_event(op);
  }
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  p->finalize(ctx);
  std::printf("steps %ld, ns per step (start, 3 states, stop; op start/stop shared by %d steps) %.1f\n", done,
              kStepsPerOp, ns / static_cast<double>(done));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 5 && std::strcmp(argv[1], "replay") == 0) {
    const int n = std::atoi(argv[4]);
    if (n < 2 || n > 1024) {
      std::fprintf(stderr, "profile_replay: NRANKS %s: use 2 to 1024\n", argv[4]);
      return 2;
    }
    return replay(argv[2], argv[3], n, argc > 6 ? std::atoi(argv[5]) : -1, argc > 6 ? std::atoi(argv[6]) : -1,
                  argc > 7 ? std::atof(argv[7]) : 1.0);
  }
  if (argc == 8 && std::strcmp(argv[1], "overlap") == 0) {
    const int channels = std::atoi(argv[4]), steps = std::atoi(argv[5]), wait = std::atoi(argv[6]),
              calls = std::atoi(argv[7]);
    if (channels < 1 || channels > 64 || steps < 1 || steps > 64 || wait < 0 || calls < 1) {
      std::fprintf(stderr, "profile_replay overlap: CHANNELS 1-64, STEPS 1-64, WAIT_US >= 0, CALLS >= 1\n");
      return 2;
    }
    return overlap(argv[2], argv[3], channels, steps, wait, calls);
  }
  if ((argc == 6 || argc == 7) && std::strcmp(argv[1], "sweep") == 0) {
    const int n = std::atoi(argv[4]), channels = std::atoi(argv[5]);
    const double hold = argc == 7 ? std::atof(argv[6]) : 0;
    if (n < 2 || n > 1024 || channels < 1 || channels > 64 || hold < 0 || hold > 3600) {
      std::fprintf(stderr, "profile_replay sweep: NRANKS 2-1024, CHANNELS 1-64, HOLD_S 0-3600\n");
      return 2;
    }
    return sweep(argv[2], argv[3], n, channels, hold);
  }
  if ((argc == 4 || argc == 5) && std::strcmp(argv[1], "cost") == 0) {
    return cost(argv[2], std::atol(argv[3]), argc == 5 ? argv[4] : nullptr);
  }
  if (argc == 10 && std::strcmp(argv[1], "timeline") == 0) {
    const int n = std::atoi(argv[4]);
    const double seconds = std::atof(argv[5]), factor = std::atof(argv[8]), from = std::atof(argv[9]);
    if (n < 2 || n > 64 || !(seconds > 0) || !(factor >= 1)) {
      std::fprintf(stderr, "profile_replay timeline: NRANKS 2-64, SECONDS > 0, FACTOR >= 1\n");
      return 2;
    }
    return timeline(argv[2], argv[3], n, seconds, std::atoi(argv[6]), std::atoi(argv[7]), factor, from);
  }
  std::fprintf(stderr,
               "usage: profile_replay replay PLUGIN DIR NRANKS [SLOW_SRC SLOW_DST FACTOR]\n"
               "       profile_replay overlap PLUGIN DIR CHANNELS STEPS WAIT_US CALLS\n"
               "       profile_replay sweep PLUGIN DIR NRANKS CHANNELS [HOLD_S]\n"
               "       profile_replay cost PLUGIN STEPS [DIR]\n"
               "       profile_replay timeline PLUGIN DIR NRANKS SECONDS SLOW_SRC SLOW_DST FACTOR FROM_S\n");
  return 2;
}
