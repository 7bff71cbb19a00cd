#include "algo/collectives.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstring>

#include "algo/exchange.h"
#include "coll/host_reduce.h"
#include "coll/pattern.h"

namespace fabscope {

char* Scratch::get(size_t bytes, Slot slot) {
  auto& b = buffers_[static_cast<size_t>(slot)];
  if (b.size() < bytes) {
    if (forget_ && !b.empty()) forget_->forget_memory(b.data(), b.size());
    // The old buffer goes first: growing must not hold both (1.5 times the largest).
    std::vector<char>().swap(b);
    b.resize(bytes);
  }
  return b.data();
}

uint64_t algo_scratch_bytes(const std::vector<Collective>& collectives, uint64_t buffer_bytes) {
  auto uses = [&](std::initializer_list<Collective> which) {
    for (Collective c : which) {
      if (std::find(collectives.begin(), collectives.end(), c) != collectives.end()) return true;
    }
    return false;
  };
  uint64_t bytes = 0;
  if (uses({Collective::kAllReduce, Collective::kReduceScatter, Collective::kReduce})) bytes += buffer_bytes;
  if (uses({Collective::kAllToAll, Collective::kSendRecv})) bytes += buffer_bytes;
  return bytes;
}

Scratch::~Scratch() {
  for (auto& b : buffers_) {
    if (forget_ && !b.empty()) forget_->forget_memory(b.data(), b.size());
  }
}

void RoundFlags::reset(size_t size) {
  granted.assign(size, 0);
  granting.assign(size, 0);
  sent_round.assign(size, 0);
  sent_slices.assign(size, 0);
}

namespace {

struct Chunk {
  size_t offset = 0;  // elements
  size_t count = 0;
};

// Splits `count` into n chunks whose sizes differ by at most one element.
Chunk balanced_chunk(size_t count, int n, int j) {
  const size_t base = count / static_cast<size_t>(n);
  const size_t extra = count % static_cast<size_t>(n);
  const size_t uj = static_cast<size_t>(j);
  return {uj * base + std::min(uj, extra), base + (uj < extra ? 1 : 0)};
}

class Algo {
 public:
  Algo(const CollCall& call, Transport& t, Scratch& scratch, const AlgoOptions& o, Trace* trace)
      : c_(call), t_(t), scratch_(scratch), trace_(trace), r_(t.rank()), n_(t.size()), es_(element_size(call.dtype)) {
    slice_elems_ = std::max<size_t>(1, o.slice_bytes / es_);
  }

  Status run() {
    switch (c_.coll) {
      case Collective::kAllReduce:
        return all_reduce();
      case Collective::kAllGather:
        return all_gather_collective();
      case Collective::kReduceScatter:
        return reduce_scatter_collective();
      case Collective::kAllToAll:
        return all_to_all();
      case Collective::kBroadcast:
        return broadcast();
      case Collective::kReduce:
        return reduce();
      case Collective::kGather:
        return gather();
      case Collective::kScatter:
        return scatter();
      case Collective::kSendRecv:
        return send_recv();
    }
    return Status::Invalid("unknown collective");
  }

 private:
  const char* in() const { return static_cast<const char*>(c_.send); }
  char* out() const { return static_cast<char*>(c_.recv); }
  size_t bytes(size_t elems) const { return elems * es_; }
  int peer(int offset) const { return ((r_ + offset) % n_ + n_) % n_; }
  void copy(char* dst, const char* src, size_t elems) const {
    if (dst != src && elems > 0) std::memmove(dst, src, bytes(elems));
  }
  void average(char* p, size_t elems) const {
    if (c_.op == ReduceOp::kAvg) host_divide(p, elems, c_.dtype, n_);
  }

  // Posts a message as slices; the receiver cuts the same way, so slices match 1:1.
  Status send_sliced(Exchange& ex, int to, const char* p, size_t elems) {
    if (elems == 0) return ex.send(to, p, 0);
    for (size_t off = 0; off < elems; off += slice_elems_) {
      FABSCOPE_RETURN_IF_ERROR(ex.send(to, p + bytes(off), bytes(std::min(slice_elems_, elems - off))));
    }
    return Status::Ok();
  }
  template <typename F>  // F(offset, count) runs when that slice has arrived
  Status recv_sliced(Exchange& ex, int from, char* p, size_t elems, F on_slice) {
    if (elems == 0) return ex.recv(from, p, 0, [on_slice] { on_slice(size_t{0}, size_t{0}); });
    for (size_t off = 0; off < elems; off += slice_elems_) {
      const size_t len = std::min(slice_elems_, elems - off);
      FABSCOPE_RETURN_IF_ERROR(ex.recv(from, p + bytes(off), bytes(len), [on_slice, off, len] { on_slice(off, len); }));
    }
    return Status::Ok();
  }
  Status recv_sliced(Exchange& ex, int from, char* p, size_t elems) {
    return recv_sliced(ex, from, p, elems, [](size_t, size_t) {});
  }

