// How a figure is taken (--method): the timing discipline of the tool whose figures a
// user compares fabscope's with. The report records it beside every sweep and p2p run.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string_view>
#include <utility>

#include "core/named_enum.h"
#include "core/status.h"

namespace fabscope {

enum class TimingMethod {
  // nccl-tests: back-to-back calls over moving buffer offsets; loop time / iterations.
  kNcclTests,
  // OSU Micro-Benchmarks: each call between barriers on a fixed buffer, the mean of the
  // calls' times; its iteration counts (1000, warm-up 100; above 8 KiB 100 and 10).
  // Point to point: osu_latency's loop mean.
  kOsu,
  // perftest: a stamp per message; latency quoted as the median (typical) and average.
  kPerftest,
};

template <>
struct EnumNames<TimingMethod> {
  static constexpr std::pair<TimingMethod, std::string_view> kNames[] = {
      {TimingMethod::kNcclTests, "nccl-tests"}, {TimingMethod::kOsu, "osu"}, {TimingMethod::kPerftest, "perftest"}};
};

// `allowed` lists the methods a command takes, e.g. "nccl-tests, osu".
inline Result<TimingMethod> method_from_name(std::string_view text, std::string_view allowed) {
  for (TimingMethod m : {TimingMethod::kNcclTests, TimingMethod::kOsu, TimingMethod::kPerftest}) {
    if (text != name(m)) continue;
    if (allowed.find(name(m)) != std::string_view::npos) return m;
    return Status::Invalid(fmt::format("--method {} does not apply here ({}); allowed: {}", text,
                                       m == TimingMethod::kPerftest
                                           ? "perftest times point-to-point messages: use it with p2p"
                                           : "nccl-tests times collectives: use it with sweep",
                                       allowed));
  }
  return Status::Invalid(fmt::format("--method '{}' is not known; allowed: {}", text, allowed));
}

// OSU's iteration counts by message size (osu_util.h: LARGE_MESSAGE_SIZE is 8 KiB):
// timed iterations and warm-up ("skip") iterations.
struct OsuLoop {
  int iters;
  int warmup;
};
inline constexpr uint64_t kOsuLargeMessageBytes = 8192;
inline OsuLoop osu_collective_loop(uint64_t bytes) {  // COLL_LOOP_*, COLL_SKIP_*
  return bytes > kOsuLargeMessageBytes ? OsuLoop{100, 10} : OsuLoop{1000, 100};
}
inline OsuLoop osu_latency_loop(uint64_t bytes) {  // LAT_LOOP_*, LAT_SKIP_*
  return bytes > kOsuLargeMessageBytes ? OsuLoop{1000, 10} : OsuLoop{10000, 100};
}
inline constexpr int kOsuWindow = 64;  // osu_bw's window
// osu_bw's BW_LOOP_* / BW_SKIP_* windows of kOsuWindow messages, counted in messages.
inline OsuLoop osu_bandwidth_loop(uint64_t bytes) {
  return bytes > kOsuLargeMessageBytes ? OsuLoop{20 * kOsuWindow, 2 * kOsuWindow}
                                       : OsuLoop{100 * kOsuWindow, 10 * kOsuWindow};
}

}  // namespace fabscope
