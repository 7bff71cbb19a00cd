// The nccl-tests table: formats from nccl-tests 2.19 (src/util.cu), checked against
// rows of real all_reduce_perf output from the fixtures.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "coll/collective.h"
#include "report/table.h"

namespace fabscope {
namespace {

TEST(NcclFloat, PicksTheWidestPrecisionThatFits) {
  EXPECT_EQ(nccl_float(4389.5, 7), "4389.50");
  EXPECT_EQ(nccl_float(12485, 7), "12485.0");
  EXPECT_EQ(nccl_float(123456, 7), " 123456");
  EXPECT_EQ(nccl_float(1e8, 7), "1.0e+08");
  EXPECT_EQ(nccl_float(0.001, 7), "   0.00");
  EXPECT_EQ(nccl_float(458.65, 6), "458.65");
  EXPECT_EQ(nccl_float(1234.56, 6), "1234.6");
  EXPECT_EQ(nccl_float(123456, 6), "123456");
  EXPECT_EQ(nccl_float(1234567, 6), " 1e+06");
}

TEST(Table, ColumnHeaderMatchesNcclTests) {
  std::string h = render_column_header();
  EXPECT_NE(h.find("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   "
                   "algbw   busbw  #wrong \n"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  "
                   "(GB/s)  (GB/s)         \n"),
            std::string::npos)
      << h;
}

TEST(Table, RowLayout) {
  Sweep s;
  s.collective = "allreduce";
  s.dtype = "float";
  s.op = "sum";
  SweepPoint p;
  p.size_bytes = 33554432;
  p.count = 8388608;
  p.out_of_place = PlacementResult{};
  p.out_of_place->time_us = 383.21;
  p.out_of_place->algbw_gbps = 87.56;
  p.out_of_place->busbw_gbps = 153.24;
  p.out_of_place->wrong = 0;
  p.in_place = p.out_of_place;
  p.in_place->time_us = 380.02;
  p.in_place->wrong.reset();  // not checked
  EXPECT_EQ(render_row(s, p),
            "    33554432       8388608     float     sum      -1   383.21   87.56  153.24       0   380.02   87.56  "
            "153.24    N/A\n");
  s.op.reset();
  s.root = 3;
  p.in_place.reset();
  EXPECT_EQ(render_row(s, p),
            "    33554432       8388608     float    none       3   383.21   87.56  153.24       0                   "
            "             \n");
}

TEST(Table, FooterAveragesEveryRowAndPlacement) {
  TableFooter f;
  SweepPoint p;
  p.out_of_place = PlacementResult{};
  p.out_of_place->busbw_gbps = 2;
  p.in_place = PlacementResult{};
  p.in_place->busbw_gbps = 4;
  p.in_place->wrong_ranks = {1, 3};
  f.add(p);
  EXPECT_DOUBLE_EQ(f.average_busbw(), 3);
  EXPECT_EQ(f.out_of_bounds(), 2);
  EXPECT_EQ(
      f.render("allreduce"),
      "# Out of bounds values : 2 FAILED\n# Avg bus bandwidth    : 3 \n#\n# Collective test concluded: allreduce\n");
}

struct FixtureRow {
  std::string line;
  uint64_t size = 0, count = 0;
  std::string type, redop;
  int root = 0;
  double t[2] = {}, alg[2] = {}, bus[2] = {};
  int wrong[2] = {};
};

std::vector<FixtureRow> read_rows(const std::string& path, double* avg_busbw, int* nranks) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::vector<FixtureRow> rows;
  std::string line;
  *nranks = 0;
  while (std::getline(in, line)) {
    if (line.rfind("#  Rank", 0) == 0) ++*nranks;
    if (line.rfind("# Avg bus bandwidth", 0) == 0) *avg_busbw = std::stod(line.substr(line.find(':') + 1));
    if (line.empty() || line[0] == '#' || line.size() < 100) continue;
    std::istringstream ss(line);
    FixtureRow r;
    r.line = line;
    if (!(ss >> r.size >> r.count >> r.type >> r.redop >> r.root >> r.t[0] >> r.alg[0] >> r.bus[0] >> r.wrong[0] >>
          r.t[1] >> r.alg[1] >> r.bus[1] >> r.wrong[1])) {
      continue;
    }
    rows.push_back(r);
  }
  return rows;
}

// How many decimals a printed number has ("4389.5" -> 1).
int decimals_of(const std::string& token) {
  size_t dot = token.find('.');
  return dot == std::string::npos ? 0 : static_cast<int>(token.size() - dot - 1);
}

class FixtureTable : public ::testing::TestWithParam<std::pair<const char*, int>> {};

TEST_P(FixtureTable, FabscopeReproducesRealNcclTestsRows) {
  const std::string path = std::string(FABSCOPE_FIXTURES) + "/nccl-tests/" + GetParam().first;
  double avg = -1;
  int listed_ranks = 0;
  std::vector<FixtureRow> rows = read_rows(path, &avg, &listed_ranks);
  const int nranks = GetParam().second;
  ASSERT_GE(rows.size(), 3u);
  double bus_sum = 0;
  for (const FixtureRow& r : rows) {
    // Element counts: size = count * 4 for float all-reduce.
    ElementCounts e = element_counts(Collective::kAllReduce, r.size / 4, 4, nranks);
    EXPECT_EQ(e.param, r.count);
    EXPECT_EQ(printed_size_bytes(e, 4), r.size);
    for (int k = 0; k < 2; ++k) {
      // Bandwidths recomputed from the printed time agree with the printed ones, to the
      // precision the time was printed with.
      Bandwidth bw = bandwidth(Collective::kAllReduce, r.count, 4, r.t[k] * 1e-6, nranks);
      EXPECT_NEAR(bw.algbw_gbps, r.alg[k], r.alg[k] * 2e-3 + 0.006) << r.line;
      EXPECT_NEAR(bw.busbw_gbps, r.bus[k], r.bus[k] * 2e-3 + 0.011) << r.line;
      bus_sum += r.bus[k];
    }
    // fabscope's rendering of the same numbers: fixed columns identical, numbers equal
    // at the fixture's precision.
    Sweep s;
    s.collective = "allreduce";
    s.dtype = r.type;
    s.op = r.redop;
    SweepPoint p;
    p.size_bytes = r.size;
    p.count = r.count;
    for (int k = 0; k < 2; ++k) {
      PlacementResult pr;
      pr.time_us = r.t[k];
      pr.algbw_gbps = r.alg[k];
      pr.busbw_gbps = r.bus[k];
      pr.wrong = r.wrong[k];
      (k == 0 ? p.out_of_place : p.in_place) = pr;
    }
    std::string ours = render_row(s, p);
    EXPECT_EQ(ours.substr(0, 52), r.line.substr(0, 52)) << "fixed columns differ:\n" << ours << r.line;
    std::istringstream theirs(r.line), mine(ours);
    for (int col = 0; col < 13; ++col) {
      std::string a, b;
      theirs >> a;
      mine >> b;
      if (col < 5) {
        EXPECT_EQ(a, b);
        continue;
      }
      double va = std::stod(a), vb = std::stod(b);
      double tol = 0.5 * std::pow(10.0, -decimals_of(a)) + 1e-9;
      EXPECT_NEAR(va, vb, tol) << "column " << col << " of " << r.line;
    }
  }
  // nccl-tests' "Avg bus bandwidth" is the mean over every row and both placements.
  if (avg >= 0) {
    EXPECT_NEAR(bus_sum / (2.0 * static_cast<double>(rows.size())), avg, avg * 1e-4 + 0.01);
  }
}

INSTANTIATE_TEST_SUITE_P(
    RealTables, FixtureTable,
    ::testing::Values(std::make_pair("nccl-tests-256_H200x8-2node-baremetal-CX7-400G_all_reduce_perf.txt", 16),
                      std::make_pair("nccl-tests-309_Dell-XE9680-H100x8-8CX7-IB400_2node_all_reduce_perf.txt", 16)));

}  // namespace
}  // namespace fabscope
