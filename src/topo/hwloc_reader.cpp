// hwloc, live or from lstopo's XML: NUMA nodes, the PCI tree (host bridges, bridge
// ports, devices), GPUs (NVIDIA display/3D controllers), NICs (OpenFabrics devices,
// and plain network interfaces as non-RDMA NICs). Live, sysfs adds RDMA port rates.
#include <fcntl.h>
#include <fmt/format.h>
#include <hwloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>

#include "core/text.h"
#include "topo/readers.h"
#include "topo/xml.h"

namespace fabscope::topo {

namespace {

class Topology {
 public:
  Topology() { ok_ = hwloc_topology_init(&t_) == 0; }
  ~Topology() {
    if (ok_) hwloc_topology_destroy(t_);
  }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  bool ok() const { return ok_; }
  hwloc_topology_t get() const { return t_; }

 private:
  hwloc_topology_t t_{};
  bool ok_ = false;
};

bool is_pci(hwloc_obj_t o) { return o && (o->type == HWLOC_OBJ_PCI_DEVICE || o->type == HWLOC_OBJ_BRIDGE); }

std::string pci_busid(hwloc_obj_t o) {
  if (o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
    return fmt::format("hostbridge:{:04x}:{:02x}", o->attr->bridge.downstream.pci.domain,
                       o->attr->bridge.downstream.pci.secondary_bus);
  }
  const auto& p = o->attr->pcidev;
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", p.domain, p.bus, p.dev, p.func);
}

int numa_of(hwloc_topology_t t, hwloc_obj_t o) {
  hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(t, o);
  if (!a || !a->nodeset || hwloc_bitmap_weight(a->nodeset) != 1) return -1;
  return hwloc_bitmap_first(a->nodeset);
}

std::string info(hwloc_obj_t o, const char* name) {
  const char* v = hwloc_obj_get_info_by_name(o, name);
  return v ? std::string(v) : std::string();
}

// hwloc's IB port states (enum ibv_port_state).
std::string port_state(const std::string& v) {
  if (v == "1") return "DOWN";
  if (v == "2") return "INIT";
  if (v == "3") return "ARMED";
  if (v == "4") return "ACTIVE";
  if (v == "5") return "ACTIVE_DEFER";
  return v.empty() ? std::string() : "STATE_" + v;
}

// Index from an OS device name like "cuda3" or "nvml3"; -1 if none.
int os_index(const char* name, const char* prefix) {
  size_t n = std::strlen(prefix);
  if (std::strncmp(name, prefix, n) != 0 || !name[n]) return -1;
  char* end = nullptr;
  long v = std::strtol(name + n, &end, 10);
  return *end == '\0' && v >= 0 && v < 4096 ? static_cast<int>(v) : -1;
}

void add_numa_nodes(hwloc_topology_t t, HostTopology& h) {
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, o));) {
    NumaNode n;
    n.id = static_cast<int>(o->os_index);
    if (o->cpuset) {
      char* list = nullptr;
      if (hwloc_bitmap_list_asprintf(&list, o->cpuset) >= 0 && list) {
        if (auto cpus = CpuSet::from_list(list)) n.cpus = *cpus;
      }
      std::free(list);
    }
    if (!h.find_numa(n.id)) h.numa.push_back(n);
  }
}

// The PCI objects as added to the model: each one's index in h.pci, and all of them in
// the order added (parents before children).
struct PciObjects {
  std::map<hwloc_obj_t, int> index;
  std::vector<hwloc_obj_t> order;
};

// A PCI object as the model's node: bridges (host bridges marked), devices and PCI-to-PCI
// bridges with their class, ids and link speed.
PciNode pci_node(hwloc_topology_t t, hwloc_obj_t o, int parent) {
  PciNode n;
  n.busid = pci_busid(o);
  n.parent = parent;
  n.numa = numa_of(t, o);
  if (o->type == HWLOC_OBJ_BRIDGE) {
    n.bridge = true;
    n.host_bridge = o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
  }
  if (o->type == HWLOC_OBJ_PCI_DEVICE ||
      (o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI)) {
    n.class_code = o->attr->pcidev.class_id;
    n.vendor = o->attr->pcidev.vendor_id;
    n.device = o->attr->pcidev.device_id;
    n.link_gbytes = o->attr->pcidev.linkspeed;
    if (n.link_gbytes > 0) n.link = fmt::format("{:.2f} GB/s", n.link_gbytes);
  }
  return n;
}

