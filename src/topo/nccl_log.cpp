// NCCL_DEBUG=INFO output: "HOST:PID:TID [DEV] NCCL INFO message" lines of any number of
// ranks and hosts, interleaved with other programs' output. What NCCL says about its
// NIC choice becomes the model: the NCCL_IB_HCA in effect, the NET/IB device list, each
// rank's GPU and bus id, the NIC and GPUDirect RDMA of every channel, and PCI links of
// the GRAPH system dump far slower than their neighbours.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/stats.h"
#include "core/text.h"
#include "topo/readers.h"

namespace fabscope::topo {

namespace {

bool to_int(std::string_view s, int& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::string_view word_after(std::string_view msg, std::string_view key) {
  size_t at = msg.find(key);
  while (at != std::string_view::npos) {
    bool boundary = at == 0 || msg[at - 1] == ' ';
    size_t start = at + key.size();
    if (boundary && start < msg.size() && msg[start] == ' ') {
      ++start;
      size_t end = msg.find(' ', start);
      return msg.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    }
    at = msg.find(key, at + 1);
  }
  return {};
}

// "14[6]" -> rank 14, device 6.
bool rank_dev(std::string_view s, int& rank, int& dev) {
  size_t lb = s.find('[');
  if (lb == std::string_view::npos || s.back() != ']') return false;
  return to_int(s.substr(0, lb), rank) && to_int(s.substr(lb + 1, s.size() - lb - 2), dev);
}

struct PciLink {
  std::string node;
  double gbytes;
};

// What one log's lines build up across lines.
struct ParseState {
  std::map<std::string, std::vector<std::string>> nets_of;         // "host:pid" -> NET/IB list
  std::map<std::string, std::vector<std::string>> socket_nets_of;  // "host:pid" -> NET/Socket list
  std::map<std::string, std::vector<PciLink>> pci_links;           // host -> links of its GRAPH dump
  std::vector<ChannelNic>* channels = nullptr;                     // nccl_log_channels: every channel's NIC
};

// One NCCL line, its prefix "HOST:PID:TID [DEV]" split.
struct LogLine {
  std::string_view msg;  // what follows " NCCL INFO " (or " NCCL WARN ")
  std::string host;
  std::string proc;  // "host:pid": the process, whose NET/IB list its channels index
  int dev = -1;      // [DEV], -1 when it is not a number
  HostTopology& h;   // the host's model
};

// One kind of NCCL line: whether a message is of this kind, and what it adds to the
// model. `apply` may return early, skipping a malformed line.
struct LinePattern {
  std::string_view name;
  bool (*matches)(std::string_view msg);
  void (*apply)(const LogLine& line, ParseState& state);
};

// "NCCL_IB_HCA set to mlx5_0,mlx5_1": the NCCL_IB_HCA in effect. Its value has no spaces:
// what follows one is not the setting's (lines a paste ran together).
bool is_ib_hca(std::string_view msg) { return msg.starts_with("NCCL_IB_HCA set to "); }
void apply_ib_hca(const LogLine& line, ParseState& /*state*/) {
  const std::string_view v = trim(line.msg.substr(19));
  line.h.nccl_ib_hca = std::string(v.substr(0, v.find_first_of(" \t\r")));
}

// "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB ...": the process's NET/IB
// list, its NICs and ports.
bool is_net_ib_using(std::string_view msg) { return msg.starts_with("NET/IB : Using "); }
void apply_net_ib_using(const LogLine& line, ParseState& state) {
  const std::string_view msg = line.msg;
  HostTopology& h = line.h;
  std::vector<std::string> list;
  std::string_view rest = msg.substr(15);
  size_t semi = rest.find(';');
  if (semi != std::string_view::npos) rest = rest.substr(0, semi);
  size_t i = 0;
  while (i < rest.size()) {
    size_t lbk = rest.find('[', i);
    if (lbk == std::string_view::npos) break;
    size_t rbk = rest.find(']', lbk);
    if (rbk == std::string_view::npos) break;
    int idx = 0;
    if (!to_int(rest.substr(lbk + 1, rbk - lbk - 1), idx)) {  // [RO] and the like
      i = rbk + 1;
      continue;
    }
    size_t end = rest.find(' ', rbk);
    std::string_view dev_spec =
        rest.substr(rbk + 1, end == std::string_view::npos ? std::string_view::npos : end - rbk - 1);
    // mlx5_0:1/RoCE
    size_t colon = dev_spec.find(':');
    size_t slash = dev_spec.find('/');
    std::string name(dev_spec.substr(0, std::min(colon, slash)));
    int port = 1;
    if (colon != std::string_view::npos) {
      std::string_view ps =
          dev_spec.substr(colon + 1, slash == std::string_view::npos ? std::string_view::npos : slash - colon - 1);
      if (!to_int(ps, port)) port = 1;
    }
    std::string layer;
    if (slash != std::string_view::npos) {
      std::string_view l = dev_spec.substr(slash + 1);
      layer = l == "RoCE" ? "Ethernet" : l == "IB" ? "InfiniBand" : std::string(l);
    }
    if (!name.empty() && idx >= 0 && idx < 1024) {
      if (list.size() <= static_cast<size_t>(idx)) list.resize(idx + 1);
      list[idx] = name;
      Nic& n = h.add_nic(name);
      n.rdma = true;
      auto p = std::find_if(n.ports.begin(), n.ports.end(), [&](const Port& x) { return x.number == port; });
      if (p == n.ports.end()) {
        n.ports.push_back({port, "ACTIVE", 0, layer, "", ""});
      } else {
        p->state = "ACTIVE";
        if (!layer.empty()) p->link_layer = layer;
      }
    }
    i = end == std::string_view::npos ? rest.size() : end;
  }
  state.nets_of[line.proc] = list;
  if (h.nccl_nets.empty()) h.nccl_nets = list;
}

// "NET/Socket : Using [0]eth0:192.0.2.2<0> [1]eth1:...": the process's NET/Socket list
// (NCCL's TCP transport, where no RDMA device is used), its interfaces by index.
bool is_net_socket_using(std::string_view msg) { return msg.starts_with("NET/Socket : Using "); }
void apply_net_socket_using(const LogLine& line, ParseState& state) {
  std::vector<std::string> list;
  std::string_view rest = line.msg.substr(19);
  for (size_t lbk = rest.find('['); lbk != std::string_view::npos; lbk = rest.find('[', lbk + 1)) {
    const size_t rbk = rest.find(']', lbk);
    int idx = 0;
    if (rbk == std::string_view::npos || !to_int(rest.substr(lbk + 1, rbk - lbk - 1), idx) || idx < 0 || idx >= 1024) {
      continue;
    }
    const std::string_view spec = rest.substr(rbk + 1, rest.find_first_of(": ", rbk + 1) - rbk - 1);  // eth0
    if (spec.empty()) continue;
    if (list.size() <= static_cast<size_t>(idx)) list.resize(idx + 1);
    list[idx] = std::string(spec);
    const bool known =
        std::any_of(line.h.nics.begin(), line.h.nics.end(), [&](const Nic& n) { return n.name == spec; });
    Nic& nic = line.h.add_nic(spec);
    if (!known) nic.rdma = false;  // a socket interface (eth0), unless another source knows it as RDMA
  }
  state.socket_nets_of[line.proc] = list;
}

// "ncclCommInitRank comm 0x5654997a1f80 rank 9 nranks 16 cudaDev 1 nvmlDev 1 busId
// 2a000 ...": a rank's GPU and its bus id.
bool is_comm_init_rank(std::string_view msg) {
  return msg.find("ncclCommInitRank") != std::string_view::npos && msg.find("cudaDev") != std::string_view::npos;
}
void apply_comm_init_rank(const LogLine& line, ParseState& /*state*/) {
  const std::string_view msg = line.msg;
  HostTopology& h = line.h;
  int rank = -1;
  int cuda = -1;
  std::string_view bus = word_after(msg, "busId");
  if (to_int(word_after(msg, "rank"), rank) && to_int(word_after(msg, "cudaDev"), cuda) && cuda >= 0 && cuda < 4096) {
    Gpu& g = h.add_gpu(cuda);
    g.nccl_rank = rank;
    std::string b = normalize_busid(bus);
    if (!b.empty()) g.busid = b;
  }
}

// "Channel 05/0 : 14[6] -> 5[5] [receive] via NET/IB/5/GDRDMA": the NIC (and
// GPUDirect RDMA) of one channel of a rank's GPU.
bool is_channel_via_net(std::string_view msg) {
  return msg.starts_with("Channel ") && msg.find(" via NET/") != std::string_view::npos;
}
void apply_channel_via_net(const LogLine& line, ParseState& state) {
  const std::string_view msg = line.msg;
  HostTopology& h = line.h;
  size_t colon = msg.find(" : ");
  size_t arrow = msg.find(" -> ");
  size_t via = msg.find(" via NET/");
  if (colon == std::string_view::npos || arrow == std::string_view::npos || arrow < colon) return;
  std::string_view left = msg.substr(colon + 3, arrow - colon - 3);
  std::string_view right_and = msg.substr(arrow + 4);
  std::string_view right = right_and.substr(0, right_and.find(' '));
  bool send = msg.find("[send]") != std::string_view::npos;
  int lrank = -1, ldev = -1, rrank = -1, rdev = -1;
  if (!rank_dev(left, lrank, ldev) || !rank_dev(right, rrank, rdev)) return;
  int rank = send ? lrank : rrank;
  int gpu = send ? ldev : rdev;
  std::string_view path = msg.substr(via + 9);  // IB/5/GDRDMA or IB/1(2)/GDRDMA
  size_t s1 = path.find('/');
  if (s1 == std::string_view::npos) return;
  std::string_view idx_s = path.substr(s1 + 1);
  size_t s2 = idx_s.find('/');
  bool gdr = s2 != std::string_view::npos && idx_s.substr(s2).find("GDRDMA") != std::string_view::npos;
  idx_s = idx_s.substr(0, s2);
  if (size_t paren = idx_s.find('('); paren != std::string_view::npos) idx_s = idx_s.substr(0, paren);
  size_t end = 0;
  while (end < idx_s.size() && std::isdigit(static_cast<unsigned char>(idx_s[end]))) ++end;
  int k = -1;
  if (!to_int(idx_s.substr(0, end), k)) return;
  const bool socket = path.starts_with("Socket/");  // NET/Socket/k: NCCL's own TCP transport
  static const std::vector<std::string> kNone;
  const std::vector<std::string>* list =
      socket ? (state.socket_nets_of.count(line.proc) ? &state.socket_nets_of[line.proc] : &kNone)
             : (state.nets_of.count(line.proc) ? &state.nets_of[line.proc] : &h.nccl_nets);
  std::string nic = k >= 0 && k < static_cast<int>(list->size()) ? (*list)[k] : std::string();
  auto u = std::find_if(h.uses.begin(), h.uses.end(), [&](const NicUse& x) {
    return x.gpu == gpu && x.rank == rank && x.net_index == k && x.gdr == gdr && x.nic == nic;
  });
  if (u == h.uses.end()) {
    h.uses.push_back({gpu, rank, nic, k, gdr, 1});
  } else {
    ++u->channels;
  }
  if (state.channels != nullptr) {
    int channel = -1;
    std::string_view c = msg.substr(8);  // after "Channel "
    size_t digits = 0;
    while (digits < c.size() && std::isdigit(static_cast<unsigned char>(c[digits]))) ++digits;
    if (!to_int(c.substr(0, digits), channel)) return;
    const size_t colon_at = line.proc.rfind(':');
    state.channels->push_back({line.host, colon_at == std::string::npos ? "" : line.proc.substr(colon_at + 1), rank,
                               send ? rrank : lrank, channel, send,
                               nic.empty() ? fmt::format("NET/{}/{}", path.substr(0, s1), k) : nic});
  }
}

// "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'": GPUDirect RDMA of one NIC.
bool is_gpu_direct_rdma(std::string_view msg) { return msg.starts_with("NET/IB : GPU Direct RDMA "); }
void apply_gpu_direct_rdma(const LogLine& line, ParseState& /*state*/) {
  const std::string_view msg = line.msg;
  HostTopology& h = line.h;
  bool enabled = msg.find("Enabled") != std::string_view::npos;
  size_t q1 = msg.find('\'');
  size_t q2 = q1 == std::string_view::npos ? q1 : msg.find('\'', q1 + 1);
  if (q2 != std::string_view::npos) h.add_nic(msg.substr(q1 + 1, q2 - q1 - 1)).gdr = enabled;
}

// NCCL's LOC_BW: the bandwidth it gives a link it did not measure, such as the PCI link
// of a NIC that is not a PCI device (virtio), which it attaches to the first CPU. Not a
// speed of any slot: such links stay out of the comparison.
constexpr double kNcclLocBw = 5000.0;

// Whether a link of the GRAPH dump is a measured PCI link: only PCI links are compared
// (the pattern below matches no NVL, NET, SYS or C2C link), and never a LOC_BW one.
bool measured_pci_link(double gbytes) { return gbytes >= 0 && gbytes < kNcclLocBw; }

// GRAPH system dump: "+ PCI[0.2] - PCI/0-65000 (...)", one PCI link and its bandwidth.
std::string_view without_leading_spaces(std::string_view m) {
  while (!m.empty() && m.front() == ' ') m.remove_prefix(1);
  return m;
}
bool is_graph_pci_link(std::string_view msg) { return without_leading_spaces(msg).starts_with("+ PCI["); }
void apply_graph_pci_link(const LogLine& line, ParseState& state) {
  const std::string_view m = without_leading_spaces(line.msg);
  size_t close = m.find(']');
  size_t dash = m.find(" - ");
  if (close == std::string_view::npos || dash == std::string_view::npos) return;
  double bw = 0;
  std::string_view num = m.substr(6, close - 6);
  auto r = std::from_chars(num.data(), num.data() + num.size(), bw);
  if (r.ec != std::errc() || !measured_pci_link(bw)) return;
  std::string_view node = m.substr(dash + 3);
  node = node.substr(0, node.find(' '));
  state.pci_links[line.host].push_back({std::string(node), bw});
}

// The kinds of line, tried in this order; the first that matches applies. A new kind
// is one more function and one more entry here.
constexpr LinePattern kLinePatterns[] = {
    {"ib_hca", is_ib_hca, apply_ib_hca},
    {"net_ib_using", is_net_ib_using, apply_net_ib_using},
    {"net_socket_using", is_net_socket_using, apply_net_socket_using},
    {"comm_init_rank", is_comm_init_rank, apply_comm_init_rank},
    {"channel_via_net", is_channel_via_net, apply_channel_via_net},
    {"gpu_direct_rdma", is_gpu_direct_rdma, apply_gpu_direct_rdma},
    {"graph_pci_link", is_graph_pci_link, apply_graph_pci_link},
};

// parse_nccl_log, counting in `hits` (when given, one per entry of kLinePatterns) the
// lines of each kind.
Status parse_lines(std::string_view text, std::string_view source, TopologySet& set, std::vector<int>* hits,
                   std::vector<ChannelNic>* channels = nullptr) {
  int nccl_lines = 0;
  ParseState state;
  state.channels = channels;
  LineReader lines(text);
  std::string_view line;
  while (lines.next(line)) {
    NcclLogLine split;
    if (!split_nccl_line(line, split)) continue;
    std::string host(split.host);
    std::string proc = host + ":" + std::string(split.pid);
    const int dev = split.dev;
    const std::string_view msg = split.msg;
    ++nccl_lines;
    HostTopology& h = set.host(host);
    if (h.sources.empty() || h.sources.back() != fmt::format("nccl-log:{}", source)) {
      if (std::find(h.sources.begin(), h.sources.end(), fmt::format("nccl-log:{}", source)) == h.sources.end()) {
        h.sources.push_back(fmt::format("nccl-log:{}", source));
      }
    }

    const LogLine log_line{msg, std::move(host), std::move(proc), dev, h};
    for (size_t k = 0; k < std::size(kLinePatterns); ++k) {
      if (!kLinePatterns[k].matches(msg)) continue;
      if (hits != nullptr) ++(*hits)[k];
      kLinePatterns[k].apply(log_line, state);
      break;
    }
  }
  if (nccl_lines == 0)
    return Status::Invalid(fmt::format("{}: no NCCL INFO lines found (HOST:PID:TID [DEV] NCCL INFO ...)", source));
  for (const auto& [host, links] : state.pci_links) {
    if (links.size() < 2) continue;  // one link has no neighbours to be slower than
    std::vector<double> bws;
    for (const PciLink& l : links) bws.push_back(l.gbytes);
    double med = median(bws);
    HostTopology& h = set.host(host);
    for (const PciLink& l : links) {
      if (med > 0 && l.gbytes < med / 10) h.slow_pci_links.push_back({l.node, l.gbytes, med});
    }
  }
  return Status::Ok();
}

}  // namespace

namespace {

// A line that names no process: the host unnamed, no pid, no device.
void unnamed(NcclLogLine& out) {
  out.host = kUnnamedHost;
  out.pid = {};
  out.dev = -1;
}

// "NCCL INFO ..." without the HOST:PID:TID [DEV] prefix: the message, the host unnamed.
bool split_unprefixed(std::string_view line, size_t tag, NcclLogLine& out) {
  unnamed(out);
  out.level = line.substr(tag + 5, 4);
  out.msg = line.substr(tag + 10);
  return true;
}

// The "host:pid:tid [dev]" before NCCL's level (with a launcher's or a prompt's text before
// it): host, pid and dev into `out`. False where the prefix names no host.
bool split_prefix(std::string_view prefix, NcclLogLine& out) {
  const size_t lb = prefix.rfind('[');
  if (lb == std::string_view::npos) return false;
  std::string_view id = trim(prefix.substr(0, lb));  // "[1,3]<stdout>:host:pid:tid"
  const size_t last_space = id.find_last_of(" \t");
  if (last_space != std::string_view::npos) id = id.substr(last_space + 1);
  // The launcher's "[1,3]<stdout>:" has no spaces: the host is the third field from the end.
  const size_t c2 = id.rfind(':');
  const size_t c1 = c2 == std::string_view::npos || c2 == 0 ? std::string_view::npos : id.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos) return false;
  const size_t c0 = c1 == 0 ? std::string_view::npos : id.rfind(':', c1 - 1);
  const std::string_view host =
      id.substr(c0 == std::string_view::npos ? 0 : c0 + 1, c1 - (c0 == std::string_view::npos ? 0 : c0 + 1));
  if (host.empty()) return false;
  out.host = host;
  out.pid = id.substr(c1 + 1, c2 - c1 - 1);
  const size_t rb = prefix.find(']', lb);
  out.dev = -1;
  if (rb == std::string_view::npos || !to_int(prefix.substr(lb + 1, rb - lb - 1), out.dev)) out.dev = -1;
  return true;
}

// A location in NCCL's sources as its warnings print it: "misc/ibvwrap.cu:61",
// "include/socket.h:344", "init.cc:1350" (a C or CUDA file, then the line).
bool source_location(std::string_view token) {
  const size_t colon = token.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == token.size() ||
      !std::all_of(token.begin() + static_cast<ptrdiff_t>(colon) + 1, token.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return false;
  }
  const std::string_view file = token.substr(0, colon);
  if (!std::all_of(file.begin(), file.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '.' || c == '-';
      })) {
    return false;
  }
  return file.ends_with(".cc") || file.ends_with(".cu") || file.ends_with(".h") || file.ends_with(".c") ||
         file.ends_with(".cpp");
}

// NCCL before 2.4 printed its warnings without the word NCCL ("host:pid:tid [0]
// misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]"), and pastes keep them bare
// ("include/socket.h:344 WARN Socket creation failed : ..."): a WARN right after a source
// location of C or CUDA code is NCCL's.
bool split_sourced_warn(std::string_view line, NcclLogLine& out) {
  // "WARN " first: its upper-case W is rare, where a space stops a search at every word
  // of a long pasted line.
  size_t tag = line.find("WARN ");
  while (tag != std::string_view::npos && (tag < 2 || line[tag - 1] != ' ')) tag = line.find("WARN ", tag + 1);
  if (tag == std::string_view::npos) return false;
  --tag;  // at the space before it
  size_t start = line.find_last_of(" \t", tag - 1);
  start = start == std::string_view::npos ? 0 : start + 1;
  size_t source_end = tag;
  // NVSHMEM's own (NCCL's format, its name for NCCL's): "node1:12:12 [0] init.cu:100 NVSHMEM
  // WARN ...", its bootstrap's messages NCCL's socket code's.
  if (line.substr(start, tag - start) == "NVSHMEM" && start >= 2) {
    source_end = start - 1;
    start = line.find_last_of(" \t", source_end - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
  }
  if (!source_location(line.substr(start, source_end - start))) return false;
  if (!split_prefix(line.substr(0, start), out)) unnamed(out);
  out.level = line.substr(tag + 1, 4);
  out.msg = line.substr(tag + 6);
  return true;
}

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// NCCL before 2.3 printed its INFO lines without the word NCCL ("learngpu060:3728579:3730441
// [0] INFO Ring 00 : 2[2] -> 3[3] via P2P/IPC"): an INFO right after a whole
// "host:pid:tid [dev]" prefix, the pid, tid and device numbers, is NCCL's.
bool split_old_info(std::string_view line, NcclLogLine& out) {
  constexpr std::string_view kTag = "] INFO ";
  // Within a prefix's length (a launcher's and the host's names), from each ']': not
  // through a long line, and few stops in one.
  size_t tag = line.find(']');
  while (tag != std::string_view::npos && tag < 192 && line.compare(tag, kTag.size(), kTag) != 0) {
    tag = line.find(']', tag + 1);
  }
  if (tag == std::string_view::npos || tag >= 192) return false;
  const std::string_view prefix = line.substr(0, tag + 1);
  NcclLogLine l;
  if (!split_prefix(prefix, l) || l.dev < 0 || !all_digits(l.pid)) return false;
  // The tid, between the pid and the space before '['.
  const size_t lb = prefix.rfind('[');
  const std::string_view id = trim(prefix.substr(0, lb));
  const size_t c2 = id.rfind(':');
  if (!all_digits(id.substr(c2 + 1))) return false;
  out = l;
  out.level = "INFO";
  out.msg = line.substr(tag + kTag.size());
  return true;
}

// NCCL's network transports' messages pasted alone, without "NCCL INFO" nor the prefix
// ("NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'", "NET/Socket : Using [0]eth0:..."):
// their "NET/IB : ", "NET/Socket : " and "NET/Plugin" heads are NCCL's own, and its choice of
// network ("Using network Socket") is a short line of its own words.
bool bare_net_line(std::string_view t) {
  if (!t.empty() && t.front() == 'U') {  // "Using network Socket", "Using network AWS Libfabric": a name, no more
    return t.starts_with("Using network ") && t.size() <= 40 && t.find_first_of("=:/<") == std::string_view::npos;
  }
  return !t.empty() && t.front() == 'N' &&
         (t.starts_with("NET/IB : ") || t.starts_with("NET/IB: ") || t.starts_with("NET/Socket : ") ||
          t.starts_with("NET/Plugin"));
}

// NCCL's warnings pasted alone, as a quote (in backticks) or the message of a WARN whose
// prefix was dropped, or after a framework's error that quotes NCCL's last one: its socket
// code's, headed by its functions' names (misc/socket.cc: "socketStartConnect: Connect to
// 10.0.0.2<47527> failed : Software caused connection abort"), and NVLS's multicast bind
// (transport/nvls.cc: "Failed to bind NVLink SHARP (NVLS) Multicast memory of size ...").
bool bare_nccl_warn(std::string_view t, NcclLogLine& out) {
  if (t.size() > 512 || t.empty() || (t.front() != 's' && t.front() != '`' && t.front() != 'F')) return false;
  if (t.front() == 'F') {
    if (!t.starts_with("Failed to bind NVLink SHARP (NVLS) Multicast memory")) return false;
    unnamed(out);
    out.level = "WARN";
    out.msg = t;
    return true;
  }
  if (t.front() == '`') {
    t.remove_prefix(1);
    if (!t.empty() && t.back() == '`') t.remove_suffix(1);
  }
  if (!t.starts_with("socketStartConnect: ") && !t.starts_with("socketPollConnect: ") &&
      !t.starts_with("socketFinalizeAccept: ") && !t.starts_with("socketTryAccept: ") &&
      !t.starts_with("socketFinalizeConnect: ")) {
    return false;
  }
  unnamed(out);
  out.level = "WARN";
  out.msg = t;
  return true;
}

// NVSHMEM's bootstrap (NCCL's socket code, its errors printed to stderr as
// "FILE:FUNCTION:LINE: message"): ".../bootstrap/uid/bootstrap_uid.cpp:bootstrap_uid_init:160:
// No socket interface found", ".../ncclSocket/ncclsocket_socket.cpp:...: Net : No interface
// found in the same subnet as remote address ...". A WARN, with no host.
bool nvshmem_bootstrap_error(std::string_view t, NcclLogLine& out) {
  if (t.size() > 512) return false;  // one short line; a pasted command line is not one
  // One memmem for the folder both files are in ("src/modules/bootstrap/uid/..."): a find
  // would stop at every '_' of a pasted command line.
  constexpr std::string_view kFolder = "bootstrap";
  const void* hit = memmem(t.data(), t.size(), kFolder.data(), kFolder.size());
  if (hit == nullptr) return false;
  const std::string_view rest = t.substr(static_cast<size_t>(static_cast<const char*>(hit) - t.data()));
  size_t at = rest.find("_uid.cpp:");
  if (at == std::string_view::npos) at = rest.find("_socket.cpp:");
  // "FILE:FUNCTION:LINE:": a function's name after the file, where NVSHMEM's own WARN lines
  // ("... bootstrap_uid.cpp:160 NVSHMEM WARN ...") have the line number.
  const size_t after = rest.find(':', at) + 1;
  if (after >= rest.size() || std::isdigit(static_cast<unsigned char>(rest[after]))) return false;
  t = rest;
  // Past "FILE:FUNCTION:LINE: ": the message.
  const size_t colon = t.find(": ", at);
  if (colon == std::string_view::npos) return false;
  unnamed(out);
  out.level = "WARN";
  out.msg = trim(t.substr(colon + 2));
  return !out.msg.empty();
}

}  // namespace

// Where " NCCL INFO " (or `level`'s) is in a line, from each 'N': every line of every file
// passes here, and a search for the space would stop at each word.
static size_t nccl_tag(std::string_view line, std::string_view level) {
  for (size_t n = line.find('N', 1); n != std::string_view::npos; n = line.find('N', n + 1)) {
    if (line[n - 1] == ' ' && line.size() >= n + 10 && line.compare(n, 5, "NCCL ") == 0 &&
        line.compare(n + 5, 4, level) == 0 && line[n + 9] == ' ') {
      return n - 1;
    }
  }
  return std::string_view::npos;
}

bool split_nccl_line(std::string_view line, NcclLogLine& out) {
  size_t tag = nccl_tag(line, "INFO");
  if (tag == std::string_view::npos) tag = nccl_tag(line, "WARN");
  if (tag == std::string_view::npos) {
    const std::string_view t = trim(line);
    if (!t.starts_with("NCCL INFO ") && !t.starts_with("NCCL WARN ")) {
      if (bare_net_line(t)) {  // the message alone, its "NCCL INFO" dropped by the paste
        unnamed(out);
        out.level = "INFO";
        out.msg = t;
        return true;
      }
      if (nvshmem_bootstrap_error(t, out)) return true;
      if (split_old_info(t, out) || bare_nccl_warn(t, out)) return true;
      return split_sourced_warn(t, out);
    }
    return split_unprefixed(t, 0, out);
  }
  // prefix: [launcher or prompt text] host:pid:tid [dev]
  if (!split_prefix(line.substr(0, tag), out)) return split_unprefixed(line, tag + 1, out);
  out.level = line.substr(tag + 6, 4);
  out.msg = line.substr(tag + 11);
  return true;
}

Status parse_nccl_log(std::string_view text, std::string_view source, TopologySet& set) {
  return parse_lines(text, source, set, nullptr);
}

Result<std::vector<ChannelNic>> nccl_log_channels(std::string_view text, std::string_view source) {
  std::vector<ChannelNic> out;
  TopologySet set;
  FABSCOPE_RETURN_IF_ERROR(parse_lines(text, source, set, nullptr, &out));
  return out;
}

std::vector<std::pair<std::string_view, int>> count_nccl_log_lines(std::string_view text) {
  std::vector<int> hits(std::size(kLinePatterns), 0);
  TopologySet set;
  (void)parse_lines(text, "count", set, &hits);
  std::vector<std::pair<std::string_view, int>> out;
  for (size_t k = 0; k < std::size(kLinePatterns); ++k) out.emplace_back(kLinePatterns[k].name, hits[k]);
  return out;
}

}  // namespace fabscope::topo
