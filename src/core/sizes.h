// Byte sizes as users write them: "8", "64K", "1.5M", "8G" (binary multiples, as
// nccl-tests reads -b/-e), and as fabscope prints them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace fabscope {

// Parses a size: a non-negative number with an optional K, M, G or T suffix
// (powers of 1024) and an optional trailing "B" or "iB". The value must be a whole
// number of bytes. `what` names the option in the error message.
Result<uint64_t> parse_size(std::string_view text, std::string_view what);
// A time span: seconds, or a number with s, m, h or d ("90", "90s", "30m", "2h",
// "1.5h"); > 0 and finite. `what` names the option in the error.
Result<double> parse_duration_s(std::string_view text, std::string_view what);

// A percentage as users write it ("5%", "5", "2.5%") as a fraction (0.05), or nullopt
// where the text is not a finite number; the caller checks the range it allows.
std::optional<double> parse_percent(std::string_view text);

// "64 MiB", "1 KiB", "12 B": exact binary units where the size divides, else bytes.
std::string format_size(uint64_t bytes);
// A time in microseconds as people read it: "4.06 s", "16.80 ms", "21.9 us".
std::string format_duration_us(double us);
// "23.0 GiB": an amount of memory, rounded to one decimal in the largest binary unit.
std::string format_capacity(uint64_t bytes);

// The sizes of a sweep, as nccl-tests steps them: from min to max, multiplying by
// `factor` when it is above 1, else adding `step_bytes`.
struct SizeRange {
  uint64_t min_bytes = 32ull << 20;
  uint64_t max_bytes = 32ull << 20;
  uint64_t step_bytes = 1ull << 20;
  uint64_t step_factor = 1;
};
Status validate(const SizeRange& range);
std::vector<uint64_t> expand(const SizeRange& range);

}  // namespace fabscope
