// nccl-tests output: the real tables in test/fixtures/nccl-tests, every layout variant
// written inline (old columns, -I, -C, N/A, several collectives, launcher prefixes,
// interleaved NCCL log lines, -J JSON), the errors a truncated or garbled paste gives,
// and fuzzed copies of a real table.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "report/nccl_tests_parse.h"

namespace fabscope {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(FABSCOPE_FIXTURES) + "/nccl-tests/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* kDell = "nccl-tests-309_Dell-XE9680-H100x8-8CX7-IB400_2node_all_reduce_perf.txt";
const char* kBare = "nccl-tests-256_H200x8-2node-baremetal-CX7-400G_all_reduce_perf.txt";
const char* kVm = "nccl-tests-256_H200x8-2node-KVM-VM-with-NCCL_TOPO_FILE_all_reduce_perf.txt";

TEST(NcclTestsParse, BareMetalFixture) {
  auto t = parse_nccl_tests(fixture(kBare), "bare.txt");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 1u);
  const NcclTestsTable& x = (*t)[0];
  ASSERT_EQ(x.rows.size(), 3u);
  const NcclTestsRow& r = x.rows[0];
  EXPECT_EQ(r.size_bytes, 1073741824u);
  EXPECT_EQ(r.count, 268435456u);
  EXPECT_EQ(r.type, "float");
  EXPECT_EQ(r.redop, "sum");
  EXPECT_EQ(r.root, -1);
  EXPECT_DOUBLE_EQ(r.out_of_place->time_us, 4389.5);
  EXPECT_DOUBLE_EQ(r.out_of_place->algbw_gbps, 244.62);
  EXPECT_DOUBLE_EQ(r.out_of_place->busbw_gbps, 458.65);
  EXPECT_EQ(r.out_of_place->wrong, 0);
  EXPECT_DOUBLE_EQ(r.in_place->time_us, 4331.1);
  EXPECT_DOUBLE_EQ(r.in_place->algbw_gbps, 247.92);
  EXPECT_DOUBLE_EQ(r.in_place->busbw_gbps, 464.84);
  EXPECT_EQ(x.rows[2].size_bytes, 9663676416u);
  EXPECT_DOUBLE_EQ(x.rows[2].in_place->busbw_gbps, 486.84);
  ASSERT_EQ(x.devices.size(), 16u);
  EXPECT_EQ(x.devices[0].host, "fs-207");
  EXPECT_EQ(x.devices[15].host, "fs-208");
  EXPECT_EQ(x.devices[3].bus_id, "0x5d");
  EXPECT_EQ(x.devices[3].device_name, "NVIDIA H200");
  EXPECT_EQ(x.devices[9].group, 0);
  EXPECT_EQ(x.devices[9].pid, 7439);
  ASSERT_TRUE(x.params);
  EXPECT_EQ(x.params->min_bytes, 1073741824u);
  EXPECT_EQ(x.params->step_factor, 3u);
  EXPECT_EQ(x.params->iters, 20);
  EXPECT_DOUBLE_EQ(*x.avg_busbw_gbps, 475.782);
  EXPECT_EQ(x.out_of_bounds, 0);
  EXPECT_EQ(x.header_line, 24);
  EXPECT_TRUE(x.program.empty());  // no "# Collective test starting" line in this paste
}

TEST(NcclTestsParse, DellFixtureWithLauncherNoise) {
  auto t = parse_nccl_tests(fixture(kDell), "dell.txt");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 1u);
  const NcclTestsTable& x = (*t)[0];
  ASSERT_EQ(x.rows.size(), 32u);  // 8 B to 16 GiB
  EXPECT_EQ(x.rows.front().size_bytes, 8u);
  EXPECT_DOUBLE_EQ(x.rows.front().out_of_place->time_us, 68.52);
  EXPECT_EQ(x.rows.back().size_bytes, 17179869184u);
  EXPECT_DOUBLE_EQ(x.rows.back().out_of_place->time_us, 68652);
  EXPECT_DOUBLE_EQ(x.rows.back().in_place->busbw_gbps, 469.10);
  EXPECT_EQ(x.devices.size(), 16u);
  EXPECT_EQ(x.devices[0].bus_id, "0000:19:00");
  EXPECT_EQ(x.devices[0].device_name, "NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(x.params);
  EXPECT_EQ(x.params->min_bytes, 8u);
  EXPECT_EQ(x.params->max_bytes, 17179869184u);
  EXPECT_EQ(x.params->step_factor, 2u);
  EXPECT_EQ(x.params->warmup_iters, 5);
  EXPECT_EQ(x.params->iters, 20);
  EXPECT_EQ(x.params->agg_iters, 1);
  EXPECT_EQ(x.params->validation, 1);
  EXPECT_EQ(x.params->graph, 0);
  EXPECT_EQ(x.nccl_version, "2.26.2+cuda12.8");
  EXPECT_DOUBLE_EQ(*x.avg_busbw_gbps, 139.56);
}