// PCI objects, parents before children (a depth-first walk of the I/O tree).
PciObjects add_pci_tree(hwloc_topology_t t, HostTopology& h) {
  PciObjects pci;
  std::vector<hwloc_obj_t> stack;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_bridge(t, o));) {
    if (!is_pci(o->parent)) stack.push_back(o);
  }
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_pcidev(t, o));) {
    if (!is_pci(o->parent)) stack.push_back(o);
  }
  std::reverse(stack.begin(), stack.end());
  while (!stack.empty()) {
    hwloc_obj_t o = stack.back();
    stack.pop_back();
    if (pci.index.count(o)) continue;
    pci.order.push_back(o);
    const int parent = is_pci(o->parent) && pci.index.count(o->parent) ? pci.index[o->parent] : -1;
    pci.index[o] = h.add_pci(pci_node(t, o, parent));
    std::vector<hwloc_obj_t> kids;
    for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) {
      if (is_pci(c)) kids.push_back(c);
    }
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
  }
  return pci;
}

// GPUs: NVIDIA display/3D controllers (not NVSwitches, class 0x0680), in bus id order,
// numbered by their CUDA (else NVML) OS device; GPUs without one, or with a number taken,
// get the next numbers after the largest.
void add_gpus(HostTopology& h, PciObjects& pci) {
  std::vector<hwloc_obj_t> gpus;
  for (hwloc_obj_t o : pci.order) {
    if (o->type != HWLOC_OBJ_PCI_DEVICE || o->attr->pcidev.vendor_id != 0x10de) continue;
    unsigned cls = o->attr->pcidev.class_id;
    if (cls == 0x0300 || cls == 0x0302) gpus.push_back(o);
  }
  std::sort(gpus.begin(), gpus.end(), [](hwloc_obj_t a, hwloc_obj_t b) { return pci_busid(a) < pci_busid(b); });
  std::vector<int> gpu_index(gpus.size(), -1);
  std::vector<std::string> gpu_model(gpus.size());
  int max_index = -1;
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (hwloc_obj_t c = gpus[i]->io_first_child; c; c = c->next_sibling) {
      if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name) continue;
      int idx = os_index(c->name, "cuda");
      if (idx < 0) idx = os_index(c->name, "nvml");
      if (idx >= 0 && gpu_index[i] < 0) gpu_index[i] = idx;
      if (gpu_model[i].empty()) gpu_model[i] = info(c, "GPUModel");
    }
    max_index = std::max(max_index, gpu_index[i]);
  }
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (gpu_index[i] < 0 || h.find_gpu(gpu_index[i]) >= 0) gpu_index[i] = ++max_index;
    Gpu& g = h.add_gpu(gpu_index[i]);
    g.busid = pci_busid(gpus[i]);
    g.pci = pci.index[gpus[i]];
    g.numa = h.pci[g.pci].numa;
    g.model = !gpu_model[i].empty() ? gpu_model[i] : info(gpus[i], "PCIDevice");
    if (g.model.empty())
      g.model = fmt::format("{:04x}:{:04x}", gpus[i]->attr->pcidev.vendor_id, gpus[i]->attr->pcidev.device_id);
    if (const NumaNode* nn = h.find_numa(g.numa)) g.cpu_affinity = nn->cpus;
  }
}

// An OpenFabrics device's ports (hwloc's Port<N>State infos), each with the network
// interface on it: the one whose "Port" info names it, or one without that info for port 1.
void add_ports(Nic& n, hwloc_obj_t fabric, const std::vector<hwloc_obj_t>& nets) {
  for (int p = 1; p <= 4; ++p) {
    std::string st = info(fabric, fmt::format("Port{}State", p).c_str());
    if (st.empty()) continue;
    Port port;
    port.number = p;
    port.state = port_state(st);
    for (hwloc_obj_t net : nets) {
      std::string np = info(net, "Port");
      if (np.empty() ? p == 1 : np == std::to_string(p)) {
        port.netdev = net->name;
        break;
      }
    }
    n.ports.push_back(port);
  }
}

