#include <gtest/gtest.h>

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
  // Links of a slow host are the host's, not suspects to retest one by one.
  Report h = links(4, [](int a, int b) { return a == 2 || b == 2 ? 0.1 : 1.0; });
  EXPECT_TRUE(links_to_retest(*h.p2p).empty());
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