TEST(NcclTestsParse, VmFixtureHeaderOnly) {
  auto t = parse_nccl_tests(fixture(kVm), "vm.txt");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const NcclTestsTable& x = (*t)[0];
  EXPECT_EQ(x.rows.size(), 6u);
  EXPECT_TRUE(x.devices.empty());
  EXPECT_FALSE(x.params);
  EXPECT_DOUBLE_EQ(x.rows[1].out_of_place->time_us, 30086);
  EXPECT_DOUBLE_EQ(*x.avg_busbw_gbps, 52.7626);
}

const char* kTwoCollectives = R"(# nccl-tests version 2.17.1 nccl-headers=22602 nccl-library=22602
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 1 minBytes 1024 maxBytes 4096 step: 4(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid   1001 on      node1 device  0 [0000:19:00] NVIDIA H100
#  Rank  1 Group  0 Pid   1002 on      node2 device  0 [0000:19:00] NVIDIA H100
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
        1024           256     float     sum      -1    20.10    0.05    0.05       0    19.90    0.05    0.05     N/A
node1:1001:1001 [0] NCCL INFO comm 0x55 rank 0 nranks 2 - Init COMPLETE
        4096          1024     float     sum      -1   1.2e+01    0.34    0.34       0    21.00    0.20    0.20     N/A
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 0.16
#
# Collective test concluded: all_reduce_perf
# Collective test starting: all_gather_perf
# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 1048576(bytes) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
        1024           128     float    none      -1    15.00    0.07    0.03       0      N/A     N/A     N/A     N/A
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 0.03
)";

TEST(NcclTestsParse, TwoCollectivesInOneFile) {
  auto t = parse_nccl_tests(kTwoCollectives, "two.log");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  const NcclTestsTable &a = (*t)[0], &b = (*t)[1];
  EXPECT_EQ(a.program, "all_reduce_perf");
  EXPECT_EQ(b.program, "all_gather_perf");
  EXPECT_EQ(a.tests_version, "2.17.1");
  EXPECT_EQ(a.nccl_version, "2.26.2");  // from nccl-library=22602
  ASSERT_EQ(a.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(a.rows[1].out_of_place->time_us, 12);  // exponent form
  EXPECT_FALSE(a.rows[0].in_place->wrong.has_value());    // N/A
  EXPECT_EQ(a.devices.size(), 2u);
  EXPECT_EQ(b.devices.size(), 2u);  // inherited: the second run printed none
  EXPECT_EQ(b.params->step_bytes, 1048576u);
  EXPECT_FALSE(b.params->step_factor);
  ASSERT_EQ(b.rows.size(), 1u);
  EXPECT_EQ(b.rows[0].redop, "none");
  EXPECT_FALSE(b.rows[0].in_place.has_value());  // a whole placement of N/A
}

TEST(NcclTestsParse, LauncherPrefixes) {
  std::string tagged, labelled;
  std::istringstream in(kTwoCollectives);
  std::string line;
  while (std::getline(in, line)) {
    tagged += "[1,0]<stdout>:" + line + "\r\n";
    labelled += "  0: " + line + "\n";
  }
  for (const std::string& text : {tagged, labelled}) {
    auto t = parse_nccl_tests(text, "tagged.log");
    ASSERT_TRUE(t.ok()) << t.status().message();
    ASSERT_EQ(t->size(), 2u);
    EXPECT_EQ((*t)[0].rows.size(), 2u);
    EXPECT_EQ((*t)[0].devices.size(), 2u);
  }
}

TEST(NcclTestsParse, OldLayoutWithoutRootWithErrorColumn) {
  const char* text =
      R"(# nThread 1 nGpus 4 minBytes 8 maxBytes 64 step: 8(factor) warmup iters: 5 iters: 20 validation: 1
#   Rank  0 Pid  12345 on   dgx1 device  0 [0x06] Tesla V100-SXM2-16GB
#                                                 out-of-place                    in-place
#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error
#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2   float     sum    10.44    0.00    0.00  0e+00    10.36    0.00    0.00  0e+00
          64            16   float     sum    10.50    0.01    0.01  2e-07    10.40    0.01    0.01  0e+00
 Out of bounds values : 0 OK
# Avg bus bandwidth    : 0.005
)";
  auto t = parse_nccl_tests(text, "old.log");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const NcclTestsTable& x = (*t)[0];
  ASSERT_EQ(x.rows.size(), 2u);
  EXPECT_FALSE(x.rows[0].root.has_value());
  EXPECT_EQ(x.rows[0].out_of_place->wrong, 0);
  EXPECT_FALSE(x.rows[1].out_of_place->wrong.has_value());  // a largest error, not a count
  EXPECT_FALSE(x.params->agg_iters);
  EXPECT_FALSE(x.params->graph);
  ASSERT_EQ(x.devices.size(), 1u);
  EXPECT_FALSE(x.devices[0].group);
  EXPECT_EQ(x.devices[0].host, "dgx1");
}

