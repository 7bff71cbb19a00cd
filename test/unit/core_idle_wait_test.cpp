// core/idle_wait.h: a wait that leaves the core to the thread that makes the progress
// it waits for. The first test is the starvation seen on the GPU (NCCL's proxy thread
// on a rank bound to one core) without a GPU: the process is pinned to one core, and a
// second thread, which advances one step at a time and yields whenever it has nothing
// to do (as NCCL's proxy does), is the only one that can end the wait. A wait that spins
// there holds the core for a scheduler slice every time the progress thread yields
// (measured: over 10x the bound below); one that yields ends within a few steps' time.
// Run alone (RUN_SERIAL): other tests on the core would be the noise it measures.
#include "core/idle_wait.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace fabscope {
namespace {

using Clock = std::chrono::steady_clock;

// Pins the calling thread (and the threads it starts) to the core it runs on.
bool pin_to_one_core() {
  const int cpu = sched_getcpu();
  if (cpu < 0) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

TEST(IdleWait, LeavesTheCoreToTheThreadThatMakesProgress) {
  ASSERT_TRUE(pin_to_one_core());
  constexpr int kSteps = 500;
  constexpr auto kStep = std::chrono::microseconds(20);  // the device's work between two proxy steps
  std::atomic<int> steps{0};
  std::thread progress([&] {
    auto next = Clock::now() + kStep;
    while (steps.load(std::memory_order_relaxed) < kSteps) {
      const auto now = Clock::now();
      if (now >= next) {
        steps.fetch_add(1, std::memory_order_release);
        next = now + kStep;
      } else {
        std::this_thread::yield();
      }
    }
  });
  const auto start = Clock::now();
  Status s = wait_yielding([&]() -> Result<bool> { return steps.load(std::memory_order_acquire) == kSteps; },
                           [&]() -> Result<bool> {
                             if (Clock::now() - start < std::chrono::seconds(30)) return false;
                             return Status::Runtime("no progress in 30 s");
                           });
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  progress.join();
  ASSERT_TRUE(s.ok()) << s.message();
  // 500 steps of 20 us are 10 ms of progress; a yielding wait adds little to it.
  EXPECT_LT(ms, 150.0) << "the wait kept the core from the progress thread";
}

TEST(IdleWait, ChecksEveryNthIdlePollAndEndsOnItsWord) {
  int polls = 0;
  int checks = 0;
  Status s = wait_yielding([&]() -> Result<bool> { return ++polls == 1000; },
                           [&]() -> Result<bool> {
                             ++checks;
                             return false;
                           },
                           64);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(polls, 1000);
  EXPECT_EQ(checks, 999 / 64);

  polls = 0;
  s = wait_yielding([&]() -> Result<bool> { return ++polls > 1'000'000; }, [&]() -> Result<bool> { return true; }, 8);
  EXPECT_TRUE(s.ok()) << "a check that says stop ends the wait with Ok (a poll's own time limit)";
  EXPECT_EQ(polls, 8);
}

TEST(IdleWait, ErrorsOfThePollAndTheCheckEndTheWait) {
  Status s = wait_yielding([]() -> Result<bool> { return Status::Runtime("CUDA error 700"); },
                           []() -> Result<bool> { return false; });
  EXPECT_EQ(s.message(), "CUDA error 700");
  int polls = 0;
  s = wait_yielding([&]() -> Result<bool> { return ++polls > 1'000'000; },
                    []() -> Result<bool> { return Status::Runtime("did not complete within 5 s"); }, 4);
  EXPECT_EQ(s.message(), "did not complete within 5 s");
  EXPECT_EQ(polls, 4);
}

}  // namespace
}  // namespace fabscope
