// OSU Micro-Benchmarks output: the real tables in test/fixtures/osu (every collective
// fabscope imports, osu_latency/bw/bibw, -f, -z, -c with Pass and with a failure, -T
// all, two runs in one log, mpirun's lines and --tag-output prefixes), the errors a
// truncated or garbled paste gives, written inline, and the report import_osu builds.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/import_osu.h"
#include "report/osu_parse.h"

namespace fabscope {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(FABSCOPE_FIXTURES) + "/osu/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<OsuTable> parse_fixture(const std::string& name) {
  auto t = parse_osu(fixture(name), name);
  EXPECT_TRUE(t.ok()) << name << ": " << t.status().message();
  return t.ok() ? *t : std::vector<OsuTable>{};
}

Result<Report> import_fixtures(const std::vector<std::string>& names, const OsuImportOptions& o = {}) {
  std::vector<OsuSource> sources;
  for (const std::string& name : names) {
    auto t = parse_osu(fixture(name), name);
    if (!t.ok()) return t.status();
    sources.push_back({name, *t});
  }
  return import_osu(sources, o);
}

// The message of parsing `text` as 'osu.log', which must fail.
std::string parse_error(const std::string& text) {
  auto t = parse_osu(text, "osu.log");
  EXPECT_FALSE(t.ok()) << text;
  return t.ok() ? "" : t.status().message();
}

const char* kHead =
    "\n"
    "# OSU MPI Allreduce Latency Test v7.4\n"
    "# Datatype: MPI_CHAR.\n"
    "# Size       Avg Latency(us)\n";

// ---- parsing the fixtures ----

TEST(OsuParse, AllreduceDefault) {
  auto tables = parse_fixture("osu_allreduce.txt");
  ASSERT_EQ(tables.size(), 1u);
  const OsuTable& t = tables[0];
  EXPECT_EQ(t.source, "osu_allreduce.txt");
  EXPECT_EQ(t.title, "OSU MPI Allreduce Latency Test v7.4");
  EXPECT_EQ(t.title_line, 2);
  EXPECT_EQ(t.datatype_line, 3);
  EXPECT_EQ(t.header_line, 4);
  EXPECT_EQ(t.version, "7.4");
  EXPECT_EQ(t.accel, "");
  EXPECT_EQ(t.datatype, "MPI_CHAR");
  EXPECT_EQ(t.benchmark.program, "osu_allreduce");
  EXPECT_EQ(t.benchmark.collective, Collective::kAllReduce);
  EXPECT_FALSE(t.benchmark.p2p_mode);
  EXPECT_FALSE(t.bandwidth);
  EXPECT_FALSE(t.full);
  EXPECT_FALSE(t.validation);
  EXPECT_TRUE(t.percentiles.empty());
  EXPECT_EQ(t.validation_error, "");
  ASSERT_EQ(t.rows.size(), 14u);
  EXPECT_EQ(t.rows[0].line, 5);
  EXPECT_EQ(t.rows[0].size_bytes, 8u);
  EXPECT_DOUBLE_EQ(*t.rows[0].avg_us, 0.88);
  EXPECT_FALSE(t.rows[0].min_us);
  EXPECT_FALSE(t.rows[0].iterations);
  EXPECT_FALSE(t.rows[0].valid);
  EXPECT_EQ(t.rows[13].line, 18);
  EXPECT_EQ(t.rows[13].size_bytes, 65536u);
  EXPECT_DOUBLE_EQ(*t.rows[13].avg_us, 21.42);
}

TEST(OsuParse, FullColumns) {
  auto tables = parse_fixture("osu_allreduce_full.txt");
  ASSERT_EQ(tables.size(), 1u);
  const OsuTable& t = tables[0];
  EXPECT_TRUE(t.full);
  ASSERT_EQ(t.rows.size(), 14u);
  const OsuRow& r = t.rows[0];
  EXPECT_EQ(r.size_bytes, 8u);
  EXPECT_DOUBLE_EQ(*r.avg_us, 0.55);
  EXPECT_DOUBLE_EQ(*r.min_us, 0.51);
  EXPECT_DOUBLE_EQ(*r.max_us, 0.59);
  EXPECT_EQ(r.iterations, 1000);
  const OsuRow& big = t.rows[11];
  EXPECT_EQ(big.size_bytes, 16384u);
  EXPECT_DOUBLE_EQ(*big.avg_us, 14.21);
  EXPECT_DOUBLE_EQ(*big.min_us, 14.00);
  EXPECT_DOUBLE_EQ(*big.max_us, 14.42);
  EXPECT_EQ(big.iterations, 100);
}

