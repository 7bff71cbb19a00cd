#include "p2p/p2p.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <list>
#include <new>
#include <sstream>
#include <unordered_map>

#include "backend/backend.h"
#include "backend/host_memory.h"
#include "coll/pattern.h"
#include "core/clock.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "core/watchdog.h"
#include "diag/net_counters.h"

namespace fabscope {

Status validate(const P2pOptions& o, int nranks) {
  if (o.iters < 1) return Status::Invalid(fmt::format("iterations -n {} is not allowed; use an integer >= 1", o.iters));
  if (o.warmup_iters < 0) {
    return Status::Invalid(fmt::format("warm-up iterations -w {} is not allowed; use an integer >= 0", o.warmup_iters));
  }
  if (o.repeats < 1) return Status::Invalid(fmt::format("--repeats {} is not allowed; use an integer >= 1", o.repeats));
  if (o.window < 1) return Status::Invalid(fmt::format("--window {} is not allowed; use an integer >= 1", o.window));
  if (!(o.timeout_s >= 0) || std::isinf(o.timeout_s)) {  // NaN fails every comparison: refused too
    return Status::Invalid(
        fmt::format("--timeout {} is not allowed; use a finite number of seconds >= 0 (0 disables it)", o.timeout_s));
  }
  if (o.sizes.empty()) return Status::Invalid("no message size given");
  if (o.method == TimingMethod::kNcclTests) {
    return Status::Invalid("--method nccl-tests is for collective sweeps; p2p takes perftest or osu");
  }
  auto schedule = p2p_rounds(o, nranks);
  return schedule.ok() ? Status::Ok() : schedule.status();
}

Result<std::vector<Round>> p2p_rounds(const P2pOptions& o, int nranks) {
  if (o.rounds.empty()) return p2p_schedule(o.pattern, o.mode, nranks, o.pair);
  for (const Round& round : o.rounds) {
    for (const Flow& f : round) {
      if (f.src < 0 || f.dst < 0 || f.src >= nranks || f.dst >= nranks || f.src == f.dst) {
        return Status::Invalid(fmt::format("a scheduled flow {} -> {} is not two different ranks of this job (0 to {})",
                                           f.src, f.dst, nranks - 1));
      }
    }
  }
  return o.rounds;
}

FlowBandwidth flow_bandwidth(uint64_t size, const std::vector<int64_t>& t, int64_t start_ns, int window) {
  FlowBandwidth bw;
  if (t.empty()) return bw;
  // The clock starts at the first message's arrival and counts the messages after it:
  // when the sender began is not on this rank's clock, and a sender let out of the
  // round's barrier late (a third rank stopped inside it) is not the link's time. One
  // message alone is timed from start_ns.
  const size_t first = t.size() >= 2 ? 1 : 0;
  const int64_t t0 = first ? t.front() : start_ns;
  const size_t counted = t.size() - first;
  const double elapsed_s = static_cast<double>(t.back() - t0) * 1e-9;
  const double n = static_cast<double>(counted);
  if (elapsed_s > 0) {
    bw.avg_gbps = static_cast<double>(size) * n / elapsed_s / 1e9;
    bw.msg_rate_mpps = n / elapsed_s / 1e6;
  }
  // A peak over a few completions would measure how the transport batches them (a
  // socket's buffered data is read in one go), not the link: spans are at least
  // kMinPeakMessages messages and kMinPeakNs long.
  const size_t w = std::min(counted, static_cast<size_t>(std::max(window, kMinPeakMessages)));
  double best = 0;
  for (size_t end = first + w - 1; end < t.size(); ++end) {
    const int64_t begin = end >= w ? t[end - w] : start_ns;
    if (t[end] - begin < kMinPeakNs && end + 1 != t.size()) continue;
    const double dt = static_cast<double>(t[end] - begin) * 1e-9;
    if (dt > 0) best = std::max(best, static_cast<double>(size) * static_cast<double>(w) / dt / 1e9);
  }
  bw.peak_gbps = std::max(best, bw.avg_gbps);
  return bw;
}

LatencyStats latency_stats(std::vector<double> v) {
  LatencyStats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  Summary sum = summarize(v);
  s.min_us = sum.min;
  s.max_us = sum.max;
  s.typical_us = sum.median;
  s.avg_us = sum.mean;
  s.stdev_us = sum.stddev.value_or(0);
  s.p99_us = percentile_sorted(v, 99);
  s.p999_us = percentile_sorted(v, 99.9);
  return s;
}

namespace {

// Message buffers for the largest size, kept for the whole run: in host memory, or in
// the memory the transport needs (GPU memory for nccl). A transport that registers
// memory (verbs) is told before they are freed.
class MessageBuffers {
 public:
  MessageBuffers(Transport& t, size_t bytes) : t_(t), mem_(t.memory()), bytes_(bytes) {}
  ~MessageBuffers() {
    for (char* b : all_) {
      t_.forget_memory(b, bytes_);
      if (mem_) mem_->release(b);
    }
  }
  MessageBuffers(const MessageBuffers&) = delete;
  MessageBuffers& operator=(const MessageBuffers&) = delete;

