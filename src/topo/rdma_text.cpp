// RDMA tools' output as pasted from a terminal: ibdev2netdev, ibv_devinfo (-v: the active
// width and speed), ibstat, show_gids, `ip -br a` and `ls -l /sys/class/infiniband`. Shell prompts "[user@host dir]$
// cmd" switch the host that the following output describes.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

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

}  // namespace

Status parse_rdma_text(std::string_view text, std::string_view source, TopologySet& set) {
  std::string host;
  int records = 0;
  std::string devinfo_dev;  // ibv_devinfo: the hca_id being read
  int devinfo_port = -1;
  int devinfo_lanes = 0;
  double devinfo_lane_gbits = 0;
  std::string ibstat_dev;  // ibstat: the CA being read
  int ibstat_port = -1;
  LineReader lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (std::string h = prompt_host(line); !h.empty()) {
      host = h;
      devinfo_dev.clear();
      ibstat_dev.clear();
      continue;
    }
    auto w = split_ws(line);
    if (w.empty()) continue;
    auto here = [&]() -> HostTopology& {
      HostTopology& h = set.host(host);
      std::string src = fmt::format("rdma-info:{}", source);
      if (std::find(h.sources.begin(), h.sources.end(), src) == h.sources.end()) h.sources.push_back(src);
      return h;
    };
    // ibdev2netdev: "mlx5_0 port 1 ==> enp25s0np0 (Up)"
    if (w.size() >= 6 && w[1] == "port" && w[3] == "==>") {
      int port = 0;
      if (!to_int(w[2], port)) continue;
      Nic& n = here().add_nic(w[0]);
      Port& p = port_of(n, port);
      p.netdev = std::string(w[4]);
      p.state = w[5] == "(Up)" ? "ACTIVE" : w[5] == "(Down)" ? "DOWN" : std::string(w[5]);
      ++records;
      continue;
    }
    // ibv_devinfo
    if (w.size() == 2 && w[0] == "hca_id:") {
      devinfo_dev = std::string(w[1]);
      devinfo_port = -1;
      ibstat_dev.clear();
      here().add_nic(devinfo_dev);
      ++records;
      continue;
    }
    if (!devinfo_dev.empty()) {
      if (w.size() == 2 && w[0] == "port:" && to_int(w[1], devinfo_port)) {
        devinfo_lanes = 0;
        devinfo_lane_gbits = 0;
        continue;
      }
      if (devinfo_port > 0 && w.size() >= 2 && w[0] == "state:") {
        port_of(here().add_nic(devinfo_dev), devinfo_port).state = port_state(w[1]);
        continue;
      }
      // -v: "active_width: 4X (2)", "active_speed: 25.0 Gbps (32)": the port's rate.
      if (devinfo_port > 0 && w.size() >= 2 && (w[0] == "active_width:" || w[0] == "active_speed:")) {
        if (w[0] == "active_width:") devinfo_lanes = lanes(w[1]);
        if (w[0] == "active_speed:" && !to_double(w[1], devinfo_lane_gbits)) devinfo_lane_gbits = 0;
        if (devinfo_lanes > 0 && devinfo_lane_gbits > 0) {
          port_of(here().add_nic(devinfo_dev), devinfo_port).rate_gbits = devinfo_lanes * devinfo_lane_gbits;
        }
        continue;
      }
      if (devinfo_port > 0 && w.size() >= 2 && w[0] == "link_layer:") {
        port_of(here().add_nic(devinfo_dev), devinfo_port).link_layer = std::string(w[1]);
        continue;
      }
    }
    // ibstat: "CA 'mlx5_0'", then "Port 1:" and its "State: Active", "Rate: 400",
    // "Link layer: InfiniBand".
    if (w.size() == 2 && w[0] == "CA" && w[1].size() > 2 && w[1].front() == '\'' && w[1].back() == '\'') {
      ibstat_dev = std::string(w[1].substr(1, w[1].size() - 2));
      ibstat_port = -1;
      devinfo_dev.clear();
      here().add_nic(ibstat_dev);
      ++records;
      continue;
    }
    if (!ibstat_dev.empty()) {
      if (w.size() == 2 && w[0] == "Port" && w[1].ends_with(':') &&
          to_int(w[1].substr(0, w[1].size() - 1), ibstat_port)) {
        port_of(here().add_nic(ibstat_dev), ibstat_port);
        continue;
      }
      if (ibstat_port > 0 && w.size() == 2 && w[0] == "State:") {
        port_of(here().add_nic(ibstat_dev), ibstat_port).state = port_state(w[1]);
        continue;
      }
      double rate = 0;
      if (ibstat_port > 0 && w.size() == 2 && w[0] == "Rate:" && to_double(w[1], rate)) {
        port_of(here().add_nic(ibstat_dev), ibstat_port).rate_gbits = rate;
        continue;
      }
      if (ibstat_port > 0 && w.size() == 3 && w[0] == "Link" && w[1] == "layer:") {
        port_of(here().add_nic(ibstat_dev), ibstat_port).link_layer = std::string(w[2]);
        continue;
      }
    }
    // show_gids: "mlx5_0 1 3 0000:...:5b27 10.99.91.39 v2 ens108np0"
    if (w.size() >= 5 && (w.back().starts_with("ens") || w.back().starts_with("enp") || w.back().starts_with("eth") ||
                          w.back().starts_with("ib") || w.back().starts_with("bond"))) {
      int port = 0;
      int index = 0;
      bool ver = std::find(w.begin(), w.end(), "v1") != w.end() || std::find(w.begin(), w.end(), "v2") != w.end();
      if (ver && to_int(w[1], port) && to_int(w[2], index)) {
        Port& p = port_of(here().add_nic(w[0]), port);
        if (p.netdev.empty()) p.netdev = std::string(w.back());
        ++records;
        continue;
      }
    }
    // ls -l /sys/class/infiniband: "... mlx5_0 -> ../../devices/pci0000:3f/0000:3f:01.1/.../infiniband/mlx5_0"
    if (w.size() >= 3 && w[w.size() - 2] == "->" && w.back().find("/infiniband/") != std::string_view::npos) {
      std::string_view name = w[w.size() - 3];
      std::string_view path = w.back();
      HostTopology& h = here();
      int parent = -1;
      int device = -1;
      size_t i = 0;
      std::vector<std::string_view> comps;
      while (i <= path.size()) {
        size_t slash = path.find('/', i);
        comps.push_back(path.substr(i, slash == std::string_view::npos ? std::string_view::npos : slash - i));
        if (slash == std::string_view::npos) break;
        i = slash + 1;
      }
      std::vector<std::string_view> bdfs;
      for (std::string_view c : comps) {
        if (is_bdf(c)) bdfs.push_back(c);
      }
      for (size_t k = 0; k < bdfs.size(); ++k) {
        PciNode node;
        node.busid = normalize_busid(bdfs[k]);
        node.parent = parent;
        node.bridge = k + 1 < bdfs.size();
        if (k + 1 == bdfs.size()) node.class_code = 0x0207;
        parent = h.add_pci(node);
        device = parent;
      }
      Nic& n = h.add_nic(name);
      n.rdma = true;
      if (device >= 0) {
        n.pci = device;
        n.busid = h.pci[device].busid;
      }
      ++records;
      continue;
    }
  }
  if (records == 0) {
    return Status::Invalid(
        fmt::format("{}: no ibdev2netdev, ibv_devinfo, ibstat, show_gids or /sys/class/infiniband listing "
                    "found",
                    source));
  }
  return Status::Ok();
}

}  // namespace fabscope::topo