TEST(OsuParse, TailColumns) {
  auto tables = parse_fixture("osu_allreduce_tail.txt");
  ASSERT_EQ(tables.size(), 1u);
  const OsuTable& t = tables[0];
  EXPECT_EQ(t.percentiles, (std::vector<int>{50, 90, 99}));
  ASSERT_EQ(t.rows.size(), 14u);
  const OsuRow& r = t.rows[10];
  EXPECT_EQ(r.size_bytes, 8192u);
  EXPECT_DOUBLE_EQ(*r.avg_us, 9.72);
  EXPECT_EQ(r.tail, (std::vector<double>{8.90, 9.40, 33.02}));
}

TEST(OsuParse, DatatypeTablesOfOneRun) {
  auto f = parse_fixture("osu_allreduce_float.txt");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].datatype, "MPI_FLOAT");
  EXPECT_DOUBLE_EQ(*f[0].rows[13].avg_us, 22.59);

  auto all = parse_fixture("osu_allreduce_all_types.txt");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].datatype, "MPI_CHAR");
  EXPECT_EQ(all[1].datatype, "MPI_INT");
  EXPECT_EQ(all[2].datatype, "MPI_FLOAT");
  EXPECT_EQ(all[0].header_line, 4);
  EXPECT_EQ(all[1].datatype_line, 15);
  EXPECT_EQ(all[1].header_line, 16);
  EXPECT_EQ(all[2].header_line, 28);
  for (const OsuTable& t : all) {
    EXPECT_EQ(t.title_line, 2);
    ASSERT_EQ(t.rows.size(), 10u);
    EXPECT_EQ(t.rows.front().size_bytes, 8u);
    EXPECT_EQ(t.rows.back().size_bytes, 4096u);
  }
  EXPECT_DOUBLE_EQ(*all[1].rows[0].avg_us, 0.64);
  EXPECT_DOUBLE_EQ(*all[2].rows[9].avg_us, 3.10);
  EXPECT_EQ(all[2].rows[9].line, 38);
}

TEST(OsuParse, ValidationColumn) {
  auto pass = parse_fixture("osu_allreduce_float_validate.txt");
  ASSERT_EQ(pass.size(), 1u);
  EXPECT_TRUE(pass[0].validation);
  ASSERT_EQ(pass[0].rows.size(), 14u);
  for (const OsuRow& r : pass[0].rows) EXPECT_EQ(r.valid, true);
  EXPECT_DOUBLE_EQ(*pass[0].rows[1].avg_us, 1.12);

  // The run stopped at its first failure; mpirun's abort messages follow OSU's line.
  auto fail = parse_fixture("osu_allreduce_validate_fail.log");
  ASSERT_EQ(fail.size(), 1u);
  ASSERT_EQ(fail[0].rows.size(), 2u);
  EXPECT_EQ(fail[0].rows[0].valid, true);
  EXPECT_EQ(fail[0].rows[1].size_bytes, 16u);
  EXPECT_EQ(fail[0].rows[1].valid, false);
  EXPECT_EQ(fail[0].rows[1].line, 6);
  EXPECT_TRUE(fail[0].validation_error.starts_with("DATA VALIDATION ERROR: "));
  EXPECT_TRUE(fail[0].validation_error.ends_with("on message size 16."));

  auto bw = parse_fixture("osu_bw_validate.txt");
  ASSERT_EQ(bw.size(), 1u);
  EXPECT_TRUE(bw[0].bandwidth);
  EXPECT_TRUE(bw[0].validation);
  ASSERT_EQ(bw[0].rows.size(), 17u);
  EXPECT_DOUBLE_EQ(*bw[0].rows[16].bw_mbytes_per_s, 7688.27);
  EXPECT_EQ(bw[0].rows[16].valid, true);
}

