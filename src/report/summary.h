// The findings and verdict as text lines, after the tables.
#pragma once

#include <cstddef>
#include <string>

#include "report/report.h"

namespace fabscope {

std::string render_summary(const Report& report);
// The command that made a report, from its sections: compare, import, triage, diagnose,
// p2p, topo or sweep.
std::string command_name(const Report& report);
// The first `most` evidence lines a finding quotes (evidence.lines: file, line, text), as
// "#     FILE:LINE: TEXT" lines; "" when it quotes none.
std::string render_quoted_lines(const Finding& f, size_t most);

}  // namespace fabscope
