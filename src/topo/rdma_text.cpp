// RDMA tools' output as pasted from a terminal: ibdev2netdev, ibv_devinfo (-v: the active
// width and speed), ibstat, ibstatus, show_gids, `ip -br a` and `ls -l /sys/class/infiniband`. Shell prompts
// "[user@host dir]$ cmd" switch the host that the following output describes.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include "core/text.h"
#include "topo/readers.h"

namespace fabscope::topo {

namespace {

Port& port_of(Nic& n, int number) {
  auto p = std::find_if(n.ports.begin(), n.ports.end(), [&](const Port& x) { return x.number == number; });
  if (p != n.ports.end()) return *p;
  Port fresh;
  fresh.number = number;
  n.ports.push_back(fresh);
  return n.ports.back();
}

bool to_int(std::string_view s, int& v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool is_bdf(std::string_view s) { return !normalize_busid(s).empty() && s.find(':') != std::string_view::npos; }

bool to_double(std::string_view s, double& v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && r.ec == std::errc() && std::isfinite(v) && v >= 0;
}

// ibstat's and ibv_devinfo's port states, as the model writes them: "Active" and
// "PORT_ACTIVE" -> "ACTIVE", "Initializing" -> "INIT".
std::string port_state(std::string_view s) {
  if (s.starts_with("PORT_")) s.remove_prefix(5);
  std::string out;
  for (char c : s) out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  return out == "INITIALIZING" ? "INIT" : out;
}

// ibv_devinfo -v: "active_width: 4X (2)" -> 4 lanes.
int lanes(std::string_view width) {
  int n = 0;
  if (!width.empty() && width.back() == 'X') width.remove_suffix(1);
  return to_int(width, n) && n > 0 && n <= 32 ? n : 0;
}

// A GID's subnet prefix, its first four groups ("fe80:0000:0000:0001"); "" where it has
// fewer.
std::string subnet_prefix_of(std::string_view gid) {
  size_t at = 0;
  for (int groups = 0; groups < 4 && at != std::string_view::npos; ++groups) at = gid.find(':', at + (groups > 0));
  return at == std::string_view::npos ? std::string() : std::string(gid.substr(0, at));
}

using Words = std::vector<std::string_view>;

// The PCI path of a /sys/class/infiniband link's target: every component that is a bus id,
// root port first, the device last.
std::vector<std::string_view> bdfs_of_path(std::string_view path) {
  std::vector<std::string_view> bdfs;
  size_t i = 0;
  while (i <= path.size()) {
    const size_t slash = path.find('/', i);
    std::string_view c = path.substr(i, slash == std::string_view::npos ? std::string_view::npos : slash - i);
    if (is_bdf(c)) bdfs.push_back(c);
    if (slash == std::string_view::npos) break;
    i = slash + 1;
  }
  return bdfs;
}

// One pasted terminal session, line by line. Each tool's lines have a method that says
// whether the line was its own; ibv_devinfo and ibstat print a device, then its ports, so
// the device (and port) being read is kept between lines.
class RdmaTextParser {
 public:
  RdmaTextParser(std::string_view source, TopologySet& set) : source_(source), set_(set) {}

  void line(std::string_view line) {
    if (std::string h = prompt_host(line); !h.empty()) {
      host_ = h;
      devinfo_dev_.clear();
      ibstat_dev_.clear();
      ethtool_if_.clear();
      devinfo_seen_.clear();
      return;
    }
    const Words w = split_ws(line);
    if (w.empty()) return;
    if (ibdev2netdev(w) || devinfo_device(w)) return;
    if (!devinfo_dev_.empty() && devinfo_port_line(w)) return;
    if (ibstat_device(w)) return;
    if (headless_ibstat_port(w)) return;
    if (!ibstat_dev_.empty() && ibstat_port_line(w)) return;
    if (ibstatus_port(w)) return;
    if (!ibstatus_dev_.empty() && ibstatus_port_line(w)) return;
    if (show_gids(w)) return;
    if (ethtool_settings(w)) return;
    sys_class_infiniband(w);
  }

  int records() const { return records_; }

 private:
  // The host the current prompt names, with this file listed among its sources.
  HostTopology& here() {
    HostTopology& h = set_.host(host_);
    std::string src = fmt::format("rdma-info:{}", source_);
    if (std::find(h.sources.begin(), h.sources.end(), src) == h.sources.end()) h.sources.push_back(src);
    return h;
  }

  // ibdev2netdev: "mlx5_0 port 1 ==> enp25s0np0 (Up)"
  bool ibdev2netdev(const Words& w) {
    if (w.size() < 6 || w[1] != "port" || w[3] != "==>") return false;
    int port = 0;
    if (!to_int(w[2], port)) return true;
    Port& p = port_of(here().add_nic(w[0]), port);
    p.netdev = std::string(w[4]);
    // "(Up)"/"(Down)" is the network interface's state: the port's own on RoCE, but only
    // IPoIB's on InfiniBand (an ib* interface), where a port can be Active under a Down
    // interface. ibstat's or ibv_devinfo's state of the port stands over it.
    if (p.state.empty() && !p.netdev.starts_with("ib")) {
      p.state = w[5] == "(Up)" ? "ACTIVE" : w[5] == "(Down)" ? "DOWN" : std::string(w[5]);
    }
    ++records_;
    return true;
  }

  // ibv_devinfo: "hca_id: mlx5_0" starts a device.
  bool devinfo_device(const Words& w) {
    if (w.size() != 2 || w[0] != "hca_id:") return false;
    ibstatus_dev_.clear();
    if (!prompted() && devinfo_seen_.count(std::string(w[1]))) next_unnamed_host();
    devinfo_seen_.insert(std::string(w[1]));
    devinfo_dev_ = std::string(w[1]);
    devinfo_port_ = -1;
    ibstat_dev_.clear();
    here().add_nic(devinfo_dev_);
    ++records_;
    return true;
  }

  // ibv_devinfo, within a device: "port: 1", then its "state:", "link_layer:" and (-v)
  // "active_width: 4X (2)", "active_speed: 25.0 Gbps (32)", which give the port's rate.
  bool devinfo_port_line(const Words& w) {
    if (w.size() == 2 && w[0] == "port:" && to_int(w[1], devinfo_port_)) {
      devinfo_lanes_ = 0;
      devinfo_lane_gbits_ = 0;
      return true;
    }
    if (devinfo_port_ <= 0 || w.size() < 2) return false;
    if (w[0] == "state:") {
      devinfo_port().state = port_state(w[1]);
      return true;
    }
    if (w[0] == "active_width:" || w[0] == "active_speed:") {
      if (w[0] == "active_width:") devinfo_lanes_ = lanes(w[1]);
      if (w[0] == "active_speed:" && !to_double(w[1], devinfo_lane_gbits_)) devinfo_lane_gbits_ = 0;
      if (devinfo_lanes_ > 0 && devinfo_lane_gbits_ > 0)
        devinfo_port().rate_gbits = devinfo_lanes_ * devinfo_lane_gbits_;
      return true;
    }
    if (w[0] == "link_layer:") {
      devinfo_port().link_layer = std::string(w[1]);
      return true;
    }
    if (w[0] == "active_mtu:") {  // "active_mtu: 4096 (5)": bytes, then the ibv_mtu enum
      int mtu = 0;
      if (to_int(w[1], mtu) && mtu > 0) devinfo_port().active_mtu = mtu;
      return true;
    }
    // -v: "GID[ 0]: fe80:0000:0000:0001:0008:f104:0396:62b5" (or "GID[0]:"): its subnet prefix.
    if ((w[0] == "GID[" && w.size() >= 3 && w[1] == "0]:") || w[0] == "GID[0]:") {
      Port& p = devinfo_port();
      if (p.subnet_prefix.empty()) p.subnet_prefix = subnet_prefix_of(w.back());
      return true;
    }
    return false;
  }
  Port& devinfo_port() { return port_of(here().add_nic(devinfo_dev_), devinfo_port_); }

  // ibstat: "CA 'mlx5_0'" starts a device.
  bool ibstat_device(const Words& w) {
    if (w.size() != 2 || w[0] != "CA" || w[1].size() <= 2 || w[1].front() != '\'' || w[1].back() != '\'') return false;
    ibstat_dev_ = std::string(w[1].substr(1, w[1].size() - 2));
    ibstat_port_ = -1;
    devinfo_dev_.clear();
    ibstatus_dev_.clear();
    here().add_nic(ibstat_dev_);
    ++records_;
    return true;
  }

  // ibstat's port pasted without its device's lines ("...", "Port 1:", "State: Down",
  // "Physical state: Polling"): outside any device, a "Port N:" whose next line is its State
  // opens a port of a device the paste does not name.
  bool headless_ibstat_port(const Words& w) {
    const int pending = headless_port_;
    headless_port_ = 0;
    if (!devinfo_dev_.empty() || !ibstat_dev_.empty() || !ibstatus_dev_.empty()) return false;
    int port = 0;
    if (w.size() == 2 && w[0] == "Port" && w[1].ends_with(':') && to_int(w[1].substr(0, w[1].size() - 1), port) &&
        port > 0) {
      headless_port_ = port;
      return true;
    }
    if (pending == 0 || w.size() != 2 || w[0] != "State:") return false;
    ibstat_dev_ = std::string(kUnnamedCa);
    ibstat_port_ = pending;
    here().add_nic(ibstat_dev_);
    ++records_;
    ibstat_port().state = port_state(w[1]);
    return true;
  }

  // ibstat, within a device: "Port 1:" and its "State: Active", "Rate: 400",
  // "Link layer: InfiniBand".
  bool ibstat_port_line(const Words& w) {
    if (w.size() == 2 && w[0] == "Port" && w[1].ends_with(':') &&
        to_int(w[1].substr(0, w[1].size() - 1), ibstat_port_)) {
      ibstat_port();
      return true;
    }
    if (ibstat_port_ <= 0) return false;
    if (w.size() == 2 && w[0] == "State:") {
      ibstat_port().state = port_state(w[1]);
      return true;
    }
    double rate = 0;
    if (w.size() == 2 && w[0] == "Rate:" && to_double(w[1], rate)) {
      ibstat_port().rate_gbits = rate;
      return true;
    }
    if (w.size() == 3 && w[0] == "Link" && w[1] == "layer:") {
      ibstat_port().link_layer = std::string(w[2]);
      return true;
    }
    return false;
  }
  Port& ibstat_port() { return port_of(here().add_nic(ibstat_dev_), ibstat_port_); }

  // ibstatus (infiniband-diags' script over sysfs): "Infiniband device 'mlx5_0' port 1
  // status:" starts a port.
  bool ibstatus_port(const Words& w) {
    if (w.size() != 6 || w[0] != "Infiniband" || w[1] != "device" || w[3] != "port" || w[5] != "status:" ||
        w[2].size() <= 2 || w[2].front() != '\'' || w[2].back() != '\'' || !to_int(w[4], ibstatus_port_)) {
      return false;
    }
    ibstatus_dev_ = std::string(w[2].substr(1, w[2].size() - 2));
    devinfo_dev_.clear();
    ibstat_dev_.clear();
    ibstatus_port_ref();
    ++records_;
    return true;
  }

  // ibstatus, within a port: "state: 4: ACTIVE", "rate: 100 Gb/sec (4X EDR)",
  // "link_layer: InfiniBand", "default gid: fe80:0000:0000:0000:..." (its subnet prefix).
  bool ibstatus_port_line(const Words& w) {
    if (w.size() >= 3 && w[0] == "state:") {
      ibstatus_port_ref().state = port_state(w.back());
      return true;
    }
    double rate = 0;
    if (w.size() >= 3 && w[0] == "rate:" && w[2].starts_with("Gb/sec") && to_double(w[1], rate)) {
      ibstatus_port_ref().rate_gbits = rate;
      return true;
    }
    if (w.size() == 2 && w[0] == "link_layer:") {
      ibstatus_port_ref().link_layer = std::string(w[1]);
      return true;
    }
    if (w.size() == 3 && w[0] == "default" && w[1] == "gid:") {
      if (std::count(w[2].begin(), w[2].end(), ':') == 7) ibstatus_port_ref().subnet_prefix = subnet_prefix_of(w[2]);
      return true;
    }
    return (w.size() >= 2 && (w[0] == "phys" || w[0] == "base" || w[0] == "sm"));
  }
  Port& ibstatus_port_ref() { return port_of(here().add_nic(ibstatus_dev_), ibstatus_port_); }

  // show_gids: "mlx5_0 1 3 0000:...:5b27 10.99.91.39 v2 ens108np0" (no IPv4 for a link-local
  // GID; a pod's interface may be any name: "net1"): a GID of eight groups in the fourth
  // column, a version, the interface last.
  bool show_gids(const Words& w) {
    if (w.size() < 6) return false;
    const std::string_view netdev = w.back();
    if (netdev == "v1" || netdev == "v2" || std::count(w[3].begin(), w[3].end(), ':') != 7) return false;
    int port = 0;
    int index = 0;
    const bool ver = std::find(w.begin(), w.end(), "v1") != w.end() || std::find(w.begin(), w.end(), "v2") != w.end();
    if (!ver || !to_int(w[1], port) || !to_int(w[2], index)) return false;
    Port& p = port_of(here().add_nic(w[0]), port);
    if (p.netdev.empty()) p.netdev = std::string(netdev);
    ++records_;
    return true;
  }

  // ethtool IF: "Settings for IF:" starts an interface, then its "Supported link modes:",
  // "Advertised link modes:" and "Link partner advertised link modes:" (each continued on
  // the lines below), "Speed: 25000Mb/s" and "Link detected: yes". The interface is the
  // port of the RDMA device whose netdev it is (ibdev2netdev above), else an interface of
  // its own.
  bool ethtool_settings(const Words& w) {
    if (w.size() == 3 && w[0] == "Settings" && w[1] == "for" && w[2].ends_with(':')) {
      ethtool_if_ = std::string(w[2].substr(0, w[2].size() - 1));
      ethtool_modes_ = nullptr;
      ethtool_supported_ = ethtool_advertised_ = ethtool_partner_ = 0;
      ethtool_port();
      ++records_;
      return true;
    }
    if (ethtool_if_.empty()) return false;
    const auto mode_gbits = [](std::string_view m) {  // "100000baseCR4/Full": 100
      double mbits = 0;
      const auto r = std::from_chars(m.data(), m.data() + m.size(), mbits);
      return r.ec == std::errc() &&
                     std::string_view(r.ptr, m.size() - static_cast<size_t>(r.ptr - m.data())).starts_with("base")
                 ? mbits / 1000
                 : 0.0;
    };
    size_t first = 0;  // the first link mode on the line, after its "... link modes:"
    for (size_t k = 2; k < w.size() && first == 0; ++k) {
      if (w[k] != "modes:" || w[k - 1] != "link") continue;
      first = k + 1;
      const std::string_view head = w[k - 2];  // "Supported", "Advertised", or the partner's "advertised"
      ethtool_modes_ = head == "Supported"                                       ? &ethtool_supported_
                       : head == "Advertised"                                    ? &ethtool_advertised_
                       : head == "advertised" && k >= 3 && w[k - 3] == "partner" ? &ethtool_partner_
                                                                                 : nullptr;
    }
    if (first == 0) {  // a continuation of the list above, or another field
      if (!ethtool_modes_ || mode_gbits(w[0]) <= 0) ethtool_modes_ = nullptr;
    }
    if (ethtool_modes_) {
      for (size_t k = first; k < w.size(); ++k) *ethtool_modes_ = std::max(*ethtool_modes_, mode_gbits(w[k]));
      const double nic = std::min(ethtool_supported_ > 0 ? ethtool_supported_ : ethtool_advertised_,
                                  ethtool_advertised_ > 0 ? ethtool_advertised_ : ethtool_supported_);
      ethtool_port().capable_gbits = ethtool_partner_ > 0 ? std::min(nic, ethtool_partner_) : nic;
      return true;
    }
    if (w.size() == 2 && w[0] == "Speed:") {
      double mbits = 0;
      const auto r = std::from_chars(w[1].data(), w[1].data() + w[1].size(), mbits);
      if (r.ec == std::errc() && mbits > 0 && w[1].ends_with("Mb/s")) ethtool_port().rate_gbits = mbits / 1000;
      return true;
    }
    if (w.size() == 3 && w[0] == "Link" && w[1] == "detected:") {
      Port& p = ethtool_port();
      if (p.state.empty() || p.state == "ACTIVE" || p.state == "DOWN") p.state = w[2] == "yes" ? "ACTIVE" : "DOWN";
      return true;
    }
    return false;
  }
  Port& ethtool_port() {
    HostTopology& h = here();
    for (Nic& n : h.nics) {
      for (Port& p : n.ports) {
        if (p.netdev == ethtool_if_) return p;
      }
    }
    Nic& n = h.add_nic(ethtool_if_);
    if (n.ports.empty()) n.rdma = false;  // an interface alone: no RDMA device names it
    Port& p = port_of(n, 1);
    p.netdev = ethtool_if_;
    return p;
  }

  // ls -l /sys/class/infiniband: "... mlx5_0 -> ../../devices/pci0000:3f/0000:3f:01.1/.../infiniband/mlx5_0":
  // the NIC and the PCI path to it, bridges then the device.
  void sys_class_infiniband(const Words& w) {
    if (w.size() < 3 || w[w.size() - 2] != "->" || w.back().find("/infiniband/") == std::string_view::npos) return;
    HostTopology& h = here();
    const std::vector<std::string_view> bdfs = bdfs_of_path(w.back());
    int parent = -1;
    int device = -1;
    for (size_t k = 0; k < bdfs.size(); ++k) {
      PciNode node;
      node.busid = normalize_busid(bdfs[k]);
      node.parent = parent;
      node.bridge = k + 1 < bdfs.size();
      if (k + 1 == bdfs.size()) node.class_code = 0x0207;
      parent = h.add_pci(node);
      device = parent;
    }
    Nic& n = h.add_nic(w[w.size() - 3]);
    n.rdma = true;
    if (device >= 0) {
      n.pci = device;
      n.busid = h.pci[device].busid;
    }
    ++records_;
  }

  std::string_view source_;
  TopologySet& set_;
  std::string host_;
  int records_ = 0;
  std::string devinfo_dev_;  // ibv_devinfo: the hca_id being read
  int devinfo_port_ = -1;
  int devinfo_lanes_ = 0;
  double devinfo_lane_gbits_ = 0;
  std::string ibstat_dev_;  // ibstat: the CA being read
  int headless_port_ = 0;   // ibstat: a "Port N:" read outside any device, waiting for its State
  static constexpr std::string_view kUnnamedCa = "(CA not pasted)";
  int ibstat_port_ = -1;
  std::string ibstatus_dev_;  // ibstatus: the device and port being read
  int ibstatus_port_ = -1;
  std::set<std::string> devinfo_seen_;  // ibv_devinfo devices listed since the last prompt
  std::string ethtool_if_;              // ethtool: the interface being read
  double* ethtool_modes_ = nullptr;     // ethtool: the link-mode list being read, its fastest so far
  double ethtool_supported_ = 0, ethtool_advertised_ = 0, ethtool_partner_ = 0;  // Gb/s
  int unnamed_ = 0;  // hosts told apart without a prompt naming them

  // Whether a prompt named the host being read.
  bool prompted() const { return !host_.empty() && !host_.starts_with("host "); }
  // A device listed a second time with no prompt naming a host: another host's listing
  // ("$ ibv_devinfo -v" pasted from two nodes). Hosts told apart so are "host 1 (FILE)",
  // "host 2 (FILE)", ...; the first is renamed when the second appears.
  void next_unnamed_host() {
    if (unnamed_ == 0) {
      for (HostTopology& h : set_.hosts) {
        if (h.host.empty()) h.host = fmt::format("host 1 ({})", source_);
      }
      unnamed_ = 1;
    }
    host_ = fmt::format("host {} ({})", ++unnamed_, source_);
    devinfo_seen_.clear();
  }
};

}  // namespace

Status parse_rdma_text(std::string_view text, std::string_view source, TopologySet& set) {
  RdmaTextParser parser(source, set);
  LineReader lines(text);
  std::string_view line;
  while (lines.next(line)) parser.line(line);
  if (parser.records() == 0) {
    return Status::Invalid(
        fmt::format("{}: no ibdev2netdev, ibv_devinfo, ibstat, ibstatus, show_gids, ethtool or /sys/class/infiniband "
                    "listing found",
                    source));
  }
  return Status::Ok();
}

}  // namespace fabscope::topo
