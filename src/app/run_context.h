// What every measuring command shares: the report's run context, and how errors
// are printed under a launcher.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "comm/context.h"
#include "report/report.h"

namespace fabscope {

RunContext make_run_context(const RankContext& ctx, std::string_view backend, const std::string& library,
                            std::string_view memory, const std::vector<std::string>& command_line);

}  // namespace fabscope
