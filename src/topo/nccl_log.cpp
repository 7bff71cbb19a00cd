// NCCL_DEBUG=INFO output: "HOST:PID:TID [DEV] NCCL INFO message" lines of any number of
// ranks and hosts, interleaved with other programs' output. What NCCL says about its
// NIC choice becomes the model: the NCCL_IB_HCA in effect, the NET/IB device list, each
// rank's GPU and bus id, the NIC and GPUDirect RDMA of every channel, and PCI links of
// the GRAPH system dump far slower than their neighbours.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

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

}  // namespace

Status parse_nccl_log(std::string_view text, std::string_view source, TopologySet& set) {
  int nccl_lines = 0;
  std::map<std::string, std::vector<std::string>> nets_of;  // "host:pid" -> NET/IB list
  struct PciLink {
    std::string node;
    double gbytes;
  };
  std::map<std::string, std::vector<PciLink>> pci_links;  // host -> links of its GRAPH dump
  LineReader lines(text);
  std::string_view line;
  while (lines.next(line)) {
    size_t tag = line.find(" NCCL INFO ");
    size_t tag_len = 11;
    if (tag == std::string_view::npos) {
      tag = line.find(" NCCL WARN ");
      if (tag == std::string_view::npos) continue;
    }
    std::string_view prefix = line.substr(0, tag);
    std::string_view msg = line.substr(tag + tag_len);
    // prefix: host:pid:tid [dev]
    size_t c1 = prefix.find(':');
    size_t c2 = c1 == std::string_view::npos ? c1 : prefix.find(':', c1 + 1);
    size_t lb = prefix.rfind('[');
    if (c1 == std::string_view::npos || c2 == std::string_view::npos || lb == std::string_view::npos || c1 == 0) {
      continue;
    }
    std::string host(prefix.substr(0, c1));
    // Shell prompts or other text glued before the host: keep the last word.
    if (size_t sp = host.find_last_of(" \t"); sp != std::string::npos) host = host.substr(sp + 1);
    if (host.empty()) continue;
    std::string proc = host + ":" + std::string(prefix.substr(c1 + 1, c2 - c1 - 1));
    int dev = -1;
    size_t rb = prefix.find(']', lb);
    if (rb == std::string_view::npos || !to_int(prefix.substr(lb + 1, rb - lb - 1), dev)) dev = -1;
    ++nccl_lines;
    HostTopology& h = set.host(host);
    if (h.sources.empty() || h.sources.back() != fmt::format("nccl-log:{}", source)) {
      if (std::find(h.sources.begin(), h.sources.end(), fmt::format("nccl-log:{}", source)) == h.sources.end()) {
        h.sources.push_back(fmt::format("nccl-log:{}", source));
      }
    }

    if (msg.starts_with("NCCL_IB_HCA set to ")) {
      std::string v(msg.substr(19));
      while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
      h.nccl_ib_hca = v;
    } else if (msg.starts_with("NET/IB : Using ")) {
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
            n.ports.push_back({port, "ACTIVE", 0, layer, ""});
          } else {
            p->state = "ACTIVE";
            if (!layer.empty()) p->link_layer = layer;
          }
        }
        i = end == std::string_view::npos ? rest.size() : end;
      }
      nets_of[proc] = list;
      if (h.nccl_nets.empty()) h.nccl_nets = list;
    } else if (msg.find("ncclCommInitRank") != std::string_view::npos &&
               msg.find("cudaDev") != std::string_view::npos) {
      int rank = -1;
      int cuda = -1;
      std::string_view bus = word_after(msg, "busId");
      if (to_int(word_after(msg, "rank"), rank) && to_int(word_after(msg, "cudaDev"), cuda) && cuda >= 0 &&
          cuda < 4096) {
        Gpu& g = h.add_gpu(cuda);
        g.nccl_rank = rank;
        std::string b = normalize_busid(bus);
        if (!b.empty()) g.busid = b;
      }
    } else if (msg.starts_with("Channel ") && msg.find(" via NET/") != std::string_view::npos) {
      // Channel 05/0 : 14[6] -> 5[5] [receive] via NET/IB/5/GDRDMA
      size_t colon = msg.find(" : ");
      size_t arrow = msg.find(" -> ");
      size_t via = msg.find(" via NET/");
      if (colon == std::string_view::npos || arrow == std::string_view::npos || arrow < colon) continue;
      std::string_view left = msg.substr(colon + 3, arrow - colon - 3);
      std::string_view right_and = msg.substr(arrow + 4);
      std::string_view right = right_and.substr(0, right_and.find(' '));
      bool send = msg.find("[send]") != std::string_view::npos;
      int lrank = -1, ldev = -1, rrank = -1, rdev = -1;
      if (!rank_dev(left, lrank, ldev) || !rank_dev(right, rrank, rdev)) continue;
      int rank = send ? lrank : rrank;
      int gpu = send ? ldev : rdev;
      std::string_view path = msg.substr(via + 9);  // IB/5/GDRDMA or IB/1(2)/GDRDMA
      size_t s1 = path.find('/');
      if (s1 == std::string_view::npos) continue;
      std::string_view idx_s = path.substr(s1 + 1);
      size_t s2 = idx_s.find('/');
      bool gdr = s2 != std::string_view::npos && idx_s.substr(s2).find("GDRDMA") != std::string_view::npos;
      idx_s = idx_s.substr(0, s2);
      if (size_t paren = idx_s.find('('); paren != std::string_view::npos) idx_s = idx_s.substr(0, paren);
      size_t end = 0;
      while (end < idx_s.size() && std::isdigit(static_cast<unsigned char>(idx_s[end]))) ++end;
      int k = -1;
      if (!to_int(idx_s.substr(0, end), k)) continue;
      const std::vector<std::string>* list = nets_of.count(proc) ? &nets_of[proc] : &h.nccl_nets;
      std::string nic = k >= 0 && k < static_cast<int>(list->size()) ? (*list)[k] : std::string();
      auto u = std::find_if(h.uses.begin(), h.uses.end(), [&](const NicUse& x) {
        return x.gpu == gpu && x.rank == rank && x.net_index == k && x.gdr == gdr && x.nic == nic;
      });
      if (u == h.uses.end()) {
        h.uses.push_back({gpu, rank, nic, k, gdr, 1});
      } else {
        ++u->channels;
      }
    } else if (msg.starts_with("NET/IB : GPU Direct RDMA ")) {
      bool enabled = msg.find("Enabled") != std::string_view::npos;
      size_t q1 = msg.find('\'');
      size_t q2 = q1 == std::string_view::npos ? q1 : msg.find('\'', q1 + 1);
      if (q2 != std::string_view::npos) h.add_nic(msg.substr(q1 + 1, q2 - q1 - 1)).gdr = enabled;
    } else {
      // GRAPH system dump: "+ PCI[0.2] - PCI/0-65000 (...)".
      std::string_view m = msg;
      while (!m.empty() && m.front() == ' ') m.remove_prefix(1);
      if (m.starts_with("+ PCI[")) {
        size_t close = m.find(']');
        size_t dash = m.find(" - ");
        if (close == std::string_view::npos || dash == std::string_view::npos) continue;
        double bw = 0;
        std::string_view num = m.substr(6, close - 6);
        auto r = std::from_chars(num.data(), num.data() + num.size(), bw);
        if (r.ec != std::errc() || bw < 0) continue;
        std::string_view node = m.substr(dash + 3);
        node = node.substr(0, node.find(' '));
        pci_links[host].push_back({std::string(node), bw});
      }
    }
  }
  if (nccl_lines == 0)
    return Status::Invalid(fmt::format("{}: no NCCL INFO lines found (HOST:PID:TID [DEV] NCCL INFO ...)", source));
  for (const auto& [host, links] : pci_links) {
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

Status read_nccl_log(const std::string& path, TopologySet& set) {
  auto text = read_file(path);
  if (!text.ok()) return text.status();
  return parse_nccl_log(*text, path, set);
}

}  // namespace fabscope::topo
