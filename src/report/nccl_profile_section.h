// The report model's nccl profile section (report/report.h holds the whole report).
// NCCL's profile (the profiler plugin): per rank, peer and NIC, the network wait.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/verdict.h"

namespace fabscope {

enum class LinkDirection { kSend, kRecv };
template <>
struct EnumNames<LinkDirection> {
  static constexpr std::pair<LinkDirection, std::string_view> kNames[] = {{LinkDirection::kSend, "send"},
                                                                          {LinkDirection::kRecv, "recv"}};
};
// Whether the plugin's files gave a profile; `detail` says why not.
enum class ProfileStatus { kCollected, kNoData };
template <>
struct EnumNames<ProfileStatus> {
  static constexpr std::pair<ProfileStatus, std::string_view> kNames[] = {{ProfileStatus::kCollected, "collected"},
                                                                          {ProfileStatus::kNoData, "no profiler data"}};
};

// One rank's traffic with one peer in one direction over one NIC, over the channels that
// use it and every call profiled. Its wait is wall-clock time: the length of the union of
// the intervals its steps and channels spent in a state (steps in flight together count
// once), so that per call it is never more than a call took.
struct ProfileLink {
  int rank = 0;
  int peer = 0;
  LinkDirection direction = LinkDirection::kSend;
  std::string nic;  // NCCL's log: the NIC of these channels ("NET/IB/1" -> mlx5_1); "" unknown
  int channels = 0;
  uint64_t ops = 0;         // proxy operations: one per call and channel
  uint64_t steps = 0;       // network transfers started
  uint64_t open_steps = 0;  // started and never completed (a transfer that hung)
  uint64_t bytes = 0;
  std::vector<double> wait_us = std::vector<double>(kProfileStates, 0.0);  // per state, wall-clock (JSON wall_us)
  std::vector<double> max_us = std::vector<double>(kProfileStates, 0.0);   // the longest single step per state
  // Calls profiled: operations per channel.
  double calls() const { return channels > 0 ? static_cast<double>(ops) / channels : 0; }
  // The network's part: SendWait for a send (posted until complete), RecvWait for a
  // receive (posted until the data arrived), wall-clock per call.
  double network_us_per_call() const;
};
struct ProfilePoint {
  std::string comm;         // the communicator: its name, or its id
  std::string collective;   // fabscope's name where NCCL's maps to one (allreduce), else NCCL's (Send)
  std::string func;         // NCCL's (AllReduce)
  std::string datatype;     // NCCL's (ncclFloat32)
  uint64_t count = 0;       // NCCL's count
  uint64_t size_bytes = 0;  // nccl-tests' size for it; 0 when the datatype is unknown
  std::string algo;
  std::string proto;
  uint64_t calls = 0;  // the most any rank profiled
  std::vector<ProfileLink> links;
};
struct ProfileSource {
  std::string comm;  // as ProfilePoint's
  int rank = 0;
  std::string host;
  int pid = 0;
  int api = 0;  // the plugin API version NCCL loaded (4: NCCL 2.27; 5: 2.28 and later)
  std::string file;
  bool complete = true;  // false: written at process exit, the communicator never destroyed
  uint64_t dropped_events = 0;
  uint64_t snapshot_seq = 0;  // a snapshot of a running job (FABSCOPE_PROFILE_INTERVAL): its interval; 0: not one
};
struct NcclProfileSection {
  ProfileStatus status = ProfileStatus::kNoData;
  std::string detail;  // why there is none, or what is known about it
  std::vector<ProfileSource> ranks;
  std::vector<ProfilePoint> points;
};

}  // namespace fabscope
