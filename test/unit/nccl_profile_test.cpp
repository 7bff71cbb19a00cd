// fabscope's NCCL profiler plugin (src/nccl_profiler) loaded as NCCL loads it (dlopen,
// the ncclProfiler_v5 / _v4 symbol) and driven with recorded event sequences; the file it
// writes read back (diag/nccl_profile.h), joined with a real NCCL log, merged across
// ranks, judged (nccl.link_wait, nccl.open_steps) and used by the attribution.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "core/atomic_file.h"
#include "diag/findings.h"
#include "diag/nccl_profile.h"
#include "nccl_profiler/busy_time.h"
#include "nccl_profiler/profiler_api.h"
#include "report/diagnosis_text.h"
#include "report/json_io.h"
#include "report/report_json.h"
#include "topo/readers.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;
using namespace ncclprof;

// NCCL's string constants (the plugin keys calls by these pointers).
const char* const kAllReduce = "AllReduce";
const char* const kAllGather = "AllGather";
const char* const kSend = "Send";
const char* const kFloat = "ncclFloat32";
const char* const kRing = "RING";
const char* const kSimple = "SIMPLE";

struct Plugin {
  void* lib = nullptr;
  ProfilerV5* v5 = nullptr;
  ProfilerV4* v4 = nullptr;
  Plugin() {
    lib = dlopen(FABSCOPE_PROFILER_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return;
    v5 = static_cast<ProfilerV5*>(dlsym(lib, "ncclProfiler_v5"));
    v4 = static_cast<ProfilerV4*>(dlsym(lib, "ncclProfiler_v4"));
  }
};
Plugin& plugin() {
  static Plugin p;
  return p;
}

class ProfileDir {
 public:
  explicit ProfileDir(const std::string& name)
      : dir_(fs::temp_directory_path() / ("fabscope-prof-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    setenv(kDirVariable, dir_.c_str(), 1);
  }
  ~ProfileDir() {
    unsetenv(kDirVariable);
    fs::remove_all(dir_);
  }
  std::string path() const { return dir_.string(); }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path dir_;
};

void* start(ProfilerV5* p, void* ctx, DescrV5 d) {
  void* h = nullptr;
  EXPECT_EQ(p->start_event(ctx, &h, &d), kSuccess);
  return h;
}
void* coll(ProfilerV5* p, void* ctx, const char* func, size_t count) {
  DescrV5 d{};
  d.type = kColl;
  d.coll = {7, func, nullptr, nullptr, count, 0, kFloat, 2, 8, kRing, kSimple};
  return start(p, ctx, d);
}
void* op(ProfilerV5* p, void* ctx, void* parent, int peer, int channel, bool send, pid_t pid = ::getpid()) {
  DescrV5 d{};
  d.type = kProxyOp;
  d.parent = parent;
  d.proxy_op = {pid, static_cast<uint8_t>(channel), peer, 4, 1 << 19, send ? 1 : 0};
  return start(p, ctx, d);
}
void* step(ProfilerV5* p, void* ctx, void* parent, int s) {
  DescrV5 d{};
  d.type = kProxyStep;
  d.parent = parent;
  d.proxy_step.step = s;
  return start(p, ctx, d);
}
void state(ProfilerV5* p, void* h, int s, size_t bytes = 1 << 19) {
  StateArgs a{};
  a.proxy_step.trans_size = bytes;
  EXPECT_EQ(p->record_event_state(h, s, &a), kSuccess);
}
void sleep_us(int us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }

const ProfileBinEntry* bin(const RankProfile& r, const std::string& func, int peer, int channel, bool send) {
  for (const ProfileBinEntry& b : r.bins) {
    for (const ProfileKeyEntry& k : r.keys) {
      if (k.id == b.key && k.func == func && b.peer == peer && b.channel == channel && b.send == send) return &b;
    }
  }
  return nullptr;
}

RankProfile read_only_file(const ProfileDir& dir) {
  auto files = dir.files();
  EXPECT_EQ(files.size(), 1u);
  auto text = read_file(files.at(0));
  EXPECT_TRUE(text.ok());
  auto p = parse_rank_profile(*text, files.at(0));
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : RankProfile();
}

TEST(NcclProfilerPlugin, ExportsTheV5AndV4TablesNcclLooksFor) {
  Plugin& p = plugin();
  ASSERT_NE(p.lib, nullptr) << dlerror();
  ASSERT_NE(p.v5, nullptr);
  ASSERT_NE(p.v4, nullptr);
  EXPECT_STREQ(p.v5->name, "fabscope");
  for (auto* f : {reinterpret_cast<void*>(p.v5->init), reinterpret_cast<void*>(p.v5->start_event),
                  reinterpret_cast<void*>(p.v5->stop_event), reinterpret_cast<void*>(p.v5->record_event_state),
                  reinterpret_cast<void*>(p.v5->finalize), reinterpret_cast<void*>(p.v4->init)}) {
    EXPECT_NE(f, nullptr);
  }
  // v1..v3 (NCCL 2.23-2.26) are not implemented: NCCL finds no table and skips the plugin.
  EXPECT_EQ(dlsym(p.lib, "ncclProfiler_v3"), nullptr);
}

TEST(NcclProfilerPlugin, SumsEachStepsStatesPerPeerChannelAndDirection) {
  ProfileDir dir("seq");
  ProfilerV5* p = plugin().v5;
  ASSERT_NE(p, nullptr);
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(p->init(&ctx, 0xabcdef, &mask, "seq", 2, 4, 1, nullptr), kSuccess);
  EXPECT_EQ(mask & (kColl | kP2p | kProxyOp | kProxyStep), static_cast<int>(kColl | kP2p | kProxyOp | kProxyStep));
  EXPECT_EQ(mask & kProxyCtrl, 0);

  void* c = coll(p, ctx, kAllReduce, 1 << 18);  // 1 MiB of floats
  EXPECT_EQ(p->stop_event(c), kSuccess);        // enqueued: its proxy operations come after
  // Channel 0: four sends to rank 2, stopped out of order, the network slow (2 ms each).
  void* send = op(p, ctx, c, 2, 0, true);
  ASSERT_NE(send, nullptr);
  std::vector<void*> steps;
  // What the steps' union can be at most, as this thread saw it: a loaded machine stretches
  // the sleep and the calls, so the bound is measured, not a fixed 4 ms.
  const auto envelope_start = std::chrono::steady_clock::now();
  for (int s = 0; s < 4; ++s) {
    void* h = step(p, ctx, send, s);
    ASSERT_NE(h, nullptr);
    state(p, h, kSendGpuWait);
    state(p, h, kSendPeerWait);
    state(p, h, kSendPeerWait);  // repeated while the receiver has no credit: one interval
    state(p, h, kSendPeerWait);
    state(p, h, kSendWait);
    state(p, h, 13);  // a ProxyCtrl state on a step: not a step state, ignored
    steps.push_back(h);
  }
  sleep_us(2000);
  for (int s : {3, 1, 0, 2}) EXPECT_EQ(p->stop_event(steps[s]), kSuccess);
  const double envelope_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - envelope_start).count();
  EXPECT_EQ(p->stop_event(send), kSuccess);
  // Channel 1: one receive from rank 0 that never completes (a hung channel).
  void* recv = op(p, ctx, c, 0, 1, false);
  void* hung = step(p, ctx, recv, 0);
  state(p, hung, kRecvWait);
  // A proxy operation of another process (PXN): its collective is not this one's.
  void* pxn = op(p, ctx, c, 3, 2, true, ::getpid() + 1);
  void* pxn_step = step(p, ctx, pxn, 0);
  state(p, pxn_step, kSendWait);
  p->stop_event(pxn_step);
  p->stop_event(pxn);
  // A step without a parent operation gets no handle, and a null handle is harmless.
  EXPECT_EQ(step(p, ctx, nullptr, 0), nullptr);
  EXPECT_EQ(p->stop_event(nullptr), kSuccess);
  EXPECT_EQ(p->record_event_state(nullptr, kSendWait, nullptr), kSuccess);
  ASSERT_EQ(p->finalize(ctx), kSuccess);

