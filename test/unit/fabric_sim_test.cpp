// The fabric description (Slurm's topology.conf), the link schedules that scale, the
// p2p rules that group causes (p2p.slow_nic, p2p.congested_uplink), the link coverage,
// and the fabric simulator feeding diagnose's analysis.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "diag/fabric.h"
#include "diag/findings.h"
#include "diag/rules.h"
#include "p2p/schedule.h"
#include "report/p2p_table.h"
#include "sim/fabric_sim.h"

namespace fabscope {
namespace {

TEST(Fabric, ReadsSlurmTopologyConf) {
  auto f = parse_slurm_topology(
      "# leaves\nSwitchName=leaf1 Nodes=node[01-03] LinkSpeed=400\nswitchname=leaf2 nodes=node[04-05]\n"
      "SwitchName=spine Switches=leaf[1-2] \\\n  LinkSpeed=800\n",
      "topology.conf");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->switches.size(), 3u);
  EXPECT_EQ(f->switches[2].switches, (std::vector<std::string>{"leaf1", "leaf2"}));
  const auto leaf = leaf_of_hosts(*f);
  EXPECT_EQ(leaf.at("node02"), "leaf1");
  EXPECT_EQ(leaf.at("node05"), "leaf2");
  EXPECT_EQ(leaf.size(), 5u);
}

TEST(Fabric, RefusesBadDescriptionsNamingLineAndValue) {
  const std::pair<const char*, const char*> bad[] = {
      {"SwitchName=a Nodes=n1 Colour=red\n", "unknown key 'Colour'"},
      {"Nodes=n1\n", "without SwitchName"},
      {"SwitchName=a Nodes=n1\nSwitchName=a Nodes=n2\n", "described twice"},
      {"SwitchName=a Nodes=n1\nSwitchName=b Nodes=n1\n", "host 'n1' is under switch 'a' and 'b'"},
      {"SwitchName=a Nodes=n1\nSwitchName=s Switches=x\n", "'x', which no SwitchName"},
      {"SwitchName=a Nodes=n[1-\n", "line 1"},
      {"SwitchName=s Switches=s\n", "no switch lists any host"},
      {"SwitchName=a Nodes\n", "not KEY=VALUE"},
  };
  for (const auto& [text, why] : bad) {
    auto f = parse_slurm_topology(text, "t.conf");
    ASSERT_FALSE(f.ok()) << text;
    EXPECT_NE(f.status().message().find(why), std::string::npos) << f.status().message();
    EXPECT_NE(f.status().message().find("t.conf"), std::string::npos) << f.status().message();
  }
}

std::vector<RankPlace> places(int hosts, int per_host) {
  std::vector<RankPlace> out;
  for (int h = 0; h < hosts; ++h) {
    for (int l = 0; l < per_host; ++l) out.push_back({"h" + std::to_string(h), l});
  }
  return out;
}

// Every round: disjoint ranks, both directions of each pair.
void expect_disjoint(const std::vector<Round>& rounds) {
  for (const Round& round : rounds) {
    std::map<int, int> sends, recvs;
    std::set<std::pair<int, int>> flows;
    for (const Flow& f : round) {
      EXPECT_EQ(++sends[f.src], 1);
      EXPECT_EQ(++recvs[f.dst], 1);
      flows.insert({f.src, f.dst});
    }
    for (const Flow& f : round) EXPECT_TRUE(flows.count({f.dst, f.src}));
  }
}

TEST(LinkSchedule, RailPairsEveryHostPairRailByRail) {
  const auto ranks = places(6, 4);
  auto plan = plan_links(ranks, {LinkSchedule::kRail, 0, nullptr, 1});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->rounds.size(), 5u);  // hosts - 1
  expect_disjoint(plan->rounds);
  std::set<std::pair<int, int>> host_pairs;
  for (const Round& round : plan->rounds) {
    for (const Flow& f : round) {
      EXPECT_EQ(f.src % 4, f.dst % 4) << "rail k talks to rail k";
      EXPECT_NE(f.src / 4, f.dst / 4);
      host_pairs.insert({std::min(f.src, f.dst) / 4, std::max(f.src, f.dst) / 4});
    }
  }
  EXPECT_EQ(host_pairs.size(), 15u);  // every pair of 6 hosts
  EXPECT_EQ(schedule_rounds(LinkSchedule::kAll, ranks), 23u);
  // Several ranks a host: rail, the pairs NCCL's rings use, whatever the budget.
  EXPECT_EQ(pick_link_schedule(ranks, 100), LinkSchedule::kRail);
  EXPECT_EQ(pick_link_schedule(ranks, 10), LinkSchedule::kRail);
  EXPECT_EQ(pick_link_schedule(ranks, 4), LinkSchedule::kSample);
  EXPECT_EQ(schedule_links(LinkSchedule::kAll, ranks), 24u * 23u);
  EXPECT_EQ(schedule_links(LinkSchedule::kRail, ranks), 15u * 4u * 2u);
  EXPECT_EQ(pick_link_schedule(ranks, 100, 200), LinkSchedule::kRail);
  EXPECT_EQ(pick_link_schedule(ranks, 100, 100), LinkSchedule::kSample) << "rail's 120 links are over the cap";
  // One rank a host: all (the same pairs as rail), within the budget and the cap; one host: all.
  EXPECT_EQ(pick_link_schedule(places(6, 1), 100), LinkSchedule::kAll);
  EXPECT_EQ(pick_link_schedule(places(6, 1), 4), LinkSchedule::kSample);
  EXPECT_EQ(pick_link_schedule(places(1, 8), 1), LinkSchedule::kAll);
  // 4,096 ranks on 512 hosts: rail's 2,093,056 links are within the analysis' cap (0.79 s),
  // all's 16.8 million are not; 8,192 ranks on 1,024 hosts (rail: 8.4 million) sample, and
  // their sample stays under the cap however many rounds the budget fits: a round of 1,024
  // hosts measures 512 pairs x 8 rails x 2 directions.
  EXPECT_EQ(pick_link_schedule(places(512, 8), 100000), LinkSchedule::kRail);
  EXPECT_EQ(pick_link_schedule(places(1024, 8), 100000), LinkSchedule::kSample);
  EXPECT_EQ(sample_rounds_within(places(1024, 8)), kMaxAutoLinks / 8192);
  EXPECT_EQ(sample_rounds_within(places(4, 8), 10), kMinSampleRounds);
  EXPECT_EQ(pick_link_schedule(places(64, 8), 100000), LinkSchedule::kRail);  // all's 261,632 links fit: rail
  EXPECT_EQ(pick_link_schedule(places(256, 1), 100000), LinkSchedule::kAll);  // one rank a host: all
  EXPECT_FALSE(plan_links(places(1, 4), {LinkSchedule::kRail, 0, nullptr, 1}).ok());
}

