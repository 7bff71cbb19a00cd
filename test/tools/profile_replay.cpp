// Drives fabscope's NCCL profiler plugin as NCCL does, through dlopen and its
// ncclProfiler_v5 table, with no GPU: the events of a ring all-reduce's proxy (per call,
// per channel, one send operation to rank+1 and one receive from rank-1, each a few
// steps through their states), for every rank of a communicator in turn.
//
//   profile_replay replay PLUGIN DIR NRANKS [SLOW_SRC SLOW_DST FACTOR]
//     writes each rank's profile into DIR; sends of SLOW_SRC to SLOW_DST wait FACTOR
//     times longer in SendWait (a slow link).
//   profile_replay cost PLUGIN STEPS
//     the plugin's cost per proxy step (start, three states, stop) and per proxy
//     operation, in ns, on this machine: bench/nccl_profiler_overhead.sh.
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "nccl_profiler/profiler_api.h"

using namespace fabscope::ncclprof;

namespace {

// NCCL's string constants: the plugin keys calls by these pointers, as NCCL's are.
const char* const kAllReduce = "AllReduce";
const char* const kFloat = "ncclFloat32";
const char* const kRing = "RING";
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

void* start_coll(ProfilerV5* p, void* ctx, int rank, size_t count) {
  DescrV5 d{};
  d.type = kColl;
  d.rank = rank;
  d.coll = {0, kAllReduce, nullptr, nullptr, count, 0, kFloat, 2, 16, kRing, kSimple};
  void* h = nullptr;
  p->start_event(ctx, &h, &d);
  p->stop_event(h);  // enqueued; its proxy operations follow
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

int replay(const char* plugin, const char* dir, int nranks, int slow_src, int slow_dst, double factor) {
  ProfilerV5* p = load(plugin);
  setenv(kDirVariable, dir, 1);
  constexpr int kCalls = 3, kChannels = 2, kSteps = 4, kWaitUs = 300;
  constexpr size_t kChunk = 1 << 19;
  for (int rank = 0; rank < nranks; ++rank) {
    void* ctx = nullptr;
    int mask = 0;
    if (p->init(&ctx, 0x5eed, &mask, "replay", 1, nranks, rank, nullptr) != kSuccess) return 1;
    const int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
    for (int call = 0; call < kCalls; ++call) {
      void* coll = start_coll(p, ctx, rank, 4u << 20);
      for (int ch = 0; ch < kChannels; ++ch) {
        void* send = start_op(p, ctx, coll, rank, next, ch, true);
        void* recv = start_op(p, ctx, coll, rank, prev, ch, false);
        const int send_us = rank == slow_src && next == slow_dst ? static_cast<int>(kWaitUs * factor) : kWaitUs;
        const int recv_us = prev == slow_src && rank == slow_dst ? static_cast<int>(kWaitUs * factor) : kWaitUs;
        for (int s = 0; s < kSteps; ++s) {
          void* st = start_step(p, ctx, send, rank, s);
          state(p, st, kSendGpuWait, kChunk, 20);
          state(p, st, kSendPeerWait, kChunk, 0);
          state(p, st, kSendWait, kChunk, send_us);
          p->stop_event(st);
          void* rt = start_step(p, ctx, recv, rank, s);
          state(p, rt, kRecvWait, kChunk, recv_us);
          state(p, rt, kRecvFlushWait, kChunk, 0);
          state(p, rt, kRecvGpuWait, kChunk, 20);
          p->stop_event(rt);
        }
        p->stop_event(send);
        p->stop_event(recv);
      }
    }
    p->finalize(ctx);
  }
  return 0;
}

int cost(const char* plugin, long steps) {
  ProfilerV5* p = load(plugin);
  unsetenv(kDirVariable);  // nothing written: only the event path is timed
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
  if (argc == 4 && std::strcmp(argv[1], "cost") == 0) return cost(argv[2], std::atol(argv[3]));
  std::fprintf(stderr,
               "usage: profile_replay replay PLUGIN DIR NRANKS [SLOW_SRC SLOW_DST FACTOR]\n"
               "       profile_replay cost PLUGIN STEPS\n");
  return 2;
}
