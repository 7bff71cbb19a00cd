// The timeline as text (fabscope's output after a run of several cycles, and `fabscope
// report`): per interval and point, the bus bandwidth, median, p99 and maximum (of more
// than 24 intervals, the first, the last and those with a stall); then the links that
// went down. Nothing for a run of one cycle with no link event.
#pragma once

#include <string>

#include "report/report.h"

namespace fabscope {

std::string render_timeline(const Report& report);

}  // namespace fabscope
