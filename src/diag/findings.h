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
// diagnose: a straggler whose process did not run for part of the collective (stalled)
// was stopped during the link matrix too, and a stopped endpoint slows every link it has.
// The p2p findings on that rank's links (and a p2p.slow_host of its host) are taken out;
// the straggler finding's evidence lists them as `links_not_judged`. A slow link of that
// host is then not seen: the straggler is the explanation given.
void discount_stalled_links(Report& report);

}  // namespace fabscope