  const RankProfile r = read_only_file(dir);
  EXPECT_EQ(r.api, 5);
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.nranks, 4);
  EXPECT_EQ(r.comm_id, "0x0000000000abcdef");
  EXPECT_EQ(r.comm_name, "seq");
  EXPECT_EQ(r.pid, ::getpid());
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.dropped_events, 0u);

  const ProfileBinEntry* s = bin(r, "AllReduce", 2, 0, true);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->ops, 1u);
  EXPECT_EQ(s->steps, 4u);
  EXPECT_EQ(s->done_steps, 4u);
  EXPECT_EQ(s->bytes, 4u << 19);
  EXPECT_GE(s->ns[2], 4 * 2e6);   // SendWait: each step at least the 2 ms slept
  EXPECT_GE(s->wall_ns[2], 2e6);  // ... in flight together: their union, once
  EXPECT_LE(s->wall_ns[2], envelope_ns);
  EXPECT_LT(s->ns[0], s->ns[2] / 2);  // SendGPUWait: a few calls' time, not the sleep
  EXPECT_GE(s->max_ns[2], 2e6);
  EXPECT_EQ(s->ns[3], 0);  // no receive state on a send

  const ProfileBinEntry* h = bin(r, "AllReduce", 0, 1, false);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->steps, 1u);
  EXPECT_EQ(h->done_steps, 0u);  // still open at finalize
  const ProfileBinEntry* x = bin(r, "unknown", 3, 2, true);
  ASSERT_NE(x, nullptr) << "a PXN operation is kept under the unknown collective";
  EXPECT_EQ(x->done_steps, 1u);

  // The counts per state, from the file's own JSON.
  auto text = read_file(dir.files().at(0));
  const Json doc = Json::parse(*text);
  EXPECT_EQ(doc["foreign_parent_ops"], 1);
  for (const Json& b : doc["bins"]) {
    if (b["peer"] == 2 && b["direction"] == "send") {
      EXPECT_EQ(b["states"]["SendPeerWait"]["count"], 4);  // once per step, not once per record
      EXPECT_EQ(b["states"]["SendWait"]["count"], 4);
      uint64_t in_hist = 0;
      for (const Json& n : b["states"]["SendWait"]["hist"]) in_hist += n.get<uint64_t>();
      EXPECT_EQ(in_hist, 4u);
    }
  }

  // As a report section: the collective and nccl-tests' size, the hung step open.
  const NcclProfileSection sec = build_profile_section({r}, {});
  EXPECT_EQ(sec.status, ProfileStatus::kCollected);
  ASSERT_GE(sec.points.size(), 1u);
  const ProfilePoint* ar = nullptr;
  for (const ProfilePoint& pt : sec.points) {
    if (pt.func == "AllReduce") ar = &pt;
  }
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->collective, "allreduce");
  EXPECT_EQ(ar->size_bytes, 1u << 20);
  EXPECT_EQ(ar->calls, 1u);
  ASSERT_EQ(ar->links.size(), 2u);
  EXPECT_EQ(name(ar->links[1].direction), "send");
  // The four sends waited together: 2 ms and a little of wall-clock time, not their 8 ms sum.
  EXPECT_GE(ar->links[1].network_us_per_call(), 2000);
  EXPECT_LE(ar->links[1].network_us_per_call(), envelope_ns / 1e3);
  EXPECT_EQ(ar->links[0].open_steps, 1u);
  EXPECT_NE(sec.detail.find("no NCCL log joined"), std::string::npos) << sec.detail;
}

