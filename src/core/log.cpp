#include "core/log.h"

namespace fabscope {

Result<LogLevel> parse_log_level(std::string_view text) {
  if (text == "error") return LogLevel::kError;
  if (text == "warn" || text == "warning") return LogLevel::kWarn;
  if (text == "info") return LogLevel::kInfo;
  if (text == "debug") return LogLevel::kDebug;
  return Status::Invalid(fmt::format("unknown log level '{}'; allowed: error, warn, info, debug", text));
}

void Logger::write(LogLevel l, const std::string& message) const {
  static constexpr const char* kNames[] = {"error", "warn", "info", "debug"};
  std::string line = prefix_.empty() ? fmt::format("fabscope {}: {}\n", kNames[static_cast<int>(l)], message)
                                     : fmt::format("{} {}: {}\n", prefix_, kNames[static_cast<int>(l)], message);
  std::fputs(line.c_str(), out_);
  std::fflush(out_);
}

}  // namespace fabscope
