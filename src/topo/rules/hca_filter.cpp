// topo.hca_filter: what NCCL_IB_HCA does that its author may not mean. An entry that
// names a device (or reads as one: it ends in its number) and, as NCCL takes it as a
// prefix, also selects (or excludes) other devices: mlx5_1 takes mlx5_10 (NCCL's NET/IB
// list has them: warning; latent: info). An entry that is no device's name ("roce",
// "mlx5") is a prefix on purpose: what it takes is what it means; an entry naming a device this host does not have; a
// list that selects no usable device (error); a value from a log or environment that NCCL misreads (error).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <ranges>
#include <set>

#include "topo/rules.h"

namespace fabscope::topo {

namespace {

// Whether a source other than an NCCL log listed this host's devices (NCCL lists only
// the devices NCCL_IB_HCA selected, so it cannot tell which names are absent).
bool device_list_complete(const HostTopology& h) {
  return std::any_of(h.sources.begin(), h.sources.end(),
                     [](const std::string& s) { return !s.starts_with("nccl-log:") && !s.starts_with("nccl-graph:"); });
}

bool listed_by_nccl(const HostTopology& h, const std::string& name) {
  return std::find(h.nccl_nets.begin(), h.nccl_nets.end(), name) != h.nccl_nets.end();
}

}  // namespace

void check_hca_filter(const HostContext& c, FindingSink& sink) {
  const HostTopology& h = c.host;
  const HostAnalysis& a = c.analysis;
  if (!c.filter_error.empty()) {
    sink.add(Severity::kError, c.subject("NCCL_IB_HCA"), c.hosts(),
             fmt::format("{} (from {})", c.filter_error, a.ib_hca_origin), "NCCL misreads this value; fix its syntax",
             {{"host", h.host}, {"nccl_ib_hca", a.ib_hca.value_or("")}});
    return;
  }
  if (!c.filter) return;
  const HcaFilter& f = *c.filter;
  const bool complete = device_list_complete(h);
  std::set<std::string> named;
  for (const HcaEntry& e : f.entries) named.insert(e.name);
  for (const HcaEntry& e : f.entries) {
    std::vector<std::string> extra;
    bool any = false;
    const bool names_a_device = h.find_nic(e.name) >= 0 || listed_by_nccl(h, e.name) ||
                                (!e.name.empty() && std::isdigit(static_cast<unsigned char>(e.name.back())));
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
    if (!extra.empty() && names_a_device) {
      // In use (NCCL listed it) or would be (its port is up): a warning; latent: info.
      std::vector<std::string> live;
      for (const std::string& x : extra) {
        int at = h.find_nic(x);
        bool up = at >= 0 && usable(h.nics[at]);
        if (listed_by_nccl(h, x) || (h.nccl_nets.empty() && up)) live.push_back(x);
      }
      const bool used = !live.empty();
      const std::string verb = f.exclude ? "also excludes" : "also selects";
      sink.add(
          used ? Severity::kWarning : Severity::kInfo, c.subject(fmt::format("NCCL_IB_HCA entry {}", e.name)),
          c.hosts(),
          fmt::format(
              "NCCL_IB_HCA '{}' on {}: entry '{}' is a prefix and {} {}{}", f.text, c.label(), e.name, verb,
              fmt::join(extra, ", "),
              h.nccl_nets.empty() ? "" : (used ? " (NCCL's NET/IB list has it)" : " (not in NCCL's NET/IB list now)")),
          fmt::format("write NCCL_IB_HCA={}{}{} to match exact names", f.exclude ? "^" : "", "=",
                      fmt::join(f.entries | std::views::transform([](const HcaEntry& x) {
                                  return x.port < 0 ? x.name : fmt::format("{}:{}", x.name, x.port);
                                }),
                                ",")),
          {{"host", h.host},
           {"nccl_ib_hca", f.text},
           {"origin", a.ib_hca_origin},
           {"entry", e.name},
           {"unintended", extra},
           {"in_nccl_net_list", live},
           {"nccl_nets", h.nccl_nets}});
    }
    if (!any && complete) {
      std::vector<std::string> present;
      for (const Nic& n : h.nics) {
        if (n.rdma) present.push_back(n.name);
      }
      std::sort(present.begin(), present.end(), natural_less);
      sink.add(Severity::kWarning, c.subject(fmt::format("NCCL_IB_HCA entry {}", e.name)), c.hosts(),
               fmt::format("NCCL_IB_HCA '{}' on {} names {}, which this host does not have", f.text, c.label(), e.name),
               "device names differ between hosts or images (containers rename RDMA devices); list this host's names",
               {{"host", h.host},
                {"nccl_ib_hca", f.text},
                {"origin", a.ib_hca_origin},
                {"entry", e.name},
                {"devices", present}});
    }
  }
  const bool has_rdma = std::any_of(h.nics.begin(), h.nics.end(), [](const Nic& n) { return n.rdma; });
  if (has_rdma && complete && a.selected_nics.empty()) {
    sink.add(Severity::kError, c.subject("NCCL_IB_HCA"), c.hosts(),
             fmt::format("NCCL_IB_HCA '{}' selects no usable RDMA device on {}", f.text, c.label()),
             "NCCL will fall back to sockets; fix the list or the ports",
             {{"host", h.host}, {"nccl_ib_hca", f.text}, {"origin", a.ib_hca_origin}});
  }
}

}  // namespace fabscope::topo