  // The send buffer, with bytes that differ per rank and position.
  Status init_send(int rank) {
    auto b = make();
    if (!b.ok()) return b.status();
    send_ = *b;
    if (mem_) {
      Segment all{0, bytes_, rank, 0};
      return mem_->fill(send_, PatternSpec{DataType::kUint8, std::nullopt, 0xf10u, t_.size()},
                        std::span<const Segment>(&all, 1));
    }
    for (size_t i = 0; i < bytes_; ++i) send_[i] = static_cast<char>(i * 131 + static_cast<size_t>(rank));
    return Status::Ok();
  }
  Status reserve_recv(size_t count) {
    while (recv_.size() < count) {
      auto b = make();
      if (!b.ok()) return b.status();
      recv_.push_back(*b);
    }
    return Status::Ok();
  }
  char* send() const { return send_; }
  const std::vector<char*>& recv() const { return recv_; }

 private:
  Result<char*> make() {
    char* p = nullptr;
    if (mem_) {
      auto a = mem_->allocate(bytes_);
      if (!a.ok()) return a.status();
      p = static_cast<char*>(*a);
    } else {
      try {
        host_.emplace_back(bytes_, '\0');
      } catch (const std::bad_alloc&) {
        return Status::Runtime(fmt::format("cannot allocate {} of host memory for p2p buffers", format_size(bytes_)));
      }
      p = host_.back().data();
    }
    all_.push_back(p);
    return p;
  }

  Transport& t_;
  Memory* mem_;
  size_t bytes_;
  std::list<std::vector<char>> host_;  // stable addresses
  std::vector<char*> all_;
  char* send_ = nullptr;
  std::vector<char*> recv_;
};

// One directed flow this rank takes part in, during one round.
struct FlowRun {
  Flow flow;
  bool sending = false;
  int peer = 0;
  int posted = 0;
  int completed = 0;
  int total = 0;
  std::vector<int64_t> completions;  // receiver: completion times of timed messages
};

class P2pRunner {
 public:
  P2pRunner(const RankContext& ctx, Transport& t, const P2pOptions& o, Watchdog& wd)
      : ctx_(ctx), t_(t), o_(o), wd_(wd) {}

