#include "diag/fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "core/atomic_file.h"
#include "core/hostlist.h"
#include "core/text.h"

namespace fabscope {

std::map<std::string, std::string> leaf_of_hosts(const FabricDescription& fabric) {
  std::map<std::string, std::string> out;
  for (const FabricSwitch& s : fabric.switches) {
    for (const std::string& h : s.hosts) out.emplace(h, s.name);
  }
  return out;
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

Result<FabricDescription> parse_slurm_topology(std::string_view text, std::string_view source) {
  FabricDescription fabric;
  fabric.source = std::string(source);
  std::map<std::string, std::string> host_leaf;  // host -> switch, to refuse a host under two
  std::set<std::string> names;
  std::vector<std::pair<std::string, int>> wanted;  // Switches= names, with their line
  // Joined lines (a trailing backslash continues one), each with its first line number.
  std::vector<std::pair<std::string, int>> lines;
  {
    std::string joined;
    int first = 0, number = 0;
    for (std::string_view raw : split(text, '\n')) {
      ++number;
      std::string_view line = raw.substr(0, raw.find('#'));
      line = trim(line);
      if (joined.empty()) first = number;
      if (!line.empty() && line.back() == '\\') {
        joined += std::string(line.substr(0, line.size() - 1)) + " ";
        continue;
      }
      joined += std::string(line);
      if (!trim(joined).empty()) lines.emplace_back(joined, first);
      joined.clear();
    }
    if (!trim(joined).empty()) lines.emplace_back(joined, first);
  }
  for (const auto& [line, number] : lines) {
    const auto where = [&, number = number] { return fmt::format("{} line {}", source, number); };
    FabricSwitch sw;
    bool named = false;
    for (std::string_view word : split_ws(line)) {
      const size_t eq = word.find('=');
      if (eq == std::string_view::npos || eq == 0 || eq + 1 == word.size()) {
        return Status::Invalid(
            fmt::format("{}: '{}' is not KEY=VALUE; allowed keys: SwitchName, Nodes, Switches, "
                        "LinkSpeed (Slurm's topology.conf)",
                        where(), word));
      }
      const std::string key = lower(word.substr(0, eq));
      const std::string_view value = word.substr(eq + 1);
      if (key == "switchname") {
        sw.name = std::string(value);
        named = true;
      } else if (key == "nodes" || key == "switches") {
        auto expanded = expand_hostlist(value);
        if (!expanded.ok()) return Status::Invalid(fmt::format("{}: {}", where(), expanded.status().message()));
        auto& into = key == "nodes" ? sw.hosts : sw.switches;
        into.insert(into.end(), expanded->begin(), expanded->end());
      } else if (key != "linkspeed") {
        return Status::Invalid(
            fmt::format("{}: unknown key '{}'; allowed: SwitchName, Nodes, Switches, LinkSpeed "
                        "(Slurm's topology.conf)",
                        where(), word.substr(0, eq)));
      }
    }
    if (!named) return Status::Invalid(fmt::format("{}: a line without SwitchName= ('{}')", where(), line));
    if (!names.insert(sw.name).second) {
      return Status::Invalid(fmt::format("{}: switch '{}' is described twice", where(), sw.name));
    }
    for (const std::string& h : sw.hosts) {
      auto [it, fresh] = host_leaf.emplace(h, sw.name);
      if (!fresh) {
        return Status::Invalid(fmt::format("{}: host '{}' is under switch '{}' and '{}'; a host hangs off one leaf",
                                           where(), h, it->second, sw.name));
      }
    }
    for (const std::string& s : sw.switches) wanted.emplace_back(s, number);
    fabric.switches.push_back(std::move(sw));
  }
  for (const auto& [name, number] : wanted) {
    if (!names.count(name)) {
      return Status::Invalid(
          fmt::format("{} line {}: Switches= names '{}', which no SwitchName= line describes", source, number, name));
    }
  }
  if (host_leaf.empty()) {
    return Status::Invalid(
        fmt::format("{}: no switch lists any host (Nodes=); a fabric description names each leaf's hosts, as Slurm's "
                    "topology.conf does ('SwitchName=leaf1 Nodes=node[01-16]')",
                    source));
  }
  return fabric;
}

Result<FabricDescription> read_fabric_file(const std::string& path) {
  auto text = read_file(path);
  if (!text.ok()) return text.status();
  return parse_slurm_topology(*text, path);
}

}  // namespace fabscope
