// NCCL_IB_HCA as NCCL reads it (src/misc/utils.cc, docs env.rst): an optional leading
// '^' (exclude the listed devices) then an optional '=' (exact names; without it every
// entry is a prefix, so "mlx5_1" also matches mlx5_10), then comma-separated entries
// "name[:port[:rail[:plane]]]". An empty list selects every device.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace fabscope::topo {

struct HcaEntry {
  std::string name;
  int port = -1;  // -1: any port
};

struct HcaFilter {
  std::string text;  // as given
  bool exclude = false;
  bool exact = false;
  std::vector<HcaEntry> entries;

  // Whether NCCL would use port `port` of device `device` under this filter.
  bool selects(std::string_view device, int port) const;
  // Whether `entry` matches the device name (prefix or exact, ports aside).
  bool entry_matches(const HcaEntry& entry, std::string_view device) const;
};

// NCCL keeps at most 32 entries; more, an empty entry or a bad port is an error here
// (NCCL silently truncates or misreads them).
Result<HcaFilter> parse_hca_filter(std::string_view text);

}  // namespace fabscope::topo
