#include "fuzz/paste_shapes.h"

#include "core/text.h"

namespace fabscope::fuzz {

namespace {

std::string strip_nccl_prefixes(const std::string& text) {
  std::string out;
  for (std::string_view line : split_lines(text)) {
    const size_t at = line.find(" NCCL ");
    out.append(at == std::string_view::npos ? line : line.substr(at + 1)).push_back('\n');
  }
  return out;
}

std::string coloured(const std::string& text) {
  std::string out;
  for (std::string_view line : split_lines(text)) out += "\x1b[0;32m" + std::string(line) + "\x1b[0m\n";
  return out;
}

std::string fenced(const std::string& text) { return "```\n" + text + "```\n"; }

std::string html_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;" : std::string(1, c);
  }
  return out;
}

std::string with_crlf(const std::string& text) {
  std::string out;
  for (std::string_view line : split_lines(text)) out.append(line).append("\r\n");
  return out;
}

std::string cut_in_half(const std::string& text) { return text.substr(0, text.size() / 2); }

std::string blocks_reversed(const std::string& text) {  // blocks: runs of lines between blank lines
  std::vector<std::string> blocks(1);
  for (std::string_view line : split_lines(text)) {
    if (trim(line).empty()) {
      if (!blocks.back().empty()) blocks.emplace_back();
      continue;
    }
    blocks.back().append(line).push_back('\n');
  }
  std::string out;
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) out += *it + "\n";
  return out;
}

}  // namespace

const std::vector<PasteShape>& paste_shapes() {
  static const std::vector<PasteShape> kShapes = {
      {"prefixes stripped", strip_nccl_prefixes},
      {"coloured", coloured},
      {"fenced", fenced},
      {"HTML-escaped", html_escaped},
      {"CRLF", with_crlf},
      {"cut in half", cut_in_half},
      {"blocks reversed", blocks_reversed},
  };
  return kShapes;
}

}  // namespace fabscope::fuzz
