// The links' part of a collective from fabscope's own engine (tcp, verbs): every message
// of a few traced calls (algo/trace.h), each rank's on its own clock, put on rank 0's.
// A directed link is busy from the later of the sender's post and the receiver's post of
// a message to the receiver's completion of it; its busy time (the union of those
// intervals, so slices in flight together count once) per call is what it cost the
// collective. A slow link is busy long; the links after it are not, since their senders
// post only once the data has come (which the receiver's posting time alone would blur).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "comm/clock_sync.h"
#include "report/report.h"

namespace fabscope {

// One rank's traced messages, on its own steady clock, in the order it posted them.
struct RankMessages {
  std::map<int, std::vector<int64_t>> send_posted;               // per destination
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> recv;  // per source: posted, completed
};

// Per directed link with messages, its busy time per call (`calls` traced calls). The
// k-th send from s to d is the k-th receive at d from s (a pair's messages arrive in
// order); extra records on either side are left out.
std::vector<LinkBusy> link_busy_times(std::span<const RankMessages> ranks, const ClockMap& map, int calls,
                                      const std::string& collective);

}  // namespace fabscope
