// import: every nccl-tests fixture as a report whose numbers are the table's, through
// JSON and the rendered table again; what the files do not say is unknown; the
// collective from the file or its name; perf.dip and perf.plateau on real and made
// tables; expectations files and perf.below_expected.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "diag/expectations.h"
#include "diag/findings.h"
#include "report/import.h"
#include "report/report_json.h"
#include "report/table.h"

namespace fabscope {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::vector<std::string> kFixtures = {
    "nccl-tests-309_Dell-XE9680-H100x8-8CX7-IB400_2node_all_reduce_perf.txt",
    "nccl-tests-256_H200x8-2node-baremetal-CX7-400G_all_reduce_perf.txt",
    "nccl-tests-256_H200x8-2node-KVM-VM-with-NCCL_TOPO_FILE_all_reduce_perf.txt"};

Result<Report> import_fixture(const std::string& name, const ImportOptions& o = {}) {
  const std::string path = std::string(FABSCOPE_FIXTURES) + "/nccl-tests/" + name;
  auto tables = parse_nccl_tests(read(path), path);
  if (!tables.ok()) return tables.status();
  return import_nccl_tests({{path, *tables}}, o);
}

// The numbers of every row, as "size count type redop root t a b w t a b w" tokens.
std::vector<std::vector<std::string>> table_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::vector<std::string> tok;
    std::string t;
    while (ls >> t) tok.push_back(t);
    if (tok.size() == 13 && std::isdigit(static_cast<unsigned char>(tok[0][0]))) rows.push_back(tok);
  }
  return rows;
}

TEST(Import, EveryFixtureRoundTripsWithTheTablesNumbers) {
  for (const std::string& name : kFixtures) {
    SCOPED_TRACE(name);
    auto r = import_fixture(name);
    ASSERT_TRUE(r.ok()) << r.status().message();
    r->context.tool = {"fabscope", "0.1.0", "abc"};
    r->context.command_line = {"fabscope", "import", "nccl-tests", name};
    add_sweep_findings(*r);
    decide_verdict(*r);
    auto back = report_from_json_text(to_json_text(*r), "imported.json");
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(to_json_text(*back), to_json_text(*r));
    // The table fabscope renders from the JSON holds the original numbers.
    auto original = table_rows(read(std::string(FABSCOPE_FIXTURES) + "/nccl-tests/" + name));
    auto rendered = table_rows(render_tables(*back));
    ASSERT_EQ(original.size(), rendered.size());
    for (size_t i = 0; i < original.size(); ++i) {
      for (size_t c = 0; c < 13; ++c) {
        if (c < 5 || c == 8 || c == 12) {
          EXPECT_EQ(original[i][c], rendered[i][c]) << "row " << i << " column " << c;
        } else {
          EXPECT_DOUBLE_EQ(std::stod(original[i][c]), std::stod(rendered[i][c])) << "row " << i << " column " << c;
        }
      }
    }
    ASSERT_TRUE(back->context.imported);
    EXPECT_EQ(back->context.imported->tool, "nccl-tests");
    EXPECT_EQ(back->context.nranks, 16);
    EXPECT_EQ(back->sweeps[0].nranks, 16);
    EXPECT_DOUBLE_EQ(back->sweeps[0].busbw_factor, 30.0 / 16.0);
    EXPECT_TRUE(back->context.start_time.empty());  // not in the files: null
    for (const Finding& f : back->findings) EXPECT_NE(f.code, "perf.dip") << name << ": " << f.message;
    EXPECT_EQ(back->verdict.result, VerdictResult::kPass);
  }
}