// NICs: OpenFabrics devices; network interfaces of PCI network controllers without one.
void add_nics(HostTopology& h, PciObjects& pci) {
  for (hwloc_obj_t o : pci.order) {
    if (o->type != HWLOC_OBJ_PCI_DEVICE) continue;
    std::vector<hwloc_obj_t> fabrics;
    std::vector<hwloc_obj_t> nets;
    for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) {
      if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name) continue;
      if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) fabrics.push_back(c);
      if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK) nets.push_back(c);
    }
    // A NIC on this PCI device: its place in the tree.
    auto add_nic = [&](const char* name, bool rdma) -> Nic& {
      Nic& n = h.add_nic(name);
      n.rdma = rdma;
      n.busid = pci_busid(o);
      n.pci = pci.index[o];
      n.numa = h.pci[n.pci].numa;
      return n;
    };
    for (hwloc_obj_t f : fabrics) add_ports(add_nic(f->name, true), f, nets);
    if (fabrics.empty() && (o->attr->pcidev.class_id >> 8) == 0x02) {
      for (hwloc_obj_t net : nets) add_nic(net->name, false);
    }
  }
}

void fill(hwloc_topology_t t, HostTopology& h) {
  add_numa_nodes(t, h);
  PciObjects pci = add_pci_tree(t, h);
  add_gpus(h, pci);
  add_nics(h, pci);
}

// A set as hwloc writes it: "0x" words of hex digits separated by commas (an empty word
// inside is a zero word), optionally after "0xf...f," (an infinite set), or "0xf...f" alone. libhwloc's parser asserts
// on other text (bitmap.c: count > 0), so other text is refused here.
bool is_hwloc_bitmap(std::string_view v) {
  if (v == "0xf...f") return true;
  if (v.substr(0, 8) == "0xf...f,") v.remove_prefix(8);
  const auto words = split(v, ',');
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string_view word = words[i];
    if (word.empty() && i > 0 && i + 1 < words.size()) continue;  // ",," is a zero word, as hwloc writes it
    if (word.size() < 3 || word.size() > 18 || word.substr(0, 2) != "0x") return false;
    for (char c : word.substr(2)) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    }
  }
  return !v.empty();
}

// hwloc 2.x trusts an XML's sets to come in pairs: an object with a cpuset and no
// complete_cpuset (or a nodeset without complete_nodeset, or the other way round) makes
// libhwloc dereference a null set while loading. Such a file is refused here, naming
// the object, before hwloc sees it.
Status check_hwloc_sets(const XmlElement& e, std::string_view path) {
  if (e.name == "object") {
    const std::string* type_attr = e.attribute("type");
    const std::string t = type_attr ? *type_attr : "?";
    for (const char* set : {"cpuset", "complete_cpuset", "online_cpuset", "allowed_cpuset", "nodeset",
                            "complete_nodeset", "allowed_nodeset"}) {
      const std::string* v = e.attribute(set);
      if (v && !is_hwloc_bitmap(*v)) {
        return Status::Invalid(
            fmt::format("{}:{}: <object type=\"{}\"> has {}=\"{}\", which is not a set as hwloc "
                        "writes one (0x-prefixed hex words separated by commas)",
                        path, e.line, t, set, v->substr(0, 64)));
      }
    }
    // Every object but I/O and Misc ones covers CPUs: hwloc compares their sets
    // without checking that they exist.
    if (t != "Bridge" && t != "PCIDev" && t != "OSDev" && t != "Misc" && e.attribute("cpuset") == nullptr) {
      return Status::Invalid(
          fmt::format("{}:{}: <object type=\"{}\"> has no cpuset; hwloc needs one on every object "
                      "but I/O and Misc objects (export the file again with lstopo --of xml)",
                      path, e.line, t));
    }
    for (const auto& [set, complete] : {std::pair<const char*, const char*>{"cpuset", "complete_cpuset"},
                                        std::pair<const char*, const char*>{"nodeset", "complete_nodeset"}}) {
      const bool has_set = e.attribute(set) != nullptr;
      const bool has_complete = e.attribute(complete) != nullptr;
      if (has_set != has_complete) {
        return Status::Invalid(fmt::format(
            "{}:{}: <object type=\"{}\"> has {} but not {}; hwloc needs both (is the file edited or cut? export "
            "it again with lstopo --of xml)",
            path, e.line, t, has_set ? set : complete, has_set ? complete : set));
      }
    }
  }
  for (const XmlElement& c : e.children) FABSCOPE_RETURN_IF_ERROR(check_hwloc_sets(c, path));
  return Status::Ok();
}

