#include "topo/model.h"

#include "core/text.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <charconv>

namespace fabscope::topo {

namespace {

constexpr std::string_view kPathNames[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool all_hex(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::string_view path_name(PathClass c) {
  int i = static_cast<int>(c);
  return i >= 0 && i < 5 ? kPathNames[i] : std::string_view("?");
}

std::optional<PathClass> parse_path_class(std::string_view text) {
  for (int i = 0; i < 5; ++i) {
    if (text == kPathNames[i]) return static_cast<PathClass>(i);
  }
  if (text == "SOC") return PathClass::kSys;  // older drivers' name for SYS
  return std::nullopt;
}

// ---- CpuSet ----

void CpuSet::add(int first, int last) {
  if (last < first) std::swap(first, last);
  ranges_.emplace_back(first, last);
  std::sort(ranges_.begin(), ranges_.end());
  std::vector<std::pair<int, int>> merged;
  for (const auto& r : ranges_) {
    if (!merged.empty() && r.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, r.second);
    } else {
      merged.push_back(r);
    }
  }
  ranges_ = std::move(merged);
}

std::optional<CpuSet> CpuSet::from_list(std::string_view text) {
  CpuSet set;
  text = trim(text);
  if (text.empty()) return set;
  for (std::string_view field : split(text, ',')) {
    std::string_view item = trim(field);
    size_t dash = item.find('-');
    std::string_view a = item.substr(0, dash);
    std::string_view b = dash == std::string_view::npos ? a : item.substr(dash + 1);
    int first = 0;
    int last = 0;
    auto r1 = std::from_chars(a.data(), a.data() + a.size(), first);
    auto r2 = std::from_chars(b.data(), b.data() + b.size(), last);
    if (a.empty() || b.empty() || r1.ec != std::errc() || r1.ptr != a.data() + a.size() || r2.ec != std::errc() ||
        r2.ptr != b.data() + b.size() || first < 0 || last < 0 || last - first > 1 << 20) {
      return std::nullopt;
    }
    set.add(first, last);
  }
  return set;
}

std::optional<CpuSet> CpuSet::from_mask(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  const std::vector<std::string_view> words = split(text, ',');
  if (words.size() > 4096) return std::nullopt;
  CpuSet set;
  int base = 0;
  // Words are most significant first; a lone word may be longer than 8 digits.
  for (auto it = words.rbegin(); it != words.rend(); ++it) {
    std::string_view w = *it;
    if (!all_hex(w) || (words.size() > 1 && w.size() > 8) || w.size() > 4096) return std::nullopt;
    int bits = static_cast<int>(words.size() > 1 ? 32 : w.size() * 4);
    for (int i = 0; i < static_cast<int>(w.size()); ++i) {
      char c = w[w.size() - 1 - i];
      int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10;
      for (int b = 0; b < 4; ++b) {
        if (v & (1 << b)) set.add(base + i * 4 + b, base + i * 4 + b);
      }
    }
    base += bits;
  }
  return set;
}

bool CpuSet::contains(int cpu) const {
  return std::any_of(ranges_.begin(), ranges_.end(),
                     [cpu](const auto& r) { return cpu >= r.first && cpu <= r.second; });
}

bool CpuSet::intersects(const CpuSet& other) const {
  for (const auto& a : ranges_) {
    for (const auto& b : other.ranges_) {
      if (a.first <= b.second && b.first <= a.second) return true;
    }
  }
  return false;
}

int CpuSet::count() const {
  int n = 0;
  for (const auto& r : ranges_) n += r.second - r.first + 1;
  return n;
}

std::string CpuSet::to_list() const {
  std::string out;
  for (const auto& r : ranges_) {
    if (!out.empty()) out += ',';
    out += r.first == r.second ? fmt::format("{}", r.first) : fmt::format("{}-{}", r.first, r.second);
  }
  return out;
}

// ---- bus ids ----

std::string normalize_busid(std::string_view text) {
  std::string s = lower(text);
  // NCCL's int64 form: "3b000", "0-65000" (the part before '-' is the node's system id).
  if (size_t dash = s.find('-'); dash != std::string::npos && s.find(':') == std::string::npos) {
    s = s.substr(dash + 1);
  }
  if (s.find(':') == std::string::npos) {
    if (!all_hex(s) || s.size() < 4 || s.size() > 12) return {};
    uint64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v, 16);
    return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", (v >> 20) & 0xffff, (v >> 12) & 0xff, (v >> 4) & 0xff, v & 0xf);
  }
  // [domain:]bus:dev.fn
  size_t dot = s.rfind('.');
  if (dot == std::string::npos) return {};
  std::string_view fn(s.data() + dot + 1, s.size() - dot - 1);
  std::string_view head(s.data(), dot);
  size_t c2 = head.rfind(':');
  std::string_view dev = head.substr(c2 + 1);
  std::string_view rest = head.substr(0, c2);
  size_t c1 = rest.rfind(':');
  std::string_view bus = c1 == std::string_view::npos ? rest : rest.substr(c1 + 1);
  std::string_view dom = c1 == std::string_view::npos ? std::string_view("0000") : rest.substr(0, c1);
  if (!all_hex(fn) || fn.size() != 1 || !all_hex(dev) || dev.size() > 2 || !all_hex(bus) || bus.size() > 2 ||
      !all_hex(dom) || dom.size() > 8) {
    return {};
  }
  if (dom.size() > 4) dom = dom.substr(dom.size() - 4);
  return fmt::format("{:0>4}:{:0>2}:{:0>2}.{}", dom, bus, dev, fn);
}

// ---- HostTopology ----

namespace {
// The position of the first element that `pred` accepts, or -1.
template <typename T, typename Pred>
int index_where(const std::vector<T>& v, Pred pred) {
  auto it = std::find_if(v.begin(), v.end(), pred);
  return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}
}  // namespace

int HostTopology::find_gpu(int index) const {
  return index_where(gpus, [&](const Gpu& g) { return g.index == index; });
}

int HostTopology::find_gpu_by_busid(std::string_view busid) const {
  const std::string b = normalize_busid(busid);
  return b.empty() ? -1 : index_where(gpus, [&](const Gpu& g) { return g.busid == b; });
}

int HostTopology::find_nic(std::string_view name) const {
  return index_where(nics, [&](const Nic& n) { return n.name == name; });
}

int HostTopology::find_nic_by_busid(std::string_view busid) const {
  const std::string b = normalize_busid(busid);
  return b.empty() ? -1 : index_where(nics, [&](const Nic& n) { return n.busid == b; });
}

int HostTopology::find_pci(std::string_view busid) const {
  return index_where(pci, [&](const PciNode& n) { return n.busid == busid; });
}

const NumaNode* HostTopology::find_numa(int id) const {
  for (const NumaNode& n : numa) {
    if (n.id == id) return &n;
  }
  return nullptr;
}

Gpu& HostTopology::add_gpu(int index) {
  int at = find_gpu(index);
  if (at >= 0) return gpus[at];
  Gpu g;
  g.index = index;
  gpus.push_back(std::move(g));
  return gpus.back();
}

Nic& HostTopology::add_nic(std::string_view name) {
  int at = find_nic(name);
  if (at >= 0) return nics[at];
  Nic n;
  n.name = std::string(name);
  nics.push_back(std::move(n));
  return nics.back();
}

int HostTopology::add_pci(PciNode node) {
  int at = node.busid.empty() ? -1 : find_pci(node.busid);
  if (at < 0) {
    pci.push_back(std::move(node));
    return static_cast<int>(pci.size()) - 1;
  }
  PciNode& old = pci[at];
  if (node.parent >= 0) old.parent = node.parent;
  old.bridge = old.bridge || node.bridge;
  old.host_bridge = old.host_bridge || node.host_bridge;
  old.is_switch = old.is_switch || node.is_switch;
  if (node.class_code) old.class_code = node.class_code;
  if (node.vendor) old.vendor = node.vendor;
  if (node.device) old.device = node.device;
  if (node.link_gbytes > 0) old.link_gbytes = node.link_gbytes;
  if (!node.link.empty()) old.link = node.link;
  if (node.numa >= 0) old.numa = node.numa;
  return at;
}

HostTopology& TopologySet::host(std::string_view name) {
  if (name.empty()) {
    if (hosts.size() == 1) return hosts[0];
    for (HostTopology& h : hosts) {
      if (h.host.empty()) return h;
    }
  } else {
    for (HostTopology& h : hosts) {
      if (h.host == name) return h;
    }
    if (hosts.size() == 1 && hosts[0].host.empty()) {
      hosts[0].host = std::string(name);
      return hosts[0];
    }
  }
  hosts.emplace_back();
  hosts.back().host = std::string(name);
  return hosts.back();
}

void merge_host(HostTopology& dst, const HostTopology& src) {
  for (const std::string& s : src.sources) dst.sources.push_back(s);
  for (const NumaNode& n : src.numa) {
    auto it = std::find_if(dst.numa.begin(), dst.numa.end(), [&](const NumaNode& d) { return d.id == n.id; });
    if (it == dst.numa.end()) {
      dst.numa.push_back(n);
    } else if (it->cpus.empty()) {
      it->cpus = n.cpus;
    }
  }
  std::vector<int> pci_map(src.pci.size(), -1);
  for (size_t i = 0; i < src.pci.size(); ++i) {
    PciNode n = src.pci[i];
    n.parent = n.parent >= 0 && n.parent < static_cast<int>(i) ? pci_map[n.parent] : -1;
    pci_map[i] = dst.add_pci(std::move(n));
  }
  // Parents that came later in src's order.
  for (size_t i = 0; i < src.pci.size(); ++i) {
    int p = src.pci[i].parent;
    if (p >= 0 && p < static_cast<int>(pci_map.size()) && dst.pci[pci_map[i]].parent < 0) {
      dst.pci[pci_map[i]].parent = pci_map[p];
    }
  }
  auto remap = [&](int at) { return at >= 0 && at < static_cast<int>(pci_map.size()) ? pci_map[at] : -1; };
  std::vector<int> gpu_map;
  for (const Gpu& g : src.gpus) {
    Gpu& d = dst.add_gpu(g.index);
    if (d.busid.empty()) d.busid = g.busid;
    if (d.pci < 0) d.pci = remap(g.pci);
    if (d.numa < 0) d.numa = g.numa;
    if (d.model.empty()) d.model = g.model;
    if (!d.nccl_rank) d.nccl_rank = g.nccl_rank;
    if (!d.gdr) d.gdr = g.gdr;
    if (d.nvlinks.empty()) d.nvlinks = g.nvlinks;
    if (d.cpu_affinity.empty()) d.cpu_affinity = g.cpu_affinity;
    gpu_map.push_back(dst.find_gpu(g.index));
  }
  std::vector<int> nic_map;
  for (const Nic& n : src.nics) {
    Nic& d = dst.add_nic(n.name);
    if (d.busid.empty()) d.busid = n.busid;
    if (d.pci < 0) d.pci = remap(n.pci);
    if (d.numa < 0) d.numa = n.numa;
    if (d.speed_gbits <= 0) d.speed_gbits = n.speed_gbits;
    if (!d.gdr) d.gdr = n.gdr;
    d.rdma = d.rdma && n.rdma;
    for (const Port& p : n.ports) {
      auto it = std::find_if(d.ports.begin(), d.ports.end(), [&](const Port& q) { return q.number == p.number; });
      if (it == d.ports.end()) {
        d.ports.push_back(p);
        continue;
      }
      if (!p.state.empty()) it->state = p.state;
      if (p.rate_gbits > 0) it->rate_gbits = p.rate_gbits;
      if (!p.link_layer.empty()) it->link_layer = p.link_layer;
      if (!p.netdev.empty()) it->netdev = p.netdev;
      if (!p.subnet_prefix.empty()) it->subnet_prefix = p.subnet_prefix;
      if (p.active_mtu > 0) it->active_mtu = p.active_mtu;
    }
    nic_map.push_back(dst.find_nic(n.name));
  }
  for (const auto& [key, cls] : src.given_paths) {
    if (key.first < static_cast<int>(gpu_map.size()) && key.second < static_cast<int>(nic_map.size())) {
      dst.given_paths[{gpu_map[key.first], nic_map[key.second]}] = cls;
    }
  }
  if (dst.nccl_nets.empty()) dst.nccl_nets = src.nccl_nets;
  for (const NicUse& u : src.uses) dst.uses.push_back(u);
  if (!dst.nccl_ib_hca) dst.nccl_ib_hca = src.nccl_ib_hca;
  for (const RankBinding& r : src.ranks) dst.ranks.push_back(r);
  for (const PciLinkObservation& o : src.slow_pci_links) dst.slow_pci_links.push_back(o);
  if (!dst.graph_intra_type) dst.graph_intra_type = src.graph_intra_type;
}

// ---- paths ----

namespace {

// The switches above a device, nearest first, and the key of the root complex (or
// NUMA node) it hangs from. NCCL's XML has one node per switch; hwloc and sysfs have one
// per port, so there a device's switch is two levels up (its downstream port's parent,
// the upstream port), which is how NCCL walks sysfs paths.
struct Ancestry {
  std::vector<int> switches;
  std::string root;
};

Ancestry ancestry(const HostTopology& h, int node) {
  Ancestry a;
  const int n = static_cast<int>(h.pci.size());
  auto valid = [&](int i) { return i >= 0 && i < n; };
  auto parent = [&](int i) { return valid(i) ? h.pci[i].parent : -1; };
  int top = node;
  bool ports = false;  // hwloc/sysfs style
  for (int p = parent(node), guard = 0; valid(p) && guard < n; p = parent(p), ++guard) {
    if (h.pci[p].bridge && !h.pci[p].is_switch && !h.pci[p].host_bridge) ports = true;
    top = p;
  }
  if (!ports) {
    for (int p = parent(node), guard = 0; valid(p) && guard < n; p = parent(p), ++guard) {
      if (h.pci[p].is_switch) a.switches.push_back(p);
    }
  } else {
    int cur = node;
    for (int guard = 0; guard < n; ++guard) {
      int p1 = parent(cur);
      if (!valid(p1) || h.pci[p1].host_bridge) break;
      int p2 = parent(p1);
      if (!valid(p2) || h.pci[p2].host_bridge) break;
      a.switches.push_back(p2);
      cur = p2;
    }
  }
  const PciNode& t = h.pci[top];
  if (t.host_bridge) {
    a.root = fmt::format("hb:{}", top);
  } else if (ports && t.bridge) {
    // A root port read from a sysfs path: its bus names the root complex.
    a.root = "rc:" + t.busid.substr(0, std::min<size_t>(7, t.busid.size()));
  } else {
    a.root = fmt::format("numa:{}", t.numa);
  }
  return a;
}

}  // namespace

PathClass path_class(const HostTopology& h, int gpu, int nic) {
  if (gpu < 0 || nic < 0 || gpu >= static_cast<int>(h.gpus.size()) || nic >= static_cast<int>(h.nics.size())) {
    return PathClass::kUnknown;
  }
  if (auto it = h.given_paths.find({gpu, nic}); it != h.given_paths.end()) return it->second;
  const Gpu& g = h.gpus[gpu];
  const Nic& n = h.nics[nic];
  const int npci = static_cast<int>(h.pci.size());
  int gnuma = g.numa;
  int nnuma = n.numa;
  if (g.pci >= 0 && g.pci < npci && n.pci >= 0 && n.pci < npci) {
    if (gnuma < 0) gnuma = h.pci[g.pci].numa;
    if (nnuma < 0) nnuma = h.pci[n.pci].numa;
    Ancestry ag = ancestry(h, g.pci);
    Ancestry an = ancestry(h, n.pci);
    for (size_t i = 0; i < ag.switches.size(); ++i) {
      auto it = std::find(an.switches.begin(), an.switches.end(), ag.switches[i]);
      if (it != an.switches.end()) {
        return i == 0 && it == an.switches.begin() ? PathClass::kPix : PathClass::kPxb;
      }
    }
    if (ag.root == an.root) return PathClass::kPhb;
  }
  if (gnuma >= 0 && nnuma >= 0) return gnuma == nnuma ? PathClass::kNode : PathClass::kSys;
  return PathClass::kUnknown;
}

}  // namespace fabscope::topo