  // Runs the flows of one round that involve this rank: `count` messages each, with up
  // to `window` in flight; records the receivers' completion times (the transport's
  // stamps). Per message: a post, the completions the poll returns, a beat; no
  // allocation (a completion finds its flow by peer and direction: a rank has at most
  // one flow per peer and direction in a round).
  // `counts`, where given, is each flow's own count (a flow bounded by time).
  Status stream(std::vector<FlowRun>& flows, char* send_buf, const std::vector<char*>& recv_bufs, size_t size,
                int count, const std::vector<int>* counts = nullptr) {
    auto post = [&](size_t i) -> Status {
      FlowRun& f = flows[i];
      auto id = f.sending ? t_.post_send(f.peer, send_buf, size) : t_.post_recv(f.peer, recv_bufs[i], size);
      if (!id.ok()) return id.status();
      ++f.posted;
      return Status::Ok();
    };
    for (size_t i = 0; i < flows.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (flows[j].peer == flows[i].peer && flows[j].sending == flows[i].sending) {
          return Status::Invalid(fmt::format("p2p: rank {} has two flows {} rank {} in one round", ctx_.rank(),
                                             flows[i].sending ? "to" : "from", flows[i].peer));
        }
      }
      const int n = counts ? (*counts)[i] : count;
      flows[i].posted = flows[i].completed = 0;
      flows[i].total = n;
      flows[i].completions.clear();
      flows[i].completions.reserve(static_cast<size_t>(n));
      while (flows[i].posted < std::min(n, o_.window)) FABSCOPE_RETURN_IF_ERROR(post(i));
    }
    size_t open = 0;
    for (const FlowRun& f : flows) open += f.total > 0;
    done_.clear();
    done_.reserve(flows.size() * static_cast<size_t>(std::max(o_.window, 1)));
    while (open > 0) {
      done_.clear();
      FABSCOPE_RETURN_IF_ERROR(t_.poll(done_, 100));
      for (const Completion& c : done_) {
        size_t i = 0;
        while (i < flows.size() && (flows[i].peer != c.peer || flows[i].sending != c.is_send)) ++i;
        if (i == flows.size()) {
          return Status::Runtime(
              fmt::format("p2p: a completion from rank {} that no flow of rank {} expects", c.peer, ctx_.rank()));
        }
        FlowRun& f = flows[i];
        ++f.completed;
        if (!f.sending) f.completions.push_back(c.completed_ns);
        if (f.posted < f.total) FABSCOPE_RETURN_IF_ERROR(post(i));
        if (f.completed == f.total) --open;
        wd_.beat();
      }
    }
    return Status::Ok();
  }

  // Before a timed stream: each receiver tells its sender that it is listening (a
  // zero-byte message), and a sender starts on that word. No timed byte leaves while its
  // receiver is still in the round's barrier, so none waits in a socket buffer to be
  // read in one burst once the receiver's clock runs (flow_bandwidth). Messages between
  // two ranks complete in order per direction, so the word is matched before the data.
  Status handshake(const std::vector<FlowRun>& flows, char* send_buf, char* recv_buf) {
    for (const FlowRun& f : flows) {
      if (f.sending) {
        auto id = t_.post_recv(f.peer, recv_buf, 0);
        if (!id.ok()) return id.status();
      }
    }
    for (const FlowRun& f : flows) {
      if (!f.sending) {
        auto id = t_.post_send(f.peer, send_buf, 0);
        if (!id.ok()) return id.status();
      }
    }
    size_t open = flows.size();
    while (open > 0) {
      done_.clear();
      FABSCOPE_RETURN_IF_ERROR(t_.poll(done_, 100));
      open -= std::min(open, done_.size());
      if (!done_.empty()) wd_.beat();
    }
    return Status::Ok();
  }

  // Ping-pong with the partner: the transport's own loop (Transport::ping_pong). The
  // initiator's one-way samples are half of each round trip; `loop_us` gets the whole
  // loop's half round trip mean (osu_latency's figure).
  Status ping_pong(Transport& t, bool initiator, int peer, char* send_buf, char* recv_buf, size_t size, int count,
                   std::vector<double>* one_way_us, double* loop_us = nullptr) {
    if (!one_way_us) return t.ping_pong(peer, initiator, send_buf, recv_buf, size, count, nullptr, false, wd_);
    const bool ticks = ticks_invariant();
    stamps_.assign(static_cast<size_t>(count) + 1, 0);
    const int64_t steady_start = steady_now_ns();
    FABSCOPE_RETURN_IF_ERROR(t.ping_pong(peer, initiator, send_buf, recv_buf, size, count, stamps_.data(), ticks, wd_));
    const int64_t steady_end = steady_now_ns();
    if (!initiator) return Status::Ok();
    const TickScale scale =
        ticks ? TickScale::calibrate(stamps_.back() - stamps_.front(), steady_end - steady_start) : TickScale{};
    one_way_us->resize(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) (*one_way_us)[static_cast<size_t>(i)] = scale.us(stamps_[i + 1] - stamps_[i]) / 2;
    if (loop_us) *loop_us = scale.us(stamps_.back() - stamps_.front()) / 2 / static_cast<double>(std::max(count, 1));
    return Status::Ok();
  }