TEST(NcclProfilerPlugin, ManyThreadsCountEveryStepOnce) {
  ProfileDir dir("threads");
  ProfilerV5* p = plugin().v5;
  ASSERT_NE(p, nullptr);
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(p->init(&ctx, 0x77, &mask, "threads", 1, 8, 0, nullptr), kSuccess);
  void* c = coll(p, ctx, kAllGather, 1024);
  constexpr int kThreads = 8, kOps = 500, kSteps = 6;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kOps; ++i) {
        // Every thread on the same bin (peer 1, channel 0) and one of its own.
        void* o = op(p, ctx, c, i % 2 == 0 ? 1 : 2 + t % 6, i % 2 == 0 ? 0 : t, true);
        std::vector<void*> hs;
        for (int s = 0; s < kSteps; ++s) {
          void* h = step(p, ctx, o, s);
          state(p, h, kSendGpuWait, 100);
          state(p, h, kSendWait, 100);
          hs.push_back(h);
        }
        // Stopped by another thread than the one that started them.
        std::thread([&] {
          for (void* h : hs) p->stop_event(h);
        }).join();
        p->stop_event(o);
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(p->finalize(ctx), kSuccess);
  const RankProfile r = read_only_file(dir);
  uint64_t ops = 0, steps = 0, done = 0, bytes = 0;
  for (const ProfileBinEntry& b : r.bins) {
    ops += b.ops;
    steps += b.steps;
    done += b.done_steps;
    bytes += b.bytes;
  }
  EXPECT_EQ(r.dropped_events, 0u);
  EXPECT_EQ(ops, static_cast<uint64_t>(kThreads * kOps));
  EXPECT_EQ(steps, static_cast<uint64_t>(kThreads * kOps * kSteps));
  EXPECT_EQ(done, steps);
  EXPECT_EQ(bytes, steps * 100);
  const ProfileBinEntry* shared = bin(r, "AllGather", 1, 0, true);
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->ops, static_cast<uint64_t>(kThreads * kOps / 2));
}

