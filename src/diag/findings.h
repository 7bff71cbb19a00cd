// The measured findings: each function builds its rules' context from the report and
// runs its rule table (diag/rules.h), appending to report.findings.
#pragma once

#include "report/report.h"

namespace fabscope {

// sweep.*: ranks that received wrong data.
void add_sweep_findings(Report& report);
// p2p.*: per message size, hosts whose links are all slow, then single slow links no
// slow host explains.
void add_p2p_findings(Report& report);
// counters.*: traffic on a host's interfaces that is not fabscope's.
void add_counter_findings(Report& report);

}  // namespace fabscope
