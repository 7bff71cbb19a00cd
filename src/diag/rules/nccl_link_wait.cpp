// nccl.link_wait (NCCL's profiler plugin, --nccl-profile or --import-profile): a rank's
// sends to one peer (over one NIC) that waited on the network (SendWait: posted until
// the network completed them), wall-clock time per call (the union over the link's
// channels and steps in flight, so a link's channel count does not scale it), at least kWaitFactor times the
// median of the other links of the same collective and size, and by at least
// kMinWaitExcessUs per call. One finding per link, at the point where it stood out most.
// SendWait is the sender's own view of its link; a late receiver shows as SendPeerWait,
// a slow GPU as SendGPUWait, and neither counts here.
#include <fmt/format.h>

#include <map>
#include <tuple>

#include "core/sizes.h"
#include "core/stats.h"
#include "diag/rules.h"

namespace fabscope {

namespace {
std::string profile_host(const SweepContext& c, const std::string& comm, int rank) {
  if (c.report.nccl_profile) {
    for (const ProfileSource& s : c.report.nccl_profile->ranks) {
      if (s.comm == comm && s.rank == rank) return s.host;
    }
  }
  return c.host_of(rank);
}
}  // namespace

void check_nccl_link_wait(const SweepContext& c, FindingSink& sink) {
  if (!c.report.nccl_profile) return;
  struct Worst {
    double factor = 0;
    int points = 0;
    const ProfilePoint* point = nullptr;
    const ProfileLink* link = nullptr;
    double value = 0, reference = 0;
  };
  std::map<std::tuple<std::string, int, int, std::string>, Worst> worst;
  for (const ProfilePoint& p : c.report.nccl_profile->points) {
    std::vector<const ProfileLink*> rows;
    std::vector<double> wall;  // us per call
    for (const ProfileLink& l : p.links) {
      if (l.direction != LinkDirection::kSend || l.calls() <= 0 || l.channels <= 0) continue;
      rows.push_back(&l);
      wall.push_back(l.network_us_per_call());
    }
    if (rows.size() < 2) continue;
    for (size_t i = 0; i < rows.size(); ++i) {
      std::vector<double> others;
      for (size_t j = 0; j < rows.size(); ++j) {
        if (j != i) others.push_back(wall[j]);
      }
      const double ref = median(others);
      if (!(ref > 0)) continue;
      const double factor = wall[i] / ref;
      const double excess = wall[i] - ref;
      if (factor < kWaitFactor || excess < kMinWaitExcessUs) continue;
      Worst& w = worst[{p.comm, rows[i]->rank, rows[i]->peer, rows[i]->nic}];
      ++w.points;
      if (factor <= w.factor) continue;
      w.factor = factor;
      w.point = &p;
      w.link = rows[i];
      w.value = wall[i];
      w.reference = ref;
    }
  }
  for (const auto& [key, w] : worst) {
    const ProfilePoint& p = *w.point;
    const ProfileLink& l = *w.link;
    const std::string src = profile_host(c, p.comm, l.rank), dst = profile_host(c, p.comm, l.peer);
    const std::string over = l.nic.empty() ? "" : " over " + l.nic;
    const std::string what = fmt::format("{} {}{}", p.collective,
                                         p.size_bytes ? format_size(p.size_bytes) : fmt::format("{} elements", p.count),
                                         p.algo.empty() ? "" : fmt::format(" ({}/{})", p.algo, p.proto));
    nlohmann::ordered_json states = nlohmann::ordered_json::object();
    for (int s = 0; s < kProfileStates; ++s) {
      if (l.wait_us[s] > 0) states[std::string(kProfileStateNames[s])] = l.wait_us[s] / l.calls();
    }
    sink.add(Severity::kWarning, fmt::format("rank {} ({}) -> rank {} ({}){}", l.rank, src, l.peer, dst, over),
             {src, dst},
             fmt::format(
                 "at {}, rank {}'s sends to rank {}{} waited {:.1f} us per call on the network (SendWait, wall clock, "
                 "{} channel{}), {:.1f}x what the other links of that call waited ({:.1f} us){}",
                 what, l.rank, l.peer, over, w.value, l.channels, l.channels == 1 ? "" : "s", w.factor, w.reference,
                 w.points > 1 ? fmt::format("; {} sizes or collectives like this", w.points) : std::string()),
             "the network path between these ranks is slow for NCCL: measure the pair alone (fabscope p2p --pair), "
             "then look at the NIC's port (speed, errors, congestion counters) and the switch port; the NIC is the "
             "one NCCL's log set the channel up on",
             {{"comm", p.comm},
              {"collective", p.collective},
              {"size_bytes", p.size_bytes},
              {"algo", p.algo},
              {"proto", p.proto},
              {"rank", l.rank},
              {"peer", l.peer},
              {"src_host", src},
              {"dst_host", dst},
              {"nic", l.nic},
              {"channels", l.channels},
              {"network_wall_us_per_call", w.value},
              {"reference_us", w.reference},
              {"factor", w.factor},
              {"wall_us_per_call", states},
              {"points_flagged", w.points}});
  }
}

// nccl.open_steps: network transfers a rank started and never finished, in a profile
// written when its communicator was destroyed: a link or peer that hung.
void check_nccl_open_steps(const SweepContext& c, FindingSink& sink) {
  if (!c.report.nccl_profile) return;
  std::map<std::pair<std::string, int>, bool> complete;
  for (const ProfileSource& s : c.report.nccl_profile->ranks) complete[{s.comm, s.rank}] = s.complete;
  std::map<std::tuple<std::string, int, int, LinkDirection, std::string>, std::pair<uint64_t, const ProfilePoint*>>
      open;
  for (const ProfilePoint& p : c.report.nccl_profile->points) {
    for (const ProfileLink& l : p.links) {
      auto it = complete.find({p.comm, l.rank});
      if (l.open_steps == 0 || it == complete.end() || !it->second) continue;
      auto& o = open[{p.comm, l.rank, l.peer, l.direction, l.nic}];
      o.first += l.open_steps;
      if (o.second == nullptr) o.second = &p;
    }
  }
  for (const auto& [key, o] : open) {
    const auto& [comm, rank, peer, direction, nic] = key;
    const std::string src = profile_host(c, comm, rank), dst = profile_host(c, comm, peer);
    const std::string over = nic.empty() ? "" : " over " + nic;
    sink.add(Severity::kError,
             fmt::format("rank {} ({}) {} rank {} ({}){}", rank, src, direction == LinkDirection::kSend ? "->" : "<-",
                         peer, dst, over),
             {src, dst},
             fmt::format("rank {} left {} network transfer{} {} rank {}{} unfinished when its communicator was "
                         "destroyed (first at {} {})",
                         rank, o.first, o.first == 1 ? "" : "s", direction == LinkDirection::kSend ? "to" : "from",
                         peer, over, o.second->collective, format_size(o.second->size_bytes)),
             "a transfer that never completed: the link or the peer hung; look at the peer's host, the NIC's port "
             "state and NCCL's log for a timeout or a remote error",
             {{"comm", comm},
              {"rank", rank},
              {"peer", peer},
              {"direction", name(direction)},
              {"nic", nic},
              {"src_host", src},
              {"dst_host", dst},
              {"open_steps", o.first}});
  }
}

}  // namespace fabscope
