// What timed each iteration of a sweep for its per-iteration statistics (the report's
// sweeps[].iteration_clock; time_us is always the host clock over the whole loop, as
// nccl-tests takes it): the host clock, CUDA events around each iteration, or events
// around each graph launch divided by its iterations.
#pragma once

#include <string_view>
#include <utility>

#include "core/named_enum.h"

namespace fabscope {

enum class IterationTimer { kHost, kCudaEvent, kCudaGraphLaunch };
template <>
struct EnumNames<IterationTimer> {
  static constexpr std::pair<IterationTimer, std::string_view> kNames[] = {
      {IterationTimer::kHost, "host"},
      {IterationTimer::kCudaEvent, "cuda_event"},
      {IterationTimer::kCudaGraphLaunch, "cuda_graph_launch"}};
};

}  // namespace fabscope