TEST(Import, WhatTheFilesSayAndWhatTheyDoNot) {
  auto dell = import_fixture(kFixtures[0]);
  ASSERT_TRUE(dell.ok());
  EXPECT_EQ(dell->context.hosts, (std::vector<std::string>{"bm-h100-01", "bm-h100-02"}));
  EXPECT_EQ(dell->context.ranks.size(), 16u);
  EXPECT_EQ(dell->context.ranks[9].local_rank, 1);
  EXPECT_EQ(dell->context.backend_library, "NCCL 2.26.2+cuda12.8");
  ASSERT_TRUE(dell->sweep_settings);
  EXPECT_EQ(dell->sweep_settings->iters, 20);
  EXPECT_FALSE(dell->sweep_settings->seed);
  EXPECT_FALSE(dell->sweep_settings->blocking);
  EXPECT_TRUE(dell->sweep_settings->average.empty());
  EXPECT_EQ(dell->sweeps[0].points[0].out_of_place->iterations, 20);
  EXPECT_FALSE(dell->sweeps[0].points[0].out_of_place->iteration_us);
  // The VM paste has no device lines: 16 ranks from busbw / algbw = 2(n-1)/n, no hosts.
  auto vm = import_fixture(kFixtures[2]);
  ASSERT_TRUE(vm.ok());
  EXPECT_EQ(vm->context.nranks, 16);
  EXPECT_TRUE(vm->context.hosts.empty());
  EXPECT_FALSE(vm->sweep_settings);
  EXPECT_EQ(vm->sweeps[0].points[0].out_of_place->iterations, 0);  // unknown
}

TEST(Import, TheCollectiveComesFromTheFileItsNameOrTheCommandLine) {
  const std::string one =
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
      "#wrong\n"
      "     1048576        262144     float    none       0    50.00   20.97   20.97       0    50.00   20.97   20.97  "
      " "
      "    0\n"
      "# Avg bus bandwidth    : 20.97\n";
  auto tables = parse_nccl_tests(one, "run.log");
  ASSERT_TRUE(tables.ok()) << tables.status().message();
  auto unnamed = import_nccl_tests({{"run.log", *tables}}, {});
  ASSERT_FALSE(unnamed.ok());
  EXPECT_NE(unnamed.status().message().find("give --collective"), std::string::npos);
  auto by_option = import_nccl_tests({{"run.log", *tables}}, {"broadcast"});
  ASSERT_TRUE(by_option.ok()) << by_option.status().message();
  EXPECT_EQ(by_option->sweeps[0].collective, "broadcast");
  EXPECT_EQ(by_option->sweeps[0].root, 0);
  EXPECT_FALSE(by_option->sweeps[0].op);
  EXPECT_EQ(by_option->context.nranks, 0);  // broadcast's factor is 1: the file cannot say
  for (auto& t : *tables) t.source = "h100_broadcast_perf.log";
  auto by_name = import_nccl_tests({{"h100_broadcast_perf.log", *tables}}, {});
  ASSERT_TRUE(by_name.ok()) << by_name.status().message();
  EXPECT_EQ(by_name->sweeps[0].collective, "broadcast");
  auto contradicted = import_fixture(kFixtures[0], {"allgather"});
  EXPECT_TRUE(contradicted.ok());  // that file does not name its collective: the option decides
  for (auto& t : *tables) t.program = "all_reduce_perf";
  auto wrong = import_nccl_tests({{"run.log", *tables}}, {"broadcast"});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("does not match"), std::string::npos);
}

TEST(Import, RanksFromBandwidths) {
  auto tables = parse_nccl_tests(read(std::string(FABSCOPE_FIXTURES) + "/nccl-tests/" + kFixtures[1]), "x");
  ASSERT_TRUE(tables.ok());
  EXPECT_EQ(ranks_from_bandwidths(Collective::kAllReduce, (*tables)[0].rows), 16);
  EXPECT_EQ(ranks_from_bandwidths(Collective::kAllGather, (*tables)[0].rows), std::nullopt);  // 1.875 > 1
  EXPECT_EQ(ranks_from_bandwidths(Collective::kBroadcast, (*tables)[0].rows), std::nullopt);
}