TEST(NcclProfilerPlugin, AFullRingDropsEventsAndCountsThemWithoutWaiting) {
  ProfileDir dir("full");
  ProfilerV5* p = plugin().v5;
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(p->init(&ctx, 0x99, &mask, "full", 1, 2, 0, nullptr), kSuccess);
  void* c = coll(p, ctx, kAllReduce, 64);
  // On a fresh thread: its ring is empty, and nothing is ever stopped.
  constexpr int kSteps = 40000;  // more than a thread's 32768 records
  int handed = 0;
  std::thread([&] {
    void* o = op(p, ctx, c, 1, 0, true);
    for (int s = 0; s < kSteps; ++s) handed += step(p, ctx, o, s) != nullptr;
  }).join();
  ASSERT_EQ(p->finalize(ctx), kSuccess);
  const RankProfile r = read_only_file(dir);
  EXPECT_EQ(handed, 32768 - 1);  // every record but the operation's
  EXPECT_EQ(r.dropped_events, static_cast<uint64_t>(kSteps - handed));
}

// Steps of four channels in flight together, as NCCL's proxy keeps up to 8 per channel:
// the sum over steps is four times the call, the wall-clock time is the call's.
TEST(NcclProfilerPlugin, StepsInFlightTogetherCountOnceInWallClockTime) {
  ProfileDir dir("overlap");
  ProfilerV5* p = plugin().v5;
  ASSERT_NE(p, nullptr);
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(p->init(&ctx, 0x0e, &mask, "overlap", 1, 2, 0, nullptr), kSuccess);
  const auto t0 = std::chrono::steady_clock::now();
  void* c = coll(p, ctx, kAllReduce, 1 << 18);
  std::vector<void*> ops, steps;
  for (int ch = 0; ch < 4; ++ch) {
    ops.push_back(op(p, ctx, c, 1, ch, true));
    steps.push_back(step(p, ctx, ops.back(), 0));
    state(p, steps.back(), kSendWait);
    sleep_us(500);  // entering 0.5 ms apart
  }
  sleep_us(3000);
  for (void* h : steps) p->stop_event(h);
  for (void* o : ops) p->stop_event(o);
  const double call_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(p->finalize(ctx), kSuccess);

  const RankProfile r = read_only_file(dir);
  double summed_ns = 0;
  for (const ProfileBinEntry& b : r.bins) summed_ns += b.ns[2];
  ASSERT_EQ(r.peers.size(), 1u);
  EXPECT_GT(summed_ns / 1e3, 3 * 3000.0);               // the old figure: 4 steps of 3 to 4.5 ms
  EXPECT_GE(r.peers[0].wall_ns[2] / 1e3, 1500 + 3000);  // the first in until the last out
  EXPECT_LE(r.peers[0].wall_ns[2] / 1e3, call_us);
  const NcclProfileSection sec = build_profile_section({r}, {});
  ASSERT_EQ(sec.points.size(), 1u);
  ASSERT_EQ(sec.points[0].links.size(), 1u);
  const ProfileLink& l = sec.points[0].links[0];
  EXPECT_EQ(l.channels, 4);
  EXPECT_DOUBLE_EQ(l.network_us_per_call(), r.peers[0].wall_ns[2] / 1e3);
  EXPECT_LE(l.network_us_per_call(), call_us);
  Report rep;
  rep.nccl_profile = sec;
  EXPECT_NE(render_nccl_profile(rep).find("SendWait (wall, us/call)"), std::string::npos) << render_nccl_profile(rep);
}

// ---- Wall-clock time: the union of intervals ------------------------------------------

TEST(BusyTime, UnionLengthOfIntervals) {
  EXPECT_EQ(union_length_ns({}), 0u);
  EXPECT_EQ(union_length_ns({{10, 20}}), 10u);
  EXPECT_EQ(union_length_ns({{10, 20}, {30, 45}}), 25u);             // apart: the sum
  EXPECT_EQ(union_length_ns({{10, 20}, {15, 30}}), 20u);             // overlapping
  EXPECT_EQ(union_length_ns({{0, 100}, {10, 20}, {30, 40}}), 100u);  // nested
  EXPECT_EQ(union_length_ns({{30, 40}, {10, 20}, {20, 30}}), 30u);   // touching, out of order
  EXPECT_EQ(union_length_ns({{10, 10}, {20, 15}, {1, 2}}), 1u);      // empty and reversed add nothing
  // 8 steps in flight on 4 channels, each 1000 ns, the same 1000 ns: 1000, not 32000.
  std::vector<Interval> same(32, Interval{5000, 6000});
  EXPECT_EQ(union_length_ns(same), 1000u);
}

