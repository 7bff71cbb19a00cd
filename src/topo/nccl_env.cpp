// NCCL env files (/etc/nccl.conf style, or shell env files): KEY=VALUE lines, optional
// `export`, quotes, comments; template placeholders ({{...}}) are kept as text.
#include <fmt/format.h>

#include <cctype>

#include "topo/readers.h"

namespace fabscope::topo {

Status parse_nccl_env(std::string_view text, std::string_view source, std::map<std::string, std::string>& env) {
  size_t pos = 0;
  int line_no = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
    if (line.empty() || line.front() == '#' || line.starts_with("{%") || line.starts_with("{#")) continue;
    if (line.starts_with("export ")) line.remove_prefix(7);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
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

Status read_nccl_env(const std::string& path, std::map<std::string, std::string>& env) {
  auto text = read_text_file(path);
  if (!text.ok()) return text.status();
  return parse_nccl_env(*text, path, env);
}

}  // namespace fabscope::topo
