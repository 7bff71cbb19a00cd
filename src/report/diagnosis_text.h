// The text of a diagnosis (`fabscope diagnose`): the answer first, a few lines per
// collective (how far from the link rate, which causes hold which share of the excess,
// which hosts to drain), then the attribution table and each phase's time.
#pragma once

#include <string>

#include "report/report.h"

namespace fabscope {

// "" for a report without a diagnosis.
std::string render_answer(const Report& report);
std::string render_attribution(const Report& report);
// The nccl_profile section (report/nccl_profile_text.cpp): per collective, at its largest
// size, the links NCCL waited on longest; or why there is no profiler data.
std::string render_nccl_profile(const Report& report);

}  // namespace fabscope