TEST(OsuParse, EveryCollectiveTitle) {
  struct Case {
    const char* file;
    const char* program;
    Collective collective;
    size_t rows;
    uint64_t last_size;
    double last_us;
  };
  const Case cases[] = {
      {"osu_allgather.txt", "osu_allgather", Collective::kAllGather, 18, 1048576, 0},
      {"osu_alltoall.txt", "osu_alltoall", Collective::kAllToAll, 18, 1048576, 0},
      {"osu_bcast.txt", "osu_bcast", Collective::kBroadcast, 18, 1048576, 0},
      {"osu_reduce.txt", "osu_reduce", Collective::kReduce, 18, 1048576, 0},
      {"osu_reduce_scatter.txt", "osu_reduce_scatter", Collective::kReduceScatter, 18, 1048576, 150.14},
      {"osu_gather.txt", "osu_gather", Collective::kGather, 14, 65536, 0},
      {"osu_scatter.txt", "osu_scatter", Collective::kScatter, 14, 65536, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    auto tables = parse_fixture(c.file);
    ASSERT_EQ(tables.size(), 1u);
    EXPECT_EQ(tables[0].benchmark.program, c.program);
    EXPECT_EQ(tables[0].benchmark.collective, c.collective);
    ASSERT_EQ(tables[0].rows.size(), c.rows);
    EXPECT_EQ(tables[0].rows.back().size_bytes, c.last_size);
    if (c.last_us > 0) {
      EXPECT_DOUBLE_EQ(*tables[0].rows.back().avg_us, c.last_us);
    }
  }
  auto alltoall = parse_fixture("osu_alltoall.txt");
  EXPECT_EQ(alltoall[0].title, "OSU MPI All-to-All Personalized Exchange Latency Test v7.4");
  auto rs = parse_fixture("osu_reduce_scatter.txt");
  EXPECT_EQ(rs[0].rows[14].size_bytes, 131072u);
  EXPECT_DOUBLE_EQ(*rs[0].rows[14].avg_us, 1185.79);
}

TEST(OsuParse, PointToPoint) {
  auto lat = parse_fixture("osu_latency.txt");
  ASSERT_EQ(lat.size(), 1u);
  EXPECT_EQ(lat[0].title, "OSU MPI Latency Test v7.4");
  EXPECT_EQ(lat[0].benchmark.program, "osu_latency");
  EXPECT_FALSE(lat[0].benchmark.collective);
  EXPECT_EQ(lat[0].benchmark.p2p_mode, P2pMode::kLatency);
  EXPECT_FALSE(lat[0].bandwidth);
  ASSERT_EQ(lat[0].rows.size(), 21u);
  EXPECT_EQ(lat[0].rows[0].size_bytes, 1u);
  EXPECT_DOUBLE_EQ(*lat[0].rows[0].avg_us, 0.48);
  EXPECT_EQ(lat[0].rows[20].size_bytes, 1048576u);
  EXPECT_DOUBLE_EQ(*lat[0].rows[20].avg_us, 76.89);

  auto bw = parse_fixture("osu_bw.txt");
  ASSERT_EQ(bw.size(), 1u);
  EXPECT_EQ(bw[0].benchmark.p2p_mode, P2pMode::kBandwidth);
  EXPECT_TRUE(bw[0].bandwidth);
  ASSERT_EQ(bw[0].rows.size(), 21u);
  EXPECT_FALSE(bw[0].rows[0].avg_us);
  EXPECT_DOUBLE_EQ(*bw[0].rows[0].bw_mbytes_per_s, 6.97);
  EXPECT_DOUBLE_EQ(*bw[0].rows[20].bw_mbytes_per_s, 13990.79);

  auto bibw = parse_fixture("osu_bibw.txt");
  ASSERT_EQ(bibw.size(), 1u);
  EXPECT_EQ(bibw[0].title, "OSU MPI Bi-Directional Bandwidth Test v7.4");
  EXPECT_EQ(bibw[0].benchmark.p2p_mode, P2pMode::kBidirectional);
  ASSERT_EQ(bibw[0].rows.size(), 21u);
  EXPECT_DOUBLE_EQ(*bibw[0].rows[20].bw_mbytes_per_s, 27678.43);
}

TEST(OsuParse, TwoRunsInOneLog) {
  auto tables = parse_fixture("osu_two_runs.log");
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].benchmark.collective, Collective::kAllReduce);
  EXPECT_EQ(tables[0].title_line, 2);
  ASSERT_EQ(tables[0].rows.size(), 10u);
  EXPECT_DOUBLE_EQ(*tables[0].rows[9].avg_us, 3.50);
  EXPECT_EQ(tables[1].benchmark.collective, Collective::kAllGather);
  EXPECT_EQ(tables[1].title_line, 16);
  EXPECT_EQ(tables[1].header_line, 18);
  ASSERT_EQ(tables[1].rows.size(), 10u);
  EXPECT_DOUBLE_EQ(*tables[1].rows[9].avg_us, 6.08);
}

