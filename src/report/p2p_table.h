// The p2p results as text: one perftest-style row per link, and the slowest links.
#pragma once

#include <string>

#include "report/report.h"

namespace fabscope {

std::string render_p2p(const Report& report);

// One line on how a link schedule covered the host pairs ("# Links: schedule sample, ..."),
// "" where every pair of ranks was asked for.
std::string render_coverage(const P2pSection& p2p);

}  // namespace fabscope
