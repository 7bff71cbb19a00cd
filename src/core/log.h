// One levelled logger with a rank prefix ("[r3 node07] ..."), writing to stderr.
// A Logger is a value passed to whoever logs; there is no global logger.
#pragma once

#include <fmt/format.h>
#include <cstdio>
#include <string>
#include <string_view>

#include "core/status.h"

namespace fabscope {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };
Result<LogLevel> parse_log_level(std::string_view text);

class Logger {
 public:
  Logger() = default;
  Logger(LogLevel level, std::string prefix, std::FILE* out = stderr)
      : level_(level), prefix_(std::move(prefix)), out_(out) {}

  void set_prefix(std::string prefix) { prefix_ = std::move(prefix); }
  LogLevel level() const { return level_; }
  bool enabled(LogLevel l) const { return static_cast<int>(l) <= static_cast<int>(level_); }

  template <typename... Args>
  void log(LogLevel l, fmt::format_string<Args...> f, Args&&... args) const {
    if (enabled(l)) write(l, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  void error(fmt::format_string<Args...> f, Args&&... args) const {
    log(LogLevel::kError, f, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void warn(fmt::format_string<Args...> f, Args&&... args) const {
    log(LogLevel::kWarn, f, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void info(fmt::format_string<Args...> f, Args&&... args) const {
    log(LogLevel::kInfo, f, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void debug(fmt::format_string<Args...> f, Args&&... args) const {
    log(LogLevel::kDebug, f, std::forward<Args>(args)...);
  }

 private:
  void write(LogLevel l, const std::string& message) const;
  LogLevel level_ = LogLevel::kWarn;
  std::string prefix_;
  std::FILE* out_ = stderr;
};

}  // namespace fabscope
