// Expectations: what the hardware should do, as an absolute bar for acceptance tests
// (`--expect FILE` on sweep, diagnose and compare). A small JSON file:
//
//   {"schema": "fabscope.expect/1",
//    "expect": [
//      {"collective": "allreduce", "backend": "nccl", "from_bytes": "256M", "min_busbw_gbps": 360,
//       "note": "2 nodes x 8 H100, 8 x 400G NDR"},
//      {"collective": "allreduce", "to_bytes": "64K", "max_time_us": 60},
//      {"p2p": "bw", "from_bytes": "1M", "min_bw_gbps": 45},
//      {"p2p": "lat", "max_lat_us": 4}]}
//
// Each entry names a collective (fabscope's or nccl-tests' name) or a p2p mode, may narrow
// it by backend, dtype and a size range, and sets one bar: min_busbw_gbps, min_algbw_gbps
// or max_time_us for collectives; min_bw_gbps or max_lat_us for p2p links. Every point
// of the report the entry covers is held to it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "report/report.h"
#include "report/rules.h"

namespace fabscope {

inline constexpr const char* kExpectSchema = "fabscope.expect/1";

struct Expectation {
  int index = 0;                    // position in the file, for messages: "expect[2]"
  std::string collective;           // fabscope's name; "" for a p2p entry
  std::optional<P2pMode> p2p_mode;  // null for a collective entry
  std::string backend;              // "" any
  std::string dtype;                // "" any
  uint64_t from_bytes = 0;
  uint64_t to_bytes = UINT64_MAX;
  std::string metric;   // busbw_gbps, algbw_gbps, time_us, bw_gbps, lat_us
  bool minimum = true;  // the figure must be at least the bar (else at most)
  double bar = 0;
  std::string note;
  std::string describe() const;  // "allreduce busbw >= 360 GB/s from 256 MiB (nccl)"
};

struct Expectations {
  std::string source;
  std::vector<Expectation> entries;
};

// Reads and checks a file; errors name the file, the entry and the key, and what is allowed.
Result<Expectations> load_expectations(const std::string& path);
Result<Expectations> expectations_from_json_text(const std::string& text, const std::string& source);

struct ExpectationContext {
  const Report& report;
  const Expectations& expectations;
};
// perf.below_expected (error): points below an entry's bar, one finding per entry and
// sweep placement (or p2p link), with the figure, the bar and the ratio; perf.not_measured
// (warning): an entry the report has nothing for.
std::span<const Rule<ExpectationContext>> expectation_rules();
void add_expectation_findings(Report& report, const Expectations& expectations);

}  // namespace fabscope
