#include "core/progress.h"

#include <unistd.h>
#include <cstdlib>

namespace fabscope {

bool Progress::wanted() {
  const char* ci = std::getenv("CI");
  if (ci != nullptr && *ci != '\0' && std::string(ci) != "0" && std::string(ci) != "false") return false;
  return isatty(STDERR_FILENO) == 1;
}

void Progress::update(const std::string& text) {
  if (!enabled_) return;
  std::string line = text.size() > 110 ? text.substr(0, 110) : text;
  size_t pad = last_width_ > line.size() ? last_width_ - line.size() : 0;
  std::fprintf(out_, "\r%s%*s", line.c_str(), static_cast<int>(pad), "");
  std::fflush(out_);
  last_width_ = line.size();
}

void Progress::clear() {
  if (!enabled_ || last_width_ == 0) return;
  std::fprintf(out_, "\r%*s\r", static_cast<int>(last_width_), "");
  std::fflush(out_);
  last_width_ = 0;
}

}  // namespace fabscope
