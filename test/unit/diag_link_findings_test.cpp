#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "diag/findings.h"
#include "diag/rules.h"

namespace fabscope {
namespace {

Report links(int nhosts, const std::function<double(int, int)>& bw) {
  Report r;
  r.p2p = P2pSection{};
  r.p2p->mode = P2pMode::kBandwidth;
  for (int a = 0; a < nhosts; ++a) {
    for (int b = 0; b < nhosts; ++b) {
      if (a == b) continue;
      P2pLink l;
      l.src_rank = a;
      l.dst_rank = b;
      l.src_host = "h" + std::to_string(a);
      l.dst_host = "h" + std::to_string(b);
      l.size_bytes = 1 << 20;
      l.bw_gbps = bw(a, b);
      r.p2p->links.push_back(l);
    }
  }
  return r;
}

// A link's two ranks, the lower first: bibw measures both directions at once.
std::pair<int, int> ends(const P2pLink& l) {
  return {std::min(l.src_rank, l.dst_rank), std::max(l.src_rank, l.dst_rank)};
}

std::vector<std::string> subjects(const Report& r, const std::string& code) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) {
    if (f.code == code) out.push_back(f.subject);
  }
  return out;
}

TEST(LinkFindings, HealthyFleetHasNone) {
  Report r = links(4, [](int a, int b) { return 1.0 + 0.05 * ((a + 2 * b) % 3); });
  add_p2p_findings(r);
  EXPECT_TRUE(r.findings.empty());
}

TEST(LinkFindings, ASlowHostIsNamedAndItsLinksAreNotBlamedOneByOne) {
  // Host 2 at a tenth: 6 of 12 links touch it, so the median of all links is useless.
  Report r = links(4, [](int a, int b) { return a == 2 || b == 2 ? 0.1 : 1.0; });
  add_p2p_findings(r);
  EXPECT_EQ(subjects(r, "p2p.slow_host"), std::vector<std::string>{"host h2"});
  EXPECT_TRUE(subjects(r, "p2p.slow_link").empty());
  decide_verdict(r);
  EXPECT_EQ(r.verdict.drain, std::vector<std::string>{"h2"});
}

TEST(LinkFindings, OneBadLinkBetweenHealthyHostsIsALink) {
  Report r = links(4, [](int a, int b) { return a == 0 && b == 3 ? 0.2 : 1.0; });
  add_p2p_findings(r);
  EXPECT_TRUE(subjects(r, "p2p.slow_host").empty());
  EXPECT_EQ(subjects(r, "p2p.slow_link"), std::vector<std::string>{"link 0 -> 3 (h0 -> h3)"});
  decide_verdict(r);
  EXPECT_EQ(r.verdict.drain, (std::vector<std::string>{"h0", "h3"}));  // both ends of the link
}

// --retest: the suspect measured alone tells the link from congestion.
TEST(LinkFindings, ASlowLinkThatIsFastAloneIsCongestion) {
  Report r = links(4, [](int a, int b) { return a == 0 && b == 3 ? 0.2 : 1.0; });
  auto suspects = links_to_retest(*r.p2p);
  ASSERT_EQ(suspects.size(), 1u);
  EXPECT_EQ(suspects[0].src_rank, 0);
  EXPECT_EQ(suspects[0].dst_rank, 3);
  P2pLink alone = suspects[0];
  alone.bw_gbps = 0.9;  // fine with the fabric to itself
  r.p2p->alone = {alone};
  add_p2p_findings(r);
  EXPECT_TRUE(subjects(r, "p2p.slow_link").empty());
  ASSERT_EQ(subjects(r, "p2p.congested_link"), std::vector<std::string>{"link 0 -> 3 (h0 -> h3)"});
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_DOUBLE_EQ(f.evidence["impact_factor"].get<double>(), 0.9 / 0.2);
  decide_verdict(r);
  EXPECT_EQ(name(r.verdict.result), "pass");  // congestion drains no host
  EXPECT_TRUE(r.verdict.drain.empty());
}

// diagnose: the noise phase measures the link matrix again beside the same flows. A link
// congested once and at the median the second time passed; one slow both times stays.
TEST(LinkFindings, CongestionSeenOnceOfTwoLoadedMeasurementsPassed) {
  for (const double again : {0.95, 0.3}) {
    Report r = links(4, [](int a, int b) { return a == 0 && b == 3 ? 0.2 : 1.0; });
    P2pLink alone = links_to_retest(*r.p2p).at(0);
    alone.bw_gbps = 0.9;
    r.p2p->alone = {alone};
    r.diagnosis = Diagnosis();
    r.diagnosis->link_size_bytes = 1 << 20;
    r.diagnosis->link_noise.push_back({0, 3, "h0", "h3", {0.2, again}, 0.6, 4.5});
    add_p2p_findings(r);
    settle_passing_congestion(r);
    ASSERT_EQ(subjects(r, "p2p.congested_link"), std::vector<std::string>{"link 0 -> 3 (h0 -> h3)"});
    const Finding& f = r.findings[0];
    if (again > 0.5) {
      EXPECT_EQ(f.severity, Severity::kInfo);
      EXPECT_EQ(f.evidence["again_loaded"][0].get<double>(), 0.95);
      EXPECT_NE(f.message.find("measured again beside the same flows it ran at 0.950 GB/s, 95% of the median: it "
                               "passed"),
                std::string::npos)
          << f.message;
    } else {
      EXPECT_EQ(f.severity, Severity::kWarning);
      EXPECT_FALSE(f.evidence.contains("again_loaded"));
    }
  }
}

