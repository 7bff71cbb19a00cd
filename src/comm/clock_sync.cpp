#include "comm/clock_sync.h"

#include <algorithm>
#include <limits>

#include "comm/mpi_check.h"
#include "core/clock.h"

namespace fabscope {

ClockOffset offset_from_samples(std::span<const PingPongSample> samples) {
  ClockOffset best{0, std::numeric_limits<double>::infinity()};
  for (const PingPongSample& s : samples) {
    // Round trip less the rank's own turnaround; a negative one (clock read jitter) is 0.
    const double delay = std::max<double>(0, static_cast<double>((s.t3 - s.t0) - (s.t2 - s.t1)));
    if (delay / 2 >= best.bound_ns) continue;
    best.offset_ns = (static_cast<double>(s.t1 - s.t0) + static_cast<double>(s.t2 - s.t3)) / 2;
    best.bound_ns = delay / 2;
  }
  return best;
}

Result<std::vector<ClockOffset>> measure_clock_offsets(const RankContext& ctx, int exchanges) {
  constexpr int kTag = 7301;
  const MPI_Comm comm = ctx.comm();
  std::vector<ClockOffset> out;
  if (ctx.rank() == 0) {
    out.resize(static_cast<size_t>(ctx.size()));
    std::vector<PingPongSample> samples(static_cast<size_t>(exchanges));
    for (int r = 1; r < ctx.size(); ++r) {
      for (PingPongSample& s : samples) {
        int64_t reply[2] = {0, 0};
        s.t0 = steady_now_ns();
        FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Send(&s.t0, 1, MPI_INT64_T, r, kTag, comm)));
        FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Recv(reply, 2, MPI_INT64_T, r, kTag, comm, MPI_STATUS_IGNORE)));
        s.t3 = steady_now_ns();
        s.t1 = reply[0];
        s.t2 = reply[1];
      }
      out[static_cast<size_t>(r)] = offset_from_samples(samples);
    }
  } else {
    for (int i = 0; i < exchanges; ++i) {
      int64_t t0 = 0;
      FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Recv(&t0, 1, MPI_INT64_T, 0, kTag, comm, MPI_STATUS_IGNORE)));
      int64_t reply[2] = {steady_now_ns(), 0};
      reply[1] = steady_now_ns();
      FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Send(reply, 2, MPI_INT64_T, 0, kTag, comm)));
    }
  }
  return out;
}

ClockMap::ClockMap(int64_t start_ns, std::vector<ClockOffset> start, int64_t end_ns, std::vector<ClockOffset> end)
    : start_ns_(start_ns), end_ns_(end_ns), start_(std::move(start)), end_(std::move(end)) {}

double ClockMap::to_rank0(int rank, int64_t t_ns) const {
  const ClockOffset& a = start_.at(static_cast<size_t>(rank));
  const ClockOffset& b = end_.at(static_cast<size_t>(rank));
  const double span = static_cast<double>(end_ns_ - start_ns_);
  // Where t lies between the two moments (on the rank's clock, near enough for the weight).
  double w = span > 0 ? (static_cast<double>(t_ns) - a.offset_ns - static_cast<double>(start_ns_)) / span : 0;
  w = std::clamp(w, 0.0, 1.0);
  return static_cast<double>(t_ns) - (a.offset_ns + w * (b.offset_ns - a.offset_ns));
}

double ClockMap::bound_ns() const {
  double b = 0;
  for (const auto* v : {&start_, &end_}) {
    for (const ClockOffset& o : *v) b = std::max(b, o.bound_ns);
  }
  return b;
}

}  // namespace fabscope
