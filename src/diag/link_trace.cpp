#include "diag/link_trace.h"

#include <algorithm>

namespace fabscope {

std::vector<LinkBusy> link_busy_times(std::span<const RankMessages> ranks, const ClockMap& map, int calls,
                                      const std::string& collective) {
  std::vector<LinkBusy> out;
  if (calls <= 0) return out;
  for (size_t d = 0; d < ranks.size(); ++d) {
    for (const auto& [s, received] : ranks[d].recv) {
      if (s < 0 || static_cast<size_t>(s) >= ranks.size()) continue;
      auto sent = ranks[static_cast<size_t>(s)].send_posted.find(static_cast<int>(d));
      if (sent == ranks[static_cast<size_t>(s)].send_posted.end()) continue;
      const size_t m = std::min(received.size(), sent->second.size());
      std::vector<std::pair<double, double>> busy;
      busy.reserve(m);
      for (size_t k = 0; k < m; ++k) {
        const double send_posted = map.to_rank0(s, sent->second[k]);
        const double recv_posted = map.to_rank0(static_cast<int>(d), received[k].first);
        const double done = map.to_rank0(static_cast<int>(d), received[k].second);
        const double from = std::max(send_posted, recv_posted);
        if (done > from) busy.emplace_back(from, done);
      }
      std::sort(busy.begin(), busy.end());
      double total = 0, end = -1e300, start = 0;
      for (const auto& [a, b] : busy) {
        if (a > end) {
          if (end > -1e300) total += end - start;
          start = a;
          end = b;
        } else {
          end = std::max(end, b);
        }
      }
      if (end > -1e300) total += end - start;
      LinkBusy l;
      l.collective = collective;
      l.src_rank = s;
      l.dst_rank = static_cast<int>(d);
      l.messages = static_cast<int>(m);
      l.busy_us = total / calls * 1e-3;
      out.push_back(std::move(l));
    }
  }
  return out;
}

}  // namespace fabscope
