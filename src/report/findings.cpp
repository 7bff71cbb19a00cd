#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "core/sizes.h"
#include "report/report.h"

namespace fabscope {

void add_sweep_findings(Report& report) {
  // One finding per rank that received wrong data: how many checked points it failed,
  // and the first one, so an operator can re-run exactly that.
  struct PerRank {
    int failed = 0;
    nlohmann::ordered_json first;
  };
  std::map<int, PerRank> by_rank;
  int checked = 0;
  for (const Sweep& s : report.sweeps) {
    for (const SweepPoint& p : s.points) {
      for (const auto* pl : {&p.out_of_place, &p.in_place}) {
        if (!pl->has_value() || !(*pl)->wrong.has_value()) continue;
        ++checked;
        for (int r : (*pl)->wrong_ranks) {
          PerRank& pr = by_rank[r];
          if (pr.failed++ == 0) {
            pr.first = {{"collective", s.collective},
                        {"dtype", s.dtype},
                        {"op", s.op ? nlohmann::ordered_json(*s.op) : nlohmann::ordered_json(nullptr)},
                        {"size_bytes", p.size_bytes},
                        {"placement", pl == &p.out_of_place ? "out_of_place" : "in_place"},
                        {"wrong_total", *(*pl)->wrong}};
          }
        }
      }
    }
  }
  for (const auto& [rank, pr] : by_rank) {
    std::string host = rank < static_cast<int>(report.context.ranks.size()) ? report.context.ranks[rank].host : "?";
    Finding f;
    f.code = "sweep.wrong_results";
    f.severity = Severity::kError;
    f.subject = fmt::format("rank {} on {}", rank, host);
    f.message = fmt::format("rank {} on {} received wrong data in {} of {} checked results, first in {} {} {}", rank,
                            host, pr.failed, checked, pr.first["collective"].get<std::string>(),
                            pr.first["dtype"].get<std::string>(), format_size(pr.first["size_bytes"].get<uint64_t>()));
    f.hint =
        "re-run that collective and size with -c 10 to see whether it repeats; suspect this node's memory, GPU or NIC";
    f.evidence =
        nlohmann::ordered_json{{"rank", rank}, {"failed_checks", pr.failed}, {"checked", checked}, {"first", pr.first}};
    report.findings.push_back(std::move(f));
  }
}

void decide_verdict(Report& report) {
  report.verdict.failed_codes.clear();
  for (const Finding& f : report.findings) {
    if (f.severity != Severity::kError) continue;
    if (std::find(report.verdict.failed_codes.begin(), report.verdict.failed_codes.end(), f.code) ==
        report.verdict.failed_codes.end()) {
      report.verdict.failed_codes.push_back(f.code);
    }
  }
  report.verdict.result = report.verdict.failed_codes.empty() ? "pass" : "fail";
}

}  // namespace fabscope
