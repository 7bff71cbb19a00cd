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

std::string fenced(const std::string& text) {  // the closing fence on a line of its own
  return "```\n" + text + (text.empty() || text.back() == '\n' ? "" : "\n") + "```\n";
}

std::string html_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c == '&'    ? "&amp;"
           : c == '<'  ? "&lt;"
           : c == '>'  ? "&gt;"
           : c == '"'  ? "&quot;"
           : c == '\'' ? "&#x27;"  // as Python's html.escape writes it
                       : std::string(1, c);
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

// Each line behind `prefix`, as a launcher or a log collector writes it.
std::string each_line(const std::string& text, std::string_view prefix) {
  std::string out;
  for (std::string_view line : split_lines(text)) out.append(prefix).append(line).push_back('\n');
  return out;
}
std::string kubectl_prefixed(const std::string& text) { return each_line(text, "[pod/train-worker-1/trainer] "); }
std::string tagged_output(const std::string& text) { return each_line(text, "[1,3]<stdout>:"); }
std::string srun_labelled(const std::string& text) { return each_line(text, " 3: "); }
std::string timestamped(const std::string& text) { return each_line(text, "2026-11-28T01:02:03.456789Z "); }
std::string quoted(const std::string& text) { return each_line(text, "> "); }
std::string indented(const std::string& text) { return each_line(text, "    "); }  // a Markdown code block

}  // namespace

const std::vector<PasteShape>& paste_shapes() {
  static const std::vector<PasteShape> kShapes = {
      {"prefixes stripped", strip_nccl_prefixes, false},
      {"coloured", coloured},
      {"fenced", fenced},
      {"HTML-escaped", html_escaped},
      {"CRLF", with_crlf},
      {"cut in half", cut_in_half, false},
      {"blocks reversed", blocks_reversed, false},
      {"kubectl --prefix", kubectl_prefixed},
      {"mpirun --tag-output", tagged_output},
      {"srun --label", srun_labelled},
      {"timestamped", timestamped},
      {"Markdown quote", quoted},
      {"Markdown indented", indented},
  };
  return kShapes;
}

}  // namespace fabscope::fuzz