 private:
  const RankContext& ctx_;
  Transport& t_;
  const P2pOptions& o_;
  Watchdog& wd_;
  std::vector<Completion> done_;  // kept between calls: no allocation per message
  std::vector<int64_t> stamps_;
};

// Serialised link results, so that ranks can send them to rank 0 as doubles.
constexpr size_t kLinkFields = 18;
void pack(const P2pLink& l, std::vector<double>& out) {
  const LatencyStats lat = l.lat.value_or(LatencyStats{});
  double f[kLinkFields] = {static_cast<double>(l.round),
                           static_cast<double>(l.src_rank),
                           static_cast<double>(l.dst_rank),
                           static_cast<double>(l.size_bytes),
                           static_cast<double>(l.iterations),
                           l.bw_gbps.value_or(-1),
                           l.bw_peak_gbps.value_or(-1),
                           l.msg_rate_mpps.value_or(-1),
                           l.lat ? 1.0 : 0.0,
                           lat.min_us,
                           lat.max_us,
                           lat.typical_us,
                           lat.avg_us,
                           lat.stdev_us,
                           lat.p99_us,
                           lat.p999_us,
                           static_cast<double>(l.repeat),
                           l.lat_us.value_or(-1)};
  out.insert(out.end(), f, f + kLinkFields);
}
P2pLink unpack(const double* f, const RankContext& ctx) {
  P2pLink l;
  l.round = static_cast<int>(f[0]);
  l.src_rank = static_cast<int>(f[1]);
  l.dst_rank = static_cast<int>(f[2]);
  l.src_host = ctx.ranks()[l.src_rank].host;
  l.dst_host = ctx.ranks()[l.dst_rank].host;
  l.size_bytes = static_cast<uint64_t>(f[3]);
  l.iterations = static_cast<int>(f[4]);
  if (f[5] >= 0) l.bw_gbps = f[5];
  if (f[6] >= 0) l.bw_peak_gbps = f[6];
  if (f[7] >= 0) l.msg_rate_mpps = f[7];
  if (f[8] != 0) {
    l.lat = LatencyStats{f[9], f[10], f[11], f[12], f[13], f[14], f[15]};
    l.lat_us = f[17] >= 0 ? f[17] : l.lat->typical_us;
  }
  l.repeat = static_cast<int>(f[16]);
  return l;
}

}  // namespace

