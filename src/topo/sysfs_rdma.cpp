// RDMA ports from sysfs (Documentation/ABI/stable/sysfs-class-infiniband): per device
// its PCI address (the `device` link), per port state ("4: ACTIVE"), rate ("400 Gb/sec
// (4X NDR)"), link layer and the network interface over it.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "topo/readers.h"

namespace fabscope::topo {

namespace fs = std::filesystem;

namespace {

std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  if (in) std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

}  // namespace

Status read_sysfs_rdma(const std::string& sysfs_root, HostTopology& host) {
  std::error_code ec;
  fs::path dir = fs::path(sysfs_root) / "class" / "infiniband";
  if (!fs::is_directory(dir, ec)) return Status::Ok();  // no RDMA device on this node
  std::vector<fs::path> devices;
  for (const auto& e : fs::directory_iterator(dir, ec)) devices.push_back(e.path());
  std::sort(devices.begin(), devices.end());
  for (const fs::path& dev : devices) {
    std::string name = dev.filename().string();
    Nic& n = host.add_nic(name);
    n.rdma = true;
    fs::path real = fs::canonical(dev / "device", ec);
    if (!ec) {
      std::string bus = normalize_busid(real.filename().string());
      if (!bus.empty()) {
        n.busid = bus;
        if (n.pci < 0) n.pci = host.find_pci(bus);
      }
    }
    ec.clear();
    std::vector<fs::path> ports;
    for (const auto& e : fs::directory_iterator(dev / "ports", ec)) ports.push_back(e.path());
    ec.clear();
    std::sort(ports.begin(), ports.end());
    for (const fs::path& p : ports) {
      char* end = nullptr;
      std::string num = p.filename().string();
      long number = std::strtol(num.c_str(), &end, 10);
      if (num.empty() || *end != '\0' || number < 1 || number > 255) continue;
      auto it = std::find_if(n.ports.begin(), n.ports.end(), [&](const Port& x) { return x.number == number; });
      if (it == n.ports.end()) {
        Port fresh;
        fresh.number = static_cast<int>(number);
        n.ports.push_back(fresh);
        it = n.ports.end() - 1;
      }
      std::string state = first_line(p / "state");
      if (size_t colon = state.find(": "); colon != std::string::npos) state = state.substr(colon + 2);
      if (!state.empty()) it->state = state;
      std::string rate = first_line(p / "rate");
      if (!rate.empty()) it->rate_gbits = std::strtod(rate.c_str(), nullptr);
      std::string layer = first_line(p / "link_layer");
      if (!layer.empty()) it->link_layer = layer;
      std::string ndev = first_line(p / "gid_attrs" / "ndevs" / "0");
      if (ndev.empty()) {
        for (const auto& e : fs::directory_iterator(dev / "device" / "net", ec)) {
          ndev = e.path().filename().string();
          break;
        }
        ec.clear();
      }
      if (!ndev.empty()) it->netdev = ndev;
    }
  }
  return Status::Ok();
}

}  // namespace fabscope::topo
