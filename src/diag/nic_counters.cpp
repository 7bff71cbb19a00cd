#include "diag/nic_counters.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/text.h"

namespace fabscope {

namespace {

// Names from the kernel's sysfs-class-infiniband ABI, mlx5's RDMA hw_counters and its
// ethtool counters (Documentation/networking/device_drivers/ethernet/mellanox/mlx5/
// counters.rst).
constexpr CounterClass kClasses[] = {
    // InfiniBand port counters
    {"symbol_error", CounterKind::kLinkError},
    {"link_error_recovery", CounterKind::kLinkError},
    {"link_downed", CounterKind::kLinkError},
    {"port_rcv_errors", CounterKind::kLinkError},
    {"port_rcv_remote_physical_errors", CounterKind::kLinkError},
    {"local_link_integrity_errors", CounterKind::kLinkError},
    {"excessive_buffer_overrun_errors", CounterKind::kLinkError},
    {"port_xmit_wait", CounterKind::kCongestion},
    {"port_xmit_discards", CounterKind::kDiscard},
    // RDMA hw_counters (mlx5)
    {"np_ecn_marked_roce_packets", CounterKind::kCongestion},
    {"np_cnp_sent", CounterKind::kCongestion},
    {"rp_cnp_handled", CounterKind::kCongestion},
    {"rp_cnp_ignored", CounterKind::kCongestion},
    {"out_of_buffer", CounterKind::kDiscard},
    {"out_of_sequence", CounterKind::kRetransmit},
    {"packet_seq_err", CounterKind::kRetransmit},
    {"local_ack_timeout_err", CounterKind::kRetransmit},
    {"rnr_nak_retry_err", CounterKind::kRetransmit},
    {"implied_nak_seq_err", CounterKind::kRetransmit},
    // ethtool (mlx5 and generic)
    {"rx_pcs_symbol_err_phy", CounterKind::kLinkError},
    {"rx_symbol_err_phy", CounterKind::kLinkError},
    {"rx_crc_errors_phy", CounterKind::kLinkError},
    {"link_down_events_phy", CounterKind::kLinkError},
    {"rx_crc_errors", CounterKind::kLinkError},
    {"rx_discards_phy", CounterKind::kDiscard},
    {"tx_discards_phy", CounterKind::kDiscard},
    {"rx_out_of_buffer", CounterKind::kDiscard},
    {"rx_buffer_passed_thres_phy", CounterKind::kCongestion},
    {"rx_prio*_pause", CounterKind::kPause},
    {"tx_prio*_pause", CounterKind::kPause},
    {"rx_pause_ctrl_phy", CounterKind::kPause},
    {"tx_pause_ctrl_phy", CounterKind::kPause},
    {"rx_global_pause", CounterKind::kPause},
    {"tx_global_pause", CounterKind::kPause},
    {"tx_pause_storm_*_events", CounterKind::kPause},
    {"outbound_pci_stalled_rd", CounterKind::kPcieStall},
    {"outbound_pci_stalled_wr", CounterKind::kPcieStall},
};

bool matches(std::string_view pattern, std::string_view name) {
  const size_t star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == name;
  const std::string_view head = pattern.substr(0, star), tail = pattern.substr(star + 1);
  return name.size() >= head.size() + tail.size() && name.starts_with(head) && name.ends_with(tail);
}

std::optional<uint64_t> read_number(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  const std::string_view t = trim(text);
  uint64_t v = 0;
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size()) return std::nullopt;
  return v;
}

// The driver's statistics of one interface: names, then values (SIOCETHTOOL).
std::map<std::string, uint64_t> driver_stats(int fd, const std::string& interface, bool all) {
  std::map<std::string, uint64_t> out;
  if (interface.size() >= IFNAMSIZ) return out;
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, interface.c_str(), interface.size());
  // ethtool_sset_info, then the count of each set asked for (one: ETH_SS_STATS).
  alignas(8) uint8_t sset[sizeof(ethtool_sset_info) + sizeof(uint32_t)] = {};
  auto* info = reinterpret_cast<ethtool_sset_info*>(sset);
  info->cmd = ETHTOOL_GSSET_INFO;
  info->sset_mask = 1ULL << ETH_SS_STATS;
  ifr.ifr_data = reinterpret_cast<char*>(sset);
  if (::ioctl(fd, SIOCETHTOOL, &ifr) != 0 || !(info->sset_mask & (1ULL << ETH_SS_STATS))) return out;
  uint32_t n = 0;
  std::memcpy(&n, sset + sizeof(ethtool_sset_info), sizeof(n));
  if (n == 0 || n > 65536) return out;
  std::vector<uint8_t> names(sizeof(ethtool_gstrings) + static_cast<size_t>(n) * ETH_GSTRING_LEN);
  auto* gs = reinterpret_cast<ethtool_gstrings*>(names.data());
  gs->cmd = ETHTOOL_GSTRINGS;
  gs->string_set = ETH_SS_STATS;
  gs->len = n;
  ifr.ifr_data = reinterpret_cast<char*>(gs);
  if (::ioctl(fd, SIOCETHTOOL, &ifr) != 0) return out;
  std::vector<uint8_t> values(sizeof(struct ethtool_stats) + static_cast<size_t>(n) * sizeof(uint64_t));
  auto* st = reinterpret_cast<struct ethtool_stats*>(values.data());
  st->cmd = ETHTOOL_GSTATS;
  st->n_stats = n;
  ifr.ifr_data = reinterpret_cast<char*>(st);
  if (::ioctl(fd, SIOCETHTOOL, &ifr) != 0) return out;
  const uint32_t got = std::min(n, std::min(gs->len, st->n_stats));
  for (uint32_t i = 0; i < got; ++i) {
    const char* s = reinterpret_cast<const char*>(gs->data) + static_cast<size_t>(i) * ETH_GSTRING_LEN;
    std::string counter(s, strnlen(s, ETH_GSTRING_LEN));
    if (all || counter_kind(counter)) out.emplace(std::move(counter), st->data[i]);  // the first of duplicates
  }
  return out;
}

}  // namespace

