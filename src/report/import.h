// `fabscope import nccl-tests`: nccl-tests' tables (report/nccl_tests_parse.h) as a
// fabscope report, so that `compare` and `--expect` work on results that exist only as
// nccl-tests output. The report is marked as imported (context.imported) and holds what
// the files said: ranks and hosts from the "# Rank" lines (or, without them, the rank
// count the printed bus and algorithm bandwidths imply), settings from the parameter
// line, per-iteration samples from -J's times_us; what they do not say is null.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "coll/collective.h"
#include "core/status.h"
#include "report/nccl_tests_parse.h"
#include "report/report.h"

namespace fabscope {

struct ImportSource {
  std::string path;
  std::vector<NcclTestsTable> tables;
};

struct ImportOptions {
  // The collective of tables whose file does not name it ("all_reduce", "allreduce", ...);
  // empty: from the file ("# Collective test starting", -J's args) or its name.
  std::string collective;
};

// One report from every table of every file; the run context's tool and command line are
// the caller's to fill. Errors name the file and line.
Result<Report> import_nccl_tests(const std::vector<ImportSource>& sources, const ImportOptions& options);

// The rank count that `busbw = algbw * factor(n)` implies for a collective over a table's
// rows, where the rows agree on one; nullopt where they do not, or where the factor is 1.
std::optional<int> ranks_from_bandwidths(Collective collective, const std::vector<NcclTestsRow>& rows);

}  // namespace fabscope
