// Findings from p2p links: a host whose links are all slow (its NIC, cable or port),
// and a single slow link that no slow host explains. Per message size, against robust
// references: the median of the links that avoid the host, and the median of the
// links that touch no flagged host.
#pragma once

#include "report/report.h"

namespace fabscope {

// A host or link below this fraction of its reference is flagged (latency: above its
// inverse).
inline constexpr double kSlowRatio = 0.5;

void add_p2p_findings(Report& report);

}  // namespace fabscope