// The plugin's online clock, fed the intervals' ends in time order, gives their union.
TEST(BusyTime, TheOnlineClockIsTheUnion) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<Interval> v;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const uint64_t a = rng() % 10000, d = 1 + rng() % 800;  // an interval closes after it opens
      v.push_back({a, a + d});
    }
    std::vector<std::pair<uint64_t, int>> events;  // (time, +1 enter / -1 leave)
    for (const Interval& i : v) {
      events.push_back({i.start, +1});
      events.push_back({i.end, -1});
    }
    std::sort(events.begin(), events.end());  // at one time, leaves first
    uint64_t word = 0, busy = 0;
    for (const auto& [t, e] : events) {
      if (e > 0) {
        BusyClock::enter(&word, t);
      } else {
        busy += BusyClock::leave(&word, t);
      }
    }
    EXPECT_EQ(word, 0u);
    EXPECT_EQ(busy, union_length_ns(v)) << "round " << round;
  }
  // Across the 48-bit wrap of the clock's word, and a leave read before its enter.
  uint64_t word = 0;
  const uint64_t t = (uint64_t{1} << 48) - 100;
  BusyClock::enter(&word, t);
  EXPECT_EQ(BusyClock::leave(&word, t + 300), 300u);
  BusyClock::enter(&word, 1000);
  EXPECT_EQ(BusyClock::leave(&word, 990), 0u);
  EXPECT_EQ(BusyClock::leave(&word, 2000), 0u);  // none open: nothing
}

TEST(NcclProfilerPlugin, TheV4TableOfNccl227WritesTheSameFile) {
  ProfileDir dir("v4");
  ProfilerV4* p = plugin().v4;
  ASSERT_NE(p, nullptr);
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(p->init(&ctx, &mask, "v4", 0x44, 1, 2, 0, nullptr), kSuccess);
  DescrV4 d{};
  d.type = static_cast<uint8_t>(kP2p);
  d.p2p = {kSend, nullptr, kFloat, 256, 1, 1};
  void* c = nullptr;
  p->start_event(ctx, &c, &d);
  DescrV4 o{};
  o.type = static_cast<uint8_t>(kProxyOp);
  o.parent = c;
  o.proxy_op = {::getpid(), 0, 1, 1, 1024, 1};
  void* oh = nullptr;
  p->start_event(ctx, &oh, &o);
  DescrV4 s{};
  s.type = static_cast<uint8_t>(kProxyStep);
  s.parent = oh;
  void* sh = nullptr;
  p->start_event(ctx, &sh, &s);
  StateArgs a{};
  a.proxy_step.trans_size = 1024;
  p->record_event_state(sh, kSendWait, &a);
  p->stop_event(sh);
  p->stop_event(oh);
  ASSERT_EQ(p->finalize(ctx), kSuccess);
  const RankProfile r = read_only_file(dir);
  EXPECT_EQ(r.api, 4);
  const ProfileBinEntry* b = bin(r, "Send", 1, 0, true);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->bytes, 1024u);
  const NcclProfileSection sec = build_profile_section({r}, {});
  ASSERT_EQ(sec.points.size(), 1u);
  EXPECT_EQ(sec.points[0].collective, "Send");
  EXPECT_EQ(sec.points[0].size_bytes, 1024u);
}

// ---- Reading profiles --------------------------------------------------------------

