#include "topo/mapping.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <ranges>
#include <set>

#include "core/stats.h"
#include "topo/hca.h"

namespace fabscope::topo {

namespace {

using Json = nlohmann::ordered_json;

std::string host_label(const HostTopology& h) { return h.host.empty() ? std::string("the host") : h.host; }
// A subject's host part: "host NAME ", or nothing when the sources named no host.
std::string sp(const HostTopology& h) { return h.host.empty() ? std::string() : "host " + h.host + " "; }

bool port_active(const Port& p) { return p.state.empty() || p.state == "ACTIVE"; }

// A NIC NCCL could use now: no port known to be down.
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

// "mlx5_10" after "mlx5_9": digits compare as numbers.
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

bool better(PathClass a, PathClass b) { return static_cast<int>(a) < static_cast<int>(b); }
bool near(PathClass c) { return c == PathClass::kPix || c == PathClass::kPxb; }

Finding make_finding(std::string code, Severity severity, std::string subject, std::string message, std::string hint,
                     const Json& evidence) {
  Finding f;
  f.code = std::move(code);
  f.severity = severity;
  f.subject = std::move(subject);
  f.message = std::move(message);
  f.hint = std::move(hint);
  f.evidence = evidence;
  return f;
}

// Whether a source other than an NCCL log listed this host's devices (NCCL lists only
// the devices NCCL_IB_HCA selected, so it cannot tell which names are absent).
bool device_list_complete(const HostTopology& h) {
  return std::any_of(h.sources.begin(), h.sources.end(),
                     [](const std::string& s) { return !s.starts_with("nccl-log:") && !s.starts_with("nccl-graph:"); });
}

void hca_findings(const HostTopology& h, const HostAnalysis& a, const HcaFilter& f, std::vector<Finding>& out) {
  const std::string hl = host_label(h);
  bool complete = device_list_complete(h);
  std::set<std::string> named;
  for (const HcaEntry& e : f.entries) named.insert(e.name);
  for (const HcaEntry& e : f.entries) {
    std::vector<std::string> extra;
    bool any = false;
    for (const Nic& n : h.nics) {
      if (!n.rdma || !f.entry_matches(e, n.name)) continue;
      any = true;
      if (n.name != e.name && !named.count(n.name)) extra.push_back(n.name);
    }
    for (const std::string& net : h.nccl_nets) {
      if (f.entry_matches(e, net) && net != e.name && !named.count(net) &&
          std::find(extra.begin(), extra.end(), net) == extra.end()) {
        extra.push_back(net);
      }
      if (f.entry_matches(e, net)) any = true;
    }
    std::sort(extra.begin(), extra.end(), natural_less);
    if (!extra.empty()) {
      // In use (NCCL listed it) or would be (its port is up): a warning; latent: info.
      std::vector<std::string> live;
      for (const std::string& x : extra) {
        bool listed = std::find(h.nccl_nets.begin(), h.nccl_nets.end(), x) != h.nccl_nets.end();
        int at = h.find_nic(x);
        bool up = at >= 0 && usable(h.nics[at]);
        if (listed || (h.nccl_nets.empty() && up)) live.push_back(x);
      }
      bool used = !live.empty();
      std::string verb = f.exclude ? "also excludes" : "also selects";
      out.push_back(make_finding(
          "topo.hca_filter", used ? Severity::kWarning : Severity::kInfo,
          fmt::format("{}NCCL_IB_HCA entry {}", sp(h), e.name),
          fmt::format(
              "NCCL_IB_HCA '{}' on {}: entry '{}' is a prefix and {} {}{}", f.text, hl, e.name, verb,
              fmt::join(extra, ", "),
              h.nccl_nets.empty() ? "" : (used ? " (NCCL's NET/IB list has it)" : " (not in NCCL's NET/IB list now)")),
          fmt::format("write NCCL_IB_HCA={}{}{} to match exact names", f.exclude ? "^" : "", "=",
                      fmt::join(f.entries | std::views::transform([](const HcaEntry& x) {
                                  return x.port < 0 ? x.name : fmt::format("{}:{}", x.name, x.port);
                                }),
                                ",")),
          Json{{"host", h.host},
               {"nccl_ib_hca", f.text},
               {"origin", a.ib_hca_origin},
               {"entry", e.name},
               {"unintended", extra},
               {"in_nccl_net_list", live},
               {"nccl_nets", h.nccl_nets}}));
    }
    if (!any && complete) {
      std::vector<std::string> present;
      for (const Nic& n : h.nics) {
        if (n.rdma) present.push_back(n.name);
      }
      std::sort(present.begin(), present.end(), natural_less);
      out.push_back(make_finding(
          "topo.hca_filter", Severity::kWarning, fmt::format("{}NCCL_IB_HCA entry {}", sp(h), e.name),
          fmt::format("NCCL_IB_HCA '{}' on {} names {}, which this host does not have", f.text, hl, e.name),
          "device names differ between hosts or images (containers rename RDMA devices); list this host's names",
          Json{{"host", h.host},
               {"nccl_ib_hca", f.text},
               {"origin", a.ib_hca_origin},
               {"entry", e.name},
               {"devices", present}}));
    }
  }
  bool has_rdma = std::any_of(h.nics.begin(), h.nics.end(), [](const Nic& n) { return n.rdma; });
  if (has_rdma && complete && a.selected_nics.empty()) {
    out.push_back(make_finding("topo.hca_filter", Severity::kError, fmt::format("{}NCCL_IB_HCA", sp(h)),
                               fmt::format("NCCL_IB_HCA '{}' selects no usable RDMA device on {}", f.text, hl),
                               "NCCL will fall back to sockets; fix the list or the ports",
                               Json{{"host", h.host}, {"nccl_ib_hca", f.text}, {"origin", a.ib_hca_origin}}));
  }
}

}  // namespace

std::string host_signature(const HostTopology& h, const HostAnalysis& a) {
  std::vector<std::string> up;
  for (const Nic& n : h.nics) {
    if (n.rdma && usable(n)) up.push_back(n.name);
  }
  std::sort(up.begin(), up.end(), natural_less);
  std::vector<std::string> map;
  for (const GpuMapping& m : a.gpus) map.push_back(fmt::format("{}:{}", m.gpu, fmt::join(m.best_nics, "+")));
  return fmt::format("gpus={} rdma_up={} near={}", h.gpus.size(), fmt::join(up, ","), fmt::join(map, ","));
}

void add_host_differs(const std::vector<std::pair<std::string, std::string>>& hosts, std::vector<Finding>& findings) {
  if (hosts.size() < 2) return;
  std::map<std::string, std::vector<std::string>> groups;  // signature -> hosts
  for (const auto& [host, sig] : hosts) groups[sig].push_back(host);
  size_t largest = 0;
  int with_largest = 0;
  std::string majority;
  for (const auto& [sig, members] : groups) {
    if (members.size() > largest) {
      largest = members.size();
      with_largest = 1;
      majority = sig;
    } else if (members.size() == largest) {
      ++with_largest;
    }
  }
  // Only a unique largest group of at least two says what "normal" is.
  if (groups.size() < 2 || largest < 2 || with_largest != 1) return;
  const std::vector<std::string>& majority_hosts = groups[majority];
  for (const auto& [host, sig] : hosts) {
    if (sig == majority) continue;
    std::string label = host.empty() ? std::string("the host") : host;
    findings.push_back(make_finding(
        "topo.host_differs", Severity::kWarning,
        label == "the host" ? std::string("the host") : fmt::format("host {}", label),
        fmt::format("{} differs from {} of {} hosts ({}): {} against {}", label, largest, hosts.size(),
                    fmt::join(majority_hosts, ", "), sig, majority),
        "per-host device names or rails differ: one NCCL_IB_HCA or rail map cannot fit every host; check cabling and "
        "device naming",
        Json{{"host", host}, {"this", sig}, {"majority", majority}, {"majority_hosts", majority_hosts}}));
  }
}

Result<std::vector<HostAnalysis>> analyze_topology(const TopologySet& set, const AnalysisOptions& options,
                                                   std::vector<Finding>& findings) {
  std::optional<HcaFilter> user_filter;
  if (options.ib_hca) {
    auto f = parse_hca_filter(*options.ib_hca);
    if (!f.ok()) return Status::Invalid("--nccl-ib-hca: " + f.status().message());
    user_filter = *f;
  }
  std::vector<HostAnalysis> result;
  for (const HostTopology& h : set.hosts) {
    const std::string hl = host_label(h);
    HostAnalysis a;
    a.host = h.host;
    // NCCL_IB_HCA in effect.
    std::optional<HcaFilter> filter;
    if (user_filter) {
      a.ib_hca = options.ib_hca;
      a.ib_hca_origin = "--nccl-ib-hca";
      filter = user_filter;
    } else {
      if (h.nccl_ib_hca) {
        a.ib_hca = h.nccl_ib_hca;
        a.ib_hca_origin = "NCCL log";
      } else if (options.default_ib_hca) {
        a.ib_hca = options.default_ib_hca;
        a.ib_hca_origin = options.default_ib_hca_origin;
      }
      if (a.ib_hca) {
        auto f = parse_hca_filter(*a.ib_hca);
        if (f.ok()) {
          filter = *f;
        } else {
          findings.push_back(make_finding("topo.hca_filter", Severity::kError, fmt::format("{}NCCL_IB_HCA", sp(h)),
                                          fmt::format("{} (from {})", f.status().message(), a.ib_hca_origin),
                                          "NCCL misreads this value; fix its syntax",
                                          Json{{"host", h.host}, {"nccl_ib_hca", *a.ib_hca}}));
        }
      }
    }

    // The NICs that count: RDMA devices if there are any, else plain interfaces.
    std::vector<int> pool;
    for (size_t i = 0; i < h.nics.size(); ++i) {
      if (h.nics[i].rdma) pool.push_back(static_cast<int>(i));
    }
    bool rdma = !pool.empty();
    if (!rdma) {
      for (size_t i = 0; i < h.nics.size(); ++i) pool.push_back(static_cast<int>(i));
    }
    auto selected = [&](int n) {
      const Nic& nic = h.nics[n];
      if (!usable(nic)) return false;
      if (!rdma || !filter) return true;
      if (nic.ports.empty()) return filter->selects(nic.name, 1);
      return std::any_of(nic.ports.begin(), nic.ports.end(),
                         [&](const Port& p) { return port_active(p) && filter->selects(nic.name, p.number); });
    };
    for (int n : pool) {
      if (selected(n)) a.selected_nics.push_back(h.nics[n].name);
    }
    std::sort(a.selected_nics.begin(), a.selected_nics.end(), natural_less);

    // Paths and choices.
    const int ngpu = static_cast<int>(h.gpus.size());
    std::vector<std::vector<PathClass>> paths(ngpu, std::vector<PathClass>(h.nics.size(), PathClass::kUnknown));
    for (int g = 0; g < ngpu; ++g) {
      for (int n : pool) paths[g][n] = path_class(h, g, n);
    }
    std::vector<int> order(ngpu);
    for (int g = 0; g < ngpu; ++g) order[g] = g;
    std::sort(order.begin(), order.end(), [&](int x, int y) { return h.gpus[x].index < h.gpus[y].index; });
    std::map<std::vector<int>, int> tie_seen;  // NCCL spreads GPUs with the same candidates over them
    std::vector<GpuMapping> maps(ngpu);
    for (int g : order) {
      GpuMapping& m = maps[g];
      m.gpu = h.gpus[g].index;
      for (int n : pool) {
        if (!usable(h.nics[n]) || paths[g][n] == PathClass::kUnknown) continue;
        if (m.best_nics.empty() || better(paths[g][n], m.best_path)) {
          m.best_path = paths[g][n];
          m.best_nics = {h.nics[n].name};
        } else if (paths[g][n] == m.best_path) {
          m.best_nics.push_back(h.nics[n].name);
        }
      }
      std::sort(m.best_nics.begin(), m.best_nics.end(), natural_less);
      // NCCL: closest path, then the highest bandwidth, among the selected devices.
      std::vector<int> ties;
      PathClass tp = PathClass::kUnknown;
      double trate = -1;
      for (int n : pool) {
        if (!selected(n) || paths[g][n] == PathClass::kUnknown) continue;
        double r = nic_rate(h.nics[n]);
        if (ties.empty() || better(paths[g][n], tp) || (paths[g][n] == tp && r > trate)) {
          ties = {n};
          tp = paths[g][n];
          trate = r;
        } else if (paths[g][n] == tp && r == trate) {
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
    for (int g : order) a.gpus.push_back(maps[g]);

    // topo.gpu_without_near_nic
    PathClass host_best = PathClass::kUnknown;
    for (const GpuMapping& m : maps) {
      if (!m.best_nics.empty() && (host_best == PathClass::kUnknown || better(m.best_path, host_best))) {
        host_best = m.best_path;
      }
    }
    for (int g : order) {
      const GpuMapping& m = maps[g];
      if (m.best_nics.empty() || near(m.best_path)) continue;
      bool worse = better(host_best, m.best_path);
      findings.push_back(make_finding(
          "topo.gpu_without_near_nic", worse ? Severity::kWarning : Severity::kInfo,
          fmt::format("{}GPU {}", sp(h), m.gpu),
          fmt::format("GPU {} on {} has no NIC at PIX or PXB: the nearest, {}, is {}{}", m.gpu, hl,
                      fmt::join(m.best_nics, ", "), path_name(m.best_path),
                      worse ? fmt::format(" while other GPUs here have one at {}", path_name(host_best)) : ""),
          worse ? "this GPU's traffic crosses the CPU interconnect: expect it to be the slowest rank; place the job's "
                  "ranks on GPUs with a near NIC or add a NIC on this socket"
                : "every GPU here reaches the network through the CPU: GPUDirect RDMA cannot be used",
          Json{{"host", h.host},
               {"gpu", m.gpu},
               {"nearest_nics", m.best_nics},
               {"path", path_name(m.best_path)},
               {"best_path_on_host", path_name(host_best)}}));
    }

    // topo.nic_far: used (log) or chosen (prediction) NIC farther than the best one.
    for (int g : order) {
      const GpuMapping& m = maps[g];
      if (m.best_nics.empty()) continue;
      bool reported = false;
      for (const std::string& used : m.used_nics) {
        int n = h.find_nic(used);
        if (n < 0 || paths[g][n] == PathClass::kUnknown || !better(m.best_path, paths[g][n])) continue;
        reported = true;
        findings.push_back(make_finding(
            "topo.nic_far", Severity::kError, fmt::format("{}GPU {} NIC {}", sp(h), m.gpu, used),
            fmt::format("GPU {} on {} uses {} ({}) while {} is {}", m.gpu, hl, used, path_name(paths[g][n]),
                        fmt::join(m.best_nics, ", "), path_name(m.best_path)),
            "check NCCL_IB_HCA and the rank-to-GPU binding; NCCL_CROSS_NIC and PXN can also route through a far NIC",
            Json{{"host", h.host},
                 {"gpu", m.gpu},
                 {"used", used},
                 {"used_path", path_name(paths[g][n])},
                 {"best", m.best_nics},
                 {"best_path", path_name(m.best_path)},
                 {"source", "NCCL log"}}));
      }
      if (!reported && m.used_nics.empty() && !m.nccl_choice.empty() && better(m.best_path, m.nccl_choice_path)) {
        findings.push_back(make_finding(
            "topo.nic_far", Severity::kWarning, fmt::format("{}GPU {} NIC {}", sp(h), m.gpu, m.nccl_choice),
            fmt::format("GPU {} on {} would use {} ({}) although {} is {}: NCCL_IB_HCA{} leaves it out", m.gpu, hl,
                        m.nccl_choice, path_name(m.nccl_choice_path), fmt::join(m.best_nics, ", "),
                        path_name(m.best_path), a.ib_hca ? " '" + *a.ib_hca + "'" : ""),
            "include the near device in NCCL_IB_HCA",
            Json{{"host", h.host},
                 {"gpu", m.gpu},
                 {"nccl_choice", m.nccl_choice},
                 {"choice_path", path_name(m.nccl_choice_path)},
                 {"best", m.best_nics},
                 {"best_path", path_name(m.best_path)},
                 {"source", "prediction"}}));
      }
    }

    // topo.nic_shared: GPUs piled on one NIC while a near one idles.
    {
      std::map<std::string, std::vector<int>> on_nic;  // NIC -> GPU positions
      bool from_log = false;
      for (int g : order) {
        const GpuMapping& m = maps[g];
        if (!m.used_nics.empty()) {
          from_log = true;
          for (const std::string& u : m.used_nics) on_nic[u].push_back(g);
        } else if (!m.nccl_choice.empty()) {
          on_nic[m.nccl_choice].push_back(g);
        }
      }
      for (const auto& [nic, gpus] : on_nic) {
        if (gpus.size() < 2) continue;
        int shared = h.find_nic(nic);
        std::vector<std::string> idle;
        for (int n : pool) {
          if (on_nic.count(h.nics[n].name) || !usable(h.nics[n])) continue;
          for (int g : gpus) {
            PathClass here = shared >= 0 ? paths[g][shared] : PathClass::kUnknown;
            if (near(paths[g][n]) && (here == PathClass::kUnknown || !better(here, paths[g][n]))) {
              idle.push_back(h.nics[n].name);
              break;
            }
          }
        }
        if (idle.empty()) continue;
        std::sort(idle.begin(), idle.end(), natural_less);
        std::vector<int> ids;
        for (int g : gpus) ids.push_back(h.gpus[g].index);
        findings.push_back(make_finding(
            "topo.nic_shared", Severity::kWarning, fmt::format("{}NIC {}", sp(h), nic),
            fmt::format("GPUs {} on {} all use {} while {} near them carry no GPU traffic", fmt::join(ids, ", "), hl,
                        nic, fmt::join(idle, ", ")),
            "the shared NIC halves each GPU's bandwidth: check NCCL_IB_HCA and that the idle NICs' ports are up",
            Json{{"host", h.host},
                 {"nic", nic},
                 {"gpus", ids},
                 {"idle_near_nics", idle},
                 {"source", from_log ? "NCCL log" : "prediction"}}));
      }
    }

    // topo.gdr_off
    for (int g : order) {
      const GpuMapping& m = maps[g];
      if (!m.used_gdr || *m.used_gdr) continue;
      for (const std::string& used : m.used_nics) {
        int n = h.find_nic(used);
        if (n < 0 || !near(paths[g][n])) continue;
        findings.push_back(make_finding(
            "topo.gdr_off", Severity::kWarning, fmt::format("{}GPU {} NIC {}", sp(h), m.gpu, used),
            fmt::format("GPU {} on {} sends through {} without GPUDirect RDMA although the path is {}", m.gpu, hl, used,
                        path_name(paths[g][n])),
            "load nvidia-peermem (or use dma-buf), check NCCL_NET_GDR_LEVEL and that ACS is off on the switch",
            Json{{"host", h.host},
                 {"gpu", m.gpu},
                 {"nic", used},
                 {"path", path_name(paths[g][n])},
                 {"source", "NCCL log"}}));
      }
    }
    for (int n : pool) {
      const Nic& nic = h.nics[n];
      if (!nic.gdr || *nic.gdr) continue;
      std::vector<int> near_gpus;
      for (int g : order) {
        if (near(paths[g][n])) near_gpus.push_back(h.gpus[g].index);
      }
      if (near_gpus.empty()) continue;
      findings.push_back(
          make_finding("topo.gdr_off", Severity::kWarning, fmt::format("{}NIC {}", sp(h), nic.name),
                       fmt::format("{} on {} has GPUDirect RDMA off although GPUs {} are at PIX/PXB to it", nic.name,
                                   hl, fmt::join(near_gpus, ", ")),
                       "load nvidia-peermem (or use dma-buf) and check NCCL_NET_GDR_LEVEL",
                       Json{{"host", h.host}, {"nic", nic.name}, {"near_gpus", near_gpus}}));
    }

    // topo.port_down
    std::set<std::string> near_nics;
    for (int g = 0; g < ngpu; ++g) {
      for (int n : pool) {
        if (near(paths[g][n])) near_nics.insert(h.nics[n].name);
      }
    }
    for (const Nic& nic : h.nics) {
      bool named = filter && !filter->exclude &&
                   std::any_of(filter->entries.begin(), filter->entries.end(),
                               [&](const HcaEntry& e) { return e.name == nic.name; });
      for (const Port& p : nic.ports) {
        if (port_active(p)) continue;
        bool matters = near_nics.count(nic.name) || named;
        findings.push_back(make_finding(
            "topo.port_down", matters ? Severity::kError : Severity::kInfo,
            fmt::format("{}NIC {} port {}", sp(h), nic.name, p.number),
            fmt::format("{} port {} on {} is {}{}", nic.name, p.number, hl, p.state,
                        matters ? (named ? " and NCCL_IB_HCA names it" : " and a GPU has it as its near NIC") : ""),
            matters ? "check the cable, the switch port and `ibstat`; NCCL will skip this port"
                    : "not a GPU's near NIC; ignore if it is unused on purpose",
            Json{{"host", h.host}, {"nic", nic.name}, {"port", p.number}, {"state", p.state}, {"netdev", p.netdev}}));
      }
    }

    // topo.port_degraded: below the expected rate or the median of its peers (the
    // GPUs' near NICs; all RDMA ports where no GPU path is known).
    {
      struct Rated {
        std::string nic;
        int port;
        double rate;
      };
      std::vector<Rated> rated;
      for (int n : pool) {
        const Nic& nic = h.nics[n];
        if (!near_nics.empty() && !near_nics.count(nic.name)) continue;
        for (const Port& p : nic.ports) {
          if (!p.state.empty() && p.state != "ACTIVE") continue;
          double r = p.rate_gbits > 0 ? p.rate_gbits : 0;
          if (r > 0) rated.push_back({nic.name, p.number, r});
        }
        if (nic.ports.empty() && nic.speed_gbits > 0) rated.push_back({nic.name, 1, nic.speed_gbits});
      }
      std::vector<double> rates;
      for (const Rated& r : rated) rates.push_back(r.rate);
      double med = median(rates);
      for (const Rated& r : rated) {
        bool below_expect = options.expect_rate_gbits > 0 && r.rate < options.expect_rate_gbits;
        bool below_peers = rated.size() >= 2 && r.rate < 0.9 * med;
        if (!below_expect && !below_peers) continue;
        findings.push_back(make_finding(
            "topo.port_degraded", Severity::kWarning, fmt::format("{}NIC {} port {}", sp(h), r.nic, r.port),
            fmt::format("{} port {} on {} runs at {:g} Gb/s, below {}", r.nic, r.port, hl, r.rate,
                        below_expect ? fmt::format("the expected {:g} Gb/s", options.expect_rate_gbits)
                                     : fmt::format("its peers' median of {:g} Gb/s", med)),
            "a link trained at a lower speed or width: reseat or replace the cable, check `ibstat` / ethtool",
            Json{{"host", h.host},
                 {"nic", r.nic},
                 {"port", r.port},
                 {"rate_gbits", r.rate},
                 {"peers_median_gbits", med},
                 {"expected_gbits", options.expect_rate_gbits}}));
      }
    }

    // topo.pcie_degraded: a GPU or NIC whose PCIe link is well below its identical peers',
    // or a link NCCL measured far below its neighbours.
    {
      std::map<std::pair<std::string, uint32_t>, std::vector<std::pair<std::string, double>>> groups;
      for (const Gpu& g : h.gpus) {
        if (g.pci >= 0 && g.pci < static_cast<int>(h.pci.size()) && h.pci[g.pci].link_gbytes > 0) {
          const PciNode& p = h.pci[g.pci];
          groups[{"GPU", (static_cast<uint32_t>(p.vendor) << 16) | p.device}].emplace_back(
              fmt::format("GPU {}", g.index), p.link_gbytes);
        }
      }
      for (const Nic& n : h.nics) {
        if (n.pci >= 0 && n.pci < static_cast<int>(h.pci.size()) && h.pci[n.pci].link_gbytes > 0) {
          const PciNode& p = h.pci[n.pci];
          groups[{"NIC", (static_cast<uint32_t>(p.vendor) << 16) | p.device}].emplace_back(
              fmt::format("NIC {}", n.name), p.link_gbytes);
        }
      }
      for (const auto& [key, members] : groups) {
        if (members.size() < 2) continue;
        std::vector<double> v;
        for (const auto& m : members) v.push_back(m.second);
        double med = median(v);
        for (const auto& [who, gb] : members) {
          if (gb >= 0.75 * med) continue;
          findings.push_back(make_finding(
              "topo.pcie_degraded", Severity::kWarning, fmt::format("{}{}", sp(h), who),
              fmt::format("{} on {} has a PCIe link of {:.1f} GB/s, its {} identical peers' median is {:.1f} GB/s", who,
                          hl, gb, members.size() - 1, med),
              "the slot trained at a lower speed or width: check `lspci -vv` LnkSta against LnkCap; reseat the card",
              Json{{"host", h.host}, {"device", who}, {"link_gbytes", gb}, {"peers_median_gbytes", med}}));
        }
      }
      if (!h.slow_pci_links.empty()) {
        Json links = Json::array();
        std::vector<std::string> names;
        for (const PciLinkObservation& o : h.slow_pci_links) {
          links.push_back({{"node", o.node}, {"gbytes", o.gbytes}, {"peer_median_gbytes", o.peer_median_gbytes}});
          names.push_back(o.node);
        }
        const PciLinkObservation& first = h.slow_pci_links.front();
        findings.push_back(make_finding(
            "topo.pcie_degraded", Severity::kWarning, fmt::format("{}PCI links", sp(h)),
            fmt::format("NCCL sees {} PCI link(s) on {} at {:g} GB/s against a median of {:g} GB/s ({})",
                        h.slow_pci_links.size(), hl, first.gbytes, first.peer_median_gbytes, fmt::join(names, ", ")),
            "NCCL will route around these links; in a VM, emulated switches often report bogus speeds: give NCCL a "
            "correct NCCL_TOPO_FILE",
            Json{{"host", h.host}, {"links", links}}));
      }
    }

    // topo.numa_mismatch: a rank bound to CPUs away from its GPU's NUMA node.
    for (const RankBinding& r : h.ranks) {
      if (r.gpu < 0 || r.cpus.empty()) continue;
      int g = h.find_gpu(r.gpu);
      if (g < 0) continue;
      const Gpu& gpu = h.gpus[g];
      int numa = gpu.numa >= 0 ? gpu.numa : (gpu.pci >= 0 ? h.pci[gpu.pci].numa : -1);
      CpuSet local = gpu.cpu_affinity;
      if (const NumaNode* nn = h.find_numa(numa); nn && !nn->cpus.empty()) local = nn->cpus;
      if (local.empty() || r.cpus.intersects(local)) continue;
      findings.push_back(
          make_finding("topo.numa_mismatch", Severity::kWarning, fmt::format("{}rank {} GPU {}", sp(h), r.rank, r.gpu),
                       fmt::format("rank {} on {} is bound to CPUs {} but its GPU {} is on NUMA node {} (CPUs {})",
                                   r.rank, hl, r.cpus.to_list(), r.gpu, numa, local.to_list()),
                       "bind each rank to its GPU's NUMA node (mpirun --map-by / --bind-to, or numactl)",
                       Json{{"host", h.host},
                            {"rank", r.rank},
                            {"gpu", r.gpu},
                            {"rank_cpus", r.cpus.to_list()},
                            {"gpu_numa", numa},
                            {"gpu_cpus", local.to_list()}}));
    }

    // topo.numa_affinity: NUMA nodes whose CPU sets overlap, or node 0 without CPU 0
    // while another node has it (swapped masks in a hand-written topology file).
    {
      std::vector<std::string> overlaps;
      for (size_t i = 0; i < h.numa.size(); ++i) {
        for (size_t j = i + 1; j < h.numa.size(); ++j) {
          if (h.numa[i].cpus.intersects(h.numa[j].cpus)) {
            overlaps.push_back(fmt::format("{}&{}", h.numa[i].id, h.numa[j].id));
          }
        }
      }
      if (!overlaps.empty()) {
        Json nodes = Json::array();
        for (const NumaNode& n : h.numa) nodes.push_back({{"id", n.id}, {"cpus", n.cpus.to_list()}});
        findings.push_back(make_finding(
            "topo.numa_affinity", Severity::kError, fmt::format("{}NUMA nodes", sp(h)),
            fmt::format("NUMA nodes on {} claim the same CPUs ({})", hl, fmt::join(overlaps, ", ")),
            "a topology file with wrong CPU affinities makes NCCL bind its threads to the wrong socket: regenerate it "
            "with NCCL_TOPO_DUMP_FILE on the real machine",
            Json{{"host", h.host}, {"overlapping", overlaps}, {"numa", nodes}}));
      } else {
        const NumaNode* zero = h.find_numa(0);
        const NumaNode* holder = nullptr;
        for (const NumaNode& n : h.numa) {
          if (n.cpus.contains(0)) holder = &n;
        }
        if (zero && !zero->cpus.empty() && holder && holder->id != 0) {
          findings.push_back(make_finding(
              "topo.numa_affinity", Severity::kWarning, fmt::format("{}NUMA node 0", sp(h)),
              fmt::format("NUMA node 0 on {} has CPUs {} and node {} has CPU 0; Linux puts CPU 0 on node 0, so the "
                          "masks look swapped",
                          hl, zero->cpus.to_list(), holder->id),
              "compare with `lscpu` on the machine and regenerate the topology file",
              Json{{"host", h.host}, {"node0_cpus", zero->cpus.to_list()}, {"cpu0_node", holder->id}}));
        }
      }
    }

    // topo.nvlink_mismatch: NVLinks a topology file declares between GPUs that the
    // machine's own NCCL graph did not find, or that only one side declares.
    {
      std::vector<std::string> links;
      std::vector<std::string> one_sided;
      for (const Gpu& g : h.gpus) {
        for (const NvLink& l : g.nvlinks) {
          int peer = h.find_gpu_by_busid(l.target);
          if (peer < 0 || h.gpus[peer].busid == g.busid) continue;
          links.push_back(fmt::format("GPU {} -> GPU {} ({} links)", g.index, h.gpus[peer].index, l.count));
          const Gpu& p = h.gpus[peer];
          bool back = std::any_of(p.nvlinks.begin(), p.nvlinks.end(),
                                  [&](const NvLink& x) { return normalize_busid(x.target) == g.busid; });
          if (!p.nvlinks.empty() && !back) one_sided.push_back(fmt::format("GPU {} -> GPU {}", g.index, p.index));
        }
      }
      const std::string intra = h.graph_intra_type.value_or("");
      if (!links.empty() && !intra.empty() && !intra.starts_with("NV")) {
        findings.push_back(make_finding(
            "topo.nvlink_mismatch", Severity::kError, fmt::format("{}NVLinks", sp(h)),
            fmt::format("the topology on {} declares NVLinks between GPUs ({}) but NCCL's graph for this machine "
                        "connects its GPUs over {}",
                        hl, fmt::join(links, ", "), intra),
            "NCCL will try peer-to-peer over links that do not exist: fix the <nvlink target> of each GPU in the "
            "topology file (a GPU without NVLink peers points at itself)",
            Json{{"host", h.host}, {"declared", links}, {"graph_intra", intra}}));
      }
      if (!one_sided.empty()) {
        findings.push_back(
            make_finding("topo.nvlink_mismatch", Severity::kWarning, fmt::format("{}NVLinks", sp(h)),
                         fmt::format("NVLinks on {} declared by one side only: {}", hl, fmt::join(one_sided, ", ")),
                         "an NVLink joins two GPUs: check the <nvlink target> bus ids in the topology file",
                         Json{{"host", h.host}, {"one_sided", one_sided}}));
      }
    }

    if (filter) hca_findings(h, a, *filter, findings);
    result.push_back(std::move(a));
  }

  std::vector<std::pair<std::string, std::string>> signatures;
  for (size_t i = 0; i < set.hosts.size(); ++i) {
    signatures.emplace_back(set.hosts[i].host, host_signature(set.hosts[i], result[i]));
  }
  add_host_differs(signatures, findings);
  return result;
}

}  // namespace fabscope::topo