TEST(LinkSchedule, SampleStaysWithinBudgetLeavesFirst) {
  const auto ranks = places(32, 2);
  std::map<std::string, std::string> leaf;
  for (int h = 0; h < 32; ++h) leaf["h" + std::to_string(h)] = "leaf" + std::to_string(h / 8);
  auto plan = plan_links(ranks, {LinkSchedule::kSample, 8, &leaf, 3});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->rounds.size(), 8u);
  EXPECT_EQ(plan->intra_leaf_rounds, 4u);  // half the budget at most
  EXPECT_EQ(plan->ring_rounds, 2u);        // then the hosts next in rank order (NCCL's ring)
  expect_disjoint(plan->rounds);
  std::map<int, std::set<int>> partners;
  const size_t ring_end = plan->intra_leaf_rounds + plan->ring_rounds;
  for (size_t i = 0; i < plan->rounds.size(); ++i) {
    for (const Flow& f : plan->rounds[i]) {
      const int a = f.src / 2, b = f.dst / 2;
      if (i < plan->intra_leaf_rounds) {
        EXPECT_EQ(a / 8, b / 8) << "within leaves first";
      } else if (i < ring_end) {
        EXPECT_TRUE((a + 1) % 32 == b || (b + 1) % 32 == a) << "then the ring's pairs: " << a << " " << b;
      } else {
        EXPECT_NE(a / 8, b / 8) << "then across leaves";
      }
      partners[a].insert(b);
    }
  }
  for (int h = 0; h < 32; ++h) EXPECT_TRUE(partners[h].count((h + 1) % 32)) << "ring pair " << h << " measured";
  for (const auto& [h, p] : partners)
    EXPECT_GE(p.size(), 5u) << h;  // 3 in the leaf, its ring neighbours, then across (a round may skip one)
  // Suspects get partners they have not had.
  std::set<std::pair<std::string, std::string>> measured;
  for (const auto& [a, p] : partners) {
    for (int b : p) {
      const std::string x = "h" + std::to_string(a), y = "h" + std::to_string(b);
      measured.insert({std::min(x, y), std::max(x, y)});
    }
  }
  const auto extra = suspect_rounds(ranks, {"h3", "h17"}, measured, {}, 3, 1);
  expect_disjoint(extra);
  std::map<int, int> added;
  for (const Round& round : extra) {
    for (const Flow& f : round) {
      const std::string x = "h" + std::to_string(f.src / 2), y = "h" + std::to_string(f.dst / 2);
      EXPECT_FALSE(measured.count({std::min(x, y), std::max(x, y)}));
      ++added[f.src / 2];
    }
  }
  EXPECT_EQ(added[3], 3 * 2);  // 3 partners, 2 rails
  EXPECT_EQ(added[17], 3 * 2);
}