namespace {

// The floor's transport: every message completes as soon as it is posted; its latency
// loop is the real loops' stamps and beats around nothing.
class NullTransport final : public Transport {
 public:
  NullTransport(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string describe_peer(int peer) const override { return fmt::format("rank {} (nothing sent)", peer); }
  Result<uint64_t> post_send(int peer, const void*, size_t bytes) override { return post(peer, bytes, true); }
  Result<uint64_t> post_recv(int peer, void*, size_t bytes) override { return post(peer, bytes, false); }
  Status poll(std::vector<Completion>& done, int) override {
    if (posted_.empty()) return Status::Ok();
    const int64_t now = steady_now_ns();
    for (Completion& c : posted_) {
      c.completed_ns = now;
      done.push_back(c);
    }
    posted_.clear();
    return Status::Ok();
  }
  Status ping_pong(int, bool initiator, const void*, void*, size_t, int count, int64_t* stamps, bool ticks,
                   Watchdog& wd) override {
    if (stamps) stamps[0] = stamp_now(ticks);
    for (int i = 0; i < count; ++i) {
      if (initiator && stamps) stamps[i + 1] = stamp_now(ticks);
      wd.beat();
    }
    return Status::Ok();
  }

 private:
  Result<uint64_t> post(int peer, size_t bytes, bool is_send) {
    posted_.push_back({next_id_, peer, bytes, is_send, 0, 0});
    return next_id_++;
  }
  int rank_, size_;
  uint64_t next_id_ = 1;
  std::vector<Completion> posted_;
};

constexpr int kFloorMessages = 2000;

}  // namespace

Result<double> p2p_floor_us(const RankContext& ctx, const P2pOptions& o, Watchdog& wd) {
  wd.set_phase(fmt::format("p2p floor (the loops around a transport that does nothing) on rank {}", ctx.rank()));
  NullTransport null(ctx.rank(), std::max(ctx.size(), 2));
  P2pOptions floor_options = o;
  floor_options.window = std::max(o.window, 1);
  P2pRunner runner(ctx, null, floor_options, wd);
  const int peer = ctx.rank() == 0 ? 1 : 0;
  double us = 0;
  if (o.mode == P2pMode::kLatency) {
    std::vector<double> samples;
    double loop_us = 0;
    FABSCOPE_RETURN_IF_ERROR(
        runner.ping_pong(null, true, peer, nullptr, nullptr, 0, kFloorMessages, &samples, &loop_us));
    us = loop_us;  // per half round trip, as the latency it is compared with
  } else {
    std::vector<FlowRun> flows(1);
    flows[0].sending = false;
    flows[0].peer = peer;
    std::vector<char*> bufs(1, nullptr);
    const int64_t start = steady_now_ns();
    FABSCOPE_RETURN_IF_ERROR(runner.stream(flows, nullptr, bufs, 0, kFloorMessages));
    us = static_cast<double>(steady_now_ns() - start) * 1e-3 / kFloorMessages;
  }
  return ctx.reduce(us, RankReduction::kMean);
}

Result<uint64_t> check_p2p_memory(const RankContext& ctx, Transport& t, const P2pOptions& o) {
  FABSCOPE_RETURN_IF_ERROR(validate(o, ctx.size()));
  auto rounds = p2p_rounds(o, ctx.size());
  const uint64_t max_size = *std::max_element(o.sizes.begin(), o.sizes.end());
  // The buffers: one to send from, one per flow a rank sends or receives in a round (at
  // most four: ring, bidirectional), all of the largest size. Checked before allocating,
  // so a too-large -s is an error naming what fits, not an out-of-memory kill.
  size_t most_flows = 1;
  for (const Round& round : *rounds) {
    for (int r = 0; r < ctx.size(); ++r) {
      const auto flows = std::count_if(round.begin(), round.end(), [&](const Flow& f) { return f.src == r; }) +
                         std::count_if(round.begin(), round.end(), [&](const Flow& f) { return f.dst == r; });
      most_flows = std::max(most_flows, static_cast<size_t>(flows));
    }
  }
  const uint64_t buffer_bytes = std::max<uint64_t>(max_size, 1);
  Status cap;
  uint64_t estimate = 0;
  if (buffer_bytes > (std::numeric_limits<uint64_t>::max() - kRankBaseBytes) / (most_flows + 1)) {
    cap = Status::Invalid(fmt::format("-s {} bytes is too large to hold in memory", buffer_bytes));
  } else {
    HostMemory host;
    Memory* where = t.memory() ? t.memory() : &host;
    estimate = buffer_bytes * (most_flows + 1) + (where->kind() == "host" ? kRankBaseBytes : 0);
    cap = where->check_capacity(estimate, ctx.local_size());
    if (!cap.ok()) {
      cap = Status::Invalid(fmt::format("p2p at {} ({} buffers of it: one to send, one per flow) needs {}; lower -s",
                                        format_size(max_size), most_flows + 1, cap.message()));
    }
  }
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(cap));
  return estimate;
}

namespace {

// The flows of `round` this rank takes part in: each it sends, each it receives.
std::vector<FlowRun> flows_of(const Round& round, int me) {
  std::vector<FlowRun> mine;
  for (const Flow& f : round) {
    for (bool sending : {true, false}) {
      if ((sending ? f.src : f.dst) != me) continue;
      FlowRun run;
      run.flow = f;
      run.sending = sending;
      run.peer = sending ? f.dst : f.src;
      mine.push_back(std::move(run));
    }
  }
  return mine;
}

// One p2p run: every size, round and repeat, each rank's links packed for rank 0.
class P2pRun {
 public:
  P2pRun(const RankContext& ctx, Transport& t, const P2pOptions& o, Progress* progress,
         std::vector<CounterSample>* counters, Watchdog& watchdog, MessageBuffers& buffers)
      : ctx_(ctx),
        t_(t),
        o_(o),
        progress_(progress),
        counters_(counters),
        watchdog_(watchdog),
        buffers_(buffers),
        runner_(ctx, t, o, watchdog),
        phase_counters_(ctx),
        latency_(o.mode == P2pMode::kLatency) {}