TEST(LinkFindings, ASlowLinkThatIsSlowAloneTooIsTheLink) {
  Report r = links(4, [](int a, int b) { return a == 0 && b == 3 ? 0.2 : 1.0; });
  P2pLink alone = links_to_retest(*r.p2p).at(0);
  alone.bw_gbps = 0.21;
  r.p2p->alone = {alone};
  add_p2p_findings(r);
  EXPECT_TRUE(subjects(r, "p2p.congested_link").empty());
  ASSERT_EQ(subjects(r, "p2p.slow_link"), std::vector<std::string>{"link 0 -> 3 (h0 -> h3)"});
  EXPECT_DOUBLE_EQ(r.findings[0].evidence["alone"].get<double>(), 0.21);
  EXPECT_NE(r.findings[0].message.find("and 0.210 GB/s alone"), std::string::npos) << r.findings[0].message;
  // Links of a slow host are the host's, not suspects to retest one by one: two of them
  // are retested, to tell the host from the matrix's other flows.
  Report h = links(4, [](int a, int b) { return a == 2 || b == 2 ? 0.1 : 1.0; });
  const std::vector<P2pLink> host_links = links_to_retest(*h.p2p);
  ASSERT_EQ(host_links.size(), kHostRetests);
  for (const P2pLink& l : host_links) EXPECT_TRUE(l.src_host == "h2" || l.dst_host == "h2");
  EXPECT_NE(ends(host_links[0]), ends(host_links[1]));
}

// A host slow in the matrix is retested alone: slow alone too, it is the host.
TEST(LinkFindings, AHostSlowAloneTooStaysSlow) {
  Report r = links(4, [](int a, int b) { return a == 2 || b == 2 ? 0.1 : 1.0; });
  for (P2pLink l : links_to_retest(*r.p2p)) {
    l.bw_gbps = 0.12;
    r.p2p->alone.push_back(l);
  }
  EXPECT_TRUE(links_to_retest(*r.p2p).empty());  // retested: the second pass has nothing new
  add_p2p_findings(r);
  ASSERT_EQ(subjects(r, "p2p.slow_host"), std::vector<std::string>{"host h2"});
  EXPECT_EQ(r.findings[0].evidence["retested_alone"].get<size_t>(), kHostRetests);
  EXPECT_DOUBLE_EQ(r.findings[0].evidence["median_alone_gbps"].get<double>(), 0.12);
  EXPECT_NE(r.findings[0].message.find("2 of them alone: 0.120 GB/s"), std::string::npos) << r.findings[0].message;
}

// The vcluster's noisy case (6 hosts on 2 cores): host 1's links below half the others'
// beside the matrix's flows, its link to host 2 at a tenth. Alone, host 1's links are fast:
// it is not the host, and the second pass retests the links it hid, the slowest first.
TEST(LinkFindings, AHostFastAloneIsNotSlowAndTheLinksItHidAreRetested) {
  Report r = links(6, [](int a, int b) {
    if ((a == 1 && b == 2) || (a == 2 && b == 1)) return 0.1;
    return a == 1 || b == 1 ? 0.45 : 1.0;
  });
  add_p2p_findings(r);
  ASSERT_EQ(subjects(r, "p2p.slow_host"), std::vector<std::string>{"host h1"});
  std::set<std::pair<int, int>> retested;
  for (P2pLink l : links_to_retest(*r.p2p)) {
    EXPECT_NE(ends(l), std::make_pair(1, 2));  // links from its median, not its slowest
    retested.insert(ends(l));
    l.bw_gbps = 0.95;
    r.p2p->alone.push_back(l);
  }
  ASSERT_EQ(retested.size(), kHostRetests);
  r.findings.clear();
  add_p2p_findings(r);
  EXPECT_TRUE(subjects(r, "p2p.slow_host").empty());
  const std::vector<std::string> slow = subjects(r, "p2p.slow_link");
  for (const char* link : {"link 1 -> 2 (h1 -> h2)", "link 2 -> 1 (h2 -> h1)"}) {
    EXPECT_NE(std::find(slow.begin(), slow.end(), link), slow.end()) << link;
  }
  for (const std::string& s : subjects(r, "p2p.congested_link")) EXPECT_NE(s.find("h1"), std::string::npos) << s;
  std::vector<std::pair<int, int>> fresh;  // what the second pass measures
  for (const P2pLink& l : links_to_retest(*r.p2p)) {
    if (!retested.count(ends(l))) fresh.push_back(ends(l));
  }
  ASSERT_FALSE(fresh.empty());
  EXPECT_EQ(fresh.front(), std::make_pair(1, 2));
}

TEST(LinkFindings, LatencyIsWorseWhenHigher) {
  Report r = links(4, [](int, int) { return 0.0; });
  r.p2p->mode = P2pMode::kLatency;
  for (P2pLink& l : r.p2p->links) {
    l.bw_gbps.reset();
    l.lat_us = (l.src_rank == 1 || l.dst_rank == 1) ? 50.0 : 5.0;
  }
  add_p2p_findings(r);
  EXPECT_EQ(subjects(r, "p2p.slow_host"), std::vector<std::string>{"host h1"});
}

}  // namespace
}  // namespace fabscope