std::string_view name(CounterKind kind) {
  switch (kind) {
    case CounterKind::kLinkError:
      return "link_error";
    case CounterKind::kCongestion:
      return "congestion";
    case CounterKind::kDiscard:
      return "discard";
    case CounterKind::kPause:
      return "pause";
    case CounterKind::kRetransmit:
      return "retransmit";
    case CounterKind::kPcieStall:
      return "pcie_stall";
  }
  return "?";
}

std::span<const CounterClass> counter_classes() { return kClasses; }

std::optional<CounterKind> counter_kind(std::string_view counter) {
  for (const CounterClass& c : kClasses) {
    if (matches(c.pattern, counter)) return c.kind;
  }
  return std::nullopt;
}

PortCounters read_port_counters(const std::string& root) {
  namespace fs = std::filesystem;
  PortCounters out;
  std::error_code ec;
  for (const auto& dev : fs::directory_iterator(root, ec)) {
    std::error_code pec;
    for (const auto& port : fs::directory_iterator(dev.path() / "ports", pec)) {
      int number = 0;
      const std::string p = port.path().filename().string();
      if (std::from_chars(p.data(), p.data() + p.size(), number).ec != std::errc()) continue;
      auto& counters = out[{dev.path().filename().string(), number}];
      for (const char* dir : {"counters", "hw_counters"}) {
        std::error_code cec;
        for (const auto& file : fs::directory_iterator(port.path() / dir, cec)) {
          const std::string counter = file.path().filename().string();
          if (counter == "lifespan") continue;  // hw_counters' refresh period, not a count
          if (auto v = read_number(file.path())) counters.emplace(counter, *v);
        }
      }
    }
  }
  return out;
}

NicStats read_ethtool_stats(const std::vector<std::string>& interfaces, bool all) {
  NicStats out;
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return out;
  for (const std::string& i : interfaces) {
    auto stats = driver_stats(fd, i, all);
    if (!stats.empty()) out.emplace(i, std::move(stats));
  }
  ::close(fd);
  return out;
}

std::map<std::string, uint64_t> counter_delta(const std::map<std::string, uint64_t>& before,
                                              const std::map<std::string, uint64_t>& after) {
  std::map<std::string, uint64_t> d;
  for (const auto& [name, v] : after) {
    auto old = before.find(name);
    if (old != before.end()) d[name] = v >= old->second ? v - old->second : 0;
  }
  return d;
}

}  // namespace fabscope
