// Small text helpers shared by fabscope's parsers: trimming, whitespace-separated
// words, separated fields, and lines read one at a time (without their "\n" or "\r\n") without copying.
#pragma once

#include <cctype>
#include <string_view>
#include <vector>

namespace fabscope {

// std::isspace's set in the "C" locale fabscope runs in, without a library call per character
// (trim and split_ws run on every line a parser reads).
inline bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// std::tolower in the "C" locale: ASCII letters only.
inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Whether `text` holds `what`.
inline bool contains(std::string_view text, std::string_view what) { return text.find(what) != std::string_view::npos; }

// The whitespace-separated words of `line`.
inline std::vector<std::string_view> split_ws(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// The fields of `text` between `sep` characters, empty ones included: "a,,b" gives
// "a", "", "b"; "" gives one empty field.
inline std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    const size_t at = text.find(sep, pos);
    out.push_back(text.substr(pos, at == std::string_view::npos ? std::string_view::npos : at - pos));
    if (at == std::string_view::npos) return out;
    pos = at + 1;
  }
}

// Lines of a text, one at a time: `while (lines.next(line))`, with `number()` the
// 1-based number of the line last returned. A final "\n" ends the last line; it does
// not start an empty one.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const size_t nl = text_.find('\n', pos_);
    line = text_.substr(pos_, nl == std::string_view::npos ? std::string_view::npos : nl - pos_);
    pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number_;
    return true;
  }
  int number() const { return number_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int number_ = 0;
};

// Every line, for parsers that look back and forth.
inline std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  LineReader reader(text);
  std::string_view line;
  while (reader.next(line)) lines.push_back(line);
  return lines;
}

}  // namespace fabscope
