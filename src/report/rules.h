// Finding rules: each finding fabscope can report is made by one rule, a named check
// with its code that looks at one small context (a host's topology, one message size's
// p2p links, a report's counters, ...) and adds findings through a sink that stamps
// the rule's code on each. Each area lists its rules in one table (topo/rules/,
// diag/rules/); run_rules runs a table in order. A new finding is one function in its
// own file plus one row in its area's table.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/finding.h"

namespace fabscope {

// Where a rule's findings go; every finding added carries the rule's code.
class FindingSink {
 public:
  FindingSink(std::string_view code, std::vector<Finding>& out) : code_(code), out_(out) {}
  // Adds a finding about `hosts` (the hosts it implicates; may be empty).
  void add(Severity severity, std::string subject, std::vector<std::string> hosts, std::string message,
           std::string hint, nlohmann::ordered_json evidence = nlohmann::ordered_json::object()) {
    out_.push_back({std::string(code_), severity, std::move(subject), std::move(hosts), std::move(message),
                    std::move(hint), std::move(evidence)});
  }

 private:
  std::string_view code_;
  std::vector<Finding>& out_;
};

template <typename Context>
struct Rule {
  std::string_view code;     // stable: "topo.nic_far"; the README explains each
  std::string_view detects;  // one line: what the rule finds
  void (*check)(const Context& context, FindingSink& sink);
};

template <typename Context>
void run_rules(std::span<const Rule<Context>> rules, const Context& context, std::vector<Finding>& out) {
  for (const Rule<Context>& rule : rules) {
    FindingSink sink(rule.code, out);
    rule.check(context, sink);
  }
}

// The rule with this code, or nullptr: for running one rule alone (tests).
template <typename Context>
const Rule<Context>* find_rule(std::span<const Rule<Context>> rules, std::string_view code) {
  for (const Rule<Context>& rule : rules) {
    if (rule.code == code) return &rule;
  }
  return nullptr;
}

}  // namespace fabscope