// CI's cli_memory_mpi: three ranks on one host, a ring both ways, noisy figures. No NIC
// carries these links, so no rank is a slow NIC.
TEST(SlowNic, NotJudgedOnLinksInsideAHost) {
  Report r;
  r.p2p = P2pSection();
  r.p2p->mode = P2pMode::kBidirectional;
  const std::tuple<int, int, double> figures[] = {{0, 1, 0.643}, {0, 2, 0.384}, {1, 0, 1.620},
                                                  {1, 2, 0.733}, {2, 0, 0.502}, {2, 1, 0.388}};
  for (const auto& [a, b, bw] : figures) {
    P2pLink l;
    l.src_rank = a;
    l.dst_rank = b;
    l.src_host = l.dst_host = "vm";
    l.size_bytes = 16 << 20;
    l.bw_gbps = bw;
    r.p2p->links.push_back(l);
  }
  add_p2p_findings(r);
  for (const Finding& f : r.findings) EXPECT_NE(f.code, "p2p.slow_nic") << f.message;
}

sim::Fabric fabric_with(std::vector<sim::FaultKind> faults, int nodes = 16, uint64_t seed = 5) {
  sim::FabricSpec spec;
  spec.nodes = nodes;
  spec.nodes_per_leaf = 4;
  auto f = sim::make_fabric(spec, faults, seed);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return *f;
}

Report analyzed(const sim::Fabric& f, LinkSchedule schedule = LinkSchedule::kRail, bool describe = true) {
  sim::SimOptions o;
  o.schedule = schedule;
  o.max_rounds = 8;
  o.describe_fabric = describe;
  auto r = sim::simulate(f, o, 11);
  EXPECT_TRUE(r.ok()) << r.status().message();
  sim::analyze(*r);
  return *r;
}

std::multiset<std::string> codes(const Report& r) {
  std::multiset<std::string> out;
  for (const Finding& f : r.findings) {
    if (f.severity != Severity::kInfo) out.insert(f.code);
  }
  return out;
}

TEST(FabricSim, HealthyFabricHasNoFindingAndFullCoverage) {
  const Report r = analyzed(fabric_with({}));
  EXPECT_TRUE(codes(r).empty()) << r.findings.front().message;
  EXPECT_EQ(name(r.verdict.result), "pass");
  ASSERT_TRUE(r.p2p && r.p2p->coverage);
  EXPECT_EQ(name(r.p2p->coverage->schedule), "rail");
  EXPECT_EQ(r.p2p->coverage->host_pairs, 120u);
  EXPECT_EQ(r.p2p->coverage->measured_host_pairs, 120u);
}