  Status run(const std::vector<Round>& rounds) {
    steps_ = static_cast<int>(o_.sizes.size() * rounds.size()) * o_.repeats;
    for (uint64_t size : o_.sizes) {
      OsuLoop loop{o_.iters, o_.warmup_iters};
      const OsuLoop osu = latency_ ? osu_latency_loop(size) : osu_bandwidth_loop(size);
      if (o_.iterations_by_method) loop.iters = osu.iters;
      if (o_.warmup_by_method) loop.warmup = osu.warmup;
      for (size_t ri = 0; ri < rounds.size(); ++ri) {
        for (int rep = 0; rep < o_.repeats; ++rep) {
          FABSCOPE_RETURN_IF_ERROR(run_round(rounds[ri], rounds.size(), size, loop, static_cast<int>(ri), rep));
        }
      }
    }
    if (progress_ && ctx_.rank() == 0) progress_->clear();
    return Status::Ok();
  }

  const std::vector<double>& packed() const { return packed_; }

 private:
  Status run_round(const Round& round, size_t nrounds, uint64_t size, const OsuLoop& loop, int ri, int rep) {
    const int me = ctx_.rank();
    if (progress_ && me == 0) {
      progress_->update(fmt::format("fabscope p2p: {} {} {}  round {}/{}  [{}/{}]", name(o_.pattern), name(o_.mode),
                                    format_size(size), ri + 1, nrounds, ++step_, steps_));
    }
    watchdog_.set_phase(fmt::format("p2p {} {} of {} in round {} on rank {} ({})", name(o_.pattern), name(o_.mode),
                                    format_size(size), ri + 1, me, ctx_.host()));
    std::vector<FlowRun> mine = flows_of(round, me);
    FABSCOPE_RETURN_IF_ERROR(buffers_.reserve_recv(std::max<size_t>(mine.size(), 1)));
    if (latency_) {
      FABSCOPE_RETURN_IF_ERROR(measure_latency(mine, size, loop, ri, rep));
    } else {
      FABSCOPE_RETURN_IF_ERROR(measure_bandwidth(mine, size, loop, ri, rep));
    }
    if (counters_) FABSCOPE_RETURN_IF_ERROR(end_counters(mine, size, loop.iters, ri, rep));
    return ctx_.barrier();
  }

  // A link as measured in round `ri`, repeat `rep`.
  static P2pLink link_of(const FlowRun& f, uint64_t size, int iters, int ri, int rep) {
    P2pLink l;
    l.round = ri;
    l.repeat = rep;
    l.src_rank = f.flow.src;
    l.dst_rank = f.flow.dst;
    l.size_bytes = size;
    l.iterations = iters;
    return l;
  }

  // Round trips with this rank's one partner; the initiator reports the link.
  Status measure_latency(const std::vector<FlowRun>& mine, uint64_t size, const OsuLoop& loop, int ri, int rep) {
    char* recv_buf = buffers_.recv()[0];
    const FlowRun* f = mine.empty() ? nullptr : &mine[0];
    if (f) {
      FABSCOPE_RETURN_IF_ERROR(
          runner_.ping_pong(t_, f->sending, f->peer, buffers_.send(), recv_buf, size, loop.warmup, nullptr));
    }
    FABSCOPE_RETURN_IF_ERROR(ctx_.barrier());
    if (counters_) phase_counters_.begin();
    std::vector<double> samples;
    double loop_us = 0;
    if (f) {
      FABSCOPE_RETURN_IF_ERROR(
          runner_.ping_pong(t_, f->sending, f->peer, buffers_.send(), recv_buf, size, loop.iters, &samples, &loop_us));
    }
    if (f && f->sending) {
      P2pLink l = link_of(*f, size, loop.iters, ri, rep);
      l.lat = latency_stats(samples);
      l.lat_us = o_.method == TimingMethod::kOsu ? loop_us : l.lat->typical_us;
      pack(l, packed_);
    }
    return Status::Ok();
  }