  // Calls fn(offset, count) for each slice of `elems` elements; one empty slice for none,
  // so that an empty chunk is still one (zero-byte) message on both sides.
  template <typename F>
  void for_slices(size_t elems, F fn) const {
    if (elems == 0) {
      fn(size_t{0}, size_t{0});
      return;
    }
    for (size_t off = 0; off < elems; off += slice_elems_) fn(off, std::min(slice_elems_, elems - off));
  }

  // The ring, pipelined across steps in one exchange. Reduce-scatter: step s sends
  // chunk r-s-1 and receives chunk r-s-2, which is reduced with this rank's own slice by
  // slice; each reduced slice is sent on at once as the next step's data, and after
  // n-1 steps the chunk received last is chunk r, written to `rs_out`. All-gather: step
  // s sends chunk r-s and receives chunk r-s-1 into `ag_buf`, relaying each slice at once.
  // Messages on a connection are matched in posting order, and every rank posts its
  // receives step by step, so each slice meets the receive meant for it.
  template <typename ChunkOf>
  Status pipelined_ring(const char* src, char* rs_out, char* ag_buf, ChunkOf chunk, bool do_rs, bool do_ag) {
    const int next = peer(1), prev = peer(-1), steps = n_ - 1;
    const int ag_step0 = step_ + (do_rs ? steps : 0);
    const ReduceOp op = c_.op.value_or(ReduceOp::kSum);  // outlives the callbacks, which run in wait()
    size_t max_chunk = 0;
    for (int j = 0; j < n_; ++j) max_chunk = std::max(max_chunk, chunk(j).count);
    Exchange ex(t_, trace_, step_, scratch_.exchange_lists());
    FirstError error;  // the callbacks of messages in flight run on after a failure
    // All-gather step s sends chunk r-s: its slice at `off` is ready in ag_buf.
    auto ag_send = [&, next](int s, size_t off, size_t len) {
      const Chunk c = chunk(peer(-s));
      error.keep(ex.send(next, ag_buf + bytes(c.offset + off), bytes(len), ag_step0 + s));
    };
    if (do_rs) {
      const Chunk first = chunk(peer(-1));
      for_slices(first.count, [&](size_t off, size_t len) {
        error.keep(ex.send(next, src + bytes(first.offset + off), bytes(len), step_));
      });
      char* landing = scratch_.get(bytes(max_chunk) * static_cast<size_t>(steps), Scratch::Slot::kIncoming);
      for (int s = 0; s < steps; ++s) {
        const Chunk rc = chunk(peer(-s - 2));
        const bool last = s == steps - 1;
        char* land = landing + bytes(max_chunk) * static_cast<size_t>(s);
        char* result = last ? rs_out : land;
        const char* mine = src + bytes(rc.offset);
        const int step = step_ + s;
        for_slices(rc.count, [&, s, last, land, result, mine, step](size_t off, size_t len) {
          error.keep(ex.recv(
              prev, land + bytes(off), bytes(len),
              [&, s, last, land, result, mine, off, len] {
                host_reduce_to(result + bytes(off), land + bytes(off), mine + bytes(off), len, c_.dtype, op);
                if (!last) {
                  error.keep(ex.send(next, result + bytes(off), bytes(len), step_ + s + 1));
                  return;
                }
                average(result + bytes(off), len);
                if (do_ag) ag_send(0, off, len);
              },
              step));
        });
      }
    } else if (do_ag) {
      for_slices(chunk(r_).count, [&](size_t off, size_t len) { ag_send(0, off, len); });
    }
    if (do_ag) {
      for (int s = 0; s < steps; ++s) {
        const Chunk rc = chunk(peer(-s - 1));
        for_slices(rc.count, [&, s, rc](size_t off, size_t len) {
          error.keep(ex.recv(
              prev, ag_buf + bytes(rc.offset + off), bytes(len),
              [&, s, off, len] {
                if (s < steps - 1) ag_send(s + 1, off, len);
              },
              ag_step0 + s));
        });
      }
    }
    error.keep(ex.wait());
    step_ = ag_step0 + (do_ag ? steps : 0);
    return error.status();
  }

