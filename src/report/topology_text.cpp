#include "report/topology_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fabscope {

namespace {

std::string host_text(const TopoHostEntry& h) {
  std::string out = fmt::format("# Host {}\n", h.host.empty() ? "(unnamed)" : h.host);
  out += fmt::format("#  from: {}\n",
                     h.sources.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(h.sources, ", ")));
  out += fmt::format("#  {} NUMA node(s), {} GPU(s), {} NIC(s)\n", h.numa.size(), h.gpus.size(), h.nics.size());
  for (const std::string& note : h.notes) out += fmt::format("#  {}\n", note);
  if (!h.gpus.empty() && !h.nics.empty()) {
    out += "\n        ";
    for (size_t n = 0; n < h.nics.size(); ++n) out += fmt::format("{:<8}", fmt::format("NIC{}", n));
    out += "CPU Affinity    NUMA\n";
    for (size_t g = 0; g < h.gpus.size(); ++g) {
      const TopoGpuEntry& gpu = h.gpus[g];
      out += fmt::format("{:<8}", fmt::format("GPU{}", gpu.index));
      for (const auto& c : h.paths.classes[g]) out += fmt::format("{:<8}", c.value_or("?"));
      out += fmt::format("{:<16}{}\n", gpu.cpu_affinity.value_or("-"),
                         gpu.numa ? std::to_string(*gpu.numa) : std::string("-"));
    }
  }
  if (!h.nics.empty()) {
    out += "\nNIC Legend:\n";
    for (size_t n = 0; n < h.nics.size(); ++n) {
      const TopoNicEntry& nic = h.nics[n];
      std::vector<std::string> ports;
      for (const TopoPortEntry& p : nic.ports) {
        std::string s = fmt::format("port {}", p.port);
        if (p.state) s += " " + *p.state;
        if (p.rate_gbits) s += fmt::format(" {:g} Gb/s", *p.rate_gbits);
        if (p.link_layer) s += " " + *p.link_layer;
        if (p.netdev) s += " " + *p.netdev;
        ports.push_back(s);
      }
      out +=
          fmt::format("  NIC{}: {}{}{}{}\n", n, nic.name, nic.busid ? " " + *nic.busid : "",
                      nic.rdma ? "" : " (not RDMA)", ports.empty() ? "" : fmt::format(" ({})", fmt::join(ports, "; ")));
    }
  }
  if (h.nccl.ib_hca) {
    out += fmt::format("\nNCCL_IB_HCA={} (from {}) selects: {}\n", *h.nccl.ib_hca, h.nccl.ib_hca_origin.value_or("?"),
                       fmt::join(h.nccl.selected, " "));
  }
  if (!h.mapping.empty()) {
    out += fmt::format("\n{:<6}{:<22}{:<22}{}\n", "GPU", "nearest NIC", "NCCL would use", "used (NCCL log)");
    for (const TopoMappingEntry& m : h.mapping) {
      std::string near =
          m.best_nics.empty() ? "-" : fmt::format("{} {}", fmt::join(m.best_nics, "+"), m.best_path.value_or("?"));
      std::string choice =
          m.nccl_choice ? fmt::format("{} {}", *m.nccl_choice, m.nccl_choice_path.value_or("?")) : std::string("-");
      std::string used = m.used_nics.empty() ? "-" : fmt::format("{}", fmt::join(m.used_nics, "+"));
      if (!m.used_nics.empty() && m.used_gdr) used += *m.used_gdr ? " GDRDMA" : " no GDRDMA";
      out += fmt::format("{:<6}{:<22}{:<22}{}\n", m.gpu, near, choice, used);
    }
  }
  return out + "\n";
}

}  // namespace

std::string render_topology_text(const TopologySection& topology) {
  std::string out;
  for (const TopoHostEntry& h : topology.hosts) out += host_text(h);
  return out;
}

}  // namespace fabscope
