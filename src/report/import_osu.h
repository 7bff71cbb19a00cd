// `fabscope import osu`: OSU Micro-Benchmarks' tables (report/osu_parse.h) as a fabscope
// report, marked as imported (context.imported), holding only what the files said.
//
// Collective tables become sweeps (backend mpi, method osu, out of place: OSU's default;
// its -l in-place runs print nothing that tells them apart). OSU prints neither the rank
// count nor its settings, so unless the caller gives the rank count (OsuImportOptions):
//  - nranks is unknown (null), and with it the bus-bandwidth factor: 0 and busbw 0, except
//    for broadcast and reduce whose factor is 1 at any rank count (as import.h does);
//  - size_bytes is OSU's "Size" as printed. For allreduce, broadcast, reduce and
//    reduce-scatter it is nccl-tests' size too (the whole buffer; reduce-scatter's send
//    buffer). For allgather, alltoall, gather and scatter OSU's "Size" is each rank's
//    message, while nccl-tests' and fabscope's size is the whole receive (allgather,
//    gather) or send buffer: rank count times larger. Such sweeps keep OSU's per-rank size
//    (and algbw = that size / time); with the rank count given, they are converted;
//  - count is OSU's elements per call (size / element size): nccl-tests' count, except for
//    reduce-scatter whose nccl-tests count is per rank (size / element size / ranks), set
//    only with the rank count given.
// time_us is OSU's "Avg Latency(us)": each rank's mean call time (each call between
// barriers, on a fixed buffer), averaged over ranks. iterations is -f's column, else 0
// (unknown). iteration_us stays null: OSU's -f Min/Max are extremes over ranks of their
// means, and -z's percentiles are of the rank-averaged call time, neither fabscope's
// slowest-rank-per-iteration statistics. -c's Pass/Fail is wrong 0/1 (OSU prints no count).
//
// osu_latency, osu_bw and osu_bibw become the p2p section (pattern pair, ranks 0 and 1,
// hosts unknown, method osu). Latency: lat_us is OSU's one-way figure (the loop's mean
// half round trip); bandwidth: bw_gbps is OSU's MB/s (1e6 bytes/s) / 1000, msg_rate_mpps
// bw / size (computed). osu_bibw prints the sum of both directions: it becomes two links,
// 0 -> 1 and 1 -> 0, each with half (each direction moved the same bytes in OSU's one
// timed interval), as fabscope's bibw reports each direction as its own link. A report
// has one p2p mode: a latency and a bandwidth table together are refused, as are two
// tables of one collective and datatype (or two p2p tables): import them separately.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "report/osu_parse.h"
#include "report/report.h"

namespace fabscope {

struct OsuSource {
  std::string path;
  std::vector<OsuTable> tables;
};

struct OsuImportOptions {
  // The job's rank count, where the caller knows it (OSU does not print it); 0: unknown.
  int nranks = 0;
};

// One report from every table of every file; the run context's tool and command line are
// the caller's to fill. Errors name the file and line.
Result<Report> import_osu(const std::vector<OsuSource>& sources, const OsuImportOptions& options = {});

}  // namespace fabscope
