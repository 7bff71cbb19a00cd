// The kinds of a p2p run, named as the command line and the report's JSON name them:
// its pattern (which links), its mode (what it measures) and the link schedule of a
// large job's link matrix (p2p/schedule.h says what each does).
#pragma once

#include <string_view>
#include <utility>

#include "core/named_enum.h"

namespace fabscope {

enum class P2pPattern { kRing, kPairs, kPair };
enum class P2pMode { kBandwidth, kBidirectional, kLatency };
enum class LinkSchedule { kAll, kRail, kSample };

template <>
struct EnumNames<P2pPattern> {
  static constexpr std::pair<P2pPattern, std::string_view> kNames[] = {
      {P2pPattern::kRing, "ring"}, {P2pPattern::kPairs, "pairs"}, {P2pPattern::kPair, "pair"}};
};
template <>
struct EnumNames<P2pMode> {
  static constexpr std::pair<P2pMode, std::string_view> kNames[] = {
      {P2pMode::kBandwidth, "bw"}, {P2pMode::kBidirectional, "bibw"}, {P2pMode::kLatency, "lat"}};
};
template <>
struct EnumNames<LinkSchedule> {
  static constexpr std::pair<LinkSchedule, std::string_view> kNames[] = {
      {LinkSchedule::kAll, "all"}, {LinkSchedule::kRail, "rail"}, {LinkSchedule::kSample, "sample"}};
};

}  // namespace fabscope