TEST(FabricSim, EachFaultIsNamedOnceWhereItIs) {
  for (sim::FaultKind k : {sim::FaultKind::kSlowLink, sim::FaultKind::kSlowNic, sim::FaultKind::kSlowHost,
                           sim::FaultKind::kStraggler, sim::FaultKind::kNoisyNeighbour}) {
    const sim::Fabric f = fabric_with({k});
    const Report r = analyzed(f);
    const sim::Score s = sim::score(f, r);
    EXPECT_EQ(s.faults_found, 1) << name(k) << ": " << f.faults[0].describe();
    EXPECT_EQ(s.findings, s.findings_true) << name(k) << ": " << (s.false_findings.empty() ? "" : s.false_findings[0]);
  }
}

TEST(FabricSim, StragglerIsNotASlowLinkNorASlowNic) {
  const sim::Fabric f = fabric_with({sim::FaultKind::kStraggler});
  const Report r = analyzed(f);
  const auto c = codes(r);
  EXPECT_EQ(c.count("rank.straggler"), 1u);
  EXPECT_EQ(c.count("p2p.slow_link") + c.count("p2p.slow_nic") + c.count("p2p.slow_host"), 0u);
  ASSERT_FALSE(r.attribution.empty());
  EXPECT_EQ(name(r.attribution[0].entries.front().kind), "rank");
}

TEST(FabricSim, CongestedUplinkIsOneCauseNotDozensOfSlowLinks) {
  const sim::Fabric f = fabric_with({sim::FaultKind::kCongestedUplink}, 32);
  const Report r = analyzed(f);
  const auto c = codes(r);
  EXPECT_EQ(c.count("p2p.congested_uplink"), 1u) << f.faults[0].describe();
  EXPECT_EQ(c.count("p2p.slow_link") + c.count("p2p.congested_link"), 0u);
  EXPECT_EQ(c.count("p2p.slow_host"), 0u);
  for (const Finding& x : r.findings) {
    if (x.code == "p2p.congested_uplink") {
      EXPECT_EQ(x.evidence["leaf"], f.faults[0].leaf);
      EXPECT_TRUE(x.hosts.empty()) << "no host to drain for a switch uplink";
      EXPECT_GE(x.evidence["links"].get<int>(), static_cast<int>(kUplinkMinLinks));
    }
  }
  // Without the fabric description the same links are judged one by one (the retested
  // ones as congestion): what the description buys.
  const Report blind = analyzed(f, LinkSchedule::kRail, false);
  const auto b = codes(blind);
  EXPECT_EQ(b.count("p2p.congested_uplink"), 0u);
  EXPECT_GT(b.count("p2p.slow_link") + b.count("p2p.congested_link"), 1u);
}

// A rank on another GPU's NIC (issue 39, cause before symptom): the rank is named (p2p.slow_nic,
// the rank whose NIC it shares in the evidence); the links its traffic slows beside it and the
// uplinks its traffic across rails congests are folded under it, not findings of their own, so
// the drain list holds its host alone. A congested uplink of the same leaf that is worse than
// the rank's own links still stands.
TEST(FabricSim, WrongNicIsOneCauseNotItsCongestion) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const sim::Fabric f = fabric_with({sim::FaultKind::kWrongNic}, 32, seed);
    const Report r = analyzed(f);
    const sim::Score s = sim::score(f, r);
    EXPECT_EQ(s.faults_found, 1) << f.faults[0].describe();
    EXPECT_EQ(s.findings, s.findings_true)
        << f.faults[0].describe() << ": " << (s.false_findings.empty() ? "" : s.false_findings[0]);
    const auto c = codes(r);
    EXPECT_EQ(c.count("p2p.congested_link") + c.count("p2p.congested_uplink") + c.count("p2p.slow_link"), 0u);
    bool named = false;
    for (const Finding& x : r.findings) {
      if (x.code != "p2p.slow_nic" || x.evidence["rank"] != f.faults[0].rank) continue;
      named = true;
      EXPECT_FALSE(x.evidence["sharing_ranks"].empty()) << x.message;
      EXPECT_NE(x.message.find("of the same host"), std::string::npos) << x.message;
    }
    EXPECT_TRUE(named) << f.faults[0].describe();
    EXPECT_EQ(r.verdict.drain, std::vector<std::string>{f.faults[0].host});
  }
  // With a congested uplink too: both named (the uplink's links are slower than the rank's).
  const sim::Fabric both = fabric_with({sim::FaultKind::kWrongNic, sim::FaultKind::kCongestedUplink}, 32, 3);
  const sim::Score s = sim::score(both, analyzed(both));
  EXPECT_EQ(s.faults_found, 2) << both.faults[0].describe() << "; " << both.faults[1].describe();
}