// Loads the XML into a topology (the part that may crash inside libhwloc).
bool hwloc_loads(const std::string& buffer) {
  Topology t;
  if (!t.ok()) return false;
  hwloc_topology_set_io_types_filter(t.get(), HWLOC_TYPE_FILTER_KEEP_ALL);
  return hwloc_topology_set_xmlbuffer(t.get(), buffer.c_str(), static_cast<int>(buffer.size() + 1)) == 0 &&
         hwloc_topology_load(t.get()) == 0;
}

// libhwloc trusts its XML: a file that breaks an assumption fabscope's checks do not
// know can still make it dereference null or assert. So the file is loaded first in a
// child process; if that child dies, the file is refused, naming the signal, and this
// process never loads it. (topo reads XML offline, never under MPI, so fork is safe.)
Status load_in_a_child(std::string_view text, std::string_view path) {
  const std::string buffer(text);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return Status::Ok();  // no child: the checks above are all there is
  if (pid == 0) {
    // Quiet: hwloc's own complaints about a bad file would print twice.
    const int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) ::dup2(devnull, STDERR_FILENO);
    std::_Exit(hwloc_loads(buffer) ? 0 : 1);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    return Status::Invalid(fmt::format(
        "{}: libhwloc {}.{} crashes loading this XML ({}): the file breaks an assumption of hwloc's XML reader; "
        "export it again with lstopo --of xml",
        path, HWLOC_API_VERSION >> 16, (HWLOC_API_VERSION >> 8) & 0xff, strsignal(WTERMSIG(status))));
  }
  return Status::Ok();  // loaded, or refused by hwloc itself: the load below says why
}

}  // namespace

Status parse_hwloc_xml(std::string_view text, std::string_view path, TopologySet& set) {
  // Our parser first: hwloc's own errors do not say where a file broke.
  auto doc = parse_xml(text, path);
  if (!doc.ok()) return doc.status();
  if (doc->name != "topology") {
    return Status::Invalid(
        fmt::format("{}:{}: root element <{}> is not hwloc's <topology> (is this an NCCL topology? "
                    "use --nccl-topo)",
                    path, doc->line, doc->name));
  }
  if (const std::string* v = doc->attribute("version"); v && !v->empty() && (*v)[0] >= '3') {
    return Status::Invalid(
        fmt::format("{}: hwloc XML version {} is newer than this hwloc ({}) reads; export it with "
                    "`lstopo --export-xml-flags v2` or an hwloc 2.x lstopo",
                    path, *v, HWLOC_API_VERSION >> 16));
  }
  FABSCOPE_RETURN_IF_ERROR(check_hwloc_sets(*doc, path));
  FABSCOPE_RETURN_IF_ERROR(load_in_a_child(text, path));
  Topology t;
  if (!t.ok()) return Status::Runtime("hwloc: cannot initialise a topology");
  hwloc_topology_set_io_types_filter(t.get(), HWLOC_TYPE_FILTER_KEEP_ALL);
  const std::string buffer(text);  // hwloc wants the terminating NUL counted in the size
  if (hwloc_topology_set_xmlbuffer(t.get(), buffer.c_str(), static_cast<int>(buffer.size() + 1)) != 0 ||
      hwloc_topology_load(t.get()) != 0) {
    return Status::Invalid(fmt::format("{}: hwloc cannot load this XML ({})", path, std::strerror(errno)));
  }
  HostTopology& h = set.host("");
  h.sources.push_back(fmt::format("hwloc-xml:{}", path));
  fill(t.get(), h);
  return Status::Ok();
}

Status read_hwloc_live(const std::string& host, TopologySet& set) {
  Topology t;
  if (!t.ok()) return Status::Runtime("hwloc: cannot initialise a topology");
  hwloc_topology_set_io_types_filter(t.get(), HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(t.get()) != 0) {
    return Status::Runtime(fmt::format("hwloc: cannot read this machine's topology ({})", std::strerror(errno)));
  }
  HostTopology& h = set.host(host);
  h.sources.push_back("hwloc (live)");
  fill(t.get(), h);
  FABSCOPE_RETURN_IF_ERROR(read_sysfs_rdma("/sys", h));
  return Status::Ok();
}

}  // namespace fabscope::topo
