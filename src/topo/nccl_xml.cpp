// NCCL's topology XML (<system>) and graph XML (<graphs>) into the model. Each <pci>
// of class 0x0604 is a whole PCIe switch (NCCL collapses the ports); each <cpu> is a
// NUMA node; <gpu> and <nic>/<net> mark devices. Files written by hand (Azure, AWS)
// often have bare <pci> devices with only a class: 0x03xx are GPUs, 0x02xx NICs.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "topo/readers.h"
#include "topo/xml.h"

namespace fabscope::topo {

namespace {

struct Ctx {
  std::string_view source;
  HostTopology& host;
  int next_gpu = 0;
};

bool parse_int(const std::string* s, long long& out, int base = 10) {
  if (!s) return false;
  std::string_view v = *s;
  if (base == 16 && (v.starts_with("0x") || v.starts_with("0X"))) v.remove_prefix(2);
  if (v.empty()) return false;
  auto r = std::from_chars(v.data(), v.data() + v.size(), out, base);
  return r.ec == std::errc() && r.ptr == v.data() + v.size();
}

Status bad_attr(const Ctx& c, const XmlElement& e, std::string_view key, const std::string& value,
                std::string_view want) {
  return Status::Invalid(fmt::format("{}:{}: <{}> {}=\"{}\" is not {}", c.source, e.line, e.name, key, value, want));
}

// "32.0 GT/s PCIe" x width -> GB/s per direction (8b/10b up to 5 GT/s, 128b/130b above).
double link_gbytes(const std::string& speed, long long width) {
  double gts = std::strtod(speed.c_str(), nullptr);
  if (gts <= 0 || width <= 0) return 0;
  double eff = gts <= 5.0 ? 0.8 : 128.0 / 130.0;
  return gts * eff * static_cast<double>(width) / 8.0;
}

bool is_gpu_class(uint32_t cls, uint16_t vendor) { return cls == 0x0302 || (cls == 0x0300 && vendor == 0x10de); }

Status walk(Ctx& c, const XmlElement& e, int parent_pci, int numa);

Status add_nets(Ctx& c, const XmlElement& nic, int pci, int numa) {
  for (const XmlElement& net : nic.children) {
    if (net.name != "net") continue;
    const std::string* name = net.attribute("name");
    if (!name || name->empty()) return Status::Invalid(fmt::format("{}:{}: <net> has no name", c.source, net.line));
    Nic& n = c.host.add_nic(*name);
    n.pci = pci;
    if (pci >= 0) n.busid = c.host.pci[pci].busid;
    n.numa = numa;
    long long v = 0;
    if (const std::string* s = net.attribute("speed"); s && !s->empty()) {
      if (!parse_int(s, v) || v < 0) return bad_attr(c, net, "speed", *s, "a speed in Mb/s");
      n.speed_gbits = static_cast<double>(v) / 1000.0;
    }
    if (const std::string* s = net.attribute("gdr"); s && !s->empty()) {
      if (!parse_int(s, v)) return bad_attr(c, net, "gdr", *s, "0 or 1");
      n.gdr = v != 0;
    }
    int port = 1;
    if (const std::string* s = net.attribute("port"); s && !s->empty()) {
      if (!parse_int(s, v) || v < 0 || v > 255) return bad_attr(c, net, "port", *s, "a port number");
      port = static_cast<int>(v);
    }
    // NCCL's socket transport names interfaces (eth0); its IB transport names HCAs.
    n.rdma = !(name->rfind("eth", 0) == 0 || name->rfind("en", 0) == 0 || name->rfind("bond", 0) == 0 ||
               name->rfind("lo", 0) == 0);
    if (std::none_of(n.ports.begin(), n.ports.end(), [&](const Port& p) { return p.number == port; })) {
      Port p;
      p.number = port;
      n.ports.push_back(p);
    }
  }
  return Status::Ok();
}

Status walk_pci(Ctx& c, const XmlElement& e, int parent_pci, int numa) {
  const std::string* busid = e.attribute("busid");
  if (!busid) return Status::Invalid(fmt::format("{}:{}: <pci> has no busid", c.source, e.line));
  std::string bus = normalize_busid(*busid);
  if (bus.empty()) return bad_attr(c, e, "busid", *busid, "a PCI bus id like 0000:3b:00.0");
  PciNode node;
  node.busid = bus;
  node.parent = parent_pci;
  node.numa = numa;
  long long v = 0;
  if (const std::string* s = e.attribute("class"); s && !s->empty()) {
    if (!parse_int(s, v, 16) || v < 0) return bad_attr(c, e, "class", *s, "a hex PCI class");
    node.class_code = static_cast<uint32_t>(v > 0xffff ? v >> 8 : v);
  }
  if (const std::string* s = e.attribute("vendor"); s && !s->empty()) {
    if (!parse_int(s, v, 16) || v < 0 || v > 0xffff) return bad_attr(c, e, "vendor", *s, "a hex vendor id");
    node.vendor = static_cast<uint16_t>(v);
  }
  if (const std::string* s = e.attribute("device"); s && !s->empty()) {
    if (!parse_int(s, v, 16) || v < 0 || v > 0xffff) return bad_attr(c, e, "device", *s, "a hex device id");
    node.device = static_cast<uint16_t>(v);
  }
  long long width = 0;
  if (const std::string* s = e.attribute("link_width"); s && !s->empty()) {
    if (!parse_int(s, width) || width < 0 || width > 64) return bad_attr(c, e, "link_width", *s, "a lane count");
  }
  if (const std::string* s = e.attribute("link_speed"); s && !s->empty()) {
    node.link = width > 0 ? fmt::format("{} x{}", *s, width) : *s;
    node.link_gbytes = link_gbytes(*s, width);
  }
  node.bridge = (node.class_code >> 8) == 0x06 && (node.class_code & 0xff) == 0x04;
  node.is_switch = node.bridge;
  int at = c.host.add_pci(node);
  bool has_gpu = false;
  bool has_nic = false;
  for (const XmlElement& child : e.children) {
    if (child.name == "gpu") {
      has_gpu = true;
      int index = c.next_gpu;
      if (const std::string* s = child.attribute("dev"); s && !s->empty()) {
        if (!parse_int(s, v) || v < 0 || v > 4096) return bad_attr(c, child, "dev", *s, "a GPU index");
        index = static_cast<int>(v);
      }
      c.next_gpu = std::max(c.next_gpu, index + 1);
      Gpu& g = c.host.add_gpu(index);
      g.busid = bus;
      g.pci = at;
      g.numa = numa;
      if (const std::string* s = child.attribute("rank"); s && parse_int(s, v)) g.nccl_rank = static_cast<int>(v);
      if (const std::string* s = child.attribute("gdr"); s && parse_int(s, v)) g.gdr = v != 0;
      if (const std::string* s = child.attribute("sm"); s && !s->empty()) g.model = "sm_" + *s;
      for (const XmlElement& l : child.children) {
        if (l.name != "nvlink") continue;
        NvLink link;
        if (const std::string* t = l.attribute("target")) link.target = normalize_busid(*t);
        if (const std::string* s = l.attribute("count"); s && parse_int(s, v)) link.count = static_cast<int>(v);
        g.nvlinks.push_back(link);
      }
    } else if (child.name == "nic") {
      has_nic = true;
      FABSCOPE_RETURN_IF_ERROR(add_nets(c, child, at, numa));
    } else if (child.name == "pci") {
      FABSCOPE_RETURN_IF_ERROR(walk_pci(c, child, at, numa));
    }
  }
  // Hand-written files: bare devices known by their class only.
  if (!has_gpu && is_gpu_class(node.class_code, node.vendor)) {
    Gpu& g = c.host.add_gpu(c.next_gpu++);
    g.busid = bus;
    g.pci = at;
    g.numa = numa;
    if (node.vendor) g.model = fmt::format("{:04x}:{:04x}", node.vendor, node.device);
  }
  if (!has_nic && (node.class_code >> 8) == 0x02) {
    Nic& n = c.host.add_nic(bus);
    n.busid = bus;
    n.pci = at;
    n.numa = numa;
    n.rdma = node.class_code == 0x0207 || node.vendor == 0x15b3 || node.vendor == 0x1d0f;
  }
  return Status::Ok();
}

Status walk(Ctx& c, const XmlElement& e, int parent_pci, int numa) {
  for (const XmlElement& child : e.children) {
    if (child.name == "cpu") {
      long long id = -1;
      const std::string* s = child.attribute("numaid");
      if (s && !s->empty() && !parse_int(s, id)) return bad_attr(c, child, "numaid", *s, "a NUMA node id");
      NumaNode n;
      n.id = static_cast<int>(id);
      if (const std::string* a = child.attribute("affinity"); a && !a->empty()) {
        auto cpus = CpuSet::from_mask(*a);
        if (!cpus) return bad_attr(c, child, "affinity", *a, "a CPU mask like 0000ffff,ffffffff");
        n.cpus = *cpus;
      }
      if (!c.host.find_numa(n.id)) c.host.numa.push_back(n);
      FABSCOPE_RETURN_IF_ERROR(walk(c, child, -1, n.id));
    } else if (child.name == "pci") {
      FABSCOPE_RETURN_IF_ERROR(walk_pci(c, child, parent_pci, numa));
    } else if (child.name == "nic") {
      FABSCOPE_RETURN_IF_ERROR(add_nets(c, child, parent_pci, numa));
    }
  }
  return Status::Ok();
}

}  // namespace

Status parse_nccl_xml(std::string_view text, std::string_view source, TopologySet& set) {
  auto doc = parse_xml(text, source);
  if (!doc.ok()) return doc.status();
  const XmlElement& root = *doc;
  if (root.name == "system") {
    HostTopology& h = set.host("");
    h.sources.push_back(fmt::format("nccl-topo:{}", source));
    Ctx c{source, h};
    return walk(c, root, -1, -1);
  }
  if (root.name == "graphs") {
    HostTopology& h = set.host("");
    h.sources.push_back(fmt::format("nccl-graph:{}", source));
    const XmlElement* pick = nullptr;
    for (const XmlElement& g : root.children) {
      if (g.name != "graph") continue;
      if (!pick) pick = &g;
      if (const std::string* p = g.attribute("pattern"); p && *p == "4") {
        pick = &g;
        break;
      }
    }
    if (pick) {
      if (const std::string* t = pick->attribute("typeintra")) h.graph_intra_type = *t;
    }
    return Status::Ok();
  }
  return Status::Invalid(
      fmt::format("{}:{}: root element <{}> is neither <system> (NCCL topology) nor <graphs> "
                  "(NCCL graph)",
                  source, root.line, root.name));
}

}  // namespace fabscope::topo