  Status all_reduce() {
    auto chunk = [&](int j) { return balanced_chunk(c_.count, n_, j); };
    const Chunk mine = chunk(r_);
    if (n_ == 1) {
      copy(out(), in(), c_.count);
      average(out(), c_.count);
      return Status::Ok();
    }
    return pipelined_ring(in(), out() + bytes(mine.offset), out(), chunk, true, true);
  }

  Status reduce_scatter_collective() {
    auto chunk = [&](int j) { return Chunk{static_cast<size_t>(j) * c_.count, c_.count}; };
    if (n_ == 1) {
      copy(out(), in(), c_.count);
      average(out(), c_.count);
      return Status::Ok();
    }
    return pipelined_ring(in(), out(), nullptr, chunk, true, false);
  }

  Status all_gather_collective() {
    auto chunk = [&](int j) { return Chunk{static_cast<size_t>(j) * c_.count, c_.count}; };
    copy(out() + bytes(static_cast<size_t>(r_) * c_.count), in(), c_.count);
    if (n_ == 1) return Status::Ok();
    return pipelined_ring(nullptr, nullptr, out(), chunk, false, true);
  }

  // Every rank sends chunk j of its buffer to rank j. Small chunks go to every peer at
  // once (one exchange: the latency of one message). Chunks of two slices or more go in
  // rounds granted by the receivers (all_to_all_rounds).
  Status all_to_all() {
    const size_t total = static_cast<size_t>(n_) * c_.count;
    const char* src = in();
    if (in() == out() && n_ > 1 && total > 0) {  // in place: keep the outgoing data apart from what arrives
      char* saved = scratch_.get(bytes(total), Scratch::Slot::kOutgoing);
      std::memcpy(saved, in(), bytes(total));
      src = saved;
    }
    const size_t c = c_.count;
    copy(out() + bytes(static_cast<size_t>(r_) * c), src + bytes(static_cast<size_t>(r_) * c), c);
    if (n_ == 1) return Status::Ok();
    if (c > slice_elems_) return all_to_all_rounds(src);
    Exchange ex(t_, trace_, step_, scratch_.exchange_lists());
    FirstError error;
    for (int s = 1; s < n_; ++s) {  // labelled as the rounds would be: step s-1 to peer(s), from peer(-s)
      const char* p = src + bytes(static_cast<size_t>(peer(s)) * c);
      char* q = out() + bytes(static_cast<size_t>(peer(-s)) * c);
      for_slices(c, [&](size_t off, size_t len) {
        Status st = ex.send(peer(s), p + bytes(off), bytes(len), step_ + s - 1);
        if (st.ok()) st = ex.recv(peer(-s), q + bytes(off), bytes(len), {}, step_ + s - 1);
        error.keep(std::move(st));
      });
    }
    step_ += n_ - 1;
    FABSCOPE_RETURN_IF_ERROR(error.status());
    return ex.wait();
  }

  // Round s (1..n-1) sends to peer(s) and receives from peer(-s), so that each link carries
  // one flow each way at a time. A sender does not start round s by itself: the receiver
  // grants it with a token (a zero-byte message) once its round s-1 is down to its last
  // slice, and the sender's own round s-1 has been taken by the transport. Without the
  // grant, a sender whose earlier sends completed into its socket buffer runs ahead and its
  // data meets the receiver's previous round at the receiver's port, which then serves two
  // flows at half rate each while another port idles; on rate-limited links that left
  // all-to-all at two thirds of the link rate. Sends and receives advance on their own
  // (a rank's receive of round s does not hold back its send of round s+1), and the
  // messages of one connection are posted in the same order on both ends:
  //   on the connection from rank x to rank y = x + d, x's data goes in its round d and
  //   x's token grants y's round n-d; the data goes first when 2d <= n-1, else the token.
  // Every token and slice is an Exchange message, so the trace records each of them.
  // Over TCP each connection then idles for most of a call: a host with the kernel's
  // net.ipv4.tcp_slow_start_after_idle=1 restarts every round in slow start, and with bbr
  // as congestion control rounds stall on its model of the path (bench/README, issue 23).
  Status all_to_all_rounds(const char* src) {
    Rounds st(*this, src);
    return st.run();
  }