TEST(OsuParse, LauncherLinesAndPrefixes) {
  auto bound = parse_fixture("osu_latency_report_bindings.log");
  ASSERT_EQ(bound.size(), 1u);
  EXPECT_EQ(bound[0].title_line, 4);
  ASSERT_EQ(bound[0].rows.size(), 17u);
  EXPECT_EQ(bound[0].rows[0].line, 7);
  EXPECT_DOUBLE_EQ(*bound[0].rows[16].avg_us, 7.36);

  auto tagged = parse_fixture("osu_reduce_tag_output.log");
  ASSERT_EQ(tagged.size(), 1u);
  EXPECT_EQ(tagged[0].benchmark.collective, Collective::kReduce);
  ASSERT_EQ(tagged[0].rows.size(), 10u);
  EXPECT_DOUBLE_EQ(*tagged[0].rows[9].avg_us, 3.95);

  // srun --label's prefix, and a line the launcher tagged as stderr inside the table.
  auto labelled = parse_osu(
      "0: \n0: # OSU MPI Latency Test v7.4\n0: # Datatype: MPI_CHAR.\n0: # Size       Avg Latency(us)\n"
      "0: 0                       0.40\n[1,1]<stderr>:something\n0: 1                       0.45\n",
      "x");
  ASSERT_TRUE(labelled.ok()) << labelled.status().message();
  ASSERT_EQ((*labelled)[0].rows.size(), 2u);
  EXPECT_EQ((*labelled)[0].rows[0].size_bytes, 0u);  // osu_latency's default first size
}

TEST(OsuParse, OtherTitlesAndOlderOutput) {
  // An -CUDA build's title and its buffer line; an OSU without the Datatype line.
  auto cuda = parse_osu(
      "# OSU MPI-CUDA Bandwidth Test v7.4\n# Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)\n"
      "# Size      Bandwidth (MB/s)\n1                       0.97\n2                       1.95\n",
      "x");
  ASSERT_TRUE(cuda.ok()) << cuda.status().message();
  EXPECT_EQ((*cuda)[0].accel, "CUDA");
  EXPECT_EQ((*cuda)[0].benchmark.program, "osu_bw");
  EXPECT_FALSE((*cuda)[0].datatype);
  auto rocm =
      parse_osu("# OSU MPI-ROCM Reduce_scatter_block Latency Test\n# Size       Avg Latency(us)\n4   1.50\n", "x");
  ASSERT_TRUE(rocm.ok()) << rocm.status().message();
  EXPECT_EQ((*rocm)[0].accel, "ROCM");
  EXPECT_FALSE((*rocm)[0].version);
  EXPECT_EQ((*rocm)[0].benchmark.collective, Collective::kReduceScatter);
  auto managed = osu_benchmark_of_title("Broadcast Latency Test");
  ASSERT_TRUE(managed.ok());
  EXPECT_EQ(managed->program, "osu_bcast");
  // Blank lines and launcher lines after the last row end the table.
  auto trailing =
      parse_osu(std::string(kHead) + "8  0.50\n16  0.60\n\n2 total processes killed (some possibly by mpirun)\n", "x");
  ASSERT_TRUE(trailing.ok()) << trailing.status().message();
  EXPECT_EQ((*trailing)[0].rows.size(), 2u);
}

// ---- malformed input ----

