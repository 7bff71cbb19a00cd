// The nccl_profile section as text: per communicator and collective, at its largest
// size, the links whose sends waited longest on the network, per call, in wall-clock time
// (the union of the steps and channels in flight, never more than the call took).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/sizes.h"
#include "core/stats.h"
#include "report/diagnosis_text.h"

namespace fabscope {

namespace {
constexpr size_t kRowsShown = 8;
}  // namespace

std::string render_nccl_profile(const Report& r) {
  if (!r.nccl_profile) return "";
  const NcclProfileSection& s = *r.nccl_profile;
  std::string out = fmt::format("#\n# NCCL network wait, wall-clock (fabscope's profiler plugin): {}; {}\n",
                                name(s.status), s.detail);
  std::map<std::pair<std::string, std::string>, const ProfilePoint*> largest;
  std::map<std::pair<std::string, std::string>, int> sizes;
  for (const ProfilePoint& p : s.points) {
    ++sizes[{p.comm, p.collective}];
    const ProfilePoint*& l = largest[{p.comm, p.collective}];
    if (l == nullptr || std::tie(p.size_bytes, p.count) > std::tie(l->size_bytes, l->count)) l = &p;
  }
  for (const auto& [key, p] : largest) {
    std::vector<const ProfileLink*> sends;
    std::vector<double> waits;
    for (const ProfileLink& l : p->links) {
      if (l.direction != LinkDirection::kSend || l.calls() <= 0) continue;
      sends.push_back(&l);
      waits.push_back(l.network_us_per_call());
    }
    out += fmt::format("#   {} {}{}, {} calls{}: {} sending links, median network wait {:.1f} us per call (wall)\n",
                       p->collective, p->size_bytes ? format_size(p->size_bytes) : fmt::format("{} el", p->count),
                       p->algo.empty() ? "" : fmt::format(" ({}/{})", p->algo, p->proto), p->calls,
                       sizes[key] > 1 ? fmt::format(" (the largest of {} profiled)", sizes[key]) : std::string(),
                       sends.size(), waits.empty() ? 0.0 : median(waits));
    if (sends.empty()) continue;
    std::sort(sends.begin(), sends.end(), [](const ProfileLink* a, const ProfileLink* b) {
      return a->network_us_per_call() > b->network_us_per_call();
    });
    out +=
        fmt::format("#   {:<14} {:<10} {:>3} {:>24} {:>28} {:>27} {:>6}\n", "link", "NIC", "ch",
                    "SendWait (wall, us/call)", "SendPeerWait (wall, us/call)", "SendGPUWait (wall, us/call)", "open");
    for (size_t i = 0; i < sends.size() && i < kRowsShown; ++i) {
      const ProfileLink& l = *sends[i];
      const double calls = l.calls();
      out += fmt::format("    {:<14} {:<10} {:>3} {:>24.1f} {:>28.1f} {:>27.1f} {:>6}\n",
                         fmt::format("{} -> {}", l.rank, l.peer), l.nic.empty() ? "?" : l.nic, l.channels,
                         l.wait_us[2] / calls, l.wait_us[1] / calls, l.wait_us[0] / calls, l.open_steps);
    }
    if (sends.size() > kRowsShown) {
      out += fmt::format("#   ... {} more links in the JSON report\n", sends.size() - kRowsShown);
    }
  }
  return out;
}

}  // namespace fabscope