// The flow model against what the virtual cluster measured (bench/sim_realism.sh): 8 hosts
// at 1, leaves of 4 under one uplink of 1 each way (4:1), the link between hosts 1 and 5 at
// 0.2. Two pairs across the leaves in one round: the slow link takes its 0.2 and the other
// pair the 0.8 it leaves of the uplinks (measured: 0.0048 and 0.0191 of 0.0239 GB/s), not
// half each; four pairs across share them four ways.
TEST(FlowModel, SharesResourcesMaxMinFairlyAndASlowLinkCapsItsFlows) {
  sim::FabricSpec spec;
  spec.kind = sim::FabricKind::kFatTree;
  spec.nodes = 8;
  spec.gpus_per_node = 1;
  spec.nodes_per_leaf = 4;
  spec.oversubscription = 4;
  spec.nic_gbps = 1;
  spec.noise_cv = 0;
  auto f = sim::make_fabric(spec, {}, 0);
  ASSERT_TRUE(f.ok()) << f.status().message();
  sim::Fault slow;
  slow.kind = sim::FaultKind::kSlowLink;
  slow.rank = 1;
  slow.peer_rank = 5;
  slow.host = f->hosts[1];
  slow.peer = f->hosts[5];
  slow.factor = 0.2;
  f->faults.push_back(slow);
  // Round 4 of the measured matrix: 0 <-> 3 and 6 <-> 7 within the leaves, 1 <-> 5 and 2 <-> 4 across.
  const std::vector<double> r4 = sim::model_rates(*f, {{0, 3}, {1, 5}, {2, 4}, {3, 0}, {4, 2}, {5, 1}, {6, 7}, {7, 6}});
  const std::vector<double> want4 = {1, 0.2, 0.8, 1, 0.8, 0.2, 1, 1};
  for (size_t i = 0; i < want4.size(); ++i) EXPECT_NEAR(r4[i], want4[i], 1e-9) << i;
  // Round 0: every pair across the leaves; the slow link is not in it.
  const std::vector<double> r0 = sim::model_rates(*f, {{0, 7}, {1, 6}, {2, 5}, {3, 4}, {4, 3}, {5, 2}, {6, 1}, {7, 0}});
  for (double r : r0) EXPECT_NEAR(r, 0.25, 1e-9);
  // Alone, the slow link has the path to itself and moves its 0.2.
  EXPECT_NEAR(sim::model_rates(*f, {{1, 5}})[0], 0.2, 1e-9);
}