  // Every flow of the round at once, a window of messages each; receivers report.
  Status measure_bandwidth(std::vector<FlowRun>& mine, uint64_t size, const OsuLoop& loop, int ri, int rep) {
    counts_.assign(mine.size(), loop.iters);
    const int64_t warm_start = steady_now_ns();
    if (loop.warmup > 0)
      FABSCOPE_RETURN_IF_ERROR(runner_.stream(mine, buffers_.send(), buffers_.recv(), size, loop.warmup));
    if (o_.round_time_s > 0 && loop.warmup > 0) {
      FABSCOPE_RETURN_IF_ERROR(bound_by_time(mine, size, loop, warm_start));
    }
    FABSCOPE_RETURN_IF_ERROR(ctx_.barrier());
    if (counters_) phase_counters_.begin();
    const int64_t start = steady_now_ns();
    FABSCOPE_RETURN_IF_ERROR(runner_.handshake(mine, buffers_.send(), buffers_.recv()[0]));
    FABSCOPE_RETURN_IF_ERROR(runner_.stream(mine, buffers_.send(), buffers_.recv(), size, loop.iters, &counts_));
    for (size_t i = 0; i < mine.size(); ++i) {
      const FlowRun& f = mine[i];
      if (f.sending) continue;
      FlowBandwidth bw = flow_bandwidth(size, f.completions, start, o_.window);
      P2pLink l = link_of(f, size, counts_[i], ri, rep);
      l.bw_gbps = bw.avg_gbps;
      l.bw_peak_gbps = bw.peak_gbps;
      l.msg_rate_mpps = bw.msg_rate_mpps;
      pack(l, packed_);
    }
    return Status::Ok();
  }

  // A round bounded by time (P2pOptions::round_time_s): each receiver's warm-up rate goes
  // to rank 0, which gives every flow too slow to move its messages in kCutBeyondRounds
  // times the round's time the count it moves in that time; both ends then run that count.
  Status bound_by_time(const std::vector<FlowRun>& mine, uint64_t size, const OsuLoop& loop, int64_t warm_start) {
    std::vector<double> rates;  // src, dst, bytes per second, per flow this rank receives
    for (const FlowRun& f : mine) {
      if (f.sending || f.completions.empty()) continue;
      const double s = static_cast<double>(f.completions.back() - warm_start) * 1e-9;
      const double moved = static_cast<double>(size) * static_cast<double>(f.completions.size());
      rates.insert(rates.end(),
                   {static_cast<double>(f.flow.src), static_cast<double>(f.flow.dst), s > 0 ? moved / s : 0.0});
    }
    auto all = ctx_.gather_varying(rates);
    if (!all.ok()) return all.status();
    std::string cuts;  // "src dst count" lines: the flows cut, decided by rank 0
    const double bytes = static_cast<double>(size) * static_cast<double>(loop.iters);
    for (size_t i = 0; i + 3 <= all->size(); i += 3) {
      const double rate = (*all)[i + 2];
      if (rate <= 0 || bytes / rate <= kCutBeyondRounds * o_.round_time_s) continue;
      const int n = std::clamp(static_cast<int>(rate * o_.round_time_s / static_cast<double>(size)),
                               std::min(kMinTimedMessages, loop.iters), loop.iters);
      cuts += fmt::format("{} {} {}\n", static_cast<int>((*all)[i]), static_cast<int>((*all)[i + 1]), n);
    }
    auto agreed = ctx_.broadcast(cuts, 0);
    if (!agreed.ok()) return agreed.status();
    std::istringstream in(*agreed);
    int src = 0, dst = 0, n = 0;
    while (in >> src >> dst >> n) {
      for (size_t i = 0; i < mine.size(); ++i) {
        if (mine[i].flow.src == src && mine[i].flow.dst == dst) counts_[i] = n;
      }
    }
    return Status::Ok();
  }

