#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "diag/findings.h"
#include "report/report_json.h"
#include "report/table.h"

namespace fabscope {
namespace {

Report sample_report() {
  Report r;
  r.context.tool = {"fabscope", "0.1.0", "abc123"};
  r.context.command_line = {"fabscope", "sweep", "allreduce"};
  r.context.start_time = "2026-11-22T07:28:32.123Z";
  r.context.end_time = "2026-11-22T07:28:33.456Z";
  r.context.backend = "mpi";
  r.context.backend_library = "Open MPI v4.1.4";
  r.context.memory = "host";
  r.context.build = {{"cuda", "13.0.88"}, {"nccl", std::nullopt}};
  r.context.nranks = 2;
  r.context.hosts = {"n1", "n2"};
  r.context.ranks = {{0, "n1", 100, 0}, {1, "n2", 200, 0}};
  r.context.environment = {{"NCCL_DEBUG", "INFO"}};
  r.sweep_settings = SweepSettings{8, 1024, 1 << 20, 2, 20, 1, 1, "mean", 42};
  Sweep s;
  s.collective = "allreduce";
  s.dtype = "float";
  s.op = "sum";
  s.backend = "mpi";
  s.nranks = 2;
  s.busbw_factor = 1.0;
  SweepPoint p;
  p.size_bytes = 1024;
  p.count = 256;
  PlacementResult pr;
  pr.time_us = 12.345678901234567;
  pr.algbw_gbps = 0.0829;
  pr.busbw_gbps = 0.0829;
  pr.wrong = 3;
  pr.wrong_ranks = {1};
  pr.iterations = 20;
  pr.iteration_us = TimeStats{10, 12, 12.5, 20, 19.9};
  pr.samples_us = {10, 12, 12, 20};
  pr.per_rank = {{0, 12, 12.1, 10, 20}, {1, 12.2, 12.3, 11, 19}};
  p.out_of_place = pr;
  s.points.push_back(p);
  r.sweeps.push_back(s);
  Sweep b = s;
  b.collective = "broadcast";
  b.op.reset();
  b.root = 1;
  b.points[0].out_of_place->wrong.reset();
  b.points[0].out_of_place->wrong_ranks.clear();
  b.points[0].in_place = b.points[0].out_of_place;
  r.sweeps.push_back(b);
  add_sweep_findings(r);
  decide_verdict(r);
  return r;
}

TEST(ReportJson, RoundTripIsLossless) {
  Report r = sample_report();
  std::string text = to_json_text(r);
  auto back = report_from_json_text(text, "sample");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(to_json_text(*back), text);
  // Doubles survive exactly, so the table rendered from the file is the table printed live.
  EXPECT_EQ(back->sweeps[0].points[0].out_of_place->time_us, 12.345678901234567);
  EXPECT_EQ(render_tables(*back), render_tables(r));
}

// What one rank's diagnose did not judge: in the JSON when there is any, read back, and
// no reason for an inconclusive verdict.
TEST(ReportJson, NotJudgedRoundTripsAndIsAbsentWhenEmpty) {
  Report r = sample_report();
  EXPECT_FALSE(nlohmann::json::parse(to_json_text(r))["verdict"].contains("not_judged"));
  r.verdict.not_judged = {"links: the link matrix needs 2 or more ranks; this job has 1"};
  decide_verdict(r);
  EXPECT_NE(name(r.verdict.result), "inconclusive");
  const std::string text = to_json_text(r);
  EXPECT_EQ(nlohmann::json::parse(text)["verdict"]["not_judged"][0],
            "links: the link matrix needs 2 or more ranks; this job has 1");
  auto back = report_from_json_text(text, "one rank");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->verdict.not_judged, r.verdict.not_judged);
  EXPECT_EQ(to_json_text(*back), text);
}

TEST(ReportJson, PublicKeyPathsAndNulls) {
  auto j = nlohmann::json::parse(to_json_text(sample_report()));
  EXPECT_EQ(j["schema"], "fabscope.report/1");
  const auto& s0 = j["sweeps"][0];
  EXPECT_EQ(s0["collective"], "allreduce");
  EXPECT_EQ(s0["dtype"], "float");
  EXPECT_EQ(s0["op"], "sum");
  EXPECT_EQ(s0["backend"], "mpi");
  EXPECT_TRUE(s0["root"].is_null());
  const auto& p = s0["points"][0];
  EXPECT_TRUE(p["size_bytes"].is_number_integer());
  EXPECT_TRUE(p["count"].is_number_integer());
  EXPECT_TRUE(p["out_of_place"]["time_us"].is_number());
  EXPECT_TRUE(p["out_of_place"]["algbw_gbps"].is_number());
  EXPECT_TRUE(p["out_of_place"]["busbw_gbps"].is_number());
  EXPECT_EQ(p["out_of_place"]["wrong"], 3);
  EXPECT_TRUE(p["in_place"].is_null());
  const auto& b = j["sweeps"][1];
  EXPECT_TRUE(b["op"].is_null());
  EXPECT_EQ(b["root"], 1);
  EXPECT_TRUE(b["points"][0]["in_place"]["wrong"].is_null());
  EXPECT_TRUE(j["context"]["build"]["nccl"].is_null());
}

TEST(ReportJson, NcclRunSettingsRoundTripAndOlderReportsReadWithDefaults) {
  Report r = sample_report();
  r.context.backend = "nccl";
  r.context.memory = "cuda";
  r.context.nccl_debug = NcclDebugLog{"/logs", "INIT,NET,GRAPH", {"/logs/nccl-n1-r0.log", "/logs/nccl-n2-r1.log"}};
  r.sweep_settings->graph_launches = 10;
  r.sweeps[0].iteration_clock = IterationTimer::kCudaGraphLaunch;
  const std::string text = to_json_text(r);
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["sweep_settings"]["graph_launches"], 10);
  EXPECT_EQ(j["sweep_settings"]["blocking"], 0);
  EXPECT_EQ(j["sweeps"][0]["iteration_clock"], "cuda_graph_launch");
  EXPECT_EQ(j["sweeps"][1]["iteration_clock"], "host");
  EXPECT_EQ(j["context"]["nccl_debug"]["files"][1], "/logs/nccl-n2-r1.log");
  auto back = report_from_json_text(text, "nccl");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(to_json_text(*back), text);
  // A report from before these keys existed (a CI baseline) still loads.
  j["sweep_settings"].erase("graph_launches");
  j["sweep_settings"].erase("blocking");
  j["sweeps"][0].erase("iteration_clock");
  j["context"].erase("nccl_debug");
  auto old = report_from_json_text(j.dump(), "old");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->sweep_settings->graph_launches, 0);
  EXPECT_EQ(name(old->sweeps[0].iteration_clock), "host");
  EXPECT_FALSE(old->context.nccl_debug.has_value());
  j["sweeps"][0]["iteration_clock"] = 7;
  auto bad = report_from_json_text(j.dump(), "bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sweeps[0].iteration_clock is not a string"), std::string::npos)
      << bad.status().message();
}