TEST(NcclTestsParse, PerIterationColumnsAndCpuTime) {
  const char* text =
      R"(#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    i_p99   i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99   i_cv%
     1048576        262144     float     sum      -1    71.93   14.58   27.33       0    70.10    90.20    89.00    3.10    71.47   14.67   27.51       0    70.00    80.00    79.90    2.00
# Avg bus bandwidth    : 27.42
#       size         count      type   redop    root  cputime   algbw   busbw  #wrong  cputime   algbw   busbw  #wrong
     1048576        262144     float     sum      -1     5.10  205.60  385.50       0     5.20  201.60  378.00       0
# Avg bus bandwidth    : 381.75
)";
  auto t = parse_nccl_tests(text, "i.log");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  const NcclTestsPerIter& pi = *(*t)[0].rows[0].out_of_place->per_iter;
  EXPECT_DOUBLE_EQ(*pi.min_us, 70.10);
  EXPECT_DOUBLE_EQ(*pi.max_us, 90.20);
  EXPECT_DOUBLE_EQ(*pi.p99_us, 89.00);
  EXPECT_DOUBLE_EQ(*pi.cv_pct, 3.10);
  EXPECT_DOUBLE_EQ((*t)[0].rows[0].in_place->time_us, 71.47);
  EXPECT_FALSE((*t)[0].cpu_time);
  EXPECT_TRUE((*t)[1].cpu_time);
}

TEST(NcclTestsParse, JsonOutput) {
  const char* text = R"({
  "version": 3, "start_time": "2026-01-05 10:00:00",
  "args": ["/opt/nccl-tests/build/all_reduce_perf", "-b", "1M", "-e", "2M", "-f", "2", "-I", "1", "-J", "x.json"],
  "env": ["PATH=/usr/bin", "NCCL_DEBUG=WARN"],
  "nccl_version": 22803,
  "config": {"nthreads": 1, "ngpus": 1, "minimum_bytes": 1048576, "maximum_bytes": 2097152, "step_factor": 2,
             "warmup_iters": 1, "iterations": 4, "aggregated_iterations": 1, "validation": 1, "graph": 0,
             "blocking_collectives": "false", "per_iter_timing": "true", "per_iter_skip": 0, "parallel_init": "false",
             "devices": [{"rank": 0, "group": 0, "pid": 11, "hostname": "gpu-a", "device": 0, "device_hex": "0x18", "device_info": "NVIDIA H100"},
                         {"rank": 1, "group": 0, "pid": 12, "hostname": "gpu-b", "device": 0, "device_hex": "0x18", "device_info": "NVIDIA H100"}]},
  "results": [
    {"size": 1048576, "count": 262144, "type": "float", "redop": "sum", "root": "    -1",
     "out_of_place": {"time": 30.5, "alg_bw": 34.38, "bus_bw": 34.38, "nwrong": 0},
     "out_of_place_per_iter": {"skipped_iterations": 0, "min_us": 29.0, "max_us": 33.0, "avg_us": 30.5, "p50_us": 30.0,
                               "p95_us": 32.8, "p99_us": 32.96, "stdev_us": 1.5, "cv_pct": 4.9, "times_us": [29.0, 30.0, 30.0, 33.0]},
     "in_place": {"time": 31.0, "alg_bw": 33.83, "bus_bw": 33.83, "nwrong": null},
     "actual_iterations": 4, "experiment_name": ""},
    {"size": 2097152, "count": 524288, "type": "float", "redop": "sum", "root": "    -1",
     "out_of_place": {"time": "55.0", "alg_bw": 38.13, "bus_bw": 38.13, "nwrong": 0},
     "in_place": {"time": 56.0, "alg_bw": 37.45, "bus_bw": 37.45, "nwrong": 0}}],
  "out_of_bounds": {"count": 0, "okay": "true"},
  "average_bus_bandwidth": {"bandwidth": 35.94, "okay": "unchecked"},
  "errors": [], "end_time": "2026-01-05 10:00:01"
})";
  auto t = parse_nccl_tests(text, "x.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const NcclTestsTable& x = (*t)[0];
  EXPECT_TRUE(x.json);
  EXPECT_EQ(x.program, "all_reduce_perf");
  EXPECT_EQ(x.nccl_version, "2.28.3");
  ASSERT_EQ(x.rows.size(), 2u);
  EXPECT_EQ(x.rows[0].root, -1);
  EXPECT_DOUBLE_EQ(x.rows[1].out_of_place->time_us, 55.0);  // a number in a string
  EXPECT_FALSE(x.rows[0].in_place->wrong.has_value());
  ASSERT_TRUE(x.rows[0].out_of_place->per_iter);
  EXPECT_EQ(x.rows[0].out_of_place->per_iter->times_us.size(), 4u);
  EXPECT_DOUBLE_EQ(*x.rows[0].out_of_place->per_iter->p50_us, 30.0);
  EXPECT_EQ(x.devices.size(), 2u);
  EXPECT_EQ(x.devices[1].host, "gpu-b");
  EXPECT_EQ(x.params->iters, 4);
  EXPECT_DOUBLE_EQ(*x.avg_busbw_gbps, 35.94);
}

