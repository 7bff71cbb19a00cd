#include "core/hostlist.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <set>

#include "core/text.h"

namespace fabscope {

namespace {

struct Numbered {
  std::string prefix;
  std::string digits;  // trailing digits as written; empty: none
  uint64_t value = 0;
};

Numbered split_number(const std::string& host) {
  size_t i = host.size();
  while (i > 0 && host[i - 1] >= '0' && host[i - 1] <= '9') --i;
  Numbered n{host.substr(0, i), host.substr(i), 0};
  // More than 18 digits do not fit: such a host stays whole.
  if (n.digits.empty() || n.digits.size() > 18) return {host, "", 0};
  std::from_chars(n.digits.data(), n.digits.data() + n.digits.size(), n.value);
  return n;
}

// `value` written in `width` digits (zero padded), as the range "07-08" means.
std::string padded(uint64_t value, size_t width) { return fmt::format("{:0{}}", value, width); }

}  // namespace

std::string compress_hostlist(std::vector<std::string> hosts) {
  std::map<std::string, std::vector<Numbered>> by_prefix;  // hosts with a trailing number
  std::set<std::string> plain;                             // hosts without
  for (const std::string& h : std::set<std::string>(hosts.begin(), hosts.end())) {
    Numbered n = split_number(h);
    if (n.digits.empty()) {
      plain.insert(h);
    } else {
      by_prefix[n.prefix].push_back(std::move(n));
    }
  }
  std::vector<std::pair<std::string, std::string>> parts;  // sort key, text
  for (const std::string& h : plain) parts.emplace_back(h, h);
  for (auto& [prefix, nums] : by_prefix) {
    std::sort(nums.begin(), nums.end(), [](const Numbered& a, const Numbered& b) {
      return a.value != b.value ? a.value < b.value : a.digits < b.digits;
    });
    std::vector<std::string> ranges;
    for (size_t i = 0; i < nums.size();) {
      // Extend while the next number is one more and the first's width writes it as given.
      const size_t width = nums[i].digits.size();
      size_t j = i;
      while (j + 1 < nums.size() && nums[j + 1].value == nums[j].value + 1 &&
             padded(nums[j + 1].value, width) == nums[j + 1].digits) {
        ++j;
      }
      ranges.push_back(j == i ? nums[i].digits : nums[i].digits + "-" + padded(nums[j].value, width));
      i = j + 1;
    }
    std::string text =
        nums.size() == 1 ? prefix + nums[0].digits : fmt::format("{}[{}]", prefix, fmt::join(ranges, ","));
    parts.emplace_back(prefix, std::move(text));
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& [key, text] : parts) out += (out.empty() ? "" : ",") + text;
  return out;
}

Result<std::vector<std::string>> expand_hostlist(std::string_view expr) {
  auto bad = [&](const std::string& why) { return Status::Invalid(fmt::format("hostlist '{}': {}", expr, why)); };
  if (expr.empty() || expr.front() == ',' || expr.back() == ',') return bad("an empty host name");
  std::vector<std::string> out;
  size_t i = 0;
  while (i < expr.size()) {
    // One item: a prefix, an optional [ranges], an optional suffix, up to a top-level comma.
    size_t end = i;
    int depth = 0;
    while (end < expr.size() && !(depth == 0 && expr[end] == ',')) {
      if (expr[end] == '[') ++depth;
      if (expr[end] == ']' && --depth < 0) return bad("']' without '['");
      if (depth > 1) return bad("nested '['");
      ++end;
    }
    if (depth != 0) return bad("'[' without ']'");
    std::string_view item = expr.substr(i, end - i);
    i = end + 1;
    if (item.empty()) return bad("an empty host name");
    const size_t lb = item.find('[');
    if (lb == std::string_view::npos) {
      out.emplace_back(item);
      continue;
    }
    const size_t rb = item.find(']', lb);
    const std::string_view prefix = item.substr(0, lb);
    const std::string_view suffix = item.substr(rb + 1);
    if (suffix.find('[') != std::string_view::npos) return bad("more than one '[...]' in one name");
    for (std::string_view range : split(item.substr(lb + 1, rb - lb - 1), ',')) {
      const size_t dash = range.find('-');
      const std::string_view a = range.substr(0, dash);
      const std::string_view b = dash == std::string_view::npos ? a : range.substr(dash + 1);
      uint64_t lo = 0, hi = 0;
      auto r1 = std::from_chars(a.data(), a.data() + a.size(), lo);
      auto r2 = std::from_chars(b.data(), b.data() + b.size(), hi);
      if (a.empty() || b.empty() || r1.ptr != a.data() + a.size() || r2.ptr != b.data() + b.size() ||
          r1.ec != std::errc() || r2.ec != std::errc() || a.size() > 18 || b.size() > 18) {
        return bad(fmt::format("'{}' is not a number or a range like 03-07", range));
      }
      if (hi < lo) return bad(fmt::format("range '{}' runs backwards", range));
      if (hi - lo > 1'000'000) return bad(fmt::format("range '{}' names more than a million hosts", range));
      for (uint64_t v = lo; v <= hi; ++v) out.push_back(fmt::format("{}{}{}", prefix, padded(v, a.size()), suffix));
    }
  }
  if (out.empty()) return bad("names no host");
  return out;
}

}  // namespace fabscope
