// `fabscope triage` as text: the answer first (the most likely cause, its evidence lines,
// what to do), what a verdict would need and the files lack, then each file as taken.
#pragma once

#include <string>

#include "report/report.h"

namespace fabscope {

std::string render_triage(const Report& r);  // "" without a triage section

}  // namespace fabscope
