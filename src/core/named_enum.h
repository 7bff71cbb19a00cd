// Enums whose values have fixed names: the report's JSON keys them by these names, and
// the command line takes them. One table per enum, a specialisation of EnumNames:
//
//   template <> struct EnumNames<P2pMode> {
//     static constexpr std::pair<P2pMode, std::string_view> kNames[] = {
//         {P2pMode::kBandwidth, "bw"}, {P2pMode::kBidirectional, "bibw"}, {P2pMode::kLatency, "lat"}};
//   };
//
// gives name(P2pMode), enum_from_name<P2pMode>("bibw") and enum_names<P2pMode>() ("bw,
// bibw, lat"), fmt::format("{}", P2pMode::kLatency) as "lat", and JSON reading and
// writing (report/json_io.h) by name, never by number.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace fabscope {

template <typename E>
struct EnumNames;

template <typename E>
concept NamedEnum = std::is_enum_v<E> && requires {
  EnumNames<E>::kNames;
};

template <NamedEnum E>
constexpr std::string_view name(E value) {
  for (const auto& [v, text] : EnumNames<E>::kNames) {
    if (v == value) return text;
  }
  return "?";
}

template <NamedEnum E>
constexpr std::optional<E> enum_from_name(std::string_view text) {
  for (const auto& [v, n] : EnumNames<E>::kNames) {
    if (n == text) return v;
  }
  return std::nullopt;
}

// Every name, in table order, separated by ", ": what an error says is allowed.
template <NamedEnum E>
std::string enum_names() {
  std::string out;
  for (const auto& [v, n] : EnumNames<E>::kNames) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

}  // namespace fabscope

template <fabscope::NamedEnum E>
struct fmt::formatter<E> : fmt::formatter<std::string_view> {
  template <typename FormatContext>
  auto format(E value, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(fabscope::name(value), ctx);
  }
};
