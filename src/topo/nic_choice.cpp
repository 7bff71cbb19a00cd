#include "topo/nic_choice.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>

namespace fabscope::topo {

bool port_active(const Port& p) { return p.state.empty() || p.state == "ACTIVE"; }

bool usable(const Nic& n) {
  if (n.ports.empty()) return true;
  return std::any_of(n.ports.begin(), n.ports.end(), port_active);
}

double nic_rate(const Nic& n) {
  double r = 0;
  for (const Port& p : n.ports) {
    if (port_active(p)) r = std::max(r, p.rate_gbits);
  }
  return r > 0 ? r : n.speed_gbits;
}

bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i2 = i;
      size_t j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      std::string_view na(a.data() + i, i2 - i);
      std::string_view nb(b.data() + j, j2 - j);
      while (na.size() > 1 && na.front() == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb.front() == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

HostPaths host_paths(const HostTopology& h) {
  HostPaths p;
  for (size_t i = 0; i < h.nics.size(); ++i) {
    if (h.nics[i].rdma) p.pool.push_back(static_cast<int>(i));
  }
  p.rdma = !p.pool.empty();
  if (!p.rdma) {
    for (size_t i = 0; i < h.nics.size(); ++i) p.pool.push_back(static_cast<int>(i));
  }
  const int ngpu = static_cast<int>(h.gpus.size());
  p.paths.assign(ngpu, std::vector<PathClass>(h.nics.size(), PathClass::kUnknown));
  for (int g = 0; g < ngpu; ++g) {
    for (int n : p.pool) p.paths[g][n] = path_class(h, g, n);
  }
  p.order.resize(ngpu);
  for (int g = 0; g < ngpu; ++g) p.order[g] = g;
  std::sort(p.order.begin(), p.order.end(), [&](int x, int y) { return h.gpus[x].index < h.gpus[y].index; });
  return p;
}

bool nccl_selects(const HostTopology& h, const HostPaths& paths, const std::optional<HcaFilter>& filter, int n) {
  const Nic& nic = h.nics[n];
  if (!usable(nic)) return false;
  if (!paths.rdma || !filter) return true;
  if (nic.ports.empty()) return filter->selects(nic.name, 1);
  return std::any_of(nic.ports.begin(), nic.ports.end(),
                     [&](const Port& p) { return port_active(p) && filter->selects(nic.name, p.number); });
}

std::vector<std::string> selected_nics(const HostTopology& h, const HostPaths& paths,
                                       const std::optional<HcaFilter>& filter) {
  std::vector<std::string> out;
  for (int n : paths.pool) {
    if (nccl_selects(h, paths, filter, n)) out.push_back(h.nics[n].name);
  }
  std::sort(out.begin(), out.end(), natural_less);
  return out;
}

std::vector<GpuMapping> predict_mappings(const HostTopology& h, const HostPaths& p,
                                         const std::optional<HcaFilter>& filter) {
  std::map<std::vector<int>, int> tie_seen;  // NCCL spreads GPUs with the same candidates over them
  std::vector<GpuMapping> maps(h.gpus.size());
  for (int g : p.order) {
    GpuMapping& m = maps[g];
    m.gpu = h.gpus[g].index;
    for (int n : p.pool) {
      if (!usable(h.nics[n]) || p.paths[g][n] == PathClass::kUnknown) continue;
      if (m.best_nics.empty() || better(p.paths[g][n], m.best_path)) {
        m.best_path = p.paths[g][n];
        m.best_nics = {h.nics[n].name};
      } else if (p.paths[g][n] == m.best_path) {
        m.best_nics.push_back(h.nics[n].name);
      }
    }
    std::sort(m.best_nics.begin(), m.best_nics.end(), natural_less);
    // NCCL: closest path, then the highest bandwidth, among the selected devices.
    std::vector<int> ties;
    PathClass tp = PathClass::kUnknown;
    double trate = -1;
    for (int n : p.pool) {
      if (!nccl_selects(h, p, filter, n) || p.paths[g][n] == PathClass::kUnknown) continue;
      double r = nic_rate(h.nics[n]);
      if (ties.empty() || better(p.paths[g][n], tp) || (p.paths[g][n] == tp && r > trate)) {
        ties = {n};
        tp = p.paths[g][n];
        trate = r;
      } else if (p.paths[g][n] == tp && r == trate) {
        ties.push_back(n);
      }
    }
    std::sort(ties.begin(), ties.end(), [&](int x, int y) { return natural_less(h.nics[x].name, h.nics[y].name); });
    if (!ties.empty()) {
      int k = tie_seen[ties]++;
      int pick = ties[k % ties.size()];
      m.nccl_choice = h.nics[pick].name;
      m.nccl_choice_path = tp;
    }
    std::optional<bool> gdr;
    for (const NicUse& u : h.uses) {
      if (u.gpu != m.gpu || u.nic.empty()) continue;
      if (std::find(m.used_nics.begin(), m.used_nics.end(), u.nic) == m.used_nics.end()) m.used_nics.push_back(u.nic);
      gdr = gdr.value_or(true) && u.gdr;
    }
    m.used_gdr = gdr;
  }
  return maps;
}

}  // namespace fabscope::topo