// A sweep from its (size, busbw) points; time follows from a factor of 1.
Report sweep_of(const std::vector<std::pair<uint64_t, double>>& points) {
  Report r;
  Sweep s;
  s.collective = "allreduce";
  s.dtype = "float";
  s.op = "sum";
  s.backend = "nccl";
  s.nranks = 2;
  s.busbw_factor = 1;
  for (const auto& [size, busbw] : points) {
    SweepPoint p;
    p.size_bytes = size;
    PlacementResult pr;
    pr.busbw_gbps = pr.algbw_gbps = busbw;
    pr.time_us = static_cast<double>(size) / (busbw * 1e3);
    p.out_of_place = pr;
    s.points.push_back(p);
  }
  r.sweeps.push_back(s);
  return r;
}

std::vector<Finding> with_code(const Report& r, const std::string& code) {
  std::vector<Finding> out;
  for (const Finding& f : r.findings) {
    if (f.code == code) out.push_back(f);
  }
  return out;
}

TEST(PerfRules, ADipBelowBothNeighboursIsFound) {
  Report r = sweep_of({{1 << 20, 10}, {2 << 20, 20}, {4 << 20, 9}, {8 << 20, 40}, {16 << 20, 42}});
  add_sweep_findings(r);
  auto dips = with_code(r, "perf.dip");
  ASSERT_EQ(dips.size(), 1u);
  EXPECT_EQ(dips[0].severity, Severity::kWarning);
  EXPECT_EQ(dips[0].evidence["size_bytes"], 4 << 20);
  EXPECT_NE(dips[0].message.find("4 MiB"), std::string::npos) << dips[0].message;
  // Latency-bound neighbours (under 5% of the peak) are not judged.
  Report small = sweep_of({{8, 0.001}, {16, 0.0001}, {32, 0.004}, {1 << 30, 400}});
  add_sweep_findings(small);
  EXPECT_TRUE(with_code(small, "perf.dip").empty());
}

TEST(PerfRules, APlateauIsNoted) {
  Report r = sweep_of({{1 << 20, 10}, {4 << 20, 40}, {16 << 20, 97}, {64 << 20, 99}, {256 << 20, 100}});
  add_sweep_findings(r);
  auto p = with_code(r, "perf.plateau");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].severity, Severity::kInfo);
  EXPECT_EQ(p[0].evidence["plateau_bytes"], 16 << 20);
  EXPECT_FALSE(p[0].evidence["falls"].get<bool>());
  Report growing = sweep_of({{1 << 20, 10}, {4 << 20, 40}, {16 << 20, 70}, {64 << 20, 99}});
  add_sweep_findings(growing);
  EXPECT_TRUE(with_code(growing, "perf.plateau").empty());
}

TEST(Expectations, FileErrorsNameTheEntryAndTheKey) {
  auto bad = [](const std::string& text, const std::string& part) {
    auto e = expectations_from_json_text(text, "acc.json");
    ASSERT_FALSE(e.ok()) << text;
    EXPECT_NE(e.status().message().find("acc.json"), std::string::npos) << e.status().message();
    EXPECT_NE(e.status().message().find(part), std::string::npos) << e.status().message();
  };
  bad("not json", "not valid JSON");
  bad("{\"expect\": []}", "not an expectations file");
  bad("{\"schema\": \"fabscope.expect/1\", \"expect\": []}", "non-empty array");
  const std::string head = "{\"schema\": \"fabscope.expect/1\", \"expect\": [";
  bad(head + "{\"collective\": \"allreduce\"}]}", "expect[0] needs exactly one bar");
  bad(head + "{\"collective\": \"allrduce\", \"min_busbw_gbps\": 1}]}", "expect[0]");
  bad(head + "{\"collective\": \"allreduce\", \"min_busbw_gbps\": 1, \"bogus\": 2}]}", "unknown key 'bogus'");
  bad(head + "{\"collective\": \"allreduce\", \"min_busbw_gbps\": 1, \"from_bytes\": \"12Q\"}]}", "from_bytes");
  bad(head + "{\"collective\": \"allreduce\", \"min_bw_gbps\": 1}]}", "a bar for p2p links");
  bad(head + "{\"p2p\": \"lat\", \"min_bw_gbps\": 1}]}", "takes max_lat_us");
  bad(head + "{\"collective\": \"allreduce\", \"max_time_us\": -3}]}", "above 0");
}

