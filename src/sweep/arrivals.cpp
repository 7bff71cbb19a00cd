#include "sweep/arrivals.h"

#include <algorithm>

#include "core/clock.h"
#include "core/stats.h"

namespace fabscope {

ArrivalSplit split_arrivals(std::span<const RankIterations> ranks, double bound_ns) {
  ArrivalSplit out;
  out.clock_bound_us = bound_ns * 1e-3;
  const size_t n = ranks.size();
  const size_t iters = n ? ranks[0].enter_ns.size() : 0;
  out.iterations = static_cast<int>(iters);
  std::vector<std::vector<double>> late(n);
  std::vector<double> held(n, 0.0), stalled(n, 0.0);
  double span_sum = 0, skew_sum = 0, transfer_sum = 0;
  out.ranks.resize(n);
  for (size_t r = 0; r < n; ++r) out.ranks[r].rank = static_cast<int>(r);
  for (size_t i = 0; i < iters; ++i) {
    double first = ranks[0].enter_ns[i], last_exit = ranks[0].exit_ns[i];
    size_t last_rank = 0;
    double last = ranks[0].enter_ns[i], second = -1e300;
    for (size_t r = 0; r < n; ++r) {
      const double e = ranks[r].enter_ns[i];
      first = std::min(first, e);
      last_exit = std::max(last_exit, ranks[r].exit_ns[i]);
      if (r == 0) continue;
      if (e > last) {
        second = last;
        last = e;
        last_rank = r;
      } else if (e > second) {
        second = e;
      }
    }
    for (size_t r = 0; r < n; ++r) late[r].push_back((ranks[r].enter_ns[i] - first) * 1e-3);
    span_sum += last_exit - first;
    skew_sum += last - first;
    transfer_sum += std::max(0.0, last_exit - last);
    if (n > 1 && last - second > 2 * bound_ns) {
      held[last_rank] += last - second;
      ++out.ranks[last_rank].last_count;
    }
    // The rank that lost the most time inside this iteration, by what the next lost.
    size_t top = n;
    double most = 0, next = 0;
    for (size_t r = 0; r < n; ++r) {
      const double lost = i < ranks[r].stalled_ns.size() ? ranks[r].stalled_ns[i] : 0.0;
      if (lost > most) {
        next = most;
        most = lost;
        top = r;
      } else if (lost > next) {
        next = lost;
      }
    }
    if (n > 1 && top < n && most > next) stalled[top] += most - next;
  }
  if (iters == 0) return out;
  const double k = static_cast<double>(iters);
  out.span_us = span_sum / k * 1e-3;
  out.skew_us = skew_sum / k * 1e-3;
  out.transfer_us = transfer_sum / k * 1e-3;
  for (size_t r = 0; r < n; ++r) {
    RankArrival& a = out.ranks[r];
    a.late_us = median(late[r]);
    a.held_us = held[r] / k * 1e-3;
    a.held_share = span_sum > 0 ? held[r] / span_sum : 0;
    a.stalled_us = stalled[r] / k * 1e-3;
    a.stalled_share = span_sum > 0 ? std::min(1.0, stalled[r] / span_sum) : 0;
  }
  return out;
}

Status ClockSnapshot::take(const RankContext& ctx) {
  at_ns = steady_now_ns();
  auto o = measure_clock_offsets(ctx);
  if (!o.ok()) return o.status();
  offsets = std::move(*o);
  return Status::Ok();
}

ArrivalSplit arrival_split(const ClockMap& map, const std::vector<double>& times, int nranks) {
  const size_t per_rank = times.size() / static_cast<size_t>(nranks);
  const size_t iters = per_rank / 3;
  std::vector<RankIterations> ranks(static_cast<size_t>(nranks));
  for (int r = 0; r < nranks; ++r) {
    const double* t = times.data() + static_cast<size_t>(r) * per_rank;
    RankIterations& ri = ranks[static_cast<size_t>(r)];
    for (size_t i = 0; i < iters; ++i) {
      ri.enter_ns.push_back(map.to_rank0(r, static_cast<int64_t>(t[i])));
      ri.exit_ns.push_back(map.to_rank0(r, static_cast<int64_t>(t[iters + i])));
      ri.stalled_ns.push_back(t[2 * iters + i]);
    }
  }
  return split_arrivals(ranks, map.bound_ns());
}

}  // namespace fabscope