// Under a 2:1 share a link at a quarter of its rate reads half its share's reference,
// within kSlowRatio's bound: measured again alone (a share suspect), it is p2p.slow_link.
TEST(LinkFindings, ASlowLinkTheUplinksShareHidIsFoundAlone) {
  Report r;
  r.p2p = P2pSection{};
  r.p2p->mode = P2pMode::kBidirectional;
  FabricDescription d;
  d.oversubscription = 2;
  d.switches = {{"leafA", {"h0", "h1", "h2", "h3"}, {}}, {"leafB", {"h4", "h5", "h6", "h7"}, {}}};
  r.fabric = d;
  for (int h = 0; h < 8; ++h) r.context.ranks.push_back({h, "h" + std::to_string(h), 100 + h, 0});
  // Round 0: every host paired across the leaves (share 1/2 each); round 1 within them.
  const std::vector<std::pair<int, int>> across = {{0, 4}, {1, 5}, {2, 6}, {3, 7}},
                                         within = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  for (const auto& [round, pairs] : {std::pair{0, across}, std::pair{1, within}}) {
    for (auto [a, b] : pairs) {
      for (auto [s, t] : {std::pair{a, b}, std::pair{b, a}}) {
        P2pLink l;
        l.round = round;
        l.src_rank = s;
        l.dst_rank = t;
        l.src_host = "h" + std::to_string(s);
        l.dst_host = "h" + std::to_string(t);
        l.size_bytes = 1 << 20;
        const bool slow = (s == 1 && t == 5) || (s == 5 && t == 1);
        l.bw_gbps = round == 0 ? (slow ? 0.26 : 0.5) : 1.0;
        r.p2p->links.push_back(l);
      }
    }
  }
  auto retest = links_to_retest(*r.p2p, 32, &*r.fabric);
  ASSERT_EQ(retest.size(), 2u);  // the two directions of the hidden link, nothing else
  for (P2pLink& l : retest) l.bw_gbps = 0.25;
  r.p2p->alone = retest;
  add_p2p_findings(r);
  std::set<std::string> subjects;
  for (const Finding& x : r.findings) {
    EXPECT_EQ(x.code, "p2p.slow_link");
    EXPECT_TRUE(x.evidence.value("within_share", false));
    subjects.insert(x.subject);
  }
  EXPECT_EQ(subjects, (std::set<std::string>{"link 1 -> 5 (h1 -> h5)", "link 5 -> 1 (h5 -> h1)"}));
  // Fine alone, it was the share: nothing.
  for (P2pLink& l : r.p2p->alone) l.bw_gbps = 0.95;
  r.findings.clear();
  add_p2p_findings(r);
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

// A 2:1 oversubscribed fat tree (issue 39 item 3): with the description's oversubscription,
// a healthy fabric raises nothing and each fault is named where it is; without it (judged
// as non-blocking), the healthy fabric's links across leaves read as congested.
TEST(FabricSim, OversubscribedFatTreePerformingAsDescribedRaisesNothing) {
  const auto fat = [](std::vector<sim::FaultKind> faults, uint64_t seed) {
    sim::FabricSpec spec;  // the scorecard's 512 ranks: 64 nodes, 4 leaves
    spec.kind = sim::FabricKind::kFatTree;
    spec.nodes = 64;
    spec.nodes_per_leaf = 16;
    spec.oversubscription = 2;
    auto f = sim::make_fabric(spec, faults, seed);
    EXPECT_TRUE(f.ok()) << f.status().message();
    return *f;
  };
  const auto analyzed = [](const sim::Fabric& f, LinkSchedule schedule) {
    sim::SimOptions o;
    o.schedule = schedule;
    o.max_rounds = 24;  // the scorecard's sample budget
    auto r = sim::simulate(f, o, 11);
    EXPECT_TRUE(r.ok()) << r.status().message();
    sim::analyze(*r);
    return *r;
  };
  for (LinkSchedule schedule : {LinkSchedule::kRail, LinkSchedule::kSample}) {
    for (uint64_t seed = 1; seed <= 2; ++seed) {
      const sim::Fabric healthy = fat({}, seed);
      ASSERT_EQ(healthy.description.oversubscription, 2);
      const Report r = analyzed(healthy, schedule);
      EXPECT_TRUE(codes(r).empty()) << name(schedule) << " seed " << seed << ": " << r.findings.front().message;
      for (sim::FaultKind k : {sim::FaultKind::kSlowHost, sim::FaultKind::kWrongNic, sim::FaultKind::kSlowNic}) {
        const sim::Fabric f = fat({k}, seed);
        const sim::Score s = sim::score(f, analyzed(f, schedule));
        EXPECT_EQ(s.faults_found, 1) << name(schedule) << " " << f.faults[0].describe();
        EXPECT_EQ(s.findings, s.findings_true) << name(schedule) << " " << f.faults[0].describe() << ": "
                                               << (s.false_findings.empty() ? "" : s.false_findings[0]);
      }
    }
  }
  // The same healthy fabrics judged as if non-blocking: their links across leaves read as slow.
  size_t blind_findings = 0;
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    sim::Fabric blind = fat({}, seed);
    blind.description.oversubscription = 1;
    blind_findings += codes(analyzed(blind, LinkSchedule::kSample)).size();
  }
  EXPECT_GT(blind_findings, 0u);
}