TEST(OsuParse, Errors) {
  const std::string head = kHead;  // title at line 2, header at line 4
  EXPECT_EQ(parse_error(head + "8                       0.88\n16    0.65   0.70\n"),
            "'osu.log' line 6: a table row with 3 fields where the header at line 4 has 2: cut off or garbled?");
  EXPECT_EQ(parse_error(head + "8                       0.88\n16                      abc\n"),
            "'osu.log' line 6: 'abc' is not a number");
  EXPECT_EQ(parse_error(head + "8                       0.88\n16\n"),
            "'osu.log' line 6: a table row with 1 fields where the header at line 4 has 2: cut off or garbled?");
  EXPECT_EQ(parse_error(head + "8    0.88\n32   0.69\n16   0.65\n"),
            "'osu.log' line 7: size 16 after 32 at line 6: OSU's sizes increase within a table");
  EXPECT_EQ(parse_error(head + "8    0.88\n8    0.69\n"),
            "'osu.log' line 6: size 8 after 8 at line 5: OSU's sizes increase within a table");
  EXPECT_EQ(parse_error("8                       0.88\n"),
            "'osu.log' line 1: a table row before any '# OSU MPI ... Test' title");
  EXPECT_EQ(parse_error("\n# OSU MPI Allreduce Latency Test v7.4\n8   0.88\n"),
            "'osu.log' line 3: a table row before the table's '# Size ...' column header");
  EXPECT_EQ(parse_error("# Size       Avg Latency(us)\n8   0.88\n"),
            "'osu.log' line 1: a '# Size ...' column header before any '# OSU MPI ... Test' title");
  EXPECT_EQ(parse_error(head), "'osu.log' line 4: the osu_allreduce table's header has no rows after it: truncated?");
  EXPECT_EQ(parse_error(head + "# Datatype: MPI_INT.\n# Size       Avg Latency(us)\n8   0.50\n"),
            "'osu.log' line 4: the osu_allreduce table's header has no rows after it: truncated?");
  EXPECT_EQ(parse_error("\n# OSU MPI Allreduce Latency Test v7.4\n# Datatype: MPI_CHAR.\n"),
            "'osu.log' line 2: 'OSU MPI Allreduce Latency Test v7.4' has no table after it (no '# Size ...' "
            "header): the run failed?");
  EXPECT_EQ(parse_error("\n# OSU MPI Barrier Latency Test v7.4\n# Avg Latency(us)\n 1.5\n"),
            "'osu.log' line 2: 'OSU MPI Barrier Latency Test v7.4' is not an OSU benchmark fabscope imports (it "
            "imports osu_allreduce, osu_allgather, osu_alltoall, osu_bcast, osu_reduce, osu_reduce_scatter, "
            "osu_reduce_scatter_block, osu_gather, osu_scatter, osu_latency, osu_bw, osu_bibw)");
  EXPECT_EQ(parse_error("mpirun noise\nnothing else\n"),
            "'osu.log': no OSU table found (expected a '# OSU MPI ... Test' title and a '# Size ...' column header "
            "with rows under it)");
  EXPECT_EQ(parse_error(""),
            "'osu.log': no OSU table found (expected a '# OSU MPI ... Test' title and a '# Size ...' column header "
            "with rows under it)");
  // Lines OSU does not print, inside a table.
  EXPECT_EQ(parse_error(head + "8    0.88\n\n16   0.65\n"),
            "'osu.log' line 6: a blank line inside the table whose header is at line 4 (its rows go on at line 7): "
            "not OSU's output; two outputs interleaved?");
  EXPECT_EQ(parse_error(head + "8    0.88\n[vm:1] MCW rank 1 bound\n16   0.65\n"),
            "'osu.log' line 6: '[vm:1] MCW rank 1 bound' inside the table whose header is at line 4 (its rows go on "
            "at line 7): not OSU's output; two outputs interleaved?");
  EXPECT_EQ(parse_error(head + "# a comment\n8    0.88\n"),
            "'osu.log' line 5: '# a comment' inside the table whose header is at line 4 (its rows go on at line 6): "
            "not OSU's output; two outputs interleaved?");
  // Columns.
  EXPECT_EQ(parse_error("# OSU MPI Allreduce Latency Test v7.4\n# Size       Avg Latency(us)   Overlap(%)\n8 1 2\n"),
            "'osu.log' line 2: column 'Overlap(%)' is not one fabscope reads (Avg Latency(us), Bandwidth (MB/s), "
            "Min Latency(us), Max Latency(us), Iterations, Validation, Pn Tail Lat(us))");
  EXPECT_EQ(parse_error("# OSU MPI Bandwidth Test v7.4\n# Size       Avg Latency(us)\n8 1\n"),
            "'osu.log' line 2: the header's first column after Size is not 'Bandwidth (MB/s)', as osu_bw prints it");
  EXPECT_EQ(parse_error("# OSU MPI Allreduce Latency Test v7.4\n# Size       Avg Latency(us)        Validation\n"
                        "8                       0.57              Maybe\n"),
            "'osu.log' line 3: validation 'Maybe' is neither Pass nor Fail");
  EXPECT_EQ(parse_error("# OSU MPI Allreduce Latency Test v7.4\n# Size       Avg Latency(us)   Min Latency(us)   Max "
                        "Latency(us)  Iterations\n8   0.55   0.51   0.59   many\n"),
            "'osu.log' line 3: iterations 'many' is not a count");
  EXPECT_EQ(parse_error("# Datatype: MPI_CHAR.\n"),
            "'osu.log' line 1: a '# Datatype:' line before any '# OSU MPI ... Test' title");
  EXPECT_EQ(parse_error(head + "8    -0.88\n"), "'osu.log' line 5: '-0.88' is not a number");
  // A file cut off inside its last figure.
  EXPECT_EQ(parse_error(head + "8                       0.88\n16                      0.6"),
            "'osu.log' line 6: '0.6' has fewer than the two decimals OSU prints: cut off?");
}

// ---- import ----

