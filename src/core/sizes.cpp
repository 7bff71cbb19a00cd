#include "core/sizes.h"

#include "core/text.h"

#include <fmt/format.h>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <numeric>
#include <string>

namespace fabscope {

std::optional<double> parse_percent(std::string_view text) {
  std::string t(text);
  if (!t.empty() && t.back() == '%') t.pop_back();
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (t.empty() || used != t.size() || !std::isfinite(v)) return std::nullopt;
  return v / 100.0;
}

Result<uint64_t> parse_size(std::string_view text, std::string_view what) {
  auto bad = [&](std::string_view why) {
    return Status::Invalid(
        fmt::format("invalid size '{}' for {}: {}; expected a number of bytes with an optional "
                    "K, M, G or T suffix (powers of 1024), e.g. 8, 64K, 1M, 8G",
                    text, what, why));
  };
  const std::string_view s = trim(text);
  if (s.empty()) return bad("it is empty");

  size_t digits_end = 0;
  bool seen_dot = false;
  while (digits_end < s.size() && (std::isdigit(static_cast<unsigned char>(s[digits_end])) || s[digits_end] == '.')) {
    if (s[digits_end] == '.') {
      if (seen_dot) return bad("it has two decimal points");
      seen_dot = true;
    }
    ++digits_end;
  }
  std::string_view number = s.substr(0, digits_end);
  std::string_view suffix = s.substr(digits_end);
  if (number.empty() || number == ".") return bad("it does not start with a number");

  uint64_t unit = 1;
  if (!suffix.empty()) {
    switch (std::toupper(static_cast<unsigned char>(suffix.front()))) {
      case 'K':
        unit = 1ull << 10;
        suffix.remove_prefix(1);
        break;
      case 'M':
        unit = 1ull << 20;
        suffix.remove_prefix(1);
        break;
      case 'G':
        unit = 1ull << 30;
        suffix.remove_prefix(1);
        break;
      case 'T':
        unit = 1ull << 40;
        suffix.remove_prefix(1);
        break;
      default:
        break;
    }
    if (suffix == "iB" || suffix == "ib" || suffix == "B" || suffix == "b") suffix = {};
    if (!suffix.empty()) return bad(fmt::format("unknown unit '{}'", suffix));
  }

  // Integer part and fraction separately, so that "3" and "1.5K" are exact.
  size_t dot = number.find('.');
  std::string_view int_part = number.substr(0, dot);
  std::string_view frac_part = dot == std::string_view::npos ? std::string_view{} : number.substr(dot + 1);
  uint64_t whole = 0;
  for (char c : int_part) {
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (whole > (UINT64_MAX - digit) / 10) return bad("it is too large");
    whole = whole * 10 + digit;
  }
  if (unit != 1 && whole > UINT64_MAX / unit) return bad("it is too large");
  uint64_t bytes = whole * unit;
  if (!frac_part.empty()) {
    // fraction * unit must be a whole number of bytes: exact decimal arithmetic.
    while (!frac_part.empty() && frac_part.back() == '0') frac_part.remove_suffix(1);
    if (frac_part.size() > 18) return bad("it has too many decimals");
    uint64_t num = 0;
    uint64_t den = 1;
    for (char c : frac_part) {
      num = num * 10 + static_cast<uint64_t>(c - '0');
      den *= 10;
    }
    // num / den * unit is whole iff den / gcd(unit, den) divides num.
    const uint64_t g = std::gcd(unit, den);
    if (num % (den / g) != 0) return bad("it is not a whole number of bytes");
    const uint64_t q = num / (den / g);
    const uint64_t u = unit / g;
    if (q != 0 && u > (UINT64_MAX - bytes) / q) return bad("it is too large");
    bytes += q * u;
  }
  return bytes;
}

std::string format_size(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  uint64_t v = bytes;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{} {}", v, kUnits[u]);
}

std::string format_capacity(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (u < 5 && v >= 1024) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

Status validate(const SizeRange& r) {
  if (r.min_bytes > r.max_bytes) {
    return Status::Invalid(fmt::format("minimum size -b {} is larger than maximum size -e {}; -b must be <= -e",
                                       r.min_bytes, r.max_bytes));
  }
  if (r.step_factor == 0) return Status::Invalid("step factor -f 0 is not allowed; use an integer >= 1");
  if (r.step_factor == 1 && r.step_bytes == 0 && r.min_bytes != r.max_bytes) {
    return Status::Invalid("step -i 0 with -f 1 would never reach -e; give -i > 0 or -f > 1");
  }
  if (r.step_factor > 1 && r.min_bytes == 0) {
    return Status::Invalid("minimum size -b 0 with a step factor -f > 1 would never grow; give -b > 0");
  }
  return Status::Ok();
}

std::vector<uint64_t> expand(const SizeRange& r) {
  std::vector<uint64_t> sizes;
  if (!validate(r).ok()) return sizes;
  for (uint64_t s = r.min_bytes; s <= r.max_bytes;) {
    sizes.push_back(s);
    // Stop before a step that would pass the maximum or overflow.
    if (r.step_factor > 1) {
      if (s > r.max_bytes / r.step_factor) break;
      s *= r.step_factor;
    } else {
      if (r.step_bytes == 0 || s > r.max_bytes - r.step_bytes) break;
      s += r.step_bytes;
    }
  }
  return sizes;
}

Result<double> parse_duration_s(std::string_view text, std::string_view what) {
  auto bad = [&](std::string_view why) {
    return Status::Invalid(fmt::format(
        "invalid duration '{}' for {}: {}; expected seconds, or a number with s, m, h or d, e.g. 90, 30m, 2h", text,
        what, why));
  };
  if (text.empty()) return bad("it is empty");
  double unit = 1;
  std::string_view number = text;
  switch (text.back()) {
    case 's':
      number.remove_suffix(1);
      break;
    case 'm':
      unit = 60;
      number.remove_suffix(1);
      break;
    case 'h':
      unit = 3600;
      number.remove_suffix(1);
      break;
    case 'd':
      unit = 86400;
      number.remove_suffix(1);
      break;
    default:
      break;
  }
  const std::string n(number);
  char* end = nullptr;
  errno = 0;
  const double v = n.empty() ? 0 : std::strtod(n.c_str(), &end);
  if (n.empty() || end != n.c_str() + n.size() || errno != 0 || !std::isfinite(v) ||
      n.find_first_of("xXpP") != std::string::npos) {
    return bad("not a number");
  }
  if (!(v > 0)) return bad("it must be above 0");
  return v * unit;
}

std::string format_duration_us(double us) {
  if (us >= 1e6) return fmt::format("{:.2f} s", us / 1e6);
  if (us >= 1e3) return fmt::format("{:.2f} ms", us / 1e3);
  return fmt::format("{:.1f} us", us);
}

}  // namespace fabscope