// Issue 39 item 7, the scorecard as a gate: 512 ranks, rail-optimized and a 2:1 fat tree,
// both schedules, every fault kind over a few seeds (bench/fabric_sim has the full table):
// recall and precision at the 0.95 target, and nothing on a healthy fabric. The one row
// below it today, `sample`'s single slow link (recall 0.40 at 512 ranks: a sample of 24
// rounds leaves pairs unmeasured, item 1), is held to its precision only.
TEST(FabricSimScorecard, HoldsRecallAndPrecisionAt512Ranks) {
  constexpr int kSeeds = 3;
  for (const auto& [kind, oversubscription] :
       {std::pair{sim::FabricKind::kRailOptimized, 1.0}, std::pair{sim::FabricKind::kFatTree, 2.0}}) {
    sim::FabricSpec spec;  // as bench/fabric_sim's 512 ranks
    spec.kind = kind;
    spec.nodes = 64;
    spec.nodes_per_leaf = 16;
    spec.oversubscription = oversubscription;
    // nullopt: diagnose's own plan for its default --budget 60 (auto: rail at 512 ranks).
    for (std::optional<LinkSchedule> schedule :
         {std::optional(LinkSchedule::kRail), std::optional(LinkSchedule::kSample), std::optional<LinkSchedule>()}) {
      std::vector<std::vector<sim::FaultKind>> cases = {{}};
      for (sim::FaultKind k : sim::kAllFaults) cases.push_back({k});
      for (const auto& faults : cases) {
        int found = 0, total = 0, findings = 0, right = 0;
        std::string falses;
        for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
          auto f = sim::make_fabric(spec, faults, seed);
          ASSERT_TRUE(f.ok()) << f.status().message();
          sim::SimOptions o;
          o.schedule = schedule.value_or(LinkSchedule::kSample);
          o.budget_s = schedule ? 0 : 60;
          o.max_rounds = 24;
          sim::SimPlanned planned;
          auto r = sim::simulate(*f, o, seed, &planned);
          ASSERT_TRUE(r.ok()) << r.status().message();
          // diagnose's plan at 512 ranks of 8 GPUs a host: every host pair, rail by rail.
          if (!schedule) {
            EXPECT_EQ(planned.schedule, LinkSchedule::kRail);
          }
          sim::analyze(*r);
          const sim::Score sc = sim::score(*f, *r);
          found += sc.faults_found;
          total += sc.faults;
          findings += sc.findings;
          right += sc.findings_true;
          for (const std::string& x : sc.false_findings) falses += x + "; ";
        }
        const std::string row = fmt::format("{} {} {}", sim::name(kind), schedule ? name(*schedule) : "auto",
                                            faults.empty() ? "none" : std::string(sim::name(faults[0])));
        if (faults.empty()) {
          EXPECT_EQ(findings, 0) << row << ": " << falses;
          continue;
        }
        const bool sampled_slow_link = schedule == LinkSchedule::kSample && faults[0] == sim::FaultKind::kSlowLink;
        if (!sampled_slow_link) {
          EXPECT_GE(found, 0.95 * total) << row << ": recall " << found << "/" << total;
        }
        EXPECT_GE(right, 0.95 * findings) << row << ": precision " << right << "/" << findings << ": " << falses;
      }
    }
  }
}