TEST(Expectations, PointsBelowTheBarAreErrorsWithFigureBarAndRatio) {
  auto e = expectations_from_json_text(R"({"schema": "fabscope.expect/1", "expect": [
      {"collective": "all_reduce", "backend": "nccl", "from_bytes": "4M", "min_busbw_gbps": 30, "note": "2 x 400G"},
      {"collective": "allreduce", "to_bytes": "1M", "max_time_us": 200},
      {"collective": "alltoall", "min_busbw_gbps": 1}]})",
                                       "acc.json");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->entries[0].describe(), "allreduce busbw_gbps >= 30 GB/s from 4 MiB (nccl)");
  Report r = sweep_of({{1 << 20, 10}, {4 << 20, 20}, {8 << 20, 40}, {16 << 20, 42}});
  add_expectation_findings(r, *e);
  auto below = with_code(r, "perf.below_expected");
  ASSERT_EQ(below.size(), 1u);  // 4 MiB at 20 GB/s; 1 MiB takes 104.9 us < 200
  EXPECT_EQ(below[0].severity, Severity::kError);
  EXPECT_EQ(below[0].evidence["points_missed"], 1);
  EXPECT_EQ(below[0].evidence["points_covered"], 3);
  EXPECT_DOUBLE_EQ(below[0].evidence["worst"]["ratio"].get<double>(), 20.0 / 30.0);
  EXPECT_NE(below[0].message.find("4 MiB"), std::string::npos) << below[0].message;
  EXPECT_NE(below[0].message.find("0.67 of the bar"), std::string::npos) << below[0].message;
  auto unmeasured = with_code(r, "perf.not_measured");
  ASSERT_EQ(unmeasured.size(), 1u);  // alltoall
  EXPECT_NE(unmeasured[0].message.find("alltoall"), std::string::npos);
  decide_verdict(r);
  EXPECT_EQ(name(r.verdict.result), "fail");
}

TEST(Expectations, P2pLinksBelowTheBarNameTheirHosts) {
  auto e = expectations_from_json_text(
      R"({"schema": "fabscope.expect/1", "expect": [{"p2p": "bw", "min_bw_gbps": 5}]})", "acc.json");
  ASSERT_TRUE(e.ok()) << e.status().message();
  Report r;
  r.p2p.emplace();
  r.p2p->pattern = P2pPattern::kPairs;
  r.p2p->mode = P2pMode::kBandwidth;
  r.p2p->backend = "tcp";
  r.p2p->window = 16;
  r.p2p->warmup_iters = 2;
  r.p2p->repeats = 1;
  for (int dir = 0; dir < 2; ++dir) {
    P2pLink l;
    l.src_rank = dir;
    l.dst_rank = 1 - dir;
    l.src_host = dir ? "b" : "a";
    l.dst_host = dir ? "a" : "b";
    l.size_bytes = 1 << 20;
    l.bw_gbps = dir ? 2.0 : 9.0;
    r.p2p->links.push_back(l);
  }
  add_expectation_findings(r, *e);
  auto below = with_code(r, "perf.below_expected");
  ASSERT_EQ(below.size(), 1u);
  EXPECT_EQ(below[0].hosts, (std::vector<std::string>{"b", "a"}));
  EXPECT_NE(below[0].subject.find("b -> a"), std::string::npos);
}

}  // namespace
}  // namespace fabscope
