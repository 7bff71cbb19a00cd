#include "topo/topo_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fabscope::topo {

namespace {

using Json = nlohmann::ordered_json;

Json opt_str(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }
Json opt_int(int v) { return v < 0 ? Json(nullptr) : Json(v); }
Json opt_pos(double v) { return v > 0 ? Json(v) : Json(nullptr); }
Json opt_bool(const std::optional<bool>& b) { return b ? Json(*b) : Json(nullptr); }
Json opt_path(PathClass c) { return c == PathClass::kUnknown ? Json(nullptr) : Json(std::string(path_name(c))); }

std::string str_or(const Json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace

Json host_json(const HostTopology& h, const HostAnalysis& a) {
  Json numa = Json::array();
  for (const NumaNode& n : h.numa) numa.push_back({{"id", n.id}, {"cpus", n.cpus.to_list()}});
  Json gpus = Json::array();
  for (const Gpu& g : h.gpus) {
    int numa_id =
        g.numa >= 0 ? g.numa : (g.pci >= 0 && g.pci < static_cast<int>(h.pci.size()) ? h.pci[g.pci].numa : -1);
    double link = g.pci >= 0 && g.pci < static_cast<int>(h.pci.size()) ? h.pci[g.pci].link_gbytes : 0;
    gpus.push_back({{"index", g.index},
                    {"busid", opt_str(g.busid)},
                    {"numa", opt_int(numa_id)},
                    {"model", opt_str(g.model)},
                    {"pcie_gbytes", opt_pos(link)},
                    {"nccl_rank", g.nccl_rank ? Json(*g.nccl_rank) : Json(nullptr)},
                    {"gdr", opt_bool(g.gdr)},
                    {"cpu_affinity", g.cpu_affinity.empty() ? Json(nullptr) : Json(g.cpu_affinity.to_list())}});
  }
  Json nics = Json::array();
  for (const Nic& n : h.nics) {
    Json ports = Json::array();
    for (const Port& p : n.ports) {
      ports.push_back({{"port", p.number},
                       {"state", opt_str(p.state)},
                       {"rate_gbits", opt_pos(p.rate_gbits)},
                       {"link_layer", opt_str(p.link_layer)},
                       {"netdev", opt_str(p.netdev)}});
    }
    int numa_id =
        n.numa >= 0 ? n.numa : (n.pci >= 0 && n.pci < static_cast<int>(h.pci.size()) ? h.pci[n.pci].numa : -1);
    double link = n.pci >= 0 && n.pci < static_cast<int>(h.pci.size()) ? h.pci[n.pci].link_gbytes : 0;
    nics.push_back({{"name", n.name},
                    {"busid", opt_str(n.busid)},
                    {"numa", opt_int(numa_id)},
                    {"rdma", n.rdma},
                    {"speed_gbits", opt_pos(n.speed_gbits)},
                    {"pcie_gbytes", opt_pos(link)},
                    {"gdr", opt_bool(n.gdr)},
                    {"ports", ports}});
  }
  Json classes = Json::array();
  for (size_t g = 0; g < h.gpus.size(); ++g) {
    Json row = Json::array();
    for (size_t n = 0; n < h.nics.size(); ++n)
      row.push_back(opt_path(path_class(h, static_cast<int>(g), static_cast<int>(n))));
    classes.push_back(row);
  }
  Json gpu_ids = Json::array();
  for (const Gpu& g : h.gpus) gpu_ids.push_back(g.index);
  Json nic_names = Json::array();
  for (const Nic& n : h.nics) nic_names.push_back(n.name);
  Json mapping = Json::array();
  for (const GpuMapping& m : a.gpus) {
    mapping.push_back({{"gpu", m.gpu},
                       {"best_path", opt_path(m.best_path)},
                       {"best_nics", m.best_nics},
                       {"nccl_choice", opt_str(m.nccl_choice)},
                       {"nccl_choice_path", opt_path(m.nccl_choice_path)},
                       {"used_nics", m.used_nics},
                       {"used_gdr", opt_bool(m.used_gdr)}});
  }
  Json ranks = Json::array();
  for (const RankBinding& r : h.ranks) {
    ranks.push_back(
        {{"rank", r.rank}, {"local_rank", r.local_rank}, {"gpu", opt_int(r.gpu)}, {"cpus", r.cpus.to_list()}});
  }
  Json notes = Json::array();
  if (h.gpus.empty()) notes.push_back("no GPU found");
  if (h.nics.empty())
    notes.push_back("no NIC found");
  else if (std::none_of(h.nics.begin(), h.nics.end(), [](const Nic& n) { return n.rdma; }))
    notes.push_back("no RDMA device found");
  return {{"host", h.host},
          {"sources", h.sources},
          {"numa", numa},
          {"gpus", gpus},
          {"nics", nics},
          {"paths", {{"gpus", gpu_ids}, {"nics", nic_names}, {"classes", classes}}},
          {"nccl",
           {{"ib_hca", a.ib_hca ? Json(*a.ib_hca) : Json(nullptr)},
            {"ib_hca_origin", opt_str(a.ib_hca_origin)},
            {"net_devices", h.nccl_nets},
            {"selected", a.selected_nics}}},
          {"mapping", mapping},
          {"ranks", ranks},
          {"notes", notes}};
}

Json topology_json(const TopologySet& set, const std::vector<HostAnalysis>& analyses) {
  Json hosts = Json::array();
  for (size_t i = 0; i < set.hosts.size() && i < analyses.size(); ++i)
    hosts.push_back(host_json(set.hosts[i], analyses[i]));
  return {{"hosts", hosts}};
}

std::string render_topology_text(const Json& topology) {
  std::string out;
  for (const Json& h : topology.value("hosts", Json::array())) {
    std::string name = str_or(h, "host", "");
    out += fmt::format("# Host {}\n", name.empty() ? "(unnamed)" : name);
    std::vector<std::string> sources;
    for (const Json& s : h.value("sources", Json::array())) sources.push_back(s.get<std::string>());
    out += fmt::format("#  from: {}\n",
                       sources.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(sources, ", ")));
    const Json& gpus = h["gpus"];
    const Json& nics = h["nics"];
    out += fmt::format("#  {} NUMA node(s), {} GPU(s), {} NIC(s)\n", h["numa"].size(), gpus.size(), nics.size());
    for (const Json& note : h.value("notes", Json::array())) out += fmt::format("#  {}\n", note.get<std::string>());
    if (!gpus.empty() && !nics.empty()) {
      out += "\n        ";
      for (size_t n = 0; n < nics.size(); ++n) out += fmt::format("{:<8}", fmt::format("NIC{}", n));
      out += "CPU Affinity    NUMA\n";
      const Json& classes = h["paths"]["classes"];
      for (size_t g = 0; g < gpus.size(); ++g) {
        out += fmt::format("{:<8}", fmt::format("GPU{}", gpus[g]["index"].get<int>()));
        for (size_t n = 0; n < nics.size(); ++n) {
          const Json& c = classes[g][n];
          out += fmt::format("{:<8}", c.is_null() ? std::string("?") : c.get<std::string>());
        }
        out += fmt::format("{:<16}{}\n", str_or(gpus[g], "cpu_affinity", "-"),
                           gpus[g]["numa"].is_null() ? std::string("-") : std::to_string(gpus[g]["numa"].get<int>()));
      }
    }
    if (!nics.empty()) {
      out += "\nNIC Legend:\n";
      for (size_t n = 0; n < nics.size(); ++n) {
        const Json& nic = nics[n];
        std::vector<std::string> ports;
        for (const Json& p : nic["ports"]) {
          std::string s = fmt::format("port {}", p["port"].get<int>());
          if (!p["state"].is_null()) s += " " + p["state"].get<std::string>();
          if (!p["rate_gbits"].is_null()) s += fmt::format(" {:g} Gb/s", p["rate_gbits"].get<double>());
          if (!p["link_layer"].is_null()) s += " " + p["link_layer"].get<std::string>();
          if (!p["netdev"].is_null()) s += " " + p["netdev"].get<std::string>();
          ports.push_back(s);
        }
        out += fmt::format("  NIC{}: {}{}{}{}\n", n, nic["name"].get<std::string>(),
                           nic["busid"].is_null() ? "" : " " + nic["busid"].get<std::string>(),
                           nic["rdma"].get<bool>() ? "" : " (not RDMA)",
                           ports.empty() ? "" : fmt::format(" ({})", fmt::join(ports, "; ")));
      }
    }
    const Json& nccl = h["nccl"];
    if (!nccl["ib_hca"].is_null()) {
      out += fmt::format("\nNCCL_IB_HCA={} (from {}) selects: {}\n", nccl["ib_hca"].get<std::string>(),
                         str_or(nccl, "ib_hca_origin", "?"), fmt::join(nccl["selected"], " "));
    }
    if (!h["mapping"].empty()) {
      out += fmt::format("\n{:<6}{:<22}{:<22}{}\n", "GPU", "nearest NIC", "NCCL would use", "used (NCCL log)");
      for (const Json& m : h["mapping"]) {
        std::vector<std::string> best;
        for (const Json& b : m["best_nics"]) best.push_back(b.get<std::string>());
        std::string near = best.empty() ? "-" : fmt::format("{} {}", fmt::join(best, "+"), str_or(m, "best_path", "?"));
        std::string choice = m["nccl_choice"].is_null() ? "-"
                                                        : fmt::format("{} {}", m["nccl_choice"].get<std::string>(),
                                                                      str_or(m, "nccl_choice_path", "?"));
        std::vector<std::string> used;
        for (const Json& u : m["used_nics"]) used.push_back(u.get<std::string>());
        std::string used_s = used.empty() ? "-" : fmt::format("{}", fmt::join(used, "+"));
        if (!used.empty() && !m["used_gdr"].is_null()) used_s += m["used_gdr"].get<bool>() ? " GDRDMA" : " no GDRDMA";
        out += fmt::format("{:<6}{:<22}{:<22}{}\n", m["gpu"].get<int>(), near, choice, used_s);
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace fabscope::topo