std::string good_profile() {
  return R"({"format": "fabscope-nccl-profile", "version": 2, "plugin_api": 5, "host": "h1", "pid": 7,
  "comm_id": "0x01", "comm_name": "c", "rank": 0, "nranks": 2, "nnodes": 2, "written_utc": "2026-11-25T00:00:00Z",
  "complete": true, "clock": "CLOCK_MONOTONIC", "start_ns": 1, "end_ns": 2, "dropped_events": 0,
  "foreign_parent_ops": 0, "histogram": {"first_ns": 1024, "factor": 2, "buckets": 2},
  "keys": [{"id": 3, "kind": "collective", "func": "AllReduce", "datatype": "ncclFloat32", "count": 1024,
            "algo": "RING", "proto": "SIMPLE", "peer": -1, "channels": 1, "calls": 2}],
  "bins": [{"key": 3, "peer": 1, "channel": 0, "direction": "send", "ops": 2, "steps": 2, "done_steps": 2,
            "bytes": 8192, "states": {"SendWait": {"ns": 4000, "wall_ns": 3500, "count": 2, "max_ns": 3000,
                                                   "hist": [0, 2]}}}],
  "peers": [{"key": 3, "peer": 1, "direction": "send", "wall_ns": {"SendWait": 3500}}]})";
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(NcclProfileRead, AGoodFileAndEveryKindOfBadOne) {
  auto good = parse_rank_profile(good_profile(), "good.json");
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ(good->bins.at(0).ns[2], 4000);
  EXPECT_EQ(good->bins.at(0).wall_ns[2], 3500);
  ASSERT_EQ(good->peers.size(), 1u);
  EXPECT_EQ(good->peers[0].wall_ns[2], 3500);
  EXPECT_TRUE(good->peers[0].send);

  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"results": [], "config": {}})", "not a profile of fabscope's NCCL profiler plugin"},
      {replaced(good_profile(), "fabscope-nccl-profile", "other-tool"), "format 'other-tool'"},
      {replaced(good_profile(), R"("version": 2)", R"("version": 9)"), "this fabscope reads version 2"},
      {replaced(good_profile(), R"("version": 2)", R"("version": 1)"), "without the wall-clock time per state"},
      {replaced(good_profile(), R"("wall_ns": 3500, )", ""), "wall_ns"},
      {replaced(good_profile(), R"([{"key": 3, "peer": 1, "direction": "send", "wall_ns")",
                R"([{"key": 5, "peer": 1, "direction": "send", "wall_ns")"),
       "key 5 is not among"},
      {replaced(good_profile(), R"("SendWait": 3500})", R"("SendNap": 3500})"), "unknown step state 'SendNap'"},
      {replaced(good_profile(), R"("rank": 0)", R"("rank": 5)"), "rank 5 outside"},
      {replaced(good_profile(), R"("key": 3)", R"("key": 4)"), "key 4 is not among"},
      {replaced(good_profile(), R"("peer": 1, "channel")", R"("peer": 2, "channel")"), "peer 2 outside"},
      {replaced(good_profile(), R"("direction": "send")", R"("direction": "up")"), "'up'; expected send or recv"},
      {replaced(good_profile(), R"("SendWait": {)", R"("SendNap": {)"), "unknown step state 'SendNap'"},
      {replaced(good_profile(), R"("hist": [0, 2])", R"("hist": [2])"), "1 buckets"},
      {replaced(good_profile(), R"("done_steps": 2)", R"("done_steps": 3)"), "3 steps done of 2"},
      {replaced(good_profile(), R"("pid": 7,)", ""), "pid"},
      {good_profile().substr(0, 200), "good.json"},
  };
  for (const auto& [text, expect] : bad) {
    auto p = parse_rank_profile(text, "good.json");
    ASSERT_FALSE(p.ok()) << expect;
    EXPECT_NE(p.status().message().find(expect), std::string::npos) << p.status().message();
    EXPECT_NE(p.status().message().find("good.json"), std::string::npos) << p.status().message();
  }
}

TEST(NcclProfileRead, ADirectoryWithoutProfilesSaysHowToMakeThem) {
  ProfileDir dir("empty");
  auto r = read_rank_profiles(dir.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("FABSCOPE_PROFILE_DIR"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("NCCL_PROFILER_PLUGIN"), std::string::npos);
  auto missing = read_rank_profiles(dir.path() + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);
}

TEST(NcclProfileRead, NoFilesIsNoProfilerDataNotZeros) {
  const NcclProfileSection s = build_profile_section({}, {}, "NCCL 2.26.2 wrote no profile on rank 0");
  EXPECT_EQ(s.status, ProfileStatus::kNoData);
  EXPECT_TRUE(s.points.empty());
  EXPECT_EQ(s.detail, "NCCL 2.26.2 wrote no profile on rank 0");
  Report r;
  r.nccl_profile = s;
  const std::string text = render_nccl_profile(r);
  EXPECT_NE(text.find("no profiler data"), std::string::npos) << text;
}

// ---- The join with NCCL's log ------------------------------------------------------

TEST(NcclProfileJoin, ARealLogNamesTheNicOfEachChannel) {
  const std::string path = std::string(FABSCOPE_FIXTURES) +
                           "/nccl-logs/slurmv4-tpgds-aihub0008_H100x8-2node-16rank-RoCE_NCCL-2.27.5_8rail-nonidentity-"
                           "HCA-list.log";
  auto text = read_file(path);
  ASSERT_TRUE(text.ok());
  auto channels = topo::nccl_log_channels(*text, path);
  ASSERT_TRUE(channels.ok()) << channels.status().message();
  EXPECT_EQ(channels->size(), 64u);  // 8 processes x 8 "via NET" lines
  // "tpgds-aihub0008:207013 [6] Channel 05/0 : 14[6] -> 5[5] [send] via NET/IB/6/GDRDMA", and
  // that process's "NET/IB : Using ... [6]mlx5_8:1/RoCE".
  const ChannelNic* c = nullptr;
  for (const ChannelNic& x : *channels) {
    if (x.rank == 14 && x.channel == 5 && x.send) c = &x;
  }
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->host, "tpgds-aihub0008");
  EXPECT_EQ(c->pid, "207013");
  EXPECT_EQ(c->peer, 5);
  EXPECT_EQ(c->nic, "mlx5_8");
  // Channel 6 of rank 14 receives from two peers (ring and tree): "7[7] -> 14[6] [receive]"
  // and "6[6] -> 14[6] [receive]", both over NET/IB/6.
  std::vector<int> from;
  for (const ChannelNic& x : *channels) {
    if (x.rank == 14 && x.channel == 6 && !x.send) {
      from.push_back(x.peer);
      EXPECT_EQ(x.nic, "mlx5_8");
    }
  }
  std::sort(from.begin(), from.end());
  EXPECT_EQ(from, (std::vector<int>{6, 7}));

  // A profile of rank 14 of that job (host and pid as the log's) gets the NIC per link.
  RankProfile p = *parse_rank_profile(good_profile(), "r14.json");
  p.host = "tpgds-aihub0008";
  p.pid = 207013;
  p.rank = 14;
  p.nranks = 16;
  p.bins[0].peer = 5;
  p.bins[0].channel = 5;
  const NcclProfileSection s = build_profile_section({p}, *channels);
  ASSERT_EQ(s.points.size(), 1u);
  ASSERT_EQ(s.points[0].links.size(), 1u);
  EXPECT_EQ(s.points[0].links[0].nic, "mlx5_8");
  EXPECT_EQ(s.points[0].size_bytes, 4096u);
}