TEST(ReportJson, MalformedInputsNameTheProblem) {
  auto not_json = report_from_json_text("{\"schema\": ", "run.json");
  ASSERT_FALSE(not_json.ok());
  EXPECT_NE(not_json.status().message().find("'run.json' is not valid JSON"), std::string::npos);

  auto wrong_schema = report_from_json_text(R"({"schema": "other/9"})", "x.json");
  ASSERT_FALSE(wrong_schema.ok());
  EXPECT_NE(wrong_schema.status().message().find("other/9"), std::string::npos);

  auto j = nlohmann::json::parse(to_json_text(sample_report()));
  j["sweeps"][0]["points"][0]["out_of_place"]["time_us"] = "12.3";  // a number written as a string
  auto bad_type = report_from_json_text(j.dump(), "y.json");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_NE(bad_type.status().message().find("sweeps[0].points[0].out_of_place.time_us is not a number"),
            std::string::npos)
      << bad_type.status().message();

  j = nlohmann::json::parse(to_json_text(sample_report()));
  j["sweeps"][1].erase("collective");
  auto missing = report_from_json_text(j.dump(), "z.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("sweeps[1].collective is missing"), std::string::npos)
      << missing.status().message();
}

Report sample_topology_report() {
  Report r = sample_report();
  TopoHostEntry h;
  h.host = "n1";
  h.sources = {"nccl-topo:n1.xml"};
  h.numa = {{0, "0-31"}};
  h.gpus = {{0, "0000:07:00.0", 0, "H100", 64.0, std::nullopt, true, "0-31"}};
  h.nics = {
      {"mlx5_0", "0000:0c:00.0", 0, true, 400.0, 32.0, std::nullopt, {{1, "ACTIVE", 400.0, "InfiniBand", "ib0"}}}};
  h.paths = {{0}, {"mlx5_0"}, {{"PIX"}}};
  h.nccl = {"mlx5_0", "--nccl-ib-hca", {"mlx5_0"}, {"mlx5_0"}};
  h.mapping = {{0, "PIX", {"mlx5_0"}, "mlx5_0", "PIX", {}, std::nullopt}};
  h.ranks = {{0, 0, 0, "0-31"}};
  r.topology = TopologySection{{h}};
  Finding f;
  f.code = "topo.nic_far";
  f.severity = Severity::kWarning;
  f.subject = "GPU 0";
  f.message = "m";
  f.evidence = {{"gpu", 0}, {"path", "SYS"}};
  r.findings.push_back(f);
  return r;
}

TEST(ReportJson, TopologyAndFindingsRoundTripTyped) {
  Report r = sample_topology_report();
  const std::string text = to_json_text(r);
  auto back = report_from_json_text(text, "topo");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(to_json_text(*back), text);
  ASSERT_TRUE(back->topology.has_value());
  EXPECT_EQ(back->topology->hosts[0].paths.classes[0][0], "PIX");
  EXPECT_EQ(back->topology->hosts[0].nics[0].ports[0].rate_gbits, 400.0);
  EXPECT_EQ(back->findings.back().severity, Severity::kWarning);
  EXPECT_EQ(back->findings.back().evidence["path"], "SYS");
}

// A malformed topology section is an error naming the key, never a crash in the
// renderer (topology.hosts[0].gpus = 5 aborted `fabscope report` with exit 134).
TEST(ReportJson, MalformedTopologyAndFindingsNameTheKey) {
  const auto doc = nlohmann::ordered_json::parse(to_json_text(sample_topology_report()));
  auto expect_error = [&](const std::function<void(nlohmann::ordered_json&)>& mutate, const std::string& want) {
    auto j = doc;
    mutate(j);
    auto r = report_from_json_text(j.dump(), "t.json");
    ASSERT_FALSE(r.ok()) << want;
    EXPECT_NE(r.status().message().find(want), std::string::npos) << r.status().message();
  };
  expect_error([](auto& j) { j["topology"]["hosts"][0]["gpus"] = 5; }, "topology.hosts[0].gpus is not an array");
  expect_error([](auto& j) { j["topology"]["hosts"][0]["paths"]["classes"][0] = nlohmann::ordered_json::array(); },
               "topology.hosts[0].paths.classes[0] does not have one class per NIC");
  expect_error([](auto& j) { j["topology"]["hosts"][0]["paths"]["gpus"].push_back(1); },
               "topology.hosts[0].paths.classes does not have one row per GPU");
  expect_error([](auto& j) { j["topology"]["hosts"][0]["nics"][0]["ports"] = "x"; },
               "topology.hosts[0].nics[0].ports is not an array");
  expect_error([](auto& j) { j["topology"]["hosts"][0]["nics"][0]["rdma"] = "yes"; },
               "topology.hosts[0].nics[0].rdma is not a boolean");
  expect_error([](auto& j) { j["topology"]["hosts"] = nlohmann::ordered_json::object(); },
               "topology.hosts is not an array");
  expect_error([](auto& j) { j["findings"].back()["severity"] = "fatal"; },
               "findings[1].severity 'fatal' is not info, warning or error");
  expect_error([](auto& j) { j["findings"].back()["evidence"] = "{}"; }, "findings[1].evidence is not an object");
  // A named value (core/named_enum.h) outside its names: the key, the value, what is allowed.
  expect_error([](auto& j) { j["verdict"]["result"] = "maybe"; },
               "verdict.result is 'maybe', not one of pass, fail, inconclusive");
  expect_error([](auto& j) { j["sweeps"][0]["iteration_clock"] = "wall"; },
               "sweeps[0].iteration_clock is 'wall', not one of host, cuda_event, cuda_graph_launch");
  expect_error([](auto& j) { j["verdict"]["result"] = 1; }, "verdict.result is not a string");
  expect_error([](auto& j) { j["context"]["nranks"] = 1e12; }, "context.nranks is not an integer");
  expect_error([](auto& j) { j["context"]["nranks"] = 5000000000; }, "context.nranks is out of range");
}

TEST(ReportJson, LoadReportsUnreadableFiles) {
  auto r = load_report("/nonexistent/dir/run.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/dir/run.json"), std::string::npos);
  auto d = load_report("/tmp");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("is a directory"), std::string::npos);
}

}  // namespace
}  // namespace fabscope
