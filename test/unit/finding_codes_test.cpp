// The finding codes' constants (report/finding_codes.h) against the tables that make the
// findings: every rule's code is a constant of its table's list, and every constant of a
// list is the code of exactly one rule, so a code renamed in a table and not in the
// constants (or the other way round) fails here rather than in a comparison that stops
// matching.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "diag/expectations.h"
#include "diag/rules.h"
#include "report/compare.h"
#include "report/finding_codes.h"
#include "report/history.h"
#include "topo/rules.h"
#include "triage/triage.h"

namespace fabscope {
namespace {

template <typename Context>
std::vector<std::string_view> codes_of(std::span<const Rule<Context>> rules) {
  std::vector<std::string_view> out;
  for (const Rule<Context>& r : rules) out.push_back(r.code);
  return out;
}

std::vector<std::string_view> triage_codes() {
  std::vector<std::string_view> out;
  for (const triage::Signature& s : triage::signatures()) out.insert(out.end(), s.codes.begin(), s.codes.end());
  return out;
}

// One table: its codes, and the constants the header lists for it.
struct Table {
  std::string name;
  std::vector<std::string_view> codes;
  std::span<const std::string_view> constants;
};

std::vector<Table> tables() {
  return {
      {"sweep_rules", codes_of(sweep_rules()), code::kSweepCodes},
      {"p2p_rules", codes_of(p2p_rules()), code::kP2pCodes},
      {"counter_rules", codes_of(counter_rules()), code::kCounterCodes},
      {"expectation_rules", codes_of(expectation_rules()), code::kExpectationCodes},
      {"topo::host_rules", codes_of(topo::host_rules()), code::kTopoHostCodes},
      {"topo::fleet_rules", codes_of(topo::fleet_rules()), code::kTopoFleetCodes},
      {"compare_rules", codes_of(compare_rules()), code::kCompareCodes},
      {"history_rules", codes_of(history_rules()), code::kHistoryCodes},
      {"triage::signatures", triage_codes(), code::kTriageCodes},
  };
}

TEST(FindingCodes, EveryRuleCodeIsAConstantOfItsTable) {
  for (const Table& t : tables()) {
    const std::set<std::string_view> constants(t.constants.begin(), t.constants.end());
    for (std::string_view c : t.codes) {
      EXPECT_TRUE(constants.count(c)) << t.name << ": " << c << " is not in its list in report/finding_codes.h";
    }
  }
}

TEST(FindingCodes, EveryConstantIsTheCodeOfExactlyOneRule) {
  for (const Table& t : tables()) {
    std::map<std::string_view, int> uses;
    for (std::string_view c : t.codes) ++uses[c];
    for (std::string_view c : t.constants) {
      EXPECT_EQ(uses[c], 1) << t.name << ": " << c << " is the code of " << uses[c] << " rules";
    }
  }
}

// Across the rule tables a code names one rule. Triage reads other evidence (logs and
// gathered files) and shares four codes with the rules that judge the same fault from a
// live run: counters.link_errors (the counter rules), topo.pcie_degraded (the host
// topology rules; triage's from lspci -vv and the kernel's "limited by" line), and
// nccl.link_wait and run.hang (the sweep rules; triage's from the profiler plugin's
// snapshots, judged as `fabscope watch` judges them).
TEST(FindingCodes, TheRuleTablesShareNoCode) {
  std::map<std::string_view, std::vector<std::string>> tables_of;
  for (const Table& t : tables()) {
    for (std::string_view c : t.constants) tables_of[c].push_back(t.name);
  }
  for (const auto& [c, names] : tables_of) {
    if (c == code::kCountersLinkErrors) {
      EXPECT_EQ(names, (std::vector<std::string>{"counter_rules", "triage::signatures"}));
      continue;
    }
    if (c == code::kTopoPcieDegraded) {
      EXPECT_EQ(names, (std::vector<std::string>{"topo::host_rules", "triage::signatures"}));
      continue;
    }
    if (c == code::kNcclLinkWait || c == code::kRunHang) {
      EXPECT_EQ(names, (std::vector<std::string>{"sweep_rules", "triage::signatures"}));
      continue;
    }
    EXPECT_EQ(names.size(), 1u) << c << " is listed for " << names.size() << " tables";
  }
}

TEST(FindingCodes, CodesAreAreaDotWhat) {
  const std::regex form("^[a-z0-9_]+\\.[a-z0-9_]+$");
  for (const Table& t : tables()) {
    for (std::string_view c : t.constants) EXPECT_TRUE(std::regex_match(std::string(c), form)) << c;
  }
}

TEST(FindingCodes, AreasAreThePrefixUpToTheDot) {
  EXPECT_TRUE(code::in_area(code::kP2pSlowLink, code::kAreaP2p));
  EXPECT_TRUE(code::in_area(code::kRankStraggler, code::kAreaRank));
  EXPECT_TRUE(code::in_area(code::kCountersForeignTraffic, code::kAreaCounters));
  EXPECT_TRUE(code::in_area(code::kTopoNicFar, code::kAreaTopo));
  EXPECT_FALSE(code::in_area(code::kPerfDip, code::kAreaP2p));
  EXPECT_FALSE(code::in_area("p2pfoo.x", code::kAreaP2p));
}

}  // namespace
}  // namespace fabscope
