// The JSON report (report/report_json.h) as an output: written atomically when the run
// is finished, its directory checked before the run starts.
#pragma once

#include <memory>
#include <string>

#include "report/reporter.h"

namespace fabscope {

std::unique_ptr<Reporter> make_json_reporter(const std::string& path);

}  // namespace fabscope
