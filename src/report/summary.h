// The findings and verdict as text lines, after the tables.
#pragma once

#include <string>

#include "report/report.h"

namespace fabscope {

std::string render_summary(const Report& report);

}  // namespace fabscope
