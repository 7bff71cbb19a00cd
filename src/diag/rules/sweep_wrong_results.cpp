// sweep.wrong_results: one finding per rank that received wrong data: how many checked
// results it failed, and the first one, so an operator can re-run exactly that.
#include <fmt/format.h>

#include <map>

#include "core/sizes.h"
#include "diag/rules.h"

namespace fabscope {

void check_sweep_wrong_results(const SweepContext& c, FindingSink& sink) {
  struct PerRank {
    int failed = 0;
    nlohmann::ordered_json first;
  };
  std::map<int, PerRank> by_rank;
  int checked = 0;
  PerRank unnamed;  // wrong results whose ranks the report does not name (imported tables)
  for (const Sweep& s : c.report.sweeps) {
    for (const SweepPoint& p : s.points) {
      for (Placement placement : kPlacements) {
        const std::optional<PlacementResult>& pl = p.at(placement);
        if (!pl || !pl->wrong.has_value()) continue;
        ++checked;
        // The point, as the first failure of a rank (or of the ranks a report does not name).
        auto where = [&] {
          return nlohmann::ordered_json{{"collective", s.collective},
                                        {"dtype", s.dtype},
                                        {"op", s.op ? nlohmann::ordered_json(*s.op) : nlohmann::ordered_json(nullptr)},
                                        {"size_bytes", p.size_bytes},
                                        {"placement", name(placement)},
                                        {"wrong_total", *pl->wrong}};
        };
        if (*pl->wrong > 0 && pl->wrong_ranks.empty() && unnamed.failed++ == 0) unnamed.first = where();
        for (int r : pl->wrong_ranks) {
          PerRank& pr = by_rank[r];
          if (pr.failed++ == 0) pr.first = where();
        }
      }
    }
  }
  if (unnamed.failed > 0) {
    sink.add(Severity::kError, "run", {},
             fmt::format("wrong data in {} of {} checked results, first in {} {} {}; the report does not say which "
                         "rank received it",
                         unnamed.failed, checked, unnamed.first["collective"].get<std::string>(),
                         unnamed.first["dtype"].get<std::string>(),
                         format_size(unnamed.first["size_bytes"].get<uint64_t>())),
             "run `fabscope sweep` on these nodes with that collective and size: it names the rank whose data was "
             "wrong",
             {{"rank", nullptr}, {"failed_checks", unnamed.failed}, {"checked", checked}, {"first", unnamed.first}});
  }
  for (const auto& [rank, pr] : by_rank) {
    const std::string host = c.host_of(rank);
    sink.add(Severity::kError, fmt::format("rank {} on {}", rank, host), {host},
             fmt::format("rank {} on {} received wrong data in {} of {} checked results, first in {} {} {}", rank, host,
                         pr.failed, checked, pr.first["collective"].get<std::string>(),
                         pr.first["dtype"].get<std::string>(), format_size(pr.first["size_bytes"].get<uint64_t>())),
             "re-run that collective and size with -c 10 to see whether it repeats; suspect this node's memory, GPU or "
             "NIC",
             {{"rank", rank}, {"failed_checks", pr.failed}, {"checked", checked}, {"first", pr.first}});
  }
}

}  // namespace fabscope
