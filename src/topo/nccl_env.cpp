// NCCL env files (/etc/nccl.conf style, or shell env files): KEY=VALUE lines, optional
// `export`, quotes, comments; template placeholders ({{...}}) are kept as text.
#include <fmt/format.h>

#include <cctype>

#include "core/text.h"
#include "topo/readers.h"

namespace fabscope::topo {

Status parse_nccl_env(std::string_view text, std::string_view source, std::map<std::string, std::string>& env) {
  LineReader lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const int line_no = lines.number();
    line = trim(line);
    if (line.empty() || line.front() == '#' || line.starts_with("{%") || line.starts_with("{#")) continue;
    if (line.starts_with("export ")) line = trim(line.substr(7));
    size_t eq = line.find('=');
    std::string_view key = line.substr(0, eq);
    bool key_ok = !key.empty() && (std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_');
    for (char c : key) key_ok = key_ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (eq == std::string_view::npos || !key_ok) {
      return Status::Invalid(fmt::format("{}:{}: expected NAME=value, found '{}'", source, line_no,
                                         line.substr(0, std::min<size_t>(line.size(), 60))));
    }
    std::string_view value = line.substr(eq + 1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    if (key.starts_with("NCCL_")) env[std::string(key)] = std::string(value);
  }
  return Status::Ok();
}

}  // namespace fabscope::topo