  struct Rounds {
    Rounds(Algo& algo, const char* source)
        : a(algo),
          src(source),
          n(a.n_),
          c(a.c_.count),
          per((c + a.slice_elems_ - 1) / a.slice_elems_),
          first(a.step_),
          ex(a.t_, a.trace_, a.step_, a.scratch_.exchange_lists()),
          flags(a.scratch_.round_flags()) {
      flags.reset(static_cast<size_t>(n) + 1);
      a.step_ += n - 1;
    }
    static bool data_first(int n, int d) { return 2 * d <= n - 1; }
    Status run() {
      for (int d = 1; d < n; ++d) {  // what arrives from peer(-d): its data (round d) and its token (round n-d)
        if (data_first(n, d)) {
          post_data_recv(d);
          post_token_recv(n - d);
        } else {
          post_token_recv(n - d);
          post_data_recv(d);
        }
      }
      want_token(1);
      error.keep(ex.wait());
      return error.status();
    }
    int step(int s) const { return first + s - 1; }
    void post_data_recv(int s) {
      const int from = a.peer(-s);
      char* dst = a.out() + a.bytes(static_cast<size_t>(from) * c);
      for (size_t k = 0; k < per; ++k) {
        const size_t off = k * a.slice_elems_, len = std::min(a.slice_elems_, c - off);
        Rounds* self = this;
        error.keep(ex.recv(
            from, dst + a.bytes(off), a.bytes(len),
            [self, s, k] {
              if (k + 2 == self->per && s + 1 < self->n) self->want_token(s + 1);
            },
            step(s)));
      }
    }
    void post_token_recv(int s) {  // peer(s) grants this rank's round s
      Rounds* self = this;
      error.keep(ex.recv(
          a.peer(s), &token, 0,
          [self, s] {
            self->flags.granted[s] = 1;
            self->advance();
          },
          step(s)));
    }
    // Grants round s to peer(-s), whose data this rank sends in round n-s on the same connection.
    void want_token(int s) {
      if (!data_first(n, n - s) || flags.sent_round[n - s]) {
        send_token(s);
      } else {
        flags.granting[s] = 1;  // after that data
      }
    }
    void send_token(int s) {
      flags.granting[s] = 2;
      error.keep(ex.send(a.peer(-s), &token, 0, step(s)));
      advance();
    }
    void advance() {
      while (next < n) {
        const int s = next;
        if (!flags.granted[s] || (s > 1 && flags.sent_slices[s - 1] < per)) return;
        if (!data_first(n, s) && flags.granting[n - s] != 2) return;  // that token goes first on this connection
        ++next;
        flags.sent_round[s] = 1;
        const int to = a.peer(s);
        const char* p = src + a.bytes(static_cast<size_t>(to) * c);
        for (size_t k = 0; k < per; ++k) {
          const size_t off = k * a.slice_elems_, len = std::min(a.slice_elems_, c - off);
          Rounds* self = this;
          error.keep(ex.send(
              to, p + a.bytes(off), a.bytes(len),
              [self, s] {
                if (++self->flags.sent_slices[s] == self->per) self->advance();
              },
              step(s)));
        }
        if (data_first(n, s) && flags.granting[n - s] == 1) send_token(n - s);
      }
    }

    Algo& a;
    const char* src;
    const int n;
    const size_t c, per;
    const int first;
    Exchange ex;
    FirstError error;  // the callbacks of messages in flight run on after a failure
    char token = 0;
    RoundFlags& flags;  // the Scratch's, kept between calls (no allocation once warm)
    int next = 1;       // the next round to send
  };

  // Chain from the root: each rank forwards a slice as soon as it has it.
  Status broadcast() {
    const int pos = (r_ - c_.root + n_) % n_;
    const bool has_next = pos < n_ - 1;
    const int next = peer(1);
    if (pos == 0) copy(out(), in(), c_.count);
    if (n_ == 1) return Status::Ok();
    Exchange ex(t_, trace_, step_++, scratch_.exchange_lists());
    if (pos == 0) {
      FABSCOPE_RETURN_IF_ERROR(send_sliced(ex, next, out(), c_.count));
    } else {
      FirstError forward_error;
      FABSCOPE_RETURN_IF_ERROR(recv_sliced(ex, peer(-1), out(), c_.count, [&](size_t off, size_t len) {
        if (!has_next) return;
        forward_error.keep(ex.send(next, out() + bytes(off), bytes(len)));
      }));
      FABSCOPE_RETURN_IF_ERROR(ex.wait());
      return forward_error.status();
    }
    return ex.wait();
  }