TEST(OsuImport, CollectiveSweep) {
  auto r = import_fixtures({"osu_allreduce_full.txt"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->context.imported);
  EXPECT_EQ(r->context.imported->tool, "osu-micro-benchmarks");
  EXPECT_EQ(r->context.imported->version, "7.4");
  EXPECT_EQ(r->context.imported->files, (std::vector<std::string>{"osu_allreduce_full.txt"}));
  EXPECT_EQ(r->context.backend, "mpi");
  EXPECT_EQ(r->context.memory, "host");
  EXPECT_EQ(r->context.nranks, 0);
  EXPECT_FALSE(r->sweep_settings);
  EXPECT_FALSE(r->p2p);
  ASSERT_EQ(r->sweeps.size(), 1u);
  const Sweep& s = r->sweeps[0];
  EXPECT_EQ(s.collective, "allreduce");
  EXPECT_EQ(s.dtype, "int8");
  EXPECT_EQ(s.op, "sum");
  EXPECT_FALSE(s.root);
  EXPECT_EQ(s.backend, "mpi");
  EXPECT_EQ(s.nranks, 0);
  EXPECT_EQ(name(s.method), "osu");
  EXPECT_FALSE(s.floor_us);
  EXPECT_DOUBLE_EQ(s.busbw_factor, 0);
  ASSERT_EQ(s.points.size(), 14u);
  const SweepPoint& p = s.points[13];
  EXPECT_EQ(p.size_bytes, 65536u);
  EXPECT_EQ(p.count, 65536u);
  EXPECT_FALSE(p.in_place);
  ASSERT_TRUE(p.out_of_place);
  EXPECT_DOUBLE_EQ(p.out_of_place->time_us, 21.47);
  EXPECT_DOUBLE_EQ(p.out_of_place->algbw_gbps, 65536 / 21.47 / 1e3);
  EXPECT_DOUBLE_EQ(p.out_of_place->busbw_gbps, 0);
  EXPECT_EQ(p.out_of_place->iterations, 100);
  EXPECT_FALSE(p.out_of_place->iteration_us);  // -f's min/max are over ranks, not iterations
  EXPECT_FALSE(p.out_of_place->wrong);
  EXPECT_EQ(s.points[0].out_of_place->iterations, 1000);

  auto plain = import_fixtures({"osu_allreduce.txt"});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->sweeps[0].points[0].out_of_place->iterations, 0);  // unknown
  auto tail = import_fixtures({"osu_allreduce_tail.txt"});
  ASSERT_TRUE(tail.ok());
  EXPECT_FALSE(tail->sweeps[0].points[10].out_of_place->iteration_us);
}

TEST(OsuImport, DatatypesCountsAndRanks) {
  auto f = import_fixtures({"osu_allreduce_float.txt"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->sweeps[0].dtype, "float");
  EXPECT_EQ(f->sweeps[0].points[0].size_bytes, 8u);
  EXPECT_EQ(f->sweeps[0].points[0].count, 2u);
  EXPECT_EQ(f->sweeps[0].points[13].count, 16384u);

  auto all = import_fixtures({"osu_allreduce_all_types.txt"});
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->sweeps.size(), 3u);
  EXPECT_EQ(all->sweeps[0].dtype, "int8");
  EXPECT_EQ(all->sweeps[1].dtype, "int32");
  EXPECT_EQ(all->sweeps[2].dtype, "float");
  EXPECT_EQ(all->sweeps[1].points[9].count, 1024u);

  // Broadcast and reduce: factor 1 at any rank count; rooted at 0; reduce sums.
  auto bcast = import_fixtures({"osu_bcast.txt", "osu_reduce.txt"});
  ASSERT_TRUE(bcast.ok()) << bcast.status().message();
  ASSERT_EQ(bcast->sweeps.size(), 2u);
  const Sweep& b = bcast->sweeps[0];
  EXPECT_EQ(b.collective, "broadcast");
  EXPECT_FALSE(b.op);
  EXPECT_EQ(b.root, 0);
  EXPECT_DOUBLE_EQ(b.busbw_factor, 1);
  const PlacementResult& last = *b.points.back().out_of_place;
  EXPECT_DOUBLE_EQ(last.busbw_gbps, last.algbw_gbps);
  EXPECT_EQ(bcast->sweeps[1].collective, "reduce");
  EXPECT_EQ(bcast->sweeps[1].op, "sum");
  EXPECT_EQ(bcast->sweeps[1].root, 0);

  // Allgather: OSU's size is per rank; kept without a rank count, converted with one.
  auto ag = import_fixtures({"osu_allgather.txt"});
  ASSERT_TRUE(ag.ok());
  EXPECT_EQ(ag->sweeps[0].collective, "allgather");
  EXPECT_EQ(ag->sweeps[0].points[0].size_bytes, 8u);
  EXPECT_EQ(ag->sweeps[0].points[0].count, 8u);
  EXPECT_DOUBLE_EQ(ag->sweeps[0].busbw_factor, 0);
  auto ag2 = import_fixtures({"osu_allgather.txt", "osu_alltoall.txt", "osu_reduce_scatter.txt"}, {2});
  ASSERT_TRUE(ag2.ok()) << ag2.status().message();
  EXPECT_EQ(ag2->context.nranks, 2);
  const Sweep& g = ag2->sweeps[0];
  EXPECT_EQ(g.nranks, 2);
  EXPECT_DOUBLE_EQ(g.busbw_factor, 0.5);
  const SweepPoint& gp = g.points.back();
  EXPECT_EQ(gp.size_bytes, 2u * 1048576u);
  EXPECT_EQ(gp.count, 1048576u);
  EXPECT_DOUBLE_EQ(gp.out_of_place->algbw_gbps, 2.0 * 1048576 / gp.out_of_place->time_us / 1e3);
  EXPECT_DOUBLE_EQ(gp.out_of_place->busbw_gbps, gp.out_of_place->algbw_gbps * 0.5);
  EXPECT_EQ(ag2->sweeps[1].collective, "alltoall");
  EXPECT_EQ(ag2->sweeps[1].points[0].size_bytes, 16u);
  const Sweep& rs = ag2->sweeps[2];
  EXPECT_EQ(rs.collective, "reducescatter");
  EXPECT_EQ(rs.op, "sum");
  EXPECT_EQ(rs.points.back().size_bytes, 1048576u);  // OSU's size is the whole send buffer
  EXPECT_EQ(rs.points.back().count, 524288u);        // nccl-tests' count: per rank
  EXPECT_DOUBLE_EQ(rs.points[14].out_of_place->time_us, 1185.79);

  EXPECT_FALSE(import_osu({}, {-1}).ok());
}