// A slow link between hosts next to each other in rank order (on NCCL's ring: the one that
// slows the collective) is measured by every sample, whatever its seed leaves out.
TEST(FabricSim, SampleAlwaysMeasuresTheRingsPairs) {
  sim::FabricSpec spec;  // as bench/fabric_sim's 512 ranks
  spec.nodes = 64;
  spec.nodes_per_leaf = 16;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    auto f = sim::make_fabric(spec, {sim::FaultKind::kSlowLink}, seed);
    ASSERT_TRUE(f.ok()) << f.status().message();
    sim::Fault& x = f->faults.at(0);
    const int a = static_cast<int>(seed * 7 % 63), local = x.rank % spec.gpus_per_node;
    x.host = f->hosts[static_cast<size_t>(a)];
    x.peer = f->hosts[static_cast<size_t>(a + 1)];
    x.rank = a * spec.gpus_per_node + local;
    x.peer_rank = (a + 1) * spec.gpus_per_node + local;
    sim::SimOptions o;
    o.schedule = LinkSchedule::kSample;
    o.max_rounds = 8;  // 8 of 63 host rounds
    auto r = sim::simulate(*f, o, seed);
    ASSERT_TRUE(r.ok()) << r.status().message();
    sim::analyze(*r);
    const sim::Score sc = sim::score(*f, *r);
    EXPECT_EQ(sc.faults_found, 1) << x.describe() << ": " << testing::PrintToString(sc.false_findings);
    EXPECT_TRUE(sc.false_findings.empty()) << testing::PrintToString(sc.false_findings);
  }
}

TEST(FabricSim, SampledScheduleSaysWhatItInferred) {
  const sim::Fabric f = fabric_with({sim::FaultKind::kSlowHost}, 32);
  const Report r = analyzed(f, LinkSchedule::kSample);
  ASSERT_TRUE(r.p2p->coverage);
  const LinkCoverage& c = *r.p2p->coverage;
  EXPECT_EQ(name(c.schedule), "sample");
  EXPECT_EQ(c.rounds, 8);
  EXPECT_GT(c.adaptive_rounds, 0);
  EXPECT_LT(c.measured_host_pairs, c.host_pairs);
  EXPECT_EQ(c.measured_host_pairs + c.inferred_slow + c.inferred_healthy + c.unjudged, c.host_pairs);
  EXPECT_GT(c.inferred_slow, 0u);  // the slow host's pairs not measured
  EXPECT_GT(c.inferred_healthy, 0u);
  EXPECT_EQ(codes(r).count("p2p.slow_host"), 1u);
  // The verdict says what the sample left open and what would measure every pair, once.
  const auto& notes = r.verdict.not_judged;
  const std::string want =
      fmt::format("links: the sample measured {} of {} host pairs; {} were not", c.measured_host_pairs, c.host_pairs,
                  c.host_pairs - c.measured_host_pairs - c.inferred_slow);
  ASSERT_EQ(std::count_if(notes.begin(), notes.end(), [](const std::string& n) { return n.starts_with("links: "); }), 1)
      << testing::PrintToString(notes);
  const std::string& note = *std::find_if(notes.begin(), notes.end(), [](auto& n) { return n.starts_with("links: "); });
  EXPECT_TRUE(note.starts_with(want)) << note;
  EXPECT_NE(note.find("every pair (--schedule rail) takes 31 rounds"), std::string::npos) << note;
  Report again = r;
  sim::analyze(again);
  EXPECT_EQ(std::count_if(again.verdict.not_judged.begin(), again.verdict.not_judged.end(),
                          [](const std::string& n) { return n.starts_with("links: "); }),
            1);
  // Said in words where the report is read.
  const std::string line = render_coverage(*r.p2p);
  EXPECT_NE(line.find("# Links: schedule sample, 8 rounds (3 within leaves) and"), std::string::npos) << line;
  EXPECT_NE(line.find(fmt::format("{} of {} host pairs measured; not measured: {} inferred slow", c.measured_host_pairs,
                                  c.host_pairs, c.inferred_slow)),
            std::string::npos)
      << line;
}

TEST(FabricSim, RefusesBadSpecsAndFaultNames) {
  sim::FabricSpec spec;
  spec.nodes = 1;
  EXPECT_FALSE(sim::make_fabric(spec, {}, 1).ok());
  spec.nodes = 4;
  spec.nodes_per_leaf = 8;
  auto one_leaf = sim::make_fabric(spec, {sim::FaultKind::kCongestedUplink}, 1);
  ASSERT_FALSE(one_leaf.ok());
  EXPECT_NE(one_leaf.status().message().find("two leaves"), std::string::npos);
  auto bad = sim::fault_from_name("slow_cable");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("slow_link"), std::string::npos);
  EXPECT_FALSE(link_schedule_from_name("ring").ok());
}

}  // namespace
}  // namespace fabscope
