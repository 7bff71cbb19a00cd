// One step of an algorithm: post its sends and receives, then wait for all of them,
// running a receive's callback (e.g. reduce the slice that arrived) as soon as it
// completes, while the other messages are still in flight.
//
// Nothing here allocates per message: a callback is stored inline (Callback, up to
// Callback::kBytes of captures, checked at compile time), the posted messages are one
// flat list, and that list's storage is kept between exchanges (ExchangeLists, which
// the engine owns) rather than allocated for every step.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "algo/trace.h"
#include "algo/transport.h"

namespace fabscope {

// A move-only callable with its captures stored inline.
class ExchangeCallback {
 public:
  static constexpr size_t kBytes = 192;
  ExchangeCallback() = default;
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, ExchangeCallback>>>
  ExchangeCallback(F f) {  // NOLINT(google-explicit-constructor): lambdas convert as they did to std::function
    static_assert(sizeof(F) <= kBytes, "a callback's captures exceed ExchangeCallback::kBytes");
    static_assert(alignof(F) <= alignof(std::max_align_t), "over-aligned callback");
    new (storage_) F(std::move(f));
    ops_ = &kOps<F>;
  }
  ExchangeCallback(ExchangeCallback&& o) noexcept { take(o); }
  ExchangeCallback& operator=(ExchangeCallback&& o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  ExchangeCallback(const ExchangeCallback&) = delete;
  ExchangeCallback& operator=(const ExchangeCallback&) = delete;
  ~ExchangeCallback() { reset(); }
  explicit operator bool() const { return ops_ != nullptr; }
  void operator()() { ops_->call(storage_); }

 private:
  struct Ops {
    void (*call)(void*);
    void (*move)(void* to, void* from);  // move-constructs at `to`, destroys `from`
    void (*destroy)(void*);
  };
  template <typename F>
  static constexpr Ops kOps = {[](void* p) { (*static_cast<F*>(p))(); },
                               [](void* to, void* from) {
                                 new (to) F(std::move(*static_cast<F*>(from)));
                                 static_cast<F*>(from)->~F();
                               },
                               [](void* p) { static_cast<F*>(p)->~F(); }};
  void take(ExchangeCallback& o) {
    if (!o.ops_) return;
    o.ops_->move(storage_, o.storage_);
    ops_ = o.ops_;
    o.ops_ = nullptr;
  }
  void reset() {
    if (ops_) ops_->destroy(storage_);
    ops_ = nullptr;
  }
  alignas(std::max_align_t) unsigned char storage_[kBytes];
  const Ops* ops_ = nullptr;
};

// A message an Exchange posted, in posting order.
struct ExchangePosted {
  uint64_t id = 0;
  int step = -1;  // -1: the exchange's own
  bool done = false;
  bool is_send = false;
  int peer = -1;
  size_t bytes = 0;
  ExchangeCallback on_done;
};

// The storage of finished exchanges' lists, reused by the next ones: an algorithm makes
// one Exchange per step, and none of them allocates once warm.
struct ExchangeLists {
  std::vector<std::vector<ExchangePosted>> posted;
  std::vector<std::vector<Completion>> done;
};

class Exchange {
 public:
  using Callback = ExchangeCallback;
  // The lists come from `spare` and go back to it at the end; without it, this
  // exchange's lists are its own (allocated as messages are posted, freed at the end).
  Exchange(Transport& transport, Trace* trace, int step, ExchangeLists* spare = nullptr);
  ~Exchange();
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;
  // `step` labels the message in the trace; by default, the exchange's own step.
  Status send(int peer, const void* buf, size_t bytes, int step = -1);
  // The same, running `on_done` once the transport has taken the whole message.
  Status send(int peer, const void* buf, size_t bytes, Callback on_done, int step = -1);
  Status recv(int peer, void* buf, size_t bytes, Callback on_done = {}, int step = -1);
  // Waits for every posted message; a callback may post more (pipelining). A wait with
  // nothing completing for kNoteWaitNs notes the oldest open message (core/wait_note.h)
  // for a hang message to name.
  Status wait();
  static constexpr int64_t kNoteWaitNs = 250'000'000;

  using Posted = ExchangePosted;

 private:
  Status post(Result<uint64_t> id, int step, Callback on_done, int peer, size_t bytes, bool is_send);
  void note_oldest_open(int64_t waited_ns) const;

  Transport& t_;
  Trace* trace_;
  int step_;
  ExchangeLists* spare_;
  size_t pending_ = 0;
  size_t first_open_ = 0;       // posted_[i] for i < first_open_ are all done
  std::vector<Posted> posted_;  // in posting order; storage from spare_
  std::vector<Completion> done_;
};

}  // namespace fabscope