  // Chain towards the root: each rank adds its own slice to the partial result it
  // receives and passes it on at once.
  Status reduce() {
    const ReduceOp op = *c_.op;
    const int pos = (r_ - c_.root + n_) % n_;
    if (n_ == 1) {
      copy(out(), in(), c_.count);
      average(out(), c_.count);
      return Status::Ok();
    }
    Exchange ex(t_, trace_, step_++, scratch_.exchange_lists());
    const int toward_root = peer(-1);
    if (pos == n_ - 1) {
      FABSCOPE_RETURN_IF_ERROR(send_sliced(ex, toward_root, in(), c_.count));
      return ex.wait();
    }
    char* partial = scratch_.get(bytes(c_.count), Scratch::Slot::kIncoming);
    char* result = pos == 0 ? out() : partial;
    FirstError forward_error;
    FABSCOPE_RETURN_IF_ERROR(recv_sliced(ex, peer(1), partial, c_.count, [&](size_t off, size_t len) {
      host_reduce_to(result + bytes(off), partial + bytes(off), in() + bytes(off), len, c_.dtype, op);
      if (pos == 0) return;
      forward_error.keep(ex.send(toward_root, result + bytes(off), bytes(len)));
    }));
    FABSCOPE_RETURN_IF_ERROR(ex.wait());
    FABSCOPE_RETURN_IF_ERROR(forward_error.status());
    if (pos == 0) average(out(), c_.count);
    return Status::Ok();
  }

  Status gather() {
    const size_t c = c_.count;
    Exchange ex(t_, trace_, step_++, scratch_.exchange_lists());
    if (r_ == c_.root) {
      copy(out() + bytes(static_cast<size_t>(r_) * c), in(), c);
      for (int j = 0; j < n_; ++j) {
        if (j != r_) FABSCOPE_RETURN_IF_ERROR(recv_sliced(ex, j, out() + bytes(static_cast<size_t>(j) * c), c));
      }
    } else {
      FABSCOPE_RETURN_IF_ERROR(send_sliced(ex, c_.root, in(), c));
    }
    return ex.wait();
  }

  Status scatter() {
    const size_t c = c_.count;
    Exchange ex(t_, trace_, step_++, scratch_.exchange_lists());
    if (r_ == c_.root) {
      copy(out(), in() + bytes(static_cast<size_t>(r_) * c), c);
      for (int j = 0; j < n_; ++j) {
        if (j != r_) FABSCOPE_RETURN_IF_ERROR(send_sliced(ex, j, in() + bytes(static_cast<size_t>(j) * c), c));
      }
    } else {
      FABSCOPE_RETURN_IF_ERROR(recv_sliced(ex, c_.root, out(), c));
    }
    return ex.wait();
  }

  Status send_recv() {
    if (n_ == 1) {
      copy(out(), in(), c_.count);
      return Status::Ok();
    }
    const char* src = in();
    if (in() == out()) {  // in place: the outgoing data must survive the arrival
      char* saved = scratch_.get(bytes(c_.count), Scratch::Slot::kOutgoing);
      std::memcpy(saved, in(), bytes(c_.count));
      src = saved;
    }
    Exchange ex(t_, trace_, step_++, scratch_.exchange_lists());
    FABSCOPE_RETURN_IF_ERROR(send_sliced(ex, peer(1), src, c_.count));
    FABSCOPE_RETURN_IF_ERROR(recv_sliced(ex, peer(-1), out(), c_.count));
    return ex.wait();
  }

  const CollCall& c_;
  Transport& t_;
  Scratch& scratch_;
  Trace* trace_;
  int r_;
  int n_;
  size_t es_;
  size_t slice_elems_ = 1;
  int step_ = 0;
};

}  // namespace

Status run_collective(const CollCall& call, Transport& t, Scratch& scratch, const AlgoOptions& options, Trace* trace) {
  if (info(call.coll).reduces && !call.op) return Status::Invalid(fmt::format("{} needs an operator", name(call.coll)));
  return Algo(call, t, scratch, options, trace).run();
}

}  // namespace fabscope
