// The report model's verdict section (report/report.h holds the whole report).
// The verdict the findings decide.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/named_enum.h"

namespace fabscope {

// pass, fail, or inconclusive (nothing failed, but `missing` is not empty).
enum class VerdictResult { kPass, kFail, kInconclusive };
template <>
struct EnumNames<VerdictResult> {
  static constexpr std::pair<VerdictResult, std::string_view> kNames[] = {
      {VerdictResult::kPass, "pass"}, {VerdictResult::kFail, "fail"}, {VerdictResult::kInconclusive, "inconclusive"}};
};

struct Verdict {
  VerdictResult result = VerdictResult::kPass;
  std::vector<std::string> failed_codes;
  // The hosts the error findings implicate, sorted, and as a Slurm hostlist expression.
  std::vector<std::string> drain;
  std::string drain_hostlist;
  // What a judgement needs and the inputs lack ("no `NET/IB : Using` line: cannot tell
  // which NIC NET/IB/1 is"); set before decide_verdict.
  std::vector<std::string> missing;
  // What this run's shape left unjudged, and why ("links: ... needs 2 or more ranks; this
  // job has 1"), one sentence each: diagnose on one rank. Unlike `missing`, it leaves
  // the verdict pass or fail.
  std::vector<std::string> not_judged;
};

// NCCL's profiler plugin (libnccl-profiler-fabscope.so, src/nccl_profiler): how long each
// rank's proxy steps (one network transfer of one channel) waited in each state, per
// collective and size, joined with NCCL's log (which NIC carries which channel). Made by
// sweep/diagnose --nccl-profile (nccl backend) and diagnose --import-profile DIR.
inline constexpr int kProfileStates = 6;
// The step states in the order of ProfileLink's arrays: the GPU filling a send buffer, the
// receiver's credit, the network completing a send, the data arriving, the flush to GPU
// memory, the GPU consuming what arrived.
inline constexpr std::string_view kProfileStateNames[kProfileStates] = {"SendGPUWait", "SendPeerWait",  "SendWait",
                                                                        "RecvWait",    "RecvFlushWait", "RecvGPUWait"};

}  // namespace fabscope