// A peer's two channels over two NICs: each link's wall-clock time is at most the peer's
// union and at most its own channel's; over one NIC, the peer's union.
TEST(NcclProfileJoin, APeersChannelsOverTwoNicsAreBoundedByTheirOwnUnions) {
  RankProfile p = *parse_rank_profile(good_profile(), "r0.json");
  ProfileBinEntry second = p.bins[0];
  second.channel = 1;
  second.wall_ns[2] = 3000;
  p.bins[0].wall_ns[2] = 4000;
  p.bins[0].ns[2] = second.ns[2] = 4000;
  p.bins.push_back(second);
  p.peers[0].wall_ns[2] = 5000;  // the two channels' union
  const NcclProfileSection one = build_profile_section({p}, {});
  ASSERT_EQ(one.points[0].links.size(), 1u);
  EXPECT_DOUBLE_EQ(one.points[0].links[0].wait_us[2], 5.0);
  const std::vector<ChannelNic> nics = {{"h1", "7", 0, 1, 0, true, "mlx5_0"}, {"h1", "7", 0, 1, 1, true, "mlx5_1"}};
  const NcclProfileSection two = build_profile_section({p}, nics);
  ASSERT_EQ(two.points[0].links.size(), 2u);
  EXPECT_EQ(two.points[0].links[0].nic, "mlx5_0");
  EXPECT_DOUBLE_EQ(two.points[0].links[0].wait_us[2], 4.0);
  EXPECT_DOUBLE_EQ(two.points[0].links[1].wait_us[2], 3.0);
  // A union that a race made longer than the steps' sum is held to the sum.
  auto text = good_profile();
  const size_t at = text.find(R"("wall_ns": 3500, )");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 17, R"("wall_ns": 9000, )");
  auto raced = parse_rank_profile(text, "raced.json");
  ASSERT_TRUE(raced.ok()) << raced.status().message();
  EXPECT_EQ(raced->bins[0].wall_ns[2], 4000);
}

// ---- Merging ranks, findings, attribution -------------------------------------------

// A section of four ranks in a ring, each sending to rank+1 over two channels; the wait of
// (slow_src -> slow_src+1) is `factor` times the others' 100 us per call.
NcclProfileSection ring_section(int slow_src, double factor, uint64_t open_at_rank1 = 0) {
  std::vector<NcclProfileSection> parts;
  for (int rank = 0; rank < 4; ++rank) {
    NcclProfileSection s;
    s.status = ProfileStatus::kCollected;
    s.ranks.push_back({"c (0x1)", rank, "h" + std::to_string(rank), 100 + rank, 5, "f", true, 0});
    ProfilePoint p;
    p.comm = "c (0x1)";
    p.collective = "allreduce";
    p.func = "AllReduce";
    p.datatype = "ncclFloat32";
    p.count = 16u << 20;
    p.size_bytes = 64u << 20;
    p.algo = "RING";
    p.proto = "SIMPLE";
    p.calls = 10;
    ProfileLink l;
    l.rank = rank;
    l.peer = (rank + 1) % 4;
    l.direction = LinkDirection::kSend;
    l.nic = "mlx5_" + std::to_string(rank);
    l.channels = 2;
    l.ops = 20;
    l.steps = 160;
    l.wait_us[2] = 10 * 100 * (rank == slow_src ? factor : 1.0);
    ProfileLink in = l;
    in.peer = (rank + 3) % 4;
    in.direction = LinkDirection::kRecv;
    in.wait_us = std::vector<double>(kProfileStates, 0.0);
    in.wait_us[3] = 1000;
    in.open_steps = rank == 1 ? open_at_rank1 : 0;
    p.links = {l, in};
    s.points.push_back(p);
    parts.push_back(s);
  }
  parts.push_back(build_profile_section({}, {}, "rank 4 wrote nothing"));
  return merge_profile_sections(parts);
}

