#include "topo/hca.h"

#include <fmt/format.h>
#include <charconv>

#include "core/text.h"

namespace fabscope::topo {

bool HcaFilter::entry_matches(const HcaEntry& entry, std::string_view device) const {
  return exact ? device == entry.name : device.starts_with(entry.name);
}

bool HcaFilter::selects(std::string_view device, int port) const {
  if (entries.empty()) return true;
  bool listed = false;
  for (const HcaEntry& e : entries) {
    if (entry_matches(e, device) && (e.port < 0 || e.port == port)) {
      listed = true;
      break;
    }
  }
  return listed != exclude;
}

Result<HcaFilter> parse_hca_filter(std::string_view text) {
  HcaFilter f;
  f.text = std::string(text);
  std::string_view s = text;
  if (s.starts_with('^')) {
    f.exclude = true;
    s.remove_prefix(1);
  }
  if (s.starts_with('=')) {
    f.exact = true;
    s.remove_prefix(1);
  }
  if (s.empty()) return f;
  for (std::string_view item : split(s, ',')) {
    if (item.empty()) {
      return Status::Invalid(
          fmt::format("NCCL_IB_HCA '{}': empty entry at position {}; expected "
                      "[^][=]name[:port],...",
                      text, f.entries.size() + 1));
    }
    HcaEntry e;
    size_t colon = item.find(':');
    e.name = std::string(item.substr(0, colon));
    if (e.name.empty()) {
      return Status::Invalid(fmt::format("NCCL_IB_HCA '{}': entry '{}' has no device name", text, item));
    }
    if (colon != std::string_view::npos) {
      std::string_view rest = item.substr(colon + 1);
      std::string_view port = rest.substr(0, rest.find(':'));
      int value = 0;
      auto r = std::from_chars(port.data(), port.data() + port.size(), value);
      if (port.empty() || r.ec != std::errc() || r.ptr != port.data() + port.size() || value < 1 || value > 255) {
        return Status::Invalid(fmt::format(
            "NCCL_IB_HCA '{}': entry '{}' has port '{}'; a port is a number from 1 to 255", text, item, port));
      }
      e.port = value;
    }
    f.entries.push_back(std::move(e));
    if (f.entries.size() > 32) {
      return Status::Invalid(fmt::format("NCCL_IB_HCA '{}': more than 32 entries; NCCL reads only the first 32", text));
    }
  }
  return f;
}

}  // namespace fabscope::topo