void expect_error(const std::string& text, const std::string& part) {
  auto t = parse_nccl_tests(text, "paste.log");
  ASSERT_FALSE(t.ok()) << "parsed: " << text.substr(0, 80);
  EXPECT_NE(t.status().message().find("paste.log"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find(part), std::string::npos) << t.status().message();
}

TEST(NcclTestsParse, TruncatedOrGarbledPastesAreErrors) {
  const std::string whole = fixture(kBare);
  // The last row cut in the middle, with the trailer gone.
  const size_t cut = whole.find("  9663676416") + 40;
  expect_error(whole.substr(0, cut), "line 28: a table row with 3 fields");
  // Rows complete, the closing lines gone.
  const size_t trailer = whole.find("# Out of bounds");
  expect_error(whole.substr(0, trailer), "truncated");
  // A garbled number.
  std::string garbled = whole;
  garbled.replace(garbled.find("4389.5"), 6, "43x9.5");
  expect_error(garbled, "line 26: time '43x9.5' is not a number");
  std::string type = whole;
  type.replace(type.find("float"), 5, "flaot");
  expect_error(type, "type 'flaot'");
  expect_error("hello\nthis is not nccl-tests\n", "no nccl-tests table");
  expect_error("{\"benchmarks\": []}", "results is missing");
  expect_error(
      "{\"results\": [{\"size\": 8, \"count\": 2, \"type\": \"float\", \"redop\": \"sum\", "
      "\"out_of_place\": {\"alg_bw\": 1, \"bus_bw\": 1}}]}",
      "results[0].out_of_place.time is missing");
  expect_error("{\"results\": [{\"size\": 8", "not valid JSON");
}

// Random damage to a real table: every outcome is a table or an error naming the file.
TEST(NcclTestsParse, FuzzedTablesNeverCrash) {
  const std::string base = fixture(kDell);
  std::vector<std::string> lines;
  {
    std::istringstream in(base);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  std::mt19937 rng(1234);
  int ok = 0, errors = 0;
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::string> v = lines;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !v.empty(); ++e) {
      const size_t at = rng() % v.size();
      switch (rng() % 5) {
        case 0:
          v.erase(v.begin() + static_cast<long>(at));
          break;
        case 1:
          v.insert(v.begin() + static_cast<long>(at), v[at]);
          break;
        case 2:
          v[at] = v[at].substr(0, rng() % (v[at].size() + 1));
          break;
        case 3:
          if (!v[at].empty()) v[at][rng() % v[at].size()] = static_cast<char>(rng() % 128);
          break;
        default:
          std::swap(v[at], v[rng() % v.size()]);
      }
    }
    std::string text;
    for (const std::string& l : v) text += l + "\n";
    if (rng() % 4 == 0) text = text.substr(0, rng() % (text.size() + 1));
    auto t = parse_nccl_tests(text, "fuzz.log");
    if (t.ok()) {
      ++ok;
      for (const NcclTestsTable& x : *t) EXPECT_FALSE(x.rows.empty());
    } else {
      ++errors;
      EXPECT_NE(t.status().message().find("fuzz.log"), std::string::npos) << t.status().message();
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace fabscope
