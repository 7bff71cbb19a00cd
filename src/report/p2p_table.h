// The p2p results as text: one perftest-style row per link, and the slowest links.
#pragma once

#include <string>

#include "report/report.h"

namespace fabscope {

std::string render_p2p(const Report& report);

}  // namespace fabscope
