// Waiting for work that another thread or a device completes without taking the core
// from the thread that makes the progress: NCCL's proxy thread shares the core of a rank
// bound to one (Open MPI's default at two ranks, every --bind-to core job), and a wait
// that spins there starves it (two ranks ran 4-8x slower than nccl-tests). So: poll, and
// after every poll that finds nothing yield the core, as nccl-tests'
// testStreamSynchronize does; the caller's slower checks (errors reported elsewhere, the
// timeout, a clock read) run once every `check_every` idle polls.
#pragma once

#include <thread>

#include "core/status.h"

namespace fabscope {

// Idle polls between two runs of a wait's check: a clock read and an error query are
// cheap against a yield, but not free.
inline constexpr unsigned kIdleChecksEvery = 64;

// Runs `poll` until it returns true (done: Ok) or an error; after each false, yields
// the core, and every `check_every`-th time runs `check`, which ends the wait with its
// error or, returning true, with Ok (a poll's own time limit); false goes on waiting.
// Both return Result<bool>.
template <typename Poll, typename Check>
Status wait_yielding(Poll&& poll, Check&& check, unsigned check_every = kIdleChecksEvery) {
  for (unsigned idle = 1;; ++idle) {
    Result<bool> done = poll();
    if (!done.ok()) return done.status();
    if (*done) return Status::Ok();
    if (idle % check_every == 0) {
      Result<bool> stop = check();
      if (!stop.ok()) return stop.status();
      if (*stop) return Status::Ok();
    }
    std::this_thread::yield();
  }
}

}  // namespace fabscope
