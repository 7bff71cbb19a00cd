#include "report/finding.h"

namespace fabscope {

namespace {
constexpr std::string_view kSeverityNames[] = {"info", "warning", "error"};
}  // namespace

std::string_view name(Severity s) { return kSeverityNames[static_cast<int>(s)]; }

std::optional<Severity> severity_from_name(std::string_view text) {
  for (int i = 0; i < 3; ++i) {
    if (kSeverityNames[i] == text) return static_cast<Severity>(i);
  }
  return std::nullopt;
}

}  // namespace fabscope