TEST(OsuImport, Validation) {
  auto pass = import_fixtures({"osu_allreduce_float_validate.txt"});
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  for (const SweepPoint& p : pass->sweeps[0].points) EXPECT_EQ(p.out_of_place->wrong, 0);
  auto fail = import_fixtures({"osu_allreduce_validate_fail.log"});
  ASSERT_TRUE(fail.ok()) << fail.status().message();
  ASSERT_EQ(fail->sweeps[0].points.size(), 2u);
  EXPECT_EQ(fail->sweeps[0].points[0].out_of_place->wrong, 0);
  EXPECT_EQ(fail->sweeps[0].points[1].out_of_place->wrong, 1);
}

TEST(OsuImport, PointToPoint) {
  auto lat = import_fixtures({"osu_latency.txt"});
  ASSERT_TRUE(lat.ok()) << lat.status().message();
  EXPECT_TRUE(lat->sweeps.empty());
  ASSERT_TRUE(lat->p2p);
  const P2pSection& l = *lat->p2p;
  EXPECT_EQ(name(l.pattern), "pair");
  EXPECT_EQ(name(l.mode), "lat");
  EXPECT_EQ(l.backend, "mpi");
  EXPECT_EQ(name(l.method), "osu");
  EXPECT_EQ(l.window, 1);
  EXPECT_EQ(l.repeats, 1);
  EXPECT_FALSE(l.floor_us);
  ASSERT_EQ(l.links.size(), 21u);
  EXPECT_EQ(l.links[20].src_rank, 0);
  EXPECT_EQ(l.links[20].dst_rank, 1);
  EXPECT_EQ(l.links[20].src_host, "");
  EXPECT_EQ(l.links[20].size_bytes, 1048576u);
  EXPECT_EQ(l.links[20].iterations, 0);
  EXPECT_DOUBLE_EQ(*l.links[20].lat_us, 76.89);
  EXPECT_FALSE(l.links[20].lat);
  EXPECT_FALSE(l.links[20].bw_gbps);

  auto bw = import_fixtures({"osu_bw.txt"});
  ASSERT_TRUE(bw.ok()) << bw.status().message();
  const P2pSection& b = *bw->p2p;
  EXPECT_EQ(name(b.mode), "bw");
  EXPECT_EQ(b.window, 64);
  ASSERT_EQ(b.links.size(), 21u);
  EXPECT_DOUBLE_EQ(*b.links[20].bw_gbps, 13990.79 / 1e3);
  EXPECT_DOUBLE_EQ(*b.links[20].msg_rate_mpps, 13990.79 / 1048576);
  EXPECT_FALSE(b.links[20].bw_peak_gbps);
  EXPECT_FALSE(b.links[20].lat_us);

  // Both directions' sum: half each way, one link per direction.
  auto bibw = import_fixtures({"osu_bibw.txt"});
  ASSERT_TRUE(bibw.ok()) << bibw.status().message();
  const P2pSection& bi = *bibw->p2p;
  EXPECT_EQ(name(bi.mode), "bibw");
  ASSERT_EQ(bi.links.size(), 42u);
  EXPECT_EQ(bi.links[40].src_rank, 0);
  EXPECT_EQ(bi.links[40].dst_rank, 1);
  EXPECT_EQ(bi.links[41].src_rank, 1);
  EXPECT_EQ(bi.links[41].dst_rank, 0);
  EXPECT_EQ(bi.links[41].size_bytes, 1048576u);
  EXPECT_DOUBLE_EQ(*bi.links[40].bw_gbps, 27678.43 / 2 / 1e3);
  EXPECT_DOUBLE_EQ(*bi.links[41].bw_gbps, 27678.43 / 2 / 1e3);

  // Collectives and a p2p table together are one report.
  auto both = import_fixtures({"osu_two_runs.log", "osu_latency_report_bindings.log"});
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_EQ(both->sweeps.size(), 2u);
  ASSERT_TRUE(both->p2p);
  EXPECT_EQ(both->p2p->links.size(), 17u);
}

