// nccl-tests' output as it was printed or written: the text tables of every version
// (with and without #wrong / error columns, with and without root, -I per-iteration
// columns, -S timestamps, several collectives in one file, launcher prefixes) and the
// -J JSON file. Only parsing: what each table says, nothing inferred. report/import.h
// turns the tables into a fabscope report.
//
// A table that parses is taken as printed; a truncated or garbled one is an error
// naming the file and the line ("'run.log' line 42: ..."), never a guess.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace fabscope {

// One "#  Rank  3 Group  0 Pid   6290 on  fs-207 device  3 [0x5d] NVIDIA H200" line.
struct NcclTestsDevice {
  int rank = 0;
  std::optional<int> group;  // absent in old versions
  int pid = 0;
  std::string host;
  int device = 0;
  std::string bus_id;       // "0x5d" or "0000:19:00", without the brackets
  std::string device_name;  // "NVIDIA H200"
};

// The "# nThread 1 nGpus 1 minBytes 8 maxBytes ... step: 2(factor) warmup iters: 5 iters: 20
// agg iters: 1 validation: 1 graph: 0" line; what an older version does not print is null.
struct NcclTestsParams {
  int nthreads = 1;
  int ngpus = 1;
  uint64_t min_bytes = 0;
  uint64_t max_bytes = 0;
  std::optional<uint64_t> step_factor;  // "step: 2(factor)"
  std::optional<uint64_t> step_bytes;   // "step: 1048576(bytes)"
  std::optional<int> warmup_iters;
  std::optional<int> iters;
  std::optional<int> agg_iters;
  std::optional<int> validation;
  std::optional<int> graph;
};

// -I 1's statistics of one placement (text: i_min i_max i_p99 i_cv%; JSON: *_per_iter).
struct NcclTestsPerIter {
  std::optional<double> min_us;
  std::optional<double> max_us;
  std::optional<double> avg_us;
  std::optional<double> p50_us;
  std::optional<double> p95_us;
  std::optional<double> p99_us;
  std::optional<double> stdev_us;
  std::optional<double> cv_pct;
  std::vector<double> times_us;  // JSON only: every iteration's time
};

struct NcclTestsPlacement {
  double time_us = 0;  // "time" (or "cputime" with -C: see NcclTestsTable::cpu_time)
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  // #wrong (or the old "error" column, a maximum error: nonzero counts as 1); null
  // where printed N/A (-c 0) or where the layout has no such column.
  std::optional<int64_t> wrong;
  std::optional<NcclTestsPerIter> per_iter;
};

struct NcclTestsRow {
  int line = 0;  // 1-based line of the source (JSON: 0)
  uint64_t size_bytes = 0;
  uint64_t count = 0;
  std::string type;         // as printed: "float", "half", "bfloat16", ...
  std::string redop;        // "sum", ... or "none"
  std::optional<int> root;  // -1 printed as -1; null where the layout has no root column
  std::optional<NcclTestsPlacement> out_of_place;
  std::optional<NcclTestsPlacement> in_place;
  std::optional<std::string> timestamp;  // -S 1
};

// One table: one collective's sweep, with what the file printed around it.
struct NcclTestsTable {
  std::string source;   // the file name given
  int header_line = 0;  // the line of the column header ("#  size  count  type ..."); JSON: 0
  // The nccl-tests binary's name as the file gives it ("all_reduce_perf",
  // "all_reduce_perf_mpi"), from "# Collective test starting: X", or the -J JSON's
  // args[0]; empty where the file does not say.
  std::string program;
  std::optional<std::string> tests_version;  // "# nccl-tests version 2.17.1 ..."
  std::optional<std::string> nccl_version;   // "NCCL version 2.26.2+cuda12.8", or nccl-library=22602 -> "2.26.2"
  std::optional<NcclTestsParams> params;
  std::vector<NcclTestsDevice> devices;  // "# Using devices" lines, in the order printed
  bool cpu_time = false;                 // -C: the time column is "cputime"
  std::vector<NcclTestsRow> rows;
  std::optional<double> avg_busbw_gbps;  // "# Avg bus bandwidth : X"
  std::optional<int64_t> out_of_bounds;  // "# Out of bounds values : N OK|FAILED"
  bool json = false;                     // read from a -J JSON file
};

// A "# Using devices" line's body (after the '#'): "Rank  0 Group  0 Pid   6287 on fs-207
// device  0 [0x18] NVIDIA H200"; nullopt for any other text.
std::optional<NcclTestsDevice> nccl_tests_device_line(std::string_view body);

// Every table in `text`, in file order. `source` names the file in errors.
Result<std::vector<NcclTestsTable>> parse_nccl_tests_text(std::string_view text, const std::string& source);
// A -J JSON file (JSON_FILE_VERSION 3): one table.
Result<NcclTestsTable> parse_nccl_tests_json(std::string_view text, const std::string& source);
// Either, by content: a document starting with '{' is JSON.
Result<std::vector<NcclTestsTable>> parse_nccl_tests(std::string_view text, const std::string& source);

}  // namespace fabscope
