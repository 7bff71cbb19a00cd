#include "core/clock.h"

#include <fmt/format.h>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

namespace fabscope {

bool ticks_invariant() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool invariant = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("flags", 0) != 0) continue;
      std::istringstream words(line);
      bool constant = false, nonstop = false;
      for (std::string w; words >> w;) {
        constant = constant || w == "constant_tsc";
        nonstop = nonstop || w == "nonstop_tsc";
      }
      return constant && nonstop;
    }
    return false;
  }();
  return invariant;
#else
  return false;
#endif
}

std::string utc_timestamp(std::chrono::system_clock::time_point t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
}

std::string utc_timestamp_ns(int64_t unix_ns) {
  return utc_timestamp(std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::nanoseconds(unix_ns))));
}

}  // namespace fabscope
