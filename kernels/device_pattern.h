// fabscope's data pattern on a CUDA device: fill a buffer from (seed, rank, index)
// and count the elements that differ from the expected values without copying the
// data to the host (only the count comes back), plus a delay kernel for straggler
// tests. The values are bit-identical to the host's (coll/pattern.h), from the same
// per-element code (coll/pattern_math.h). No CUDA type appears here: a stream is
// passed as void* (a cudaStream_t; nullptr is the default stream).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "coll/layout.h"
#include "coll/pattern.h"
#include "core/status.h"

namespace fabscope::kernels {

// Visible CUDA devices, or Unavailable with the runtime's reason ("no CUDA-capable
// device is detected", "CUDA driver version is insufficient", ...).
Result<int> device_count();

// Writes the segments of `spec` into `buffer` (device memory), asynchronously: a rank's
// input, or for a reduced segment (src_rank kAllRanks, an operator in the spec) the
// expected reduction, what device_count_wrong expects there.
Status device_fill(void* buffer, const PatternSpec& spec, std::span<const Segment> segments, void* stream);

// Counts the elements of `buffer` (device memory) that differ from the expected
// segments: exact, except average of floating types within 2 ulp (as the host).
// Waits for `stream`.
Result<uint64_t> device_count_wrong(const void* buffer, const PatternSpec& spec, std::span<const Segment> segments,
                                    void* stream);

// Occupies the device for `microseconds` on `stream` (one thread spinning on the
// global timer), as a rank made late on purpose.
Status device_delay(uint64_t microseconds, void* stream);

}  // namespace fabscope::kernels