TEST(OsuImport, Refusals) {
  auto mixed = import_fixtures({"osu_latency.txt", "osu_bw.txt"});
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().message(),
            "'osu_bw.txt' line 4: osu_bw's table (mode bw) and 'osu_latency.txt' line 4: osu_latency's (mode lat): "
            "a report's p2p section has one mode; import them separately");
  auto twice = import_fixtures({"osu_bw.txt", "osu_bw_validate.txt"});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(),
            "'osu_bw_validate.txt' line 4: a second osu_bw table (the first is 'osu_bw.txt' line 4): a report's p2p "
            "section holds one; import them separately");
  auto dup = import_fixtures({"osu_allreduce.txt", "osu_two_runs.log"});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().message(),
            "'osu_two_runs.log' line 4: a second allreduce int8 table (the first is 'osu_allreduce.txt' line 4): "
            "import them separately");
  // Same collective, other datatype: two sweeps.
  EXPECT_TRUE(import_fixtures({"osu_allreduce.txt", "osu_allreduce_float.txt"}).ok());

  auto cuda =
      parse_osu("# OSU MPI-CUDA Allreduce Latency Test v7.4\n# Size       Avg Latency(us)\n8   1.50\n", "c.txt");
  ASSERT_TRUE(cuda.ok());
  auto host = parse_fixture("osu_allgather.txt");
  auto mixed_memory = import_osu({{"c.txt", *cuda}, {"osu_allgather.txt", host}});
  ASSERT_FALSE(mixed_memory.ok());
  EXPECT_EQ(mixed_memory.status().message(),
            "'osu_allgather.txt' line 4: 'OSU MPI Allgather Latency Test v7.4' ran on host buffers, but 'c.txt' line "
            "2: 'OSU MPI-CUDA Allreduce Latency Test v7.4' on CUDA: import them separately");
  auto odd = parse_osu(
      "# OSU MPI Allreduce Latency Test v7.4\n# Datatype: MPI_LONG_DOUBLE.\n# Size  Avg Latency(us)\n"
      "16  1.50\n",
      "d.txt");
  ASSERT_TRUE(odd.ok());
  auto odd_import = import_osu({{"d.txt", *odd}});
  ASSERT_FALSE(odd_import.ok());
  EXPECT_EQ(odd_import.status().message(), "'d.txt' line 2: datatype MPI_LONG_DOUBLE has no fabscope name");
  auto failed_bw = parse_osu(
      "# OSU MPI Bandwidth Test v7.4\n# Size      Bandwidth (MB/s)        Validation\n"
      "1                       5.08              Fail\n",
      "e.txt");
  ASSERT_TRUE(failed_bw.ok());
  auto failed_import = import_osu({{"e.txt", *failed_bw}});
  ASSERT_FALSE(failed_import.ok());
  EXPECT_EQ(failed_import.status().message(),
            "'e.txt' line 3: osu_bw reports a failed validation at 1 bytes; a p2p link cannot carry it: fix the run "
            "first");
  EXPECT_EQ(import_osu({{"empty.txt", {}}}).status().message(), "'empty.txt' holds no OSU table");
  EXPECT_EQ(import_osu({}).status().message(), "no OSU file given");
}

}  // namespace
}  // namespace fabscope
