// Fields of other tools' printed output (nccl-tests, OSU Micro-Benchmarks): numbers as
// printed, whole fields only, and the prefixes launchers put on every line.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string_view>

namespace fabscope {

// A finite number that is the whole field ("1.5", "2e3"); nullopt otherwise.
inline std::optional<double> parse_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  double v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

// An integer of type T that is the whole field, in range; nullopt otherwise.
template <typename T>
std::optional<T> parse_integer(std::string_view s) {
  T v{};
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || ptr != end || s.empty()) return std::nullopt;
  return v;
}

// The line without Open MPI's --tag-output prefix ("[1,0]<stdout>:") or srun --label's
// ("  0: "); a row's own first field never ends in ':'.
inline std::string_view strip_launcher_prefix(std::string_view line) {
  if (line.starts_with("[")) {
    const size_t close = line.find("]<std");
    if (close != std::string_view::npos) {
      const size_t colon = line.find(">:", close);
      if (colon != std::string_view::npos) return line.substr(colon + 2);
    }
  }
  std::string_view t = line;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  if (digits > 0 && digits + 1 < t.size() && t[digits] == ':' && t[digits + 1] == ' ') return t.substr(digits + 2);
  return line;
}

// Whether --tag-output marks the line as the process's stderr ("[1,0]<stderr>:").
inline bool launcher_says_stderr(std::string_view line) {
  if (!line.starts_with("[")) return false;
  const size_t close = line.find("]<stderr>:");
  return close != std::string_view::npos && line.find(']') == close;
}

}  // namespace fabscope
