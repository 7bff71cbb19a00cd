// The report as JSON: numbers as numbers, units in key names, null for missing. The
// document is the list of sections in report_json.cpp, each written and read by its
// model type's to_json / read (report/model_json.h).
#pragma once

#include <string>

#include "core/status.h"
#include "report/report.h"

namespace fabscope {

std::string to_json_text(const Report& report);
// Parses and checks the structure; errors name the file and the bad key.
Result<Report> report_from_json_text(const std::string& text, const std::string& source_name);
Result<Report> load_report(const std::string& path);
Status save_report(const Report& report, const std::string& path);  // atomically

}  // namespace fabscope
