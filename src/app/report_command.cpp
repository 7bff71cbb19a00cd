#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "report/p2p_table.h"
#include "report/report_json.h"
#include "report/summary.h"
#include "report/table.h"
#include "topo/topo_report.h"

namespace fabscope {

Status run_report_command(const ReportCommand& cmd, std::string& out) {
  auto report = load_report(cmd.path);
  if (!report.ok()) return report.status();
  std::string topology;
  if (report->topology_json) {
    topology = topo::render_topology_text(nlohmann::ordered_json::parse(*report->topology_json));
  }
  out = topology + render_tables(*report) + render_p2p(*report) + render_summary(*report);
  return Status::Ok();
}

}  // namespace fabscope