Report with_section(NcclProfileSection s) {
  Report r;
  for (int i = 0; i < 4; ++i) r.context.ranks.push_back({i, "h" + std::to_string(i), 100 + i, 0});
  r.nccl_profile = std::move(s);
  return r;
}

// Wall-clock wait does not grow with a link's channels (their steps overlap): links
// that waited as long per call are alike, whatever their channel counts.
TEST(NcclProfileJudge, AChannelCountDoesNotMakeALinkSlow) {
  NcclProfileSection s = ring_section(-1, 1.0);
  for (ProfilePoint& p : s.points) {
    for (ProfileLink& l : p.links) {
      if (l.direction == LinkDirection::kSend) l.channels = l.rank == 1 ? 1 : 4;
    }
  }
  Report r = with_section(s);
  add_sweep_findings(r);
  for (const Finding& f : r.findings) EXPECT_NE(f.code, "nccl.link_wait") << f.subject << ": " << f.message;
}

TEST(NcclProfileJudge, MergedRanksAndTheSlowLinkNamedWithItsNic) {
  const NcclProfileSection s = ring_section(2, 3.0);
  EXPECT_EQ(s.status, ProfileStatus::kCollected);
  ASSERT_EQ(s.points.size(), 1u);
  EXPECT_EQ(s.points[0].links.size(), 8u);
  EXPECT_EQ(s.ranks.size(), 4u);
  EXPECT_NE(s.detail.find("1 of 5 ranks have no profile (rank 4: rank 4 wrote nothing)"), std::string::npos)
      << s.detail;

  Report r = with_section(s);
  add_sweep_findings(r);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "nccl.link_wait");
  EXPECT_EQ(f.subject, "rank 2 (h2) -> rank 3 (h3) over mlx5_2");
  EXPECT_EQ(f.hosts, (std::vector<std::string>{"h2", "h3"}));
  EXPECT_NEAR(f.evidence["factor"].get<double>(), 3.0, 1e-9);
  EXPECT_NEAR(f.evidence["network_wall_us_per_call"].get<double>(), 300.0, 1e-9);
  EXPECT_NEAR(f.evidence["reference_us"].get<double>(), 100.0, 1e-9);

  // Round trip through the report's JSON.
  auto back = report_from_json_text(to_json_text(r), "r.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->nccl_profile);
  EXPECT_EQ(back->nccl_profile->points[0].links[4].wait_us[2], r.nccl_profile->points[0].links[4].wait_us[2]);
  EXPECT_EQ(to_json_text(*back), to_json_text(r));

  const std::string text = render_nccl_profile(r);
  EXPECT_NE(text.find("allreduce 64 MiB (RING/SIMPLE), 10 calls"), std::string::npos) << text;
  EXPECT_NE(text.find("2 -> 3"), std::string::npos) << text;
}

TEST(NcclProfileJudge, EvenLinksAndSmallExcessAreNotFlagged) {
  Report even = with_section(ring_section(-1, 1.0));
  add_sweep_findings(even);
  EXPECT_TRUE(even.findings.empty());
  // Three times the others, but 10 us per call against 3.3 us: below kMinWaitExcessUs.
  NcclProfileSection tiny = ring_section(2, 3.0);
  for (ProfileLink& l : tiny.points[0].links) l.wait_us[2] /= 30;
  Report small = with_section(tiny);
  add_sweep_findings(small);
  EXPECT_TRUE(small.findings.empty());
}

TEST(NcclProfileJudge, TransfersLeftOpenAreAnError) {
  Report r = with_section(ring_section(-1, 1.0, 3));
  add_sweep_findings(r);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "nccl.open_steps");
  EXPECT_EQ(r.findings[0].severity, Severity::kError);
  EXPECT_EQ(r.findings[0].evidence["open_steps"], 3);
  EXPECT_EQ(r.findings[0].subject, "rank 1 (h1) <- rank 0 (h0) over mlx5_1");
}

}  // namespace
}  // namespace fabscope
