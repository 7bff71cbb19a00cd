// Each finding rule alone, on a hand-built host or context: the rule tables are the
// only list of findings, every code is unique and documented in docs/findings.md.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "diag/expectations.h"
#include "diag/rules.h"
#include "report/compare.h"
#include "report/history.h"
#include "topo/rules.h"

namespace fabscope::topo {
namespace {

int add_pci(HostTopology& h, const std::string& bus, int parent, bool bridge, uint32_t cls) {
  PciNode n;
  n.busid = bus;
  n.parent = parent;
  n.numa = 0;
  n.bridge = bridge;
  n.is_switch = bridge;
  n.class_code = cls;
  return h.add_pci(n);
}

// One GPU and one NIC under one switch (PIX), the NIC's single port in `state`.
HostTopology one_pair(const std::string& state = "ACTIVE") {
  HostTopology h;
  h.host = "n1";
  h.sources.push_back("test");
  h.numa.push_back({0, *CpuSet::from_list("0-15")});
  int sw = add_pci(h, "ffff:ff:01.0", -1, true, 0x0604);
  int g = add_pci(h, "0000:01:00.0", sw, false, 0x0302);
  int n = add_pci(h, "0000:02:00.0", sw, false, 0x0207);
  Gpu& gpu = h.add_gpu(0);
  gpu.pci = g;
  gpu.busid = h.pci[g].busid;
  Nic& nic = h.add_nic("mlx5_0");
  nic.pci = n;
  nic.busid = h.pci[n].busid;
  nic.ports.push_back({1, state, 400, "InfiniBand", "", ""});
  return h;
}

// Runs one host rule alone and returns its findings.
std::vector<Finding> run_one(const std::string& code, const HostTopology& h, const AnalysisOptions& o = {}) {
  const Rule<HostContext>* rule = find_rule(host_rules(), code);
  EXPECT_NE(rule, nullptr) << code;
  std::vector<Finding> out;
  if (!rule) return out;
  HostContext c = prepare_host(h, o, std::nullopt);
  FindingSink sink(rule->code, out);
  rule->check(c, sink);
  return out;
}

TEST(TopoRules, GdrOffAloneOnAHandBuiltHost) {
  HostTopology h = one_pair();
  EXPECT_TRUE(run_one("topo.gdr_off", h).empty());
  h.nics[0].gdr = false;
  auto f = run_one("topo.gdr_off", h);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "topo.gdr_off");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(f[0].subject, "host n1 NIC mlx5_0");
  EXPECT_EQ(f[0].evidence["near_gpus"], nlohmann::ordered_json::array({0}));
}

TEST(TopoRules, PortDownAloneIsAnErrorOnANearNic) {
  EXPECT_TRUE(run_one("topo.port_down", one_pair()).empty());
  auto f = run_one("topo.port_down", one_pair("DOWN"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_EQ(f[0].evidence["state"], "DOWN");
}

TEST(TopoRules, PortDegradedAloneAgainstAnExpectedRate) {
  AnalysisOptions o;
  o.expect_rate_gbits = 800;
  auto f = run_one("topo.port_degraded", one_pair(), o);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].evidence["rate_gbits"], 400.0);
  EXPECT_TRUE(run_one("topo.port_degraded", one_pair()).empty());  // no peers, no expectation
}

TEST(TopoRules, NumaAffinityAloneOnOverlappingNodes) {
  HostTopology h = one_pair();
  h.numa.push_back({1, *CpuSet::from_list("8-23")});
  auto f = run_one("topo.numa_affinity", h);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_EQ(f[0].evidence["overlapping"], nlohmann::ordered_json::array({"0&1"}));
}

TEST(TopoRules, HcaFilterAloneOnAValueThatDoesNotParse) {
  HostTopology h = one_pair();
  h.nccl_ib_hca = "mlx5_0:x";  // as an NCCL log would state it
  auto f = run_one("topo.hca_filter", h);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_NE(f[0].message.find("(from NCCL log)"), std::string::npos) << f[0].message;
}

TEST(TopoRules, HostDiffersAloneOnAFleet) {
  const Rule<FleetContext>* rule = find_rule(fleet_rules(), "topo.host_differs");
  ASSERT_NE(rule, nullptr);
  std::vector<Finding> out;
  FindingSink sink(rule->code, out);
  rule->check(FleetContext{{{"a", "x"}, {"b", "x"}, {"c", "y"}}}, sink);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].subject, "host c");
}

TEST(TopoRules, EveryRuleOfAHealthyHostIsQuiet) {
  const HostTopology h = one_pair();
  for (const Rule<HostContext>& rule : host_rules()) {
    EXPECT_TRUE(run_one(std::string(rule.code), h).empty()) << rule.code;
  }
}

// The codes of every rule table, and the findings table of docs/findings.md, are one list.
TEST(FindingRules, CodesAreUniqueAndEachIsDocumentedInTheFindingsDoc) {
  std::vector<std::pair<std::string, std::string>> rules;  // code, detects
  auto add = [&](auto table) {
    for (const auto& r : table) rules.emplace_back(std::string(r.code), std::string(r.detects));
  };
  add(host_rules());
  add(fleet_rules());
  add(sweep_rules());
  add(p2p_rules());
  add(counter_rules());
  add(compare_rules());
  add(history_rules());
  add(expectation_rules());
  std::set<std::string> codes;
  const std::regex code_form("^[a-z0-9]+\\.[a-z0-9_]+$");
  for (const auto& [code, detects] : rules) {
    EXPECT_TRUE(codes.insert(code).second) << code << " is in two rules";
    EXPECT_TRUE(std::regex_match(code, code_form)) << code;
    EXPECT_FALSE(detects.empty()) << code;
  }
  std::ifstream in(FABSCOPE_FINDINGS_DOC);
  ASSERT_TRUE(in) << FABSCOPE_FINDINGS_DOC;
  std::stringstream text;
  text << in.rdbuf();
  // Rows of the findings table: "| `code` ... | when |".
  std::set<std::string> documented;
  const std::regex row("\\n\\| `([a-z0-9]+\\.[a-z0-9_]+)`");
  const std::string doc = text.str();
  for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end; ++it) documented.insert((*it)[1]);
  EXPECT_EQ(documented, codes);
}

}  // namespace
}  // namespace fabscope::topo
