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
// diagnose: a p2p.congested_link (slow beside the other flows of its round, fine alone)
// whose link the noise phase measured again beside the same flows at kSlowRatio of the
// median or better was congested once, not by the fabric's shape: it becomes info, with
// the repeat's rate as evidence (`again_loaded`), and no longer warns or counts against its
// link. A link slow beside the others both times stays a warning.
void settle_passing_congestion(Report& report);
// diagnose and p2p --schedule: the pairs of hosts the link matrix did not measure,
// judged from the findings (after add_p2p_findings and discount_stalled_links): slow
// where a slow host (or a leaf whose uplinks are slow) is at an end, unjudged where an
// end has a slow link no host explains, healthy otherwise. Fills report.p2p->coverage
// (its schedule and rounds set by the measuring command); nothing without one.
void judge_link_coverage(Report& report);
// diagnose's analysis after measuring, in order: the sweep, p2p and counter findings,
// stalled links discounted, passing congestion settled, the link coverage judged, the attribution (the verdict is
// the output's). The fabric simulator runs the same.
void analyze_diagnosis(Report& report);

}  // namespace fabscope
