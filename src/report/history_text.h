// The text of a history (`fabscope history`): the runs and how they were ordered, the
// method and its parameters, the latest change, then one line per row (its latest figure,
// its noise, the smallest step it can show, and its change points) under a heading per
// collective placement or link set.
#pragma once

#include <string>

#include "report/report.h"

namespace fabscope {

// "" for a report without a history.
std::string render_history(const Report& report);

// "run 11 (runs/11.json) -10.2% p=1e-06", one change point as the outputs name it.
std::string change_point_text(const HistoryChange& change);

}  // namespace fabscope
