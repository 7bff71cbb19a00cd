// OSU Micro-Benchmarks (7.x) text output as it was printed: the blocking collectives'
// latency tables (osu_allreduce, osu_allgather, osu_alltoall, osu_bcast, osu_reduce,
// osu_reduce_scatter[_block], osu_gather, osu_scatter) and the point-to-point tables
// (osu_latency, osu_bw, osu_bibw), with their optional columns (-f, -c, -z), one table per
// datatype (-T), their -CUDA/-ROCM/-OPENACC titles, several runs in one file, mpirun's
// own lines around them and --tag-output prefixes. Only parsing: what each table says,
// nothing inferred. report/import_osu.h turns the tables into a fabscope report.
//
// A table that parses is taken as printed; a truncated or garbled one is an error naming
// the file and the line ("'osu.log' line 7: ..."), never a guess; a figure with fewer than
// the two decimals OSU prints is a line cut off. Lines OSU does not
// print are skipped outside a table (before its title, after its last row); inside one
// (between its header and a later row) they are an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coll/collective.h"
#include "core/p2p_kinds.h"
#include "core/status.h"

namespace fabscope {

// The benchmarks an OSU table can come from, as fabscope reads them.
struct OsuBenchmark {
  std::string program;                   // the OSU binary: "osu_allreduce", "osu_bibw"
  std::optional<Collective> collective;  // the collective measured; null for point-to-point
  std::optional<P2pMode> p2p_mode;       // null for collectives
};

// One row as printed. Which fields are set follows the table's header.
struct OsuRow {
  int line = 0;                           // 1-based line of the source
  uint64_t size_bytes = 0;                // OSU's "Size" (see import_osu.h for what it means per benchmark)
  std::optional<double> avg_us;           // "Avg Latency(us)" (collectives, osu_latency)
  std::optional<double> bw_mbytes_per_s;  // "Bandwidth (MB/s)", 1e6 bytes per second (osu_bw, osu_bibw)
  std::optional<double> min_us;           // -f "Min Latency(us)": the least of the ranks' averages
  std::optional<double> max_us;           // -f "Max Latency(us)": the largest of the ranks' averages
  std::optional<int64_t> iterations;      // -f "Iterations"
  std::optional<bool> valid;              // -c "Validation": Pass (true) or Fail (false)
  std::vector<double> tail;               // -z: one value per OsuTable::percentiles, in order
};

struct OsuTable {
  std::string source;                  // the file name given
  int title_line = 0;                  // the "# OSU MPI ... Test v7.4" line
  int header_line = 0;                 // the "# Size ..." column header
  std::string title;                   // as printed, without "# ": "OSU MPI-CUDA Allreduce Latency Test v7.4"
  std::string accel;                   // "" (host buffers), "CUDA", "CUDA MANAGED", "MANAGED", "ROCM" or "OPENACC"
  std::optional<std::string> version;  // "7.4"; null where the title has none
  OsuBenchmark benchmark;
  // "# Datatype: MPI_FLOAT." without its text: "MPI_FLOAT"; null where the file has no such
  // line (OSU before 7.x, whose only datatype is MPI_CHAR).
  std::optional<std::string> datatype;
  int datatype_line = 0;
  bool bandwidth = false;        // the value column is "Bandwidth (MB/s)" (else "Avg Latency(us)")
  bool full = false;             // -f: Min, Max and Iterations columns
  bool validation = false;       // -c: a Validation column
  std::vector<int> percentiles;  // -z: the tail columns' percentiles ("P50 Tail Lat(us)" -> 50)
  std::vector<OsuRow> rows;      // never empty; sizes strictly increasing
  // OSU's "DATA VALIDATION ERROR: ... on message size 16." after the last row (the run
  // stopped there); "" where it did not print one.
  std::string validation_error;
};

// What an OSU title names ("OSU MPI Allreduce Latency Test" and its -CUDA, ... variants);
// an error for a benchmark fabscope does not import.
Result<OsuBenchmark> osu_benchmark_of_title(std::string_view name);

// Every table in `text`, in file order. `source` names the file in errors.
Result<std::vector<OsuTable>> parse_osu(std::string_view text, const std::string& source);

}  // namespace fabscope
