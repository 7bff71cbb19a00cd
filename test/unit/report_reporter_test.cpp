// The output seam: what TextReporter streams while a sweep runs is what it prints from
// the finished report, and the file formats come from one table.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "core/atomic_file.h"
#include "report/report_json.h"
#include "report/reporter.h"
#include "report/text_reporter.h"

namespace fabscope {
namespace {

Report two_collectives() {
  Report r;
  r.context.tool = {"fabscope", "0.1.0", "abc"};
  r.context.backend = "mpi";
  r.context.memory = "host";
  r.context.nranks = 2;
  r.context.ranks = {{0, "n1", 10, 0}, {1, "n1", 11, 1}};
  r.sweep_settings = SweepSettings{8, 64, 0, 8, 5, 1, 1, "mean", 1};
  for (const char* coll : {"allreduce", "broadcast"}) {
    Sweep s;
    s.collective = coll;
    s.dtype = "float";
    s.backend = "mpi";
    s.nranks = 2;
    for (uint64_t size : {8, 64}) {
      PlacementResult p;
      p.time_us = 3.5;
      p.algbw_gbps = static_cast<double>(size) / 3500.0;
      p.busbw_gbps = p.algbw_gbps;
      p.wrong = 0;
      s.points.push_back({size, size / 4, p, p, ""});
    }
    r.sweeps.push_back(s);
  }
  decide_verdict(r);
  return r;
}

std::string captured(const std::function<void(std::FILE*)>& write) {
  std::FILE* f = std::tmpfile();
  write(f);
  std::rewind(f);
  std::string out;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

TEST(TextReporter, StreamedSweepEqualsTheFinishedReportsText) {
  const Report r = two_collectives();
  const std::string streamed = captured([&](std::FILE* f) {
    TextReporter t(f);
    t.on_start(r);
    for (const Sweep& s : r.sweeps) {
      t.on_sweep_begin(s);
      for (const SweepPoint& p : s.points) t.on_point(s, p);
    }
    ASSERT_TRUE(t.finish(r).ok());
  });
  const std::string whole = captured([&](std::FILE* f) { ASSERT_TRUE(TextReporter(f).finish(r).ok()); });
  EXPECT_EQ(streamed, whole);
  EXPECT_EQ(whole, render_text(r));
  EXPECT_NE(whole.find("# Collective test concluded: broadcast"), std::string::npos) << whole;
  EXPECT_NE(whole.find("# Verdict: pass"), std::string::npos);
}

TEST(Reporters, FileFormatsComeFromTheirTableAndCheckTheirPathFirst) {
  std::set<std::string_view> names;
  for (const OutputFormat& f : output_formats()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_TRUE(f.option.starts_with("--")) << f.option;
    EXPECT_FALSE(f.help.empty());
  }
  ASSERT_TRUE(names.count("json"));
  const auto dir = std::filesystem::temp_directory_path() / "fabscope_reporter_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "run.json").string();
  const Report r = two_collectives();
  auto out = make_reporters({{"json", path}}, nullptr);
  ASSERT_TRUE(out->preflight().ok());
  ASSERT_TRUE(out->finish(r).ok());
  EXPECT_EQ(*read_file(path), to_json_text(r));
  auto bad = make_reporters({{"json", "/nonexistent-dir/run.json"}}, nullptr);
  Status s = bad->preflight();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent-dir"), std::string::npos) << s.message();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fabscope