  // The interface counters around the round, with what fabscope itself moved.
  // (Bandwidth modes: each flow's own count, its last stream's.)
  Status end_counters(const std::vector<FlowRun>& mine, uint64_t size, int iters, int ri, int rep) {
    uint64_t tx = 0, rx = 0;
    for (const FlowRun& f : mine) (f.sending ? tx : rx) += size * static_cast<uint64_t>(f.total);
    if (latency_) tx = rx = mine.empty() ? 0 : size * static_cast<uint64_t>(iters);
    return phase_counters_.end(
        fmt::format("p2p {} {} {} round {} repeat {}", name(o_.pattern), name(o_.mode), format_size(size), ri, rep), tx,
        rx, *counters_);
  }

  const RankContext& ctx_;
  Transport& t_;
  const P2pOptions& o_;
  Progress* progress_;
  std::vector<CounterSample>* counters_;
  Watchdog& watchdog_;
  MessageBuffers& buffers_;
  P2pRunner runner_;
  PhaseCounters phase_counters_;
  const bool latency_;
  std::vector<double> packed_;
  std::vector<int> counts_;  // this round's count per flow of `mine`
  int step_ = 0;
  int steps_ = 0;
};

// Rank 0's section from every rank's packed links: near-floor marks, in a stable order.
Result<P2pSection> assemble_section(const RankContext& ctx, const P2pOptions& o, double floor_us,
                                    const std::vector<double>& packed) {
  const bool latency = o.mode == P2pMode::kLatency;
  P2pSection section;
  section.pattern = o.pattern;
  section.mode = o.mode;
  section.window = latency ? 1 : o.window;
  section.warmup_iters = o.warmup_iters;
  section.repeats = o.repeats;
  section.method = o.method;
  section.floor_us = floor_us;
  auto all = ctx.gather_varying(packed);
  if (!all.ok()) return all.status();
  for (size_t i = 0; i + kLinkFields <= all->size(); i += kLinkFields)
    section.links.push_back(unpack(all->data() + i, ctx));
  for (P2pLink& l : section.links) {
    // Time per message: the one-way latency, or the receiver's time between messages.
    std::optional<double> per_message_us = l.lat_us;
    if (l.msg_rate_mpps && *l.msg_rate_mpps > 0) per_message_us = 1 / *l.msg_rate_mpps;
    l.near_floor = per_message_us && *per_message_us < kNearFloorFactor * floor_us;
  }
  std::sort(section.links.begin(), section.links.end(), [](const P2pLink& a, const P2pLink& b) {
    return std::tie(a.size_bytes, a.round, a.src_rank, a.dst_rank) <
           std::tie(b.size_bytes, b.round, b.src_rank, b.dst_rank);
  });
  return section;
}

}  // namespace

Result<P2pSection> run_p2p(const RankContext& ctx, Transport& t, const P2pOptions& o, Progress* progress,
                           std::vector<CounterSample>* counters) {
  FABSCOPE_RETURN_IF_ERROR(validate(o, ctx.size()));
  auto rounds = p2p_rounds(o, ctx.size());
  const uint64_t max_size = *std::max_element(o.sizes.begin(), o.sizes.end());
  if (auto fits = check_p2p_memory(ctx, t, o); !fits.ok()) return fits.status();
  MessageBuffers buffers(t, std::max<uint64_t>(max_size, 1));
  FABSCOPE_RETURN_IF_ERROR(buffers.init_send(ctx.rank()));
  Watchdog watchdog(o.timeout_s, fmt::format("[r{} {}]", ctx.rank(), ctx.host()), stderr, ctx.peer_view());
  auto floor = p2p_floor_us(ctx, o, watchdog);
  if (!floor.ok()) return floor.status();
  P2pRun run(ctx, t, o, progress, counters, watchdog, buffers);
  FABSCOPE_RETURN_IF_ERROR(run.run(*rounds));
  return assemble_section(ctx, o, *floor, run.packed());
}

}  // namespace fabscope
