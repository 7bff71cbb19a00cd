#include "app/commands.h"
#include "report/p2p_table.h"
#include "report/report_json.h"
#include "report/summary.h"
#include "report/table.h"
#include "report/topology_text.h"

namespace fabscope {

Status run_report_command(const ReportCommand& cmd, std::string& out) {
  auto report = load_report(cmd.path);
  if (!report.ok()) return report.status();
  std::string topology = report->topology ? render_topology_text(*report->topology) : "";
  out = topology + render_tables(*report) + render_p2p(*report) + render_summary(*report);
  return Status::Ok();
}

}  // namespace fabscope
