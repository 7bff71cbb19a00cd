// A one-line progress indicator on stderr, shown only when stderr is a terminal
// and not under CI, so logs stay clean.
#pragma once

#include <cstdio>
#include <string>

namespace fabscope {

class Progress {
 public:
  // `enabled` false makes every call a no-op; use Progress::for_terminal() to decide.
  explicit Progress(bool enabled, std::FILE* out = stderr) : enabled_(enabled), out_(out) {}
  ~Progress() { clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // True when stderr is a terminal and the CI variable is unset.
  static bool wanted();

  bool enabled() const { return enabled_; }
  void update(const std::string& text);
  void clear();

 private:
  bool enabled_;
  std::FILE* out_;
  size_t last_width_ = 0;
};

}  // namespace fabscope
