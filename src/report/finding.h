// A finding: what fabscope concluded, with a stable code, a severity, the subject it
// is about (rank, GPU, NIC, link, host), the numbers behind it and a hint for the
// operator. Findings come from rules (report/rules.h); the verdict from findings.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabscope {

enum class Severity { kInfo, kWarning, kError };
std::string_view name(Severity s);  // "info", "warning", "error"
std::optional<Severity> severity_from_name(std::string_view text);

struct Finding {
  std::string code;  // area.what, e.g. "topo.nic_far"
  Severity severity = Severity::kInfo;
  std::string subject;
  // The hosts it implicates; those of error findings are the verdict's drain list.
  std::vector<std::string> hosts;
  std::string message;
  std::string hint;
  // The numbers measured, expected and compared: an object whose keys the rule that
  // made the finding defines (units in key names).
  nlohmann::ordered_json evidence = nlohmann::ordered_json::object();
};

}  // namespace fabscope
