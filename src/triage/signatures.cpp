// Triage, part two: the signatures. Each is one entry of kSignatures: a code, what it
// recognises, and a check over the facts that adds findings quoting their evidence lines
// (file and line number) and, where the files cannot support a judgement, what is missing.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "coll/collective.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "core/text.h"
#include "report/finding_codes.h"
#include "topo/nic_choice.h"
#include "triage/triage.h"

namespace fabscope::triage {

namespace {

constexpr size_t kMaxQuotes = 8;  // evidence lines quoted per finding

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

bool contains_nocase(std::string_view text, std::string_view what) {
  return std::search(text.begin(), text.end(), what.begin(), what.end(),
                     [](char a, char b) { return ascii_lower(a) == ascii_lower(b); }) != text.end();
}

nlohmann::ordered_json quote_json(const std::vector<Quote>& quotes) {
  auto out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < quotes.size() && i < kMaxQuotes; ++i) {
    out.push_back({{"file", quotes[i].file}, {"line", quotes[i].line}, {"text", quotes[i].text}});
  }
  return out;
}

Finding finding(std::string_view code, Severity severity, std::string subject, std::vector<std::string> hosts,
                std::string message, std::string hint, const std::vector<Quote>& quotes,
                nlohmann::ordered_json evidence = nlohmann::ordered_json::object()) {
  Finding f;
  f.code = std::string(code);
  f.severity = severity;
  f.subject = std::move(subject);
  hosts.erase(std::remove(hosts.begin(), hosts.end(), std::string()), hosts.end());  // lines that name no host
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  f.hosts = std::move(hosts);
  f.message = std::move(message);
  f.hint = std::move(hint);
  f.evidence = std::move(evidence);
  f.evidence["lines"] = quote_json(quotes);
  if (quotes.size() > kMaxQuotes) f.evidence["lines_total"] = quotes.size();
  return f;
}

// "1 line", "3 lines".
std::string count_lines(size_t n) { return fmt::format("{} line{}", n, n == 1 ? "" : "s"); }

// The finding of a signature that one kind of line shows by itself: nothing where no line was
// seen, else one finding quoting them, whose message takes their count ("3 lines").
void lines_finding(std::vector<Finding>& out, const std::vector<Quote>& lines, std::string_view code, Severity severity,
                   std::string subject, fmt::format_string<std::string> message, std::string hint) {
  if (lines.empty()) return;
  out.push_back(finding(code, severity, std::move(subject), {}, fmt::format(message, count_lines(lines.size())),
                        std::move(hint), lines, {{"lines", lines.size()}}));
}

std::string proc_of(const NcclFact& n) { return n.host + ":" + n.pid; }

// The NCCL rank of each process, from "ncclCommInitRank comm 0x.. rank R nranks N" lines.
struct RankMap {
  std::map<std::string, int> rank_of;  // "host:pid" -> rank
  std::set<int> ranks;                 // every rank an init line names (a process may hold several)
  int nranks = 0;
};
RankMap rank_map(const Facts& facts) {
  RankMap m;
  for (const NcclFact& n : facts.nccl) {
    const size_t at = n.msg.find(" rank ");
    const size_t nr = n.msg.find(" nranks ");
    if (at == std::string::npos || nr == std::string::npos || !contains(n.msg, "comm ")) continue;
    int rank = -1, nranks = 0;
    const std::string_view rs = std::string_view(n.msg).substr(at + 6);
    const std::string_view ns = std::string_view(n.msg).substr(nr + 8);
    std::from_chars(rs.data(), rs.data() + rs.size(), rank);
    std::from_chars(ns.data(), ns.data() + ns.size(), nranks);
    if (rank >= 0 && !m.rank_of.count(proc_of(n))) m.rank_of[proc_of(n)] = rank;
    if (rank >= 0) m.ranks.insert(rank);
    m.nranks = std::max(m.nranks, nranks);
  }
  return m;
}

std::string who(const NcclFact& n, const RankMap& ranks) {
  if (n.host.empty() || n.pid.empty()) {  // a framework's line, or NCCL's pasted bare: "[rankN]", else the file
    return n.rank >= 0 ? fmt::format("rank {}", n.rank) : fmt::format("{}", n.where.file);
  }
  auto it = ranks.rank_of.find(proc_of(n));
  return it != ranks.rank_of.end() ? fmt::format("rank {} on {} (pid {})", it->second, n.host, n.pid)
                                   : fmt::format("{} pid {}", n.host, n.pid);
}

// The rank of a line's process where the files say it, else null.
nlohmann::ordered_json first_rank(const NcclFact& n, const RankMap& ranks) {
  if (n.rank >= 0) return n.rank;
  auto it = ranks.rank_of.find(proc_of(n));
  return it != ranks.rank_of.end() ? nlohmann::ordered_json(it->second) : nlohmann::ordered_json();
}

// "Channel 05/0 : 14[6] -> 5[5] [send] via NET/IB/6/GDRDMA": the NET device index and
// whether GPUDirect RDMA is on. False when the line is not one.
bool channel_net(std::string_view msg, std::string& net, int& index, bool& gdr) {
  const size_t via = msg.find(" via NET/");
  if (via == std::string_view::npos || !msg.starts_with("Channel ")) return false;
  std::string_view rest = msg.substr(via + 9);  // "IB/6/GDRDMA"
  rest = rest.substr(0, rest.find(' '));
  const size_t slash = rest.find('/');
  net = std::string(rest.substr(0, slash));
  index = -1;
  gdr = contains(rest, "GDRDMA");
  if (slash == std::string_view::npos) return true;
  std::string_view idx = rest.substr(slash + 1);
  idx = idx.substr(0, idx.find('/'));
  std::from_chars(idx.data(), idx.data() + idx.size(), index);
  return true;
}

// --- NCCL logs -------------------------------------------------------------------

// "NET/IB : Using [0]mlx5_0:1/IB ..." with at least one device ("NET/IB : Using [RO]; OOB
// eth0" lists none: the plugin loaded and found nothing).
bool ib_devices_listed(std::string_view msg) {
  if (!msg.starts_with("NET/IB : Using")) return false;
  const size_t lb = msg.find('[');
  return lb != std::string_view::npos && lb + 1 < msg.size() && std::isdigit(static_cast<unsigned char>(msg[lb + 1]));
}

// The first IPoIB interface a "NET/Socket : Using [0]ib0:10.0.0.1<0>" line names: "ib0",
// a child "ib0.8001", systemd's "ibp65s0" and "ibs3"; empty for none.
std::string_view ipoib_interface(std::string_view msg) {
  for (size_t at = msg.find("]ib"); at != std::string_view::npos; at = msg.find("]ib", at + 1)) {
    std::string_view n = msg.substr(at + 1);
    n = n.substr(0, std::find_if(n.begin(), n.end(), [](char c) {
                      return !std::isalnum(static_cast<unsigned char>(c));
                    }) - n.begin());
    if (n.size() < 3) continue;
    const auto digit = [&](size_t i) { return i < n.size() && std::isdigit(static_cast<unsigned char>(n[i])); };
    if (digit(2) || ((n[2] == 'p' || n[2] == 's') && digit(3))) return n;
  }
  return {};
}

// HPE Slingshot's interfaces in NCCL's socket list ("[1]hsn0:10.80.0.205<0>") or GDR line
// ("HCA 'hsn0'"), in order.
std::vector<std::string> slingshot_interfaces(std::string_view msg) {
  std::vector<std::string> names;
  for (size_t at = msg.find("hsn"); at != std::string_view::npos; at = msg.find("hsn", at + 1)) {
    if (at == 0 || (msg[at - 1] != ']' && msg[at - 1] != '\'')) continue;  // "[1]hsn0:..." or "HCA 'hsn0'"
    std::string_view n = msg.substr(at);
    n = n.substr(
        0, std::find_if(n.begin(), n.end(), [](char c) { return c == ':' || c == ' ' || c == '\''; }) - n.begin());
    if (n.size() >= 4 && std::isdigit(static_cast<unsigned char>(n[3]))) names.emplace_back(n);
  }
  return names;
}

// Whether the files expect InfiniBand/RoCE: NCCL_IB_HCA set, RDMA devices in their
// topology, a rank on IB, or NCCL's sockets over an IPoIB interface (an InfiniBand port
// NCCL did not use).
struct RdmaExpected {
  std::set<std::string> ib_procs;  // the processes that list NET/IB devices or use IB
  bool rdma_known = false, hca_set = false;
  std::string_view ipoib;  // the first IPoIB interface NET/Socket names
  bool expected() const { return rdma_known || hca_set || !ipoib.empty(); }
  nlohmann::ordered_json json() const {
    return {{"rdma_devices_known", rdma_known},
            {"nccl_ib_hca_set", hca_set},
            {"ipoib_interface", ipoib},
            {"ib_expected", expected()}};
  }
};
RdmaExpected rdma_expected(const Facts& facts) {
  RdmaExpected e;
  for (const NcclFact& n : facts.nccl) {
    if (ib_devices_listed(n.msg) || contains(n.msg, "Using network IB")) e.ib_procs.insert(proc_of(n));
    if (n.msg.starts_with("NCCL_IB_HCA set")) e.hca_set = true;
    if (e.ipoib.empty() && n.msg.starts_with("NET/Socket : Using")) e.ipoib = ipoib_interface(n.msg);
  }
  e.rdma_known = !e.ib_procs.empty();
  for (const topo::HostTopology& h : facts.topology.hosts) {
    for (const topo::Nic& nic : h.nics) e.rdma_known |= nic.rdma;
  }
  return e;
}

// NCCL's OFI plugin with no libfabric provider to use (Facts::efa_no_device, and its own NCCL
// lines below): NCCL falls back to sockets or fails to start.
void check_ofi_no_provider(const Facts& facts, std::vector<Finding>& out) {
  // aws-ofi-nccl's account of a network with no device: "NET/OFI OFI fi_getinfo() call failed: No data
  // available" (libfabric's -FI_ENODATA: no provider, EFA's, with a device), and its words for
  // a search that found none ("NET/OFI No eligible providers were found", "NET/OFI Could not
  // find any optimal provider", "NET/OFI Unable to find a protocol that worked").
  std::vector<Quote> efa = facts.efa_no_device;
  for (const NcclFact& n : facts.nccl) {
    if (contains(n.msg, "fi_getinfo() call failed: No data available") ||
        (n.msg.starts_with("NET/OFI ") &&
         (contains(n.msg, "No eligible providers") || contains(n.msg, "Could not find any optimal provider") ||
          contains(n.msg, "Unable to find a protocol that worked")))) {
      efa.push_back(n.where);
    }
  }
  if (!efa.empty()) {
    out.push_back(finding(
        code::kNcclNoIbDevice, Severity::kError, "libfabric EFA provider", {},
        "libfabric found no usable provider for NCCL's OFI plugin (aws-ofi-nccl): EFA's found no device, or the "
        "provider FI_PROVIDER names is not there (fi_getinfo: no data); the plugin has no network to use, so NCCL "
        "falls back to sockets or fails to start",
        "inside a container: pass the EFA devices (/dev/infiniband/uverbs*, the EFA device plugin's resource) and "
        "nothing it cannot open (a host NIC's uverbs device mounted but not allowed breaks the EFA listing); on the "
        "host: `fi_info -p efa` (or the provider FI_PROVIDER names) and `ibv_devices`",
        efa, {{"lines", efa.size()}}));
  }
}

// Sockets over HPE Slingshot's interfaces (hsn0...) and no OFI plugin's line: NCCL and RCCL
// reach Slingshot only through the OFI plugin (aws-ofi-nccl, aws-ofi-rccl) and libfabric's
// cxi provider; without it the fabric carries their traffic as TCP (rccl#1026). Whether it
// said so.
bool sockets_over_slingshot(const Facts& facts, const std::vector<const NcclFact*>& socket_lines,
                            const std::set<std::string>& socket_hosts, const std::vector<Quote>& socket,
                            std::vector<Finding>& out) {
  std::set<std::string> hsn;
  for (const NcclFact* n : socket_lines) {
    for (std::string& name : slingshot_interfaces(n->msg)) hsn.insert(std::move(name));
  }
  // Also NET/Socket's own GDR line naming the interface ("NET/Socket : GPU Direct RDMA Disabled
  // for HCA 'hsn0'"), where its "Using [0]hsn0:..." list was not pasted.
  for (const NcclFact& n : facts.nccl) {
    if (!n.msg.starts_with("NET/Socket : GPU Direct RDMA")) continue;
    for (std::string& name : slingshot_interfaces(n.msg)) hsn.insert(std::move(name));
  }
  if (hsn.empty() || std::any_of(facts.nccl.begin(), facts.nccl.end(),
                                 [](const NcclFact& n) { return n.msg.starts_with("NET/OFI"); })) {
    return false;
  }
  out.push_back(finding(
      code::kNcclSocketFallback, Severity::kError, fmt::format("NET/Socket on {}", fmt::join(socket_hosts, ", ")),
      std::vector<std::string>(socket_hosts.begin(), socket_hosts.end()),
      fmt::format("NCCL (or RCCL) moves inter-node data over TCP sockets on HPE Slingshot's interfaces ({}): it has "
                  "no OFI plugin (no NET/OFI line), which is its only way onto Slingshot (libfabric's cxi "
                  "provider), so the fabric carries it as plain TCP at a fraction of its bandwidth",
                  fmt::join(hsn, ", ")),
      "load the OFI plugin built for the system's libfabric (aws-ofi-nccl, or aws-ofi-rccl for RCCL: "
      "librccl-net.so or libnccl-net.so on LD_LIBRARY_PATH, or NCCL_NET_PLUGIN naming it); `fi_info -p cxi` lists "
      "the NICs, and NCCL_DEBUG=INFO then shows NET/OFI lines with the cxi provider",
      socket, {{"interfaces", hsn}}));
  return true;
}

// NCCL fell back to sockets: "NET/Socket : Using", "Using network Socket", or NET/IB found
// no device. A fault only where InfiniBand/RoCE was expected (rdma_expected); elsewhere (a
// one-GPU machine, a cloud VM without RDMA) it is said as information.
void check_socket_fallback(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> socket, no_device;
  std::set<std::string> socket_hosts, no_device_hosts;
  std::vector<const NcclFact*> socket_lines;
  bool ib_forced = false;
  for (const NcclFact& n : facts.nccl) {
    if (contains(n.msg, "Using network Socket") || n.msg.starts_with("NET/Socket : Using")) {
      socket.push_back(n.where);
      socket_hosts.insert(n.host);
      socket_lines.push_back(&n);
    }
    // Also NCCL_NET=IB asked for a network that did not start ("Error: network IB not found.").
    const bool forced = n.msg.starts_with("Error: network IB not found");
    if (n.msg.starts_with("NET/IB : No device found") || forced) {
      no_device.push_back(n.where);
      no_device_hosts.insert(n.host);
      ib_forced = ib_forced || forced;
    }
  }
  // Sockets by the job's own setting ("NCCL_IB_DISABLE set by environment to 1."), and a job
  // within one host ("nNodes 1", or one host's init lines naming every rank of the
  // communicator): there NCCL's network carries nothing.
  bool ib_disabled = false, net_channels = false, one_node = false;
  std::set<std::string_view> hosts;
  for (const NcclFact& n : facts.nccl) {
    ib_disabled = ib_disabled || n.msg.starts_with("NCCL_IB_DISABLE set by environment to 1");
    net_channels =
        net_channels || contains(n.msg, " via NET/") || (contains(n.msg, " nNodes ") && !contains(n.msg, " nNodes 1 "));
    one_node = one_node || contains(n.msg, " nNodes 1 ");
    if (!n.host.empty()) hosts.insert(n.host);
  }
  const RankMap ranks = rank_map(facts);
  one_node =
      !net_channels &&
      (one_node || (hosts.size() == 1 && ranks.nranks >= 2 && static_cast<int>(ranks.ranks.size()) == ranks.nranks));
  const RdmaExpected rdma = rdma_expected(facts);
  const bool ib_expected = (rdma.expected() || ib_forced) && !one_node;
  const std::string_view ipoib = rdma.ipoib;
  const std::set<std::string>& ib_procs = rdma.ib_procs;
  const nlohmann::ordered_json expected = rdma.json();
  const char* const unexpected_note =
      "; nothing in the files expects RDMA (no NCCL_IB_HCA, no RDMA device in their topology, no rank on IB, no "
      "IPoIB interface)";
  // Only the processes that use sockets without any NET/IB list of their own.
  const bool socket_only = std::any_of(socket_lines.begin(), socket_lines.end(),
                                       [&](const NcclFact* n) { return !ib_procs.count(proc_of(*n)); });
  if (!no_device.empty()) {
    out.push_back(finding(
        code::kNcclNoIbDevice, ib_expected ? Severity::kError : Severity::kInfo,
        fmt::format("NET/IB on {}", fmt::join(no_device_hosts, ", ")),
        std::vector<std::string>(no_device_hosts.begin(), no_device_hosts.end()),
        fmt::format("NCCL's InfiniBand/RoCE plugin found no device, so NCCL moves data over TCP sockets (a tenth or "
                    "less of the fabric's bandwidth){}",
                    ib_expected ? "" : unexpected_note),
        "inside a container: pass the RDMA devices (/dev/infiniband, --device or the RDMA device plugin) and install "
        "rdma-core (libibverbs, libmlx5); on bare metal: check `ibv_devinfo` and that NCCL_IB_DISABLE is not set",
        no_device, expected));
  }
  check_ofi_no_provider(facts, out);
  if (!one_node && sockets_over_slingshot(facts, socket_lines, socket_hosts, socket, out)) return;
  if (socket_only && no_device.empty()) {
    out.push_back(finding(
        code::kNcclSocketFallback,
        !ib_expected  ? Severity::kInfo
        : ib_disabled ? Severity::kWarning
                      : Severity::kError,
        fmt::format("NET/Socket on {}", fmt::join(socket_hosts, ", ")),
        std::vector<std::string>(socket_hosts.begin(), socket_hosts.end()),
        one_node ? std::string("NCCL chose TCP sockets as its network, but every rank of the job is on one host: the "
                               "network carries none of its traffic")
        : ib_disabled ? fmt::format("NCCL uses TCP sockets for inter-node traffic because NCCL_IB_DISABLE=1 turned its "
                                    "InfiniBand/RoCE transport off{}",
                                    ib_expected ? ", on hosts that have RDMA: a tenth or less of the fabric's bandwidth"
                                                : unexpected_note)
        : !ib_expected  ? fmt::format("NCCL uses TCP sockets for inter-node traffic{}", unexpected_note)
        : ipoib.empty() ? std::string("NCCL uses TCP sockets for inter-node traffic although InfiniBand/RoCE is "
                                      "expected here")
                        : fmt::format("NCCL uses TCP sockets for inter-node traffic over {}, an IPoIB interface: the "
                                      "host has InfiniBand, which NCCL's IB transport did not take",
                                      ipoib),
        "check NCCL_IB_DISABLE, NCCL_NET, that the IB plugin loads (libibverbs in the container) and `ibv_devinfo`",
        socket, expected));
  }
}

// Interfaces that carry nothing to another host: container bridges and their veth pairs,
// libvirt's bridge, CNI's and the loopback. (NCCL's own default leaves out docker* and lo
// only.) Flannel's and other overlays do route between hosts and are not here.
bool host_local_interface(std::string_view name) {
  for (std::string_view p : {"docker", "br-", "veth", "virbr", "cni", "lxcbr", "lxc", "podman", "cali"}) {
    if (name.starts_with(p)) return true;
  }
  return name == "lo";
}

// NCCL's sockets (NET/Socket, or the bootstrap) over interfaces that reach no other host:
// connections to other nodes through them hang or fail, or crawl.
// What makes `address` one that no other host reaches, or "": the loopback, Docker's default
// bridge (docker0's 172.17.0.1, unless the hosts' own network uses it), a link-local address.
std::string_view unroutable_address(std::string_view address) {
  if (address.starts_with("127.")) return "the loopback";
  if (address == "172.17.0.1") return "Docker's default bridge, docker0";
  if (address.starts_with("169.254.")) return "a link-local address";
  return {};
}

// Connections that failed to an address no other host reaches: NCCL's ("Connect to
// 127.0.0.1<45069> failed"), Open MPI's TCP transport's ("connect() to 172.17.0.1 failed")
// and UCX's ("sock.c:261 UCX ERROR connect(fd=23, dest_addr=127.0.0.1:47793) failed"): the peer
// advertised its loopback or a container bridge.
void check_unroutable_connects(const Facts& facts, std::vector<Finding>& out) {
  const auto address_after = [](std::string_view t, std::string_view marker) {
    const size_t at = t.find(marker);
    if (at == std::string_view::npos) return std::string_view();
    std::string_view rest = t.substr(at + marker.size());
    return rest.substr(0, rest.find_first_of("< :,"));
  };
  struct Seen {
    std::vector<Quote> quotes;
    std::set<std::string> addresses;
  };
  Seen nccl, mpi, ucx, gloo;
  for (const NcclFact& n : facts.nccl) {
    if (n.level != "WARN" && n.level != "ERROR") continue;
    const bool by_ucx = contains(n.where.text, "UCX ") && !contains(n.where.text, "NCCL");  // not NET/UCX's
    const std::string_view a = address_after(n.msg, by_ucx ? "dest_addr=" : "Connect to ");
    if (a.empty() || unroutable_address(a).empty() || (by_ucx && !contains(n.msg, "failed"))) continue;
    Seen& seen = by_ucx ? ucx : nccl;
    seen.quotes.push_back(n.where);
    seen.addresses.insert(std::string(a));
  }
  for (const Quote& q : facts.tcp_connect_failed) {
    const std::string_view a = address_after(q.text, "connect() to ");
    if (a.empty() || unroutable_address(a).empty()) continue;
    mpi.quotes.push_back(q);
    mpi.addresses.insert(std::string(a));
  }
  for (const Quote& q : facts.gloo_connect_failed) {
    const std::string_view a = address_after(q.text, "remote=[");
    if (a.empty() || unroutable_address(a.substr(0, a.find(']'))).empty()) continue;
    gloo.quotes.push_back(q);
    gloo.addresses.insert(std::string(a.substr(0, a.find(']'))));
  }
  if (!gloo.quotes.empty())
    gloo.quotes.insert(gloo.quotes.end(), facts.gloo_loopback.begin(), facts.gloo_loopback.end());
  const auto say = [&](const Seen& s, std::string_view who, std::string_view hint) {
    if (s.quotes.empty()) return;
    std::vector<std::string> what;
    for (const std::string& a : s.addresses) what.push_back(fmt::format("{} ({})", a, unroutable_address(a)));
    out.push_back(finding(code::kNcclSocketIfacesUnroutable, Severity::kError, std::string(who), {},
                          fmt::format("{} failed to connect to {}: an address no other host reaches, so a peer "
                                      "advertised its loopback or a container bridge as its own and the others "
                                      "cannot reach it",
                                      who, fmt::join(what, ", ")),
                          std::string(hint), s.quotes, {{"addresses", s.addresses}}));
  };
  say(nccl, "NCCL's sockets",
      "set NCCL_SOCKET_IFNAME on every host to the interface the nodes reach each other on (e.g. "
      "NCCL_SOCKET_IFNAME=bond0, or =^docker,lo,br-,veth to leave the bridges out)");
  say(mpi, "Open MPI's TCP transport",
      "name the interface the nodes reach each other on: mpirun --mca btl_tcp_if_include IFACE --mca "
      "oob_tcp_if_include IFACE (or btl_tcp_if_exclude lo,docker0)");
  say(gloo, "Gloo's sockets",
      "set GLOO_SOCKET_IFNAME (and NCCL_SOCKET_IFNAME) on every host to the interface the nodes reach each other on; "
      "Gloo takes the address the hostname resolves to, and falls back to the loopback where it resolves to none "
      "of the host's own (a pod on the host network, /etc/hosts naming 127.0.1.1)");
  say(ucx, "UCX's TCP transport",
      "name the interface the nodes reach each other on: UCX_NET_DEVICES=IFACE on every rank; UCX 1.10.0 took a "
      "peer's loopback for reachable from other nodes (openucx/ucx#6695, fixed on its v1.10 branch): load a later "
      "UCX");
}

// A container on Docker's default bridge told to reach another host: NCCL finds no interface
// in the subnet of the remote address it was given (NCCL_COMM_ID's: "Net : No interface found
// in the same subnet as remote address 192.168.0.91<27030>") and lists only an address of
// docker0's 172.17.0.0/16 as its own ("Bootstrap : Using [0]eth0:172.17.0.3<0>"): the bridge
// reaches its own host only. A remote address in 172.17/16 too is not judged (hosts whose own
// network uses that range).
void check_docker_bridge_only(const Facts& facts, std::vector<Finding>& out) {
  constexpr std::string_view kNoSubnet = "No interface found in the same subnet as remote address ";
  std::vector<Quote> quotes;
  std::set<std::string> remotes, own, hosts;
  bool other_own = false;  // an address of the host's own outside docker0's subnet
  for (const NcclFact& n : facts.nccl) {
    if (const size_t at = n.msg.find(kNoSubnet); at != std::string::npos) {
      std::string_view r = std::string_view(n.msg).substr(at + kNoSubnet.size());
      r = r.substr(0, r.find_first_of("< "));
      if (r.empty() || r.starts_with("172.17.")) continue;
      quotes.push_back(n.where);
      remotes.insert(std::string(r));
      hosts.insert(n.host);
      continue;
    }
    if (!n.msg.starts_with("Bootstrap : Using") && !n.msg.starts_with("NET/Socket : Using")) continue;
    // "[0]eth0:172.17.0.3<0> [1]...": each entry's address, between the name's ':' and '<'.
    std::string_view rest = std::string_view(n.msg).substr(n.msg.find("Using") + 5);
    for (size_t open = rest.find('['); open != std::string_view::npos; open = rest.find('[', open + 1)) {
      std::string_view e = rest.substr(open);
      e = e.substr(0, e.find(' '));
      const size_t colon = e.find(':'), lt = e.find('<');
      if (colon == std::string_view::npos || lt == std::string_view::npos || lt < colon) continue;
      const std::string_view addr = e.substr(colon + 1, lt - colon - 1);
      if (addr.starts_with("172.17.") && addr != "172.17.0.1") {
        own.insert(std::string(addr));
      } else {
        other_own = true;
      }
    }
  }
  if (quotes.empty() || own.empty() || other_own) return;
  out.push_back(finding(
      code::kNcclSocketIfacesUnroutable, Severity::kError, "NCCL's sockets",
      std::vector<std::string>(hosts.begin(), hosts.end()),
      fmt::format("NCCL is to reach {} (NCCL_COMM_ID's address) but its only address is on Docker's default bridge "
                  "({}: docker0's 172.17.0.0/16), which reaches no other host: it finds no interface in that subnet "
                  "and the job cannot start",
                  fmt::join(remotes, ", "), fmt::join(own, ", ")),
      "run the containers on the hosts' network (`docker run --network host`; Kubernetes: hostNetwork: true) or on "
      "an overlay network that spans the hosts, then give every rank the same NCCL_COMM_ID, an address of the host "
      "that runs rank 0",
      quotes, {{"remote", remotes}, {"container_addresses", own}}));
}

void check_socket_interfaces(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  check_unroutable_connects(facts, out);
  check_docker_bridge_only(facts, out);
  std::set<std::string> local, hosts;
  std::set<std::string> whats;
  std::vector<Quote> quotes;
  size_t listed = 0;
  for (const InterfaceListFact& l : facts.interfaces) {
    std::vector<std::string> here;
    for (const std::string& n : l.names) {
      if (host_local_interface(n)) here.push_back(n);
    }
    if (here.empty()) continue;
    local.insert(here.begin(), here.end());
    listed = std::max(listed, l.names.size());
    hosts.insert(l.host);
    whats.insert(l.what.empty() ? "NCCL's sockets" : l.what);
    quotes.push_back(l.where);
  }
  if (local.empty()) return;
  std::vector<std::string> names(local.begin(), local.end());
  const size_t shown = std::min<size_t>(names.size(), 6);
  out.push_back(finding(
      code::kNcclSocketIfacesUnroutable, Severity::kWarning, fmt::format("{}", fmt::join(whats, ", ")),
      std::vector<std::string>(hosts.begin(), hosts.end()),
      fmt::format("{} use{} {} interface{} that reach no other host ({}{}) among the {} listed: container bridges, "
                  "veth pairs or the loopback; connections to other nodes through them fail, hang or crawl",
                  fmt::join(whats, ", "), whats.size() == 1 ? "s" : "", names.size(), names.size() == 1 ? "" : "s",
                  fmt::join(names.begin(), names.begin() + static_cast<ptrdiff_t>(shown), ", "),
                  names.size() > shown ? ", ..." : "", listed),
      "set NCCL_SOCKET_IFNAME to the interface the nodes reach each other on (e.g. NCCL_SOCKET_IFNAME=bond0, or "
      "=^docker,lo,br-,veth to leave the bridges out)",
      quotes, {{"interfaces", names}}));
}

// NCCL's IB plugin says per HCA whether GPUDirect RDMA is possible at all ("NET/IB : GPU
// Direct RDMA Disabled for HCA 0 'mlx5_0'": no peer-memory module nor dma-buf): every
// HCA a host lists disabled, none enabled, is GDR off there even without Channel lines.
struct GdrPerHost {
  std::set<std::string> disabled, enabled;  // HCAs
  std::vector<Quote> quotes;
  std::set<std::string> far;  // "GPU 2 / HCA 0": paths too long for GPUDirect
  std::vector<Quote> far_quotes;
  bool near = false;  // a path with GPUDirect
};

// Hosts where NCCL judged every GPU-NIC path it printed too long for GPUDirect RDMA.
void check_gdr_far(const std::map<std::string, GdrPerHost>& hosts, std::vector<Finding>& out) {
  for (const auto& [host, h] : hosts) {
    if (h.far.empty() || h.near || !h.disabled.empty()) continue;
    const size_t shown = std::min<size_t>(h.far.size(), 4);
    out.push_back(finding(
        code::kNcclGdrOff, Severity::kWarning, fmt::format("GPUDirect RDMA on {}", host.empty() ? "this host" : host),
        host.empty() ? std::vector<std::string>{} : std::vector<std::string>{host},
        fmt::format(
            "NCCL found no GPU-NIC path short enough for GPUDirect RDMA{} ({}{}: distance above "
            "NCCL_NET_GDR_LEVEL): the GPUs in use are far from the NICs (across a CPU or its root complex), "
            "so every message to another node is staged through host memory",
            host.empty() ? "" : fmt::format(" on {}", host),
            fmt::join(std::vector<std::string>(h.far.begin(), std::next(h.far.begin(), static_cast<ptrdiff_t>(shown))),
                      ", "),
            h.far.size() > shown ? ", ..." : ""),
        "use the GPUs that share a PCIe switch with a NIC (`nvidia-smi topo -m`: PIX or PXB to a NIC; "
        "CUDA_VISIBLE_DEVICES), or give each GPU a near NIC; NCCL_NET_GDR_LEVEL=SYS forces GPUDirect across the "
        "CPU where the platform supports it",
        h.far_quotes, {{"paths", h.far.size()}}));
  }
}

void check_gdr_per_hca(const Facts& facts, std::vector<Finding>& out) {
  using PerHost = GdrPerHost;
  std::map<std::string, PerHost> hosts;
  for (const NcclFact& n : facts.nccl) {
    // A GPU-NIC path's own check (paths.cc, 2.7 on; net.cc with "NET/IB : " before, 2.4-2.6):
    // "GPU Direct RDMA Disabled for GPU 2 / HCA 0 (distance 5 > 4)", "... Enabled for GPU 0 /
    // HCA 0 (distance 2 <= 4), read 1". NCCL checks every pair, so a far pair is normal; a
    // host none of whose pairs is near has no GPU that can reach a NIC directly.
    if (const size_t at = n.msg.find("GPU Direct RDMA "); at != std::string::npos && contains(n.msg, "(distance ")) {
      const std::string_view rest = std::string_view(n.msg).substr(at + 16);
      PerHost& h = hosts[n.host];
      if (rest.starts_with("Disabled for ")) {
        h.far.insert(std::string(trim(rest.substr(13, rest.find(" (distance") - 13))));
        if (h.far_quotes.size() < 4) h.far_quotes.push_back(n.where);
      } else if (rest.starts_with("Enabled")) {
        h.near = true;
      }
      continue;
    }
    // NET/IB's GIN (gin.cc), a WARN or an INFO line: "Unable to use GIN: Peermem is not
    // supported, and device 0 does not support DMA-BUF", "..., nor DMA-BUF": no HCA of the
    // host can read GPU memory.
    if ((contains(n.msg, "Peermem is not supported") && contains(n.msg, "DMA-BUF")) ||
        // aws-ofi-nccl (platform-aws.cpp): "GDR disabled on GDR-supported instance type p4d.24xlarge"
        contains(n.msg, "GDR disabled on GDR-supported instance type")) {
      PerHost& h = hosts[n.host];
      h.disabled.insert(contains(n.msg, "GIN") ? "every HCA (GIN: no peer memory, no dma-buf)"
                                               : "every EFA device (the instance type requires GDR)");
      h.quotes.push_back(n.where);
      continue;
    }
    constexpr std::string_view kLine = "NET/IB : GPU Direct RDMA ";
    if (!n.msg.starts_with(kLine)) continue;
    const std::string_view rest = std::string_view(n.msg).substr(kLine.size());
    size_t hca = rest.find("for HCA ");
    size_t skip = 8;
    // 2.4-2.6: "Disabled for GPU 0[0] / HCA 0 'mlx5_0' (no module or not supported by GPU)".
    if (hca == std::string_view::npos && contains(rest, "(no module")) {
      hca = rest.find("/ HCA ");
      skip = 6;
    }
    if (hca == std::string_view::npos) continue;
    std::string_view hca_name = rest.substr(hca + skip);
    hca_name = hca_name.substr(0, hca_name.find(" (no module"));
    const std::string name(trim(hca_name));
    PerHost& h = hosts[n.host];
    if (rest.starts_with("Disabled")) {
      h.disabled.insert(name);
      h.quotes.push_back(n.where);
    } else if (rest.starts_with("Enabled")) {
      h.enabled.insert(name);
    }
  }
  check_gdr_far(hosts, out);
  std::vector<std::string> off;
  std::vector<Quote> quotes;
  size_t hcas = 0;
  for (const auto& [host, h] : hosts) {
    if (h.disabled.empty() || !h.enabled.empty()) continue;
    off.push_back(host);
    hcas += h.disabled.size();
    quotes.insert(quotes.end(), h.quotes.begin(), h.quotes.end());
  }
  if (off.empty()) return;
  out.push_back(finding(code::kNcclGdrOff, Severity::kWarning, "GPUDirect RDMA on every HCA", off,
                        fmt::format("NCCL's network plugin (NET/IB, aws-ofi-nccl) has GPUDirect RDMA disabled for "
                                    "every device it lists ({} line{} on {}): every message to another node is "
                                    "staged through host memory",
                                    quotes.size(), quotes.size() == 1 ? "" : "s", fmt::join(off, ", ")),
                        "load nvidia-peermem (`lsmod | grep peermem`; an older NCCL looks only for nv_peer_mem, a "
                        "newer one can use dma-buf with a recent driver), then check NCCL_NET_GDR_LEVEL",
                        quotes, {{"hcas", hcas}}));
}

struct GdrUse {
  int with = 0, without = 0;
  std::vector<Quote> quotes;  // its channels without, the first few
};

// GPUDirect RDMA off on every NET/IB channel of a host while other hosts' channels use it:
// that host cannot (its peer-memory module not loaded, or dma-buf unsupported), so its
// messages are staged through host memory. Each direction is judged apart: a platform may
// read GPU memory for sends without GPUDirect (NCCL_NET_GDR_READ=0) and still receive
// with it, so a host is flagged only where none of its channels, either way, uses it.
void check_gdr_per_host(const std::map<std::string, GdrUse>& hosts, std::vector<Finding>& out) {
  std::vector<std::string> with_gdr;
  for (const auto& [host, u] : hosts) {
    if (u.with > 0 && !host.empty()) with_gdr.push_back(host);
  }
  if (with_gdr.empty()) return;
  for (const auto& [host, u] : hosts) {
    if (u.with > 0 || u.without == 0 || host.empty()) continue;
    out.push_back(finding(
        code::kNcclGdrOff, Severity::kWarning, fmt::format("GPUDirect RDMA on {}", host), {host},
        fmt::format("none of {}'s {} NET/IB channel{} uses GPUDirect RDMA, where {} use{} it: {}'s messages are "
                    "staged through host memory",
                    host, u.without, u.without == 1 ? "" : "s", fmt::join(with_gdr, ", "),
                    with_gdr.size() == 1 ? "s" : "", host),
        fmt::format("on {}: load nvidia-peermem (`lsmod | grep -e peermem -e nv_peer_mem`; an older NCCL looks only "
                    "for nv_peer_mem), or check that its driver and NCCL support dma-buf like the other hosts'",
                    host),
        u.quotes, {{"channels", u.without}}));
  }
}

// GPUDirect RDMA: off on every channel, or on some channels of a GPU and off on others
// (a far NIC carrying part of its traffic), from the Channel lines alone.
struct PerGpu {
  std::map<int, bool> nic_gdr;  // NET/IB index -> GDRDMA seen on it
  std::vector<Quote> with, without;
};

std::map<std::string, GdrUse> gpus_by_host(const std::map<std::pair<std::string, int>, PerGpu>& gpus) {
  std::map<std::string, GdrUse> hosts;
  for (const auto& [key, g] : gpus) {
    GdrUse& u = hosts[key.first];
    u.with += static_cast<int>(g.with.size());
    u.without += static_cast<int>(g.without.size());
    for (const Quote& q : g.without) {
      if (u.quotes.size() < 4) u.quotes.push_back(q);
    }
  }
  return hosts;
}

void check_gdr(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::map<std::pair<std::string, int>, PerGpu> gpus;  // (host, dev)
  int ib_channels = 0, gdr_channels = 0;
  std::vector<Quote> no_gdr;
  for (const NcclFact& n : facts.nccl) {
    std::string net;
    int index = -1;
    bool gdr = false;
    if (!channel_net(n.msg, net, index, gdr) || net != "IB") continue;
    ++ib_channels;
    gdr_channels += gdr;
    PerGpu& g = gpus[{n.host, n.dev}];
    g.nic_gdr[index] = g.nic_gdr[index] || gdr;
    (gdr ? g.with : g.without).push_back(n.where);
    if (!gdr) no_gdr.push_back(n.where);
  }
  if (ib_channels == 0) {
    check_gdr_per_hca(facts, out);
    return;
  }
  if (gdr_channels == 0) {
    std::set<std::string> hosts;
    for (const auto& [k, g] : gpus) hosts.insert(k.first);
    out.push_back(
        finding(code::kNcclGdrOff, Severity::kWarning, "GPUDirect RDMA on every NET/IB channel",
                std::vector<std::string>(hosts.begin(), hosts.end()),
                fmt::format("none of {} NET/IB channels uses GPUDirect RDMA: every message is staged "
                            "through host memory",
                            ib_channels),
                "load nvidia-peermem (or use dma-buf with a recent driver and NCCL), check NCCL_NET_GDR_LEVEL "
                "and that GPU and NIC share a PCIe switch (nvidia-smi topo -m: PIX/PXB)",
                no_gdr, {{"channels", ib_channels}}));
  } else {
    check_gdr_per_host(gpus_by_host(gpus), out);
    for (const auto& [key, g] : gpus) {
      // Lines without NCCL's prefix name no GPU: mixed channels of several GPUs are not one's.
      if (g.with.empty() || g.without.empty() || key.second < 0) continue;
      std::vector<int> near, far;
      for (const auto& [nic, on] : g.nic_gdr) (on ? near : far).push_back(nic);
      std::vector<Quote> quotes(g.without.begin(), g.without.end());
      quotes.insert(quotes.end(), g.with.begin(), g.with.begin() + std::min<size_t>(2, g.with.size()));
      out.push_back(finding(
          code::kNcclGdrPartial, Severity::kWarning, fmt::format("GPU {} on {}", key.second, key.first), {key.first},
          fmt::format("GPU {} on {} uses GPUDirect RDMA through NET/IB/{} but not through NET/IB/{} ({} of {} channels "
                      "without): a far NIC carries part of its traffic, staged through host memory",
                      key.second, key.first, fmt::join(near, ","), fmt::join(far, ","), g.without.size(),
                      g.without.size() + g.with.size()),
          "give each GPU its nearest NIC only (NCCL_IB_HCA, or NCCL_CROSS_NIC=0), and check the NIC order: "
          "`fabscope topo` on the host says which NIC each GPU should use",
          quotes, {{"gdr_nics", near}, {"staged_nics", far}}));
    }
  }
}

// Several ranks of one host on one NIC while the host has others.
void check_shared_nic(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>& missing) {
  // host -> NET/IB index -> GPUs (devices) sending through it
  std::map<std::string, std::map<int, std::set<int>>> use;
  std::map<std::string, std::vector<Quote>> quotes;
  std::map<std::string, size_t> nics_listed;
  for (const NcclFact& n : facts.nccl) {
    if (n.msg.starts_with("NET/IB : Using")) {  // "[0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB ..."
      const std::string_view list = std::string_view(n.msg).substr(0, n.msg.find(';'));
      size_t count = 0;
      for (size_t i = 0; i + 1 < list.size(); ++i) {
        if (list[i] == '[' && std::isdigit(static_cast<unsigned char>(list[i + 1]))) ++count;
      }
      nics_listed[n.host] = std::max(nics_listed[n.host], count);
    }
    std::string net;
    int index = -1;
    bool gdr = false;
    if (!channel_net(n.msg, net, index, gdr) || net != "IB" || index < 0 || n.dev < 0) continue;
    if (!contains(n.msg, "[send]")) continue;
    if (use[n.host][index].insert(n.dev).second) quotes[n.host].push_back(n.where);
  }
  for (const auto& [host, by_nic] : use) {
    const size_t nics_used = by_nic.size();
    const size_t gpus = [&] {
      std::set<int> all;
      for (const auto& [nic, devs] : by_nic) all.insert(devs.begin(), devs.end());
      return all.size();
    }();
    if (gpus < 2 || nics_used >= gpus) continue;
    // A host whose "NET/IB : Using" line is not in the files: the job's other hosts' list
    // stands for it (the nodes of one job are alike), said in the finding.
    size_t others = 0;
    for (const auto& [h, n] : nics_listed) others = std::max(others, h == host ? 0 : n);
    const bool assumed = !nics_listed.count(host) && others > 0;
    const size_t available = std::max(assumed ? others : nics_listed[host], nics_used);
    if (!nics_listed.count(host) && !assumed) {
      missing.push_back(
          fmt::format("{}: GPUs {} share NET/IB NICs, but no NET/IB : Using line says how many NICs "
                      "the host has",
                      host, gpus));
      continue;
    }
    if (available <= nics_used) continue;  // every NIC the host has is in use
    for (const auto& [nic, devs] : by_nic) {
      if (devs.size() < 2) continue;
      out.push_back(
          finding(code::kNcclSharedNic, Severity::kWarning, fmt::format("NET/IB/{} on {}", nic, host), {host},
                  fmt::format("GPUs {} of {} send through one NIC (NET/IB/{}) while the host {} {} NICs and uses {}",
                              fmt::join(devs, ","), host, nic, assumed ? "has, as the other hosts list," : "lists",
                              available, nics_used),
                  "the GPUs share that NIC's bandwidth: check NCCL_IB_HCA (its order and prefix matches) against "
                  "`nvidia-smi topo -m`; `fabscope topo --nccl-log` names the NIC each GPU should use",
                  quotes[host],
                  {{"nic_index", nic},
                   {"gpus", std::vector<int>(devs.begin(), devs.end())},
                   {"nics_assumed_from_other_hosts", assumed}}));
    }
  }
}

// The network plugin each host loaded (net.cc, plugin/net.cc): NCCL's own ("Using internal
// network plugin", "No plugin found, using internal implementation") or an external one
// ("Loaded net plugin NAME (v8)", "Successfully loaded external network plugin NAME",
// HPC-X's "Plugin Path : PATH"). Hosts on different ones: an external plugin (HPC-X's SHARP
// plugin, aws-ofi-nccl) installed on some hosts or in some images only, the others on
// NCCL's internal one. A host printing both (an external one that failed, then the
// internal one) is left out.
void check_net_plugins(const Facts& facts, std::vector<Finding>& out) {
  std::map<std::string, std::vector<Quote>> net_plugins;  // the network plugin loaded -> its lines
  std::map<std::string, std::set<std::string>> plugin_hosts;
  for (const NcclFact& n : facts.nccl) {
    if (n.level != "INFO" || n.host.empty()) continue;
    const std::string_view m = n.msg;
    std::string plugin;
    if (contains(m, "Using internal network plugin") || contains(m, "using internal implementation")) {
      plugin = "NCCL's internal one";
    } else if (const size_t at = m.find("Loaded net plugin "); at != std::string_view::npos) {
      plugin = std::string(trim(m.substr(at + 18, m.rfind(" (") > at ? m.rfind(" (") - at - 18 : m.npos)));
    } else if (const size_t ext = m.find("loaded external network plugin "); ext != std::string_view::npos) {
      plugin = std::string(trim(m.substr(ext + 31)));
    } else if (m.starts_with("Plugin Path : ")) {
      plugin = std::string(trim(m.substr(14)));
    }
    if (!plugin.empty()) {
      net_plugins[plugin].push_back(n.where);
      plugin_hosts[plugin].insert(n.host);
    }
  }
  const std::string internal = "NCCL's internal one";
  std::map<std::string, std::set<std::string>> host_plugins;  // host -> what it printed
  for (const auto& [plugin, hosts] : plugin_hosts) {
    for (const std::string& h : hosts) host_plugins[h].insert(plugin);
  }
  std::map<bool, std::vector<std::string>> by_kind;  // external? -> "host: plugins"
  std::map<bool, Quote> kind_quote;
  for (const auto& [host, plugins] : host_plugins) {
    const bool ext = !plugins.count(internal);
    if (!ext && plugins.size() > 1) continue;
    by_kind[ext].push_back(fmt::format("{}: {}", host, fmt::join(plugins, ", ")));
    if (!kind_quote.count(ext)) kind_quote[ext] = net_plugins[*plugins.begin()].front();
  }
  if (by_kind.size() == 2) {
    std::vector<std::string> shown;
    for (auto& [ext, hosts] : by_kind) {
      if (hosts.size() > 4) hosts.resize(4);
      shown.push_back(fmt::format("{}", fmt::join(hosts, "; ")));
    }
    out.push_back(finding(code::kNcclSettingMismatch, Severity::kWarning, "network plugin", {},
                          fmt::format("hosts load different NCCL network plugins: {}", fmt::join(shown, " vs ")),
                          "install the same plugin on every host (or in every image) and point NCCL at it the same "
                          "way (NCCL_NET_PLUGIN, LD_LIBRARY_PATH); ranks on different plugins cannot connect, or "
                          "fall back to sockets on some hosts",
                          {kind_quote[true], kind_quote[false]}));
  }
}

// What NCCL's loader said of a network plugin it could not load (net.cc before 2.21,
// plugin/net.cc, plugin_open.cc): "NET/Plugin : dlerror=ERR No plugin found (libnccl-net.so),
// using internal implementation", "NET/Plugin : Plugin load returned 2 : ERR.", "NET/Plugin:
// Plugin load returned 22 : ERR when loading NAME", "NET/Plugin: libnccl-net-ofi.so: ERR".
// The error, or "" for none of these.
std::string_view plugin_load_error(std::string_view m) {
  if (!m.starts_with("NET/Plugin")) return {};
  if (const size_t at = m.find("dlerror="); at != std::string_view::npos) {
    std::string_view err = m.substr(at + 8);
    return trim(err.substr(0, err.find(" No plugin found")));
  }
  if (const size_t at = m.find("Plugin load returned "); at != std::string_view::npos) {
    std::string_view err = m.substr(at + 21);
    if (const size_t sep = err.find(" : "); sep != std::string_view::npos) err = err.substr(sep + 3);
    err = err.substr(0, std::min(err.find(" when loading"), err.find(" : when loading")));
    return trim(err);
  }
  if (contains(m, "Failed to find ncclNetPlugin symbol")) return trim(m.substr(m.find("Failed")));
  const size_t colon = m.find(": ");  // plugin_open.cc: "NET/Plugin: LIB: ERR"
  const size_t lib_end = colon == std::string_view::npos ? colon : m.find(": ", colon + 2);
  if (lib_end == std::string_view::npos) return {};
  const std::string_view lib = trim(m.substr(colon + 2, lib_end - colon - 2));
  return lib.ends_with(".so") && lib.find(' ') == std::string_view::npos ? trim(m.substr(lib_end + 2)) : "";
}

// A plugin that is simply not installed: the loader's error names the plugin's own file as
// missing ("libnccl-net.so: cannot open shared object file: No such file or directory").
bool plugin_absent(std::string_view err) {
  const size_t at = err.find(": cannot open shared object file");
  if (at == std::string_view::npos) return false;
  std::string_view file = err.substr(0, at);
  if (const size_t slash = file.rfind('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
  return file.starts_with("libnccl-net");
}

// A network plugin present but failing to load (a library it needs missing or too old, an
// undefined symbol, a plugin too old for this NCCL): NCCL goes on with its internal plugin,
// sockets where the plugin was its only way onto the fabric (EFA, a SHARP or UCX plugin).
void check_net_plugin_load(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> quotes;
  std::set<std::string> hosts;
  std::string first;
  for (const NcclFact& n : facts.nccl) {
    std::string_view err = plugin_load_error(n.msg);
    // aws-ofi-nccl loaded, but refusing the libfabric it found (nccl_ofi_net.cpp): "EFA
    // provider requires at least libfabric version 1.22.0."
    if (err.empty() && contains(n.msg, "requires at least libfabric version")) err = trim(n.msg);
    if (err.empty() || plugin_absent(err)) continue;
    if (first.empty()) first = std::string(err.substr(0, 200));
    quotes.push_back(n.where);
    if (!n.host.empty()) hosts.insert(n.host);
  }
  if (quotes.empty()) return;
  // A library NCCL opened as its plugin with no network interface this NCCL takes ("Failed to
  // find ncclNetPlugin symbol (>= v5)"): NCCL goes on with its internal IB and socket
  // transports, which on most fabrics is what was meant (nccl#1292: "not a sign of failure").
  // Where the log then shows NCCL on sockets, the plugin was the way onto the fabric.
  const bool symbols_only = std::all_of(quotes.begin(), quotes.end(), [](const Quote& q) {
    return contains(q.text, "Failed to find ncclNetPlugin symbol");
  });
  const bool on_sockets = std::any_of(facts.interfaces.begin(), facts.interfaces.end(),
                                      [](const auto& i) { return i.what == "NET/Socket"; });
  if (symbols_only && !on_sockets) {
    out.push_back(finding(
        code::kNcclNetPluginLoadFailed, Severity::kInfo, "NCCL network plugin", {hosts.begin(), hosts.end()},
        fmt::format("NCCL opened a library as its network plugin that has no network interface this NCCL takes "
                    "({}): \"{}\"; it goes on with its internal IB and socket transports, and nothing here shows "
                    "it on sockets",
                    count_lines(quotes.size()), first),
        "nothing to do where NCCL's internal IB reaches the fabric (its NET/IB line says so); where a plugin was "
        "meant (aws-ofi-nccl for EFA, a SHARP or UCX plugin), install the one built for this NCCL",
        quotes, {{"lines", quotes.size()}, {"error", first}}));
    return;
  }
  out.push_back(finding(
      code::kNcclNetPluginLoadFailed, Severity::kError, "NCCL network plugin", {hosts.begin(), hosts.end()},
      fmt::format("NCCL could not load or start a network plugin that is installed ({}): \"{}\"; it went on with its "
                  "internal plugin, which on a fabric only the plugin drives (AWS EFA, a SHARP or UCX plugin) "
                  "means TCP sockets",
                  count_lines(quotes.size()), first),
      "make the plugin's dependencies match it: the library the error names (libfabric for aws-ofi-nccl, HPC-X's "
      "for its plugins) at the version the plugin was built against, on LD_LIBRARY_PATH where the ranks run; or "
      "install the plugin built for this NCCL and that library",
      quotes, {{"lines", quotes.size()}, {"error", first}}));
}

// Different NCCL versions, NCCL_* settings or NET/IB lists across ranks: an environment
// not propagated to remote ranks (mpirun -x, srun --export).
// Hosts with different numbers of NICs, in NCCL's own words (init.cc, 2.27 on): "Detected
// mixed local Net device counts across ranks (min 1, max 4). Set NCCL_IGNORE_NET_MISMATCH=1
// to continue." (a WARN: init fails; an INFO "... Ignoring due to NCCL_IGNORE_NET_MISMATCH"
// where it was set), after an INFO "Rank 3 has 1 local Net devices (max 4)." per rank short.
// NET/IB's own check of a connection's two ends (net_ib.cc, 2.20 to 2.22): "NET/IB : Local
// mergedDev=mlx5_0+mlx5_1 has a different number of devices=2 as remoteDev=mlx5_0 nRemDevs=1"
// (2.19: "Local mergedDev mlx5_0 has a different number of devices=2 as remote mlx5_0 1").
bool mixed_net_counts(std::string_view msg) {
  return contains(msg, "mixed local Net device counts") ||
         (contains(msg, "mergedDev") && contains(msg, "has a different number of devices"));
}

void check_net_counts(const Facts& facts, std::vector<Finding>& out) {
  std::vector<Quote> quotes;
  std::vector<std::string> short_ranks;
  bool failed = false;
  for (const NcclFact& n : facts.nccl) {
    if (mixed_net_counts(n.msg)) {
      failed = failed || !contains(n.msg, "Ignoring");
      quotes.insert(quotes.begin(), n.where);
    } else if (n.msg.starts_with("Rank ") && contains(n.msg, " local Net devices (max ")) {
      const auto words = split_ws(n.msg);
      if (words.size() > 1) short_ranks.push_back(std::string(words[1]));
      quotes.push_back(n.where);
    }
  }
  if (quotes.empty() || !mixed_net_counts(quotes.front().text)) return;
  std::sort(short_ranks.begin(), short_ranks.end());
  short_ranks.erase(std::unique(short_ranks.begin(), short_ranks.end()), short_ranks.end());
  out.push_back(finding(
      code::kNcclIbListMismatch, failed ? Severity::kError : Severity::kWarning, "NICs per host", {},
      fmt::format("NCCL found different numbers of network devices on the ranks' hosts{}{}: a NIC down, missing or "
                  "not given to the container on some host, or NCCL_IB_HCA different between hosts",
                  short_ranks.empty()
                      ? ""
                      : fmt::format(" ({} {} {} fewer)", short_ranks.size() == 1 ? "rank" : "ranks",
                                    fmt::join(short_ranks, ", "), short_ranks.size() == 1 ? "has" : "have"),
                  failed ? ", and stopped" : ""),
      "compare the NICs host by host (ibstat, ibdev2netdev, the pods' RDMA resources) and NCCL_IB_HCA; "
      "NCCL_IGNORE_NET_MISMATCH=1 only hides it",
      quotes));
}

// The NCCL version each framework error names (PyTorch's "NCCL error in: ..., NCCL version
// 2.14.3"), with its lines.
std::map<std::string, std::vector<Quote>> framework_nccl_versions(const Facts& facts) {
  std::map<std::string, std::vector<Quote>> versions;
  for (const NcclFact& n : facts.nccl) {
    const size_t at = n.msg.find(", NCCL version ");
    if (at == std::string::npos || n.level != "ERROR") continue;
    const auto words = split_ws(std::string_view(n.msg).substr(at + 15));
    std::string_view v = words.empty() ? std::string_view() : words[0];
    while (!v.empty() && !std::isdigit(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);  // "2.14.3,"
    if (!v.empty()) versions[std::string(v)].push_back(n.where);
  }
  return versions;
}

// Values that differ across ranks (NCCL versions, an NCCL_* variable): one finding listing
// each with its count of lines.
void differing(std::vector<Finding>& out, std::string_view code, const std::string& what,
               const std::map<std::string, std::vector<Quote>>& values, Severity severity, const std::string& hint) {
  if (values.size() < 2) return;
  std::vector<Quote> quotes;
  std::vector<std::string> shown;
  for (const auto& [value, qs] : values) {
    shown.push_back(fmt::format("'{}' ({} line{})", value, qs.size(), qs.size() == 1 ? "" : "s"));
    quotes.insert(quotes.end(), qs.begin(), qs.begin() + std::min<size_t>(2, qs.size()));
  }
  out.push_back(finding(code, severity, what, {}, fmt::format("ranks differ in {}: {}", what, fmt::join(shown, " vs ")),
                        hint, quotes));
}

// Set on some hosts' ranks and on no rank of other hosts that report their settings: the
// launcher did not carry it there. (Within one host, a missing line is more likely a
// log cut short than a different environment.) NCCL reports a setting as it first reads it,
// in the same order on every rank: a host is judged without it only where it reports a
// setting that a host with it reported later (its log went past the point), not where its
// log ends before.
void check_settings_not_carried(const std::map<std::string, std::map<std::string, std::vector<Quote>>>& env,
                                const std::map<std::string, std::set<std::string>>& set_on,
                                const std::set<std::string>& hosts_with_env,
                                const std::map<std::string, std::vector<std::string>>& env_order,
                                std::vector<Finding>& out) {
  const auto went_past = [&](const std::string& var, const std::set<std::string>& hosts, const std::string& other) {
    const std::vector<std::string>& theirs = env_order.at(other);
    return std::any_of(hosts.begin(), hosts.end(), [&](const std::string& h) {
      const std::vector<std::string>& seq = env_order.at(h);
      const auto at = std::find(seq.begin(), seq.end(), var);
      return std::any_of(at, seq.end(), [&](const std::string& later) {
        return later != var && std::find(theirs.begin(), theirs.end(), later) != theirs.end();
      });
    });
  };
  for (const auto& [var, hosts] : set_on) {
    if (hosts.size() == hosts_with_env.size()) continue;
    std::vector<std::string> without;
    for (const std::string& h : hosts_with_env) {
      if (!hosts.count(h) && went_past(var, hosts, h)) without.push_back(h);
    }
    if (without.empty()) continue;
    std::vector<Quote> quotes;
    for (const auto& [value, qs] : env.at(var)) quotes.insert(quotes.end(), qs.begin(), qs.begin() + 1);
    out.push_back(finding(
        code::kNcclSettingMismatch, Severity::kWarning, var, without,
        fmt::format("{} is set on {} but on no rank of {}", var, fmt::join(hosts, ", "), fmt::join(without, ", ")),
        "the launcher did not pass it to every host: mpirun -x VAR, srun --export=ALL", quotes));
  }
}

void check_mismatch(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  using Values = std::map<std::string, std::vector<Quote>>;  // value -> the lines that say it
  Values versions;
  std::vector<Quote> version_warnings;                  // NCCL's own "Mismatched NCCL version detected"
  std::map<std::string, Values> env;                    // variable -> its values
  std::map<std::string, std::set<std::string>> set_on;  // variable -> hosts
  std::set<std::string> hosts_with_env;
  std::map<std::string, std::vector<std::string>> env_order;  // host: the settings it reports, in order
  Values ib_lists;
  std::map<std::string, std::set<std::string>> list_hosts;  // NET/IB list -> the hosts printing it
  for (const NcclFact& n : facts.nccl) {
    if (n.msg.starts_with("NCCL version ")) {
      const auto words = split_ws(n.msg);
      if (words.size() >= 3) versions[std::string(words[2])].push_back(n.where);
    }
    // init.cc: "Mismatched NCCL version detected : rank 1 version 21903 rank 0 version
    // 21405"; RAS (2.24 and later): "NCCL version mismatch with remote peer ...".
    if (n.level == "WARN" && (contains(n.msg, "Mismatched NCCL version detected") ||
                              contains(n.msg, "NCCL version mismatch with remote peer"))) {
      version_warnings.push_back(n.where);
    }
    if (const size_t at = n.msg.find(" set by environment to "); at != std::string::npos) {
      const std::string var = n.msg.substr(0, at);
      env[var][std::string(trim(std::string_view(n.msg).substr(at + 23)))].push_back(n.where);
      set_on[var].insert(n.host);
      hosts_with_env.insert(n.host);
      auto& seq = env_order[n.host];
      if (std::find(seq.begin(), seq.end(), var) == seq.end()) seq.push_back(var);
    }
    if (n.msg.starts_with("NET/IB : Using ")) {
      std::string list = n.msg.substr(15);
      list = list.substr(0, list.find(';'));
      ib_lists[list].push_back(n.where);
      list_hosts[list].insert(n.host);
    }
  }
  const std::string same_nccl =
      "every rank must load the same NCCL: check LD_LIBRARY_PATH and the container image on each host (a "
      "framework's wheel brings its own NCCL)";
  differing(out, code::kNcclVersionMismatch, "NCCL version", versions, Severity::kError, same_nccl);
  // The framework's errors compared among themselves only: NCCL's own version lines may be
  // another run's, pasted beside them.
  if (versions.size() < 2) {
    differing(out, code::kNcclVersionMismatch, "NCCL version", framework_nccl_versions(facts), Severity::kError,
              same_nccl);
  }
  if (versions.size() < 2 && !version_warnings.empty()) {
    out.push_back(finding(code::kNcclVersionMismatch, Severity::kError, "NCCL version", {},
                          fmt::format("NCCL found ranks running different NCCL versions ({}); it refuses to "
                                      "connect them",
                                      count_lines(version_warnings.size())),
                          same_nccl, version_warnings));
  }
  for (auto& [var, values] : env) {
    // A value seen on one line that begins another value is that line cut short (a paste
    // that ends mid-line: "set by environment to S" beside "SYS"), not another setting.
    for (auto it = values.begin(); it != values.end();) {
      const bool cut = it->second.size() == 1 && std::any_of(values.begin(), values.end(), [&](const auto& other) {
                         return other.first.size() > it->first.size() && other.first.starts_with(it->first);
                       });
      it = cut ? values.erase(it) : std::next(it);
    }
    differing(out, code::kNcclSettingMismatch, var, values, Severity::kWarning,
              "set it the same on every rank: export it through the launcher (mpirun -x VAR, srun --export=ALL)");
  }
  check_settings_not_carried(env, set_on, hosts_with_env, env_order, out);
  check_net_plugins(facts, out);
  check_net_counts(facts, out);
  if (ib_lists.size() >= 2) {
    std::vector<Quote> quotes;
    std::vector<std::string> orders;  // each list, in NET/IB index order, with the hosts that print it
    for (const auto& [list, qs] : ib_lists) {
      quotes.push_back(qs.front());
      orders.push_back(fmt::format("{}: {}", fmt::join(list_hosts[list], ", "), trim(list)));
    }
    out.push_back(finding(code::kNcclIbListMismatch, Severity::kWarning, "NET/IB device lists", {},
                          fmt::format("processes list {} different NET/IB device sets or orders: {}", ib_lists.size(),
                                      fmt::join(orders, "; ")),
                          "NET/IB/k names a different NIC on different ranks: compare NCCL_IB_HCA and the NICs "
                          "(ibdev2netdev) host by host",
                          quotes));
  }
}

// NCCL WARN lines, with what they usually mean; the first failing rank.
struct WarnMeaning {
  std::string_view pattern;
  std::string_view code;
  std::string_view meaning;
  std::string_view hint;
};
constexpr WarnMeaning kWarnMeanings[] = {
    {"ncclMaxSharedMem", code::kNcclKernelSharedMem,
     "NCCL's kernels need more GPU shared memory than the GPU allows per function: an NCCL older than the GPU "
     "(Blackwell needs 2.26.2 or newer); its kernels then fail to launch (Cuda failure 1 'invalid argument')",
     "load a newer NCCL; a framework's bundled NCCL (PyTorch's wheel) may be older than the system's: compare the "
     "`NCCL version` lines with the GPU"},
    // shm_open refused: /dev/shm not writable (its mode, a read-only mount), not full.
    {"shm_open failed : Permission denied", code::kNcclShmPermission,
     "NCCL may not create its shared-memory segments: /dev/shm refused them (Permission denied)",
     "check /dev/shm's mode (1777, sticky), its owner and how the container mounts it (not read-only); segments "
     "another user left behind (nccl-shm-*) can be removed"},
    // misc/shmutils.cc's own forms: "Error: failed to create shared memory file /dev/shm/nccl-X,
    // error Permission denied (13)", "Error while creating shared memory segment ... (size N),
    // error: Read-only file system (30)".
    {", error Permission denied", code::kNcclShmPermission, "", ""},
    {", error: Permission denied", code::kNcclShmPermission, "", ""},
    {", error Read-only file system", code::kNcclShmPermission, "", ""},
    {", error: Read-only file system", code::kNcclShmPermission, "", ""},
    // A segment of no name is not /dev/shm full: its meaning is with the known bugs below.
    {"shared memory segment /dev/shm/nccl- (size 0)", code::kNcclKnownBug, "", ""},
    {"/dev/shm", code::kNcclShmExhausted, "/dev/shm too small for NCCL's shared-memory buffers",
     "give the container more /dev/shm (docker --shm-size, a memory-backed emptyDir in Kubernetes), or set "
     "NCCL_SHM_DISABLE=1 at a cost in intra-node bandwidth"},
    // NCCL's shm.cc, when the segment does not fit: "Call to posix_fallocate failed: No
    // space left on device", "Error while creating shared memory segment ...".
    {"failed to extend", code::kNcclShmExhausted, "", ""},  // misc/shmutils.cc (2.19 on): ENOSPC
    {"posix_fallocate", code::kNcclShmExhausted, "", ""},
    {"creating shared memory segment", code::kNcclShmExhausted, "", ""},
    {", error No space left on device", code::kNcclShmExhausted, "", ""},  // "failed to create shared memory file"
    // A SIGBUS with NCCL in the backtrace (gather.cpp): a write to a /dev/shm segment the
    // filesystem could not back, Docker's 64 MiB default.
    {"Bus error", code::kNcclShmExhausted, "", ""},
    // UCX's shared-memory transport (uct/sm/mm/base/mm_iface.c) without room for its FIFO in
    // /dev/shm: "mm_iface failed to allocate receive FIFO".
    {"failed to allocate receive FIFO", code::kNcclShmExhausted, "", ""},
    // UCX's cross-memory-attach transport refused by the kernel (uct/sm/scopy/cma/cma_ep.c:
    // "process_vm_readv(pid=12346 {0x7f00,8192}-->{0x7f00,8192}) returned -1: Operation not
    // permitted"): ptrace's rules forbid the processes to read each other's memory.
    {"}) returned -1: Operation not permitted", code::kLimitsPtraceDenied,
     "processes on one host may not read each other's memory (process_vm_readv refused, EPERM): UCX's cross-memory "
     "attach (CMA) transport fails, as in a container without CAP_SYS_PTRACE or under kernel.yama.ptrace_scope above "
     "0",
     "run the containers with --cap-add SYS_PTRACE (or share their PID namespace), or set kernel.yama.ptrace_scope=0 "
     "on the host; UCX_TLS=^cma runs without that transport meanwhile"},
    // Open MPI's shared-memory BTL (vader, sm) reading a peer's memory by CMA and refused with
    // EPERM (btl_vader_get.c: "Read -1, expected 122880, errno = 1"; gather.cpp keeps errno 1
    // only): the same ptrace rule.
    {"Read -1, expected ", code::kLimitsPtraceDenied,
     "Open MPI's shared-memory transport could not read a peer process's memory by cross-memory attach "
     "(process_vm_readv refused, errno 1: EPERM): a container without CAP_SYS_PTRACE (Docker's default, unprivileged), "
     "or kernel.yama.ptrace_scope above 0",
     "run the containers with --cap-add SYS_PTRACE (or --privileged), or set kernel.yama.ptrace_scope=0 on the "
     "host; `--mca btl_vader_single_copy_mechanism none` (OMPI_MCA_btl_vader_single_copy_mechanism=none) runs "
     "without CMA meanwhile"},
    // UCX's IB transport given a port speed it has no case for (uct/ib/base/ib_iface.c: "Invalid
    // active_speed on mlx5_0:1: 128"): HDR (64) in old releases, NDR (128) before 1.13
    // (Azure's HPC image notes), XDR (256) later; the transport does not open, and the MPI
    // or NCCL plugin above it fails ("Failed to create UCP worker").
    {"Invalid active_speed on ", code::kUcxPortSpeedUnknown,
     "UCX's InfiniBand transport does not know the port's speed and refuses to open it: a UCX older than the "
     "fabric (NDR's speed 128 needs UCX 1.13 or later), so Open MPI's pml ucx or NCCL's UCX plugin fails or falls "
     "back to TCP",
     "load a UCX that knows the port (`ucx_info -v` for the release and its configure line; HPC-X or MOFED's UCX, "
     "1.13 or later for NDR) built with its IB transports (`ucx_info -d` lists rc, ud, dc on the mlx5 device)"},
    // UCX unable to open one of its transports on a device it lists (uct/base/uct_iface.c:
    // "uct_iface_open(ud_verbs/mana_0:1) failed: Input/output error", after the transport's
    // own "failed to create UD QP ... Operation not supported"): a verbs device whose driver
    // lacks that kind of queue pair (Azure's MANA has no UD), a port without an address; the
    // MPI or plugin above stops there instead of taking another transport.
    {"uct_iface_open(", code::kUcxTransportOpenFailed,
     "UCX could not open one of its transports on a device it found (uct_iface_open failed): the device's driver "
     "does not support that transport's queue pairs (Azure's MANA NIC, mana_0, has no UD; a RoCE port without an "
     "address; a device passed into a container but not usable there), and the MPI or NCCL plugin above UCX stops "
     "at its start (MPI_Init, \"Failed to create UCP worker\") rather than using another transport",
     "restrict UCX to the devices and transports that work: UCX_NET_DEVICES (e.g. mlx5_0:1) or UCX_TLS (e.g. "
     "`tcp,sm,self` on a host whose RDMA device is not for MPI, `rc,sm,self` where UD is missing); `ucx_info -d` "
     "lists the devices and transports UCX sees, `ibv_devinfo` the device's ports"},
    {"failed to create UD QP", code::kUcxTransportOpenFailed, "", ""},
    // Its RC transport's shared receive queue on a device without one (rc_iface.c:
    // "ibv_create_srq() failed: Operation not supported": EFA lists rc_verbs but has no RC,
    // ucx#6882).
    {"ibv_create_srq() failed: Operation not supported", code::kUcxTransportOpenFailed, "", ""},
    // MindSpore's GPU build unable to load its collective library, which links NCCL and Open
    // MPI ("Loading libgpu_collective.so failed. Many reasons could cause this: ... 2.nccl is
    // not installed or found"): its FAQ names NCCL or MPI missing, or an NCCL older than it
    // needs (2.7.6 for MindSpore 1.1's P2P operators).
    {"Loading libgpu_collective.so failed", code::kFrameworkNcclLibraryMismatch,
     "MindSpore could not load its collective library (libgpu_collective.so), which needs NCCL and Open MPI: "
     "NCCL or Open MPI not installed or not on the library path, or an NCCL older than MindSpore needs",
     "install the NCCL and Open MPI versions MindSpore's installation guide names for its release (`ldd` on "
     "libgpu_collective.so shows which library is missing), and put them on LD_LIBRARY_PATH"},
    // NCCL refusing a CUDA graph's capture (enqueue.cc: "NCCL cannot be captured in a graph if
    // either it wasn't built with CUDA runtime >= 11.3 or if the installed CUDA driver < R465."):
    // a pip wheel's NCCL built for CUDA 11.0 ("NCCL version 2.19.3+cuda11.0", nvidia-nccl-cu11)
    // under a framework that captures its collectives (vLLM, PyTorch's CUDA graphs), or an old
    // driver.
    {"cannot be captured in a graph if either it wasn't built with CUDA runtime", code::kFrameworkNcclLibraryMismatch,
     "NCCL refused to be captured in a CUDA graph: the libnccl the process loaded was built with a CUDA runtime "
     "before 11.3 (its version line ends in +cuda11.0 for the nvidia-nccl-cu11 wheel), or the driver is older than "
     "R465; a framework that captures its collectives (vLLM, PyTorch's CUDA graphs) then fails",
     "load an NCCL built for the CUDA the job uses (`python -c 'import torch; print(torch.cuda.nccl.version())'`, "
     "`pip list | grep nccl`: a cu11 wheel pulled in by another package is the usual one), or a driver of R465 or "
     "later (`nvidia-smi`)"},
    // NCCL 1's ncclInvalidType ("invalid data type"; NCCL 2 has no such error): a framework built
    // for NCCL 2 that loaded NCCL 1 passes data types NCCL 1 numbers otherwise ("ncclAllReduce
    // failed: invalid data type" of a float tensor: Horovod's troubleshooting guide).
    {"failed: invalid data type", code::kFrameworkNcclLibraryMismatch,
     "NCCL refused the data type of a collective (\"invalid data type\", an error only NCCL 1 has): the framework "
     "was built against NCCL 2 and loaded an NCCL 1 library, whose data types are numbered otherwise (conda's `nccl` "
     "package ahead on the library path is the usual one)",
     "find the libnccl the process loads (`ldd` on the framework's library, `conda list nccl`, LD_LIBRARY_PATH), "
     "remove the stray one (`conda remove nccl`) and rebuild or reinstall the framework against the NCCL it will "
     "load (Horovod: HOROVOD_NCCL_HOME)"},
    {"status=12 ", code::kNcclIbRetryExceeded,
     "a send was never acknowledged (IBV_WC_RETRY_EXC_ERR): the peer or the path to it stopped answering",
     "a link down or flapping on that path, a dead peer host, or a misrouted/congested path: check both NICs' "
     "counters and the switch ports between them, and dmesg on both hosts"},
    // Older NCCL's forms of the same completion: "Got completion with error 12, opcode 1, ...",
    // "Got completion from peer 10.0.0.2<1234> with error 12, opcode ...".
    {"with error 12,", code::kNcclIbRetryExceeded, "", ""},
    // perftest's completion errors (perftest_resources.h): "Failed status 12: wr_id 0 syndrom
    // 0x81" before 2025, "Failed status 12: qp_num 7 wr_id ..." since, and "Failed
    // status-transport retry counter exceeded (12): ..." (the words below) now.
    {"Failed status 12:", code::kNcclIbRetryExceeded, "", ""},
    {"Transport retry count exceeded", code::kNcclIbRetryExceeded, "", ""},    // UCX's, the same completion
    {"transport retry counter exceeded", code::kNcclIbRetryExceeded, "", ""},  // Solaris' hermon, mcxnex
    // IBV_WC_LOC_PROT_ERR: the NIC was refused the local buffer of a work request. With
    // GPUDirect RDMA that buffer is GPU memory reached peer to peer over PCIe; NCCL's
    // troubleshooting guide names ACS (and the IOMMU) for it.
    {"status=4 ", code::kNcclIbLocalProtection,
     "the NIC was refused access to a local buffer (IBV_WC_LOC_PROT_ERR): with GPUDirect RDMA, PCIe ACS or the "
     "IOMMU redirecting the NIC's peer-to-peer access to GPU memory through the root complex, which refuses it",
     "disable ACS on the PCIe switches between the GPUs and the NICs (`lspci -vvv | grep ACSCtl`: SrcValid+ means "
     "on; BIOS, or setpci at boot), or set the IOMMU to passthrough (iommu=pt); NCCL_NET_GDR_LEVEL=LOC confirms it "
     "by turning GPUDirect RDMA off"},
    {"with error 4,", code::kNcclIbLocalProtection, "", ""},
    {"Failed status 4:", code::kNcclIbLocalProtection, "", ""},
    {"Failed status-local protection error (4)", code::kNcclIbLocalProtection, "", ""},
    // UCX's mlx5 completion errors by their syndrome ("Local protection error on
    // mlx5_0:1/IB (synd 0x4 vend 0x33 hw_synd 0/0)").
    {"Local protection error on ", code::kNcclIbLocalProtection, "", ""},
    // libibverbs' ibv_wc_status_str(), as UCX's verbs transports print it ("send completion with
    // error: local protection error").
    {"completion with error: local protection error", code::kNcclIbLocalProtection, "", ""},
    // UCX unable to make an address handle to a peer from one of its RDMA ports ("ib_device.c:1319
    // UCX ERROR ibv_create_ah(dlid=49152 sl=0 port=1 src_path_bits=0 dgid=fe80::a8a4:c3ff:febb:1d33
    // sgid_index=7 traffic_class=106) on rocep129s0f1 failed: Invalid argument"): UCX uses every
    // RDMA device it finds, and the peer's address is not reachable from that one.
    {"ibv_create_ah(", code::kTopoHcaFilter,
     "UCX could not make an address handle to a peer from one of its RDMA ports (ibv_create_ah failed): the peer's "
     "address (its GID) is not reachable from that port; UCX uses every RDMA device it finds, so a second NIC on "
     "another network (a RoCE port beside the InfiniBand fabric, a management NIC) or a port whose GID is "
     "link-local (fe80::) is tried for peers it cannot reach",
     "restrict UCX to the NICs of the fabric the peers use: UCX_NET_DEVICES=mlx5_0:1 (`ucx_info -d` lists the "
     "devices; Open MPI passes it with -x), NCCL_IB_HCA for NCCL; `show_gids` shows each port's GIDs, and a RoCE "
     "port needs a routable (IPv4 or global IPv6) RoCE v2 GID"},
    // Any other failed completion: the status names it (ibv_wc_status).
    {"Got completion", code::kNcclIbCompletionError,
     "an RDMA operation completed with an error status (ibv_wc_status: 1 a local length error, a message longer "
     "than its buffer or than the path MTU, as when two hosts' MTUs differ; 5 is a flush, the queue pair already in "
     "error, so read the first line; 10 and 11 the peer refused the access or the operation; 13 the receiver had "
     "no buffer posted)",
     "read the first completion error of the job (its status and vendor err), then the NICs' counters and dmesg on "
     "both hosts of that queue pair"},
    // UCX's mlx5 completion errors by their syndrome: "Remote access error on mlx5_0:1/IB
    // (synd 0x13 vend 0x88 hw_synd 0/0)", "Receive-no-ready retry count exceeded on ...".
    {"Remote access error on ", code::kNcclIbCompletionError, "", ""},
    // perftest's for any other status (its number, or its words then the number).
    {" syndrom 0x", code::kNcclIbCompletionError, "", ""},
    {"Remote operation error on ", code::kNcclIbCompletionError, "", ""},
    {"Local length error on ", code::kNcclIbCompletionError, "", ""},
    {"Receive-no-ready retry count exceeded", code::kNcclIbCompletionError, "", ""},
    // EFA's (efa_errno.h): a registration the operation may not use, a receiver with no
    // buffer posted.
    {"Invalid local key (LKEY)", code::kNcclIbCompletionError, "", ""},
    {"RKEY not registered or does not match remote IOVA", code::kNcclIbCompletionError, "", ""},
    {"Local memory registration is invalid, has insufficient access flags", code::kNcclIbCompletionError, "", ""},
    {"Remote memory registration is invalid, has insufficient access flags", code::kNcclIbCompletionError, "", ""},
    {"Destination resource not ready (no work queue entries posted", code::kNcclIbCompletionError, "", ""},
    // Registering memory with the NIC refused for want of locked memory (misc/ibvwrap.cc:
    // "Call to ibv_reg_mr failed with error Cannot allocate memory", ENOMEM): RLIMIT_MEMLOCK.
    {"reg_mr failed with error Cannot allocate memory", code::kNcclIbMemlock,
     "the NIC could not register the job's buffers or queues (a verbs call such as ibv_reg_mr or ibv_create_cq "
     "refused: Cannot allocate memory): the process may lock too little memory (RLIMIT_MEMLOCK, `ulimit -l`), which "
     "RDMA needs for every registered buffer and queue",
     "run `ulimit -l` where the ranks run (inside the container, under the launcher): it must be unlimited; set "
     "memlock unlimited in /etc/security/limits.conf and the job's launcher (Slurm's PropagateResourceLimits, "
     "docker --ulimit memlock=-1, the Kubernetes runtime's default)"},
    {"reg_mr_iova2 failed with error Cannot allocate memory", code::kNcclIbMemlock, "", ""},
    // AWS's OFI plugin refused by libfabric when registering a buffer ("NET/OFI Unable to
    // register memory (type = 2) for device 4. RC: -22, Error: Invalid argument"; type 2 is
    // GPU memory): NCCL 2.19 and later with the libfabric of an EFA installer before 1.29.1
    // (aws-ofi-nccl#584), the plugin's maintainers' answer.
    {"Unable to register memory", code::kNcclOfiRegisterFailed,
     "NCCL's OFI plugin (AWS EFA) could not register a buffer with libfabric: with RC -22 (Invalid argument) on GPU "
     "memory (type = 2), the known incompatibility of NCCL 2.19 and later with the libfabric of EFA installers "
     "before 1.29.1; otherwise GPUDirect RDMA unavailable to libfabric (no nvidia-peermem or dma-buf), too little "
     "locked memory, or, with Cannot allocate memory (ENOMEM) from the EFA provider, the EFA device's limit on "
     "registered host pages, which much memory in 4 KiB pages reaches long before memory runs out; GPU memory "
     "refused as not supported (Operation not supported) is also a registering thread with no current CUDA "
     "context, as libfabric exports the memory's dma-buf through the CUDA driver API, which needs one",
     "compare `fi_info --version` (and the EFA installer's version) with the NCCL the job loads (a framework's "
     "wheel brings its own): upgrade the EFA installer to 1.29.1 or later, or set FI_EFA_SET_CUDA_SYNC_MEMOPS=0 as "
     "the plugin's maintainers advise; check `ulimit -l` and that GPUDirect RDMA is available to libfabric; for "
     "ENOMEM, back the registered memory with huge pages (2 MiB) so that fewer pages count against the device; a "
     "program registering GPU memory itself makes the device's primary context current on that thread first "
     "(cuDevicePrimaryCtxRetain, cuCtxSetCurrent)"},
    // libfabric's EFA provider refused a registration (efa_mr_reg_impl's "Unable to register MR:
    // Cannot allocate memory"): the device's limit on registered host pages, or memlock.
    {"Unable to register MR: Cannot allocate memory", code::kNcclOfiRegisterFailed, "", ""},
    // A program registering GPU memory through libfabric itself, refused (Mooncake's
    // "fi_mr_regattr failed for GPU memory ...: Operation not supported").
    {"fi_mr_reg", code::kNcclOfiRegisterFailed, "", ""},
    // NET/IB's asynchronous events (net_ib: "Got async event : port error" before 2.19,
    // "Got non-fatal async event: port error(10)" and "async fatal event: ..." since).
    // A queue pair's access violation (IBV_EVENT_QP_ACCESS_ERR, "async fatal event on QP
    // (0x..): local access violation work queue error" since 2.19): NCCL from 2.20 sets each
    // end's QP to its own port's MTU rather than the lower of the two, so two hosts whose MTUs
    // differ fail this way (nccl#1524, and NCCL's fix in pull request 2135).
    {"local access violation work queue error", code::kNcclIbQpAccessError,
     "a queue pair received a request it may not serve (IBV_EVENT_QP_ACCESS_ERR, local access violation): most "
     "often the two hosts' path MTUs differ (NCCL 2.20 and later set each end's queue pair to its own port's MTU, "
     "no longer the lower of the two), else an RDMA access to memory the peer did not register for it",
     "compare the ports' MTU on every host (`ibv_devinfo | grep active_mtu`; on RoCE the interface's MTU, `ip link`, "
     "which sets it) and make them equal; the switch ports' MTU must allow it too"},
    {"catastrophic error", code::kNcclIbFatalEvent,
     "the NIC reported a fatal asynchronous event (a catastrophic device error, or a queue pair or completion "
     "queue in error): the adapter or its firmware failed under the job",
     "read dmesg on that host for mlx5 health or firmware errors (`mlx5_core ... health`, syndrome) around the "
     "time; the adapter usually needs a reset (a reboot, or mlxfwreset) and its firmware checked"},
    {"encountered a fatal error (detected in", code::kNcclIbFatalEvent, "", ""},
    {"async fatal event", code::kNcclIbFatalEvent, "", ""},
    {"async event : port error", code::kNcclIbPortError,
     "a NIC port went down while the job used it (NET/IB's asynchronous event: port error): a cable, transceiver "
     "or switch port, or the subnet manager taking the port down",
     "check the port's state and link_downed counter (`ibstat`, `cat /sys/class/infiniband/*/ports/*/counters/"
     "link_downed`), the switch side, and dmesg for link down/up lines; a port that flaps needs its cable or "
     "transceiver replaced"},
    {"async event: port error", code::kNcclIbPortError, "", ""},
    {"async error event: port error", code::kNcclIbPortError, "", ""},  // net_ib.cc 2.19-2.21
    // UCX's asynchronous events: "IB Async event on mlx5_0: port error on port 1".
    {"port error on port", code::kNcclIbPortError, "", ""},
    // NET/IB joining two NICs that cannot talk: different link layers or capabilities
    // ("Attempted to connect incompatible devices: [0]mlx5_0:1/IB and [0]mlx5_2:1/RoCE").
    {"incompatible devices", code::kNcclIbIncompatibleDevices,
     "NCCL paired NICs of different kinds across (or within) hosts: an InfiniBand port with a RoCE one, or NICs "
     "whose capabilities differ, so the two ends cannot connect",
     "make every host's NCCL_IB_HCA list the same kind of NIC in the same order (`ibv_devinfo | grep "
     "link_layer`), and leave out management or storage NICs of the other kind"},
    {"device is incompatible with the local", code::kNcclIbIncompatibleDevices, "", ""},
    // net_ib.cc 2.19-2.22: "NET/IB : Can't connect net devices with different link_layer. i=0
    // remMeta.ndevs=1 link_layer=1 rem_link_layer=2" (and "Can't merge", "Trying to merge
    // multiple devices together with different link_layer properties").
    {"with different link_layer", code::kNcclIbIncompatibleDevices, "", ""},
    // NET/IB finding a device in sysfs that it cannot open (net_ib.cc: "NET/IB : Unable to
    // open device mlx5_0"): its verbs device file missing or refused, as in a container
    // given the NICs' sysfs but not /dev/infiniband.
    {"Unable to open device", code::kNcclIbDeviceUnopened,
     "NCCL sees an RDMA device but cannot open it (ibv_open_device failed): its verbs device file "
     "(/dev/infiniband/uverbsN) is missing or not readable where the rank runs, as in a container given the host's "
     "/sys but not the devices; NCCL then leaves that NIC out, or falls back to sockets",
     "`ls -l /dev/infiniband` and `ibv_devinfo` where the ranks run (inside the container): pass the devices in "
     "(docker --device=/dev/infiniband, the RDMA device plugin's resource on Kubernetes) and check their "
     "permissions"},
    // NCCL_COMM_ID's host name not resolving (misc/socket.cc, ncclSocketGetAddrFromString:
    // "Net : error encountered when getting address info : Name or service not known").
    {"error encountered when getting address info", code::kNcclCommIdUnresolved,
     "NCCL could not resolve the root's host name (getaddrinfo failed for NCCL_COMM_ID's host:port): the name does "
     "not resolve on this host, or not yet (a Kubernetes headless service before its pods are ready)",
     "compare NCCL_COMM_ID with `getent hosts NAME` on the failing host; use an address, or a name every host "
     "resolves (the launcher's MASTER_ADDR), and wait for the service's DNS record before starting the ranks"},
    // A multi-node NVLink domain NCCL cannot use (mnnvl.cc: "MNNVL (cliqueSize 72) is
    // available but not working on this system. Check the IMEX channel configuration").
    {"is available but not working on this system", code::kNvlinkImexUnavailable,
     "NCCL found a multi-node NVLink domain (MNNVL, as GB200 NVL72) but cannot share memory across it: the IMEX "
     "service is not running or not connected on every node, or the job was given no IMEX channel "
     "(/dev/nvidia-caps-imex-channels)",
     "check `nvidia-imex-ctl -N` (every node of the domain Ready and connected) and that the job sees an IMEX "
     "channel (/dev/nvidia-caps-imex-channels/channel0; on Kubernetes, a ComputeDomain of NVIDIA's DRA driver); "
     "NCCL_MNNVL_ENABLE=0 runs without the multi-node NVLink meanwhile"},
    {"Check the IMEX configuration", code::kNvlinkImexUnavailable, "", ""},  // 2.22-2.23's wording
    {"Call to ibv_", code::kNcclIbvFailed, "a verbs call failed: the RDMA device or its resources",
     "check the NIC (ibv_devinfo, dmesg for mlx5 errors), locked-memory limits (ulimit -l) and the firmware"},
    // A receive larger than the buffer posted for it ("Message truncated : received 2048 bytes
    // instead of 1024"): the ranks do not agree on the operation.
    {"Message truncated", code::kNcclMessageTruncated,
     "a rank received more data than it had posted a buffer for: the ranks called different collectives, or the "
     "same one with different counts or data types, in the same slot (an application mismatch), or run NCCL "
     "builds or protocol settings that differ",
     "check that every rank issues the same collectives in the same order with the same counts and types "
     "(NCCL_DEBUG_SUBSYS=COLL lists them; PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL checks them), and that "
     "NCCL_PROTO, NCCL_ALGO and the NCCL version are the same on every rank"},
    // PyTorch's own check of the same (TORCH_DISTRIBUTED_DEBUG=DETAIL, or its collective
    // fingerprints): "Detected mismatch between collectives on ranks. Rank 1 is running
    // collective: CollectiveFingerPrint(SequenceNumber=21, OpType=BROADCAST, ...".
    {"Detected mismatch between collectives", code::kNcclCollectiveMismatch,
     "PyTorch found the ranks calling different collectives in the same slot (its fingerprints differ: the "
     "operation, the tensor shapes or types): code that runs a collective on some ranks only, or with rank-dependent "
     "shapes (a dictionary of metrics with different keys per rank), hangs or fails the job",
     "read the two fingerprints the error prints (sequence number, OpType, TensorShape) and find the code path that "
     "differs between those ranks; every rank must issue the same collectives in the same order with the same "
     "shapes"},
    // PyTorch's shape check under TORCH_DISTRIBUTED_DEBUG=DETAIL ("Error when verifying shape
    // tensors for collective ALLREDUCE on rank 0. This likely indicates that input shapes into
    // the collective are mismatched across ranks."), Accelerate's debug mode ("Cannot apply
    // desired operation due to shape mismatches. All shapes across devices must be valid.").
    {"Error when verifying shape tensors", code::kNcclCollectiveMismatch, "", ""},
    {"due to shape mismatches", code::kNcclCollectiveMismatch, "", ""},
    // NCCL's own check of the same over InfiniBand, 2.3 to 2.20 ("NET/IB : req 1/1 tag 7 peer
    // 10.0.0.2<37457> collective mismatch error, local size 1048576 remote size 262144").
    {"collective mismatch error", code::kNcclCollectiveMismatch,
     "NCCL's InfiniBand transport found a peer sending a different size than this rank posted (\"collective "
     "mismatch error, local size ... remote size ...\"): the ranks called different collectives, or the same one "
     "with different counts or data types, in the same slot",
     "check that every rank issues the same collectives in the same order with the same counts and types "
     "(NCCL_DEBUG_SUBSYS=COLL lists them; PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL checks them)"},
    // CUDA's out of memory inside NCCL: "Cuda failure 'out of memory'", "Failed to CUDA calloc
    // 4194304 bytes", cudaErrorMemoryAllocation (2).
    {"out of memory", code::kNcclCudaOom,
     "NCCL could not allocate GPU memory for its buffers and connections: the GPU's memory is taken (the "
     "application's tensors, a framework's caching allocator, another process on the same GPU)",
     "see what holds the GPU (`nvidia-smi --query-compute-apps=pid,used_memory --format=csv`); leave NCCL room "
     "(create the communicator before the model takes the memory, a smaller NCCL_BUFFSIZE, fewer channels with "
     "NCCL_MAX_NCHANNELS), and check that no two ranks share a GPU by mistake"},
    {"Failed to CUDA calloc", code::kNcclCudaOom, "", ""},
    {"Failed to CUDA malloc", code::kNcclCudaOom, "", ""},
    // The driver older than the CUDA runtime the program carries (cudaErrorInsufficientDriver, 35).
    {"driver version is insufficient", code::kNcclCudaDriverTooOld,
     "the NVIDIA driver is older than the CUDA runtime the program was built with (CUDA error 35, "
     "cudaErrorInsufficientDriver): CUDA refuses the GPU",
     "upgrade the driver to one that supports the program's CUDA version (`nvidia-smi` prints the newest CUDA "
     "the driver supports), install the CUDA forward-compatibility package on a datacenter GPU, or use a build "
     "of the framework for an older CUDA"},
    {"Minimum requirement is", code::kNcclCudaDriverTooOld, "", ""},  // cudawrap.cc: the driver's version
    // cudawrap.cc (2.12 to 2.18) when libcuda lacks an entry point the runtime needs
    // ("Failed to load CUDA missing symbol cuGetProcAddress"): a driver older than CUDA 11.3.
    {"Failed to load CUDA missing symbol", code::kNcclCudaDriverTooOld, "", ""},
    {"cudaErrorInsufficientDriver", code::kNcclCudaDriverTooOld, "", ""},
    // A GPU index the process cannot see (cudaErrorInvalidDevice, 101).
    {"invalid device ordinal", code::kNcclInvalidDevice,
     "a rank asked for a GPU its process cannot see (invalid device ordinal): more ranks on the host than GPUs "
     "visible to them, CUDA_VISIBLE_DEVICES and the local rank disagreeing, or a local rank computed wrong (hosts "
     "reporting the same host name are counted as one, so their ranks number past the GPUs)",
     "compare the ranks per host with `nvidia-smi -L` and CUDA_VISIBLE_DEVICES in the job's environment; each "
     "rank should take the GPU of its local rank (LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID) among "
     "those visible"},
    // Two ranks of one communicator on one GPU (init.cc: "Duplicate GPU detected : rank 1 and
    // rank 0 both on CUDA device 1b000").
    {"Duplicate GPU detected", code::kNcclDuplicateGpu,
     "two ranks of one communicator use the same GPU: the ranks of a host did not each select their own (every "
     "rank on device 0, or CUDA_VISIBLE_DEVICES the same for all), or two nodes NCCL took for one (the same "
     "hostname or host hash on both, as cloned images and containers give) with their GPUs enumerated alike",
     "set each rank's device from its local rank (torch.cuda.set_device(LOCAL_RANK) before init_process_group, "
     "or CUDA_VISIBLE_DEVICES per rank in the launcher); check that the ranks per host match its GPUs, that each "
     "node has its own hostname (NCCL_HOSTID tells them apart otherwise), and CUDA_DEVICE_ORDER=PCI_BUS_ID"},
    // NCCL 2.30's wording (init.cc).
    {"Multiple Ranks are using the same GPU", code::kNcclDuplicateGpu, "", ""},
    // The same check's words quoted without NCCL's prefix ("rank 27 and rank 19 both on CUDA
    // device 53000"), as a framework or a write-up gives them.
    {" both on CUDA device ", code::kNcclDuplicateGpu, "", ""},
    // NCCL's topology search gave up: 2.3-2.4's rings.cu ("Could not create rings, falling
    // back on simple ring") and 2.5 on's search.cc ("Could not find a path for pattern 4,
    // falling back to simple order").
    {"falling back on simple ring", code::kNcclTopologyFallback,
     "NCCL could not build its rings or trees from the topology and fell back to the ranks' order, which ignores "
     "NVLink, PCIe switches and NICs: most often a VM whose PCI topology NCCL cannot read, or an NCCL too old "
     "(before 2.5) for the machine",
     "load a newer NCCL; in a VM give NCCL the real topology (NCCL_TOPO_FILE, as the clouds' images do) and check "
     "`nvidia-smi topo -m` inside it"},
    {"falling back to simple order", code::kNcclTopologyFallback, "", ""},
    // NCCL 2.25-2.26's fallback after that search naming NET 0, which NIC fusion had merged
    // away (graph/topo.h: "Could not find NET with id 0"), then an internal error
    // (NVIDIA/nccl#1748: fixed in 2.27, where fusion keeps NET/0).
    {"Could not find NET with id", code::kNcclKnownBug,
     "a known bug of NCCL 2.25 and 2.26 (NVIDIA/nccl#1748): where its topology search finds no path for a graph "
     "(\"Could not find a path for pattern N, falling back to simple order\"), the fallback names NET 0, which NIC "
     "fusion (a host's NIC ports merged into one NET) has taken away, and the communicator fails with an internal "
     "error; the machine is not at fault",
     "load NCCL 2.27 or later (a framework's wheel or container carries its own NCCL: PyTorch 2.8 and NGC 25.05 and "
     "later have 2.27); NCCL_NET_MERGE_LEVEL=LOC, which turns fusion off, did not help everyone in that thread"},
    // NCCL's Unix-domain sockets (misc/ipcsocket.cc, for cuMem handles) named after the rank and
    // the process, so communicators split from one another in a process (ncclCommSplit: FSDP,
    // Megatron) bound the same name: "UDS: Binding to socket /tmp/nccl-socket-2-e647f8d8e15809a1
    // failed : Address already in use (98)" (NVIDIA/nccl#1185, fixed in 2.20.5).
    {"UDS: Binding to socket", code::kNcclKnownBug,
     "a known bug of NCCL before 2.20.5 (NVIDIA/nccl#1185): the Unix-domain socket each process binds to pass GPU "
     "memory handles was named after its rank and process only, so a communicator split from another "
     "(ncclCommSplit, as FSDP and Megatron create them) bound the same name and failed with 'Address already in "
     "use'; the machine is not at fault",
     "load NCCL 2.20.5 or later (a framework's wheel or container carries its own NCCL: `python -c 'import torch; "
     "print(torch.cuda.nccl.version())'`)"},
    // A segment whose name is empty (misc/shmutils.cc: "Error while attaching to shared memory
    // segment /dev/shm/nccl- (size 0), error: No such file or directory (2)"): not /dev/shm
    // full but a peer's descriptor read as another kind. From 2.26.3 each process probes cuMem
    // host memory on its GPU's NUMA node alone and falls back to /dev/shm where that fails; ranks
    // of one host that disagree read each other's handles wrongly (NVIDIA/nccl#2190).
    {"shared memory segment /dev/shm/nccl- (size 0)", code::kNcclKnownBug,
     "a known problem of NCCL 2.26.3 and later (NVIDIA/nccl#2190): the ranks of a host disagree on where their "
     "shared host buffers live; each probes cuMem host memory on its GPU's NUMA node by itself, and where that "
     "works for some GPUs' NUMA nodes and not for others (a NUMA node without CPUs, an odd cpumap), a rank that fell "
     "back to /dev/shm reads its peer's cuMem handle as a segment name, an empty one; /dev/shm is not full",
     "set NCCL_CUMEM_HOST_ENABLE=0 on every rank, so that all of them use /dev/shm; `numactl -H` and `nvidia-smi "
     "topo -m` (NUMA Affinity) show the GPUs' NUMA nodes; the log's 'CUMEM imported' beside 'MMAP imported' lines "
     "on one host are the two paths"},
    // aws-ofi-nccl's tuner (in the net plugin, loaded by default on AWS from 1.16) refusing to
    // start where NCCL_ALGO or NCCL_PROTO is set, through the v1 and v2 tuner interfaces of
    // NCCL before 2.21 (src/tuner/nccl_ofi_tuner.cpp); the plugin itself sets NCCL_PROTO=simple
    // where EFA does not deliver bytes in order (p4d), so NCCL's init fails with invalid
    // argument. aws-ofi-nccl#982; pull request 986 falls back to NCCL's internal tuner.
    {"tuner plugin can not be loaded when explicitly choosing", code::kNcclKnownBug,
     "a known bug of aws-ofi-nccl 1.16 with NCCL before 2.21 (aws/aws-ofi-nccl#982): its tuner, loaded with the "
     "net plugin, refuses to start where NCCL_ALGO or NCCL_PROTO is set, and on instances whose EFA does not "
     "deliver bytes in order (p4d, p4de) the plugin sets NCCL_PROTO=simple itself, so every communicator fails "
     "with invalid argument; the machine is not at fault",
     "load NCCL 2.21 or later, or an aws-ofi-nccl carrying the fix (aws-ofi-nccl pull request 986, which falls back "
     "to NCCL's internal tuner); `NCCL INFO NET/OFI Adding NCCL_PROTO=simple to environment` shows the plugin set it"},
    // NCCL's socket connect retry before 2.24 (misc/socket.cc): a connect refused or timed out
    // is retried, and the retry's bug turns that first error into ECONNABORTED ("socketStartConnect:
    // Connect to 10.45.234.83<47527> failed : Software caused connection abort"), NVIDIA/nccl#1515.
    // The connection failed all the same: a socket_connect, in the bug's words.
    {"failed : Software caused connection abort", code::kNcclSocketConnect,
     "a socket connection failed, its error hidden by a known bug of NCCL's socket connect before 2.24 "
     "(NVIDIA/nccl#1515): a connection refused or timed out is retried, and the retry reports \"Software caused "
     "connection abort\" instead; most often the peer was not listening (its rank crashed, exited or never reached "
     "that point) or not reachable on that address (an interface of another network)",
     "look at the peer named (its rank's log: a crash or an earlier error), that every rank reaches the others on "
     "NCCL_SOCKET_IFNAME's interface and that no firewall refuses the port; NCCL 2.24 or later reports the real "
     "error"},
    // A GPU kernel faulted: NCCL's or one queued before it on the stream (CUDA reports the
    // first error at the next call): cudaErrorIllegalAddress (700), cudaErrorLaunchFailure (719),
    // misaligned address (716), illegal instruction (715).
    {"an illegal memory access", code::kNcclCudaKernelFault,
     "a GPU kernel faulted (an illegal memory access, or an unspecified launch failure): NCCL's own, or the "
     "application's kernel before it on the stream, as CUDA reports the first error at the next call; over "
     "NVLink or PCIe peer access also a fault of the path between GPUs",
     "read dmesg on that host for the Xid at the same time (13 and 31: the application or NCCL's access; 43 "
     "after a fault; 74 and 79: NVLink or the GPU lost); rerun with CUDA_LAUNCH_BLOCKING=1 to see which kernel "
     "faults, and with NCCL_P2P_DISABLE=1 to tell a peer-access path from the code"},
    {"unspecified launch failure", code::kNcclCudaKernelFault, "", ""},
    {"misaligned address", code::kNcclCudaKernelFault, "", ""},
    {"an illegal instruction was encountered", code::kNcclCudaKernelFault, "", ""},
    {"cudaErrorIllegalAddress", code::kNcclCudaKernelFault, "", ""},
    {"cudaErrorLaunchFailure", code::kNcclCudaKernelFault, "", ""},
    {"CUDA_ERROR_ILLEGAL_ADDRESS", code::kNcclCudaKernelFault, "", ""},
    // GPU memory with an uncorrectable error (cudaErrorECCUncorrectable, 214).
    {"uncorrectable ECC error", code::kNcclCudaEcc,
     "the GPU's memory had an uncorrectable ECC error: the GPU is faulty or needs its pages retired",
     "read `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER` and dmesg (Xid 48, 63, 64, 94, 95) on that host; "
     "drain it, reset the GPU (or reboot) to remap the rows, and replace it if errors recur"},
    {"cudaErrorECCUncorrectable", code::kNcclCudaEcc, "", ""},
    {"CUDA_ERROR_ECC_UNCORRECTABLE", code::kNcclCudaEcc, "", ""},
    // No GPU for CUDA at all (cudaErrorNoDevice, 100; the driver's stub library, 34).
    {"no CUDA-capable device is detected", code::kNcclNoCudaDevice,
     "CUDA finds no GPU in the process: none visible in the container or cgroup, CUDA_VISIBLE_DEVICES empty or "
     "wrong, or the driver's library a stub without a driver behind it",
     "run `nvidia-smi -L` where the ranks run (inside the container): pass the GPUs in (--gpus, the device "
     "plugin's resource request), check CUDA_VISIBLE_DEVICES, and that the driver is loaded on the host"},
    {"cudaErrorNoDevice", code::kNcclNoCudaDevice, "", ""},
    {"CUDA driver is a stub library", code::kNcclNoCudaDevice, "", ""},
    // Every GPU taken (cudaErrorDevicesUnavailable, 46): exclusive compute mode, or the GPU in
    // a state where it accepts no context.
    {"busy or unavailable", code::kNcclGpuUnavailable,
     "CUDA found the GPUs but could not use them (all CUDA-capable devices are busy or unavailable): the GPU is "
     "in exclusive-process compute mode and another process holds it, or it is in a bad state",
     "`nvidia-smi -q -d COMPUTE` shows the compute mode and `nvidia-smi` the processes on the GPU; two ranks on "
     "one GPU need the default compute mode; a GPU that no process holds needs a reset"},
    {"cudaErrorDevicesUnavailable", code::kNcclGpuUnavailable, "", ""},
    // Code not built for this GPU (cudaErrorNoKernelImageForDevice, 209; invalid device
    // function, 98): an NCCL or framework older than the GPU's architecture.
    {"no kernel image is available", code::kNcclNoKernelImage,
     "the NCCL (or the program) in use carries no code for this GPU's architecture: it was built before the GPU "
     "existed or without its compute capability",
     "compare the GPU's compute capability (`nvidia-smi --query-gpu=compute_cap --format=csv`) with the NCCL and "
     "framework build (a framework's wheel bundles its own NCCL); install a build for that architecture"},
    {"invalid device function", code::kNcclNoKernelImage, "", ""},
    {"cudaErrorNoKernelImageForDevice", code::kNcclNoKernelImage, "", ""},
    // NVLink-connected GPUs without peer access (graph/paths.cc: "P2P is disabled between
    // NVLINK connected GPUs 1 and 0. This should not be the case ... hardware issue").
    {"P2P is disabled between NVLINK connected GPUs", code::kNcclP2pDisabledNvlink,
     "CUDA refuses peer access between GPUs that NVLink connects: NCCL says this points at hardware (an NVLink "
     "down, or the NVSwitch fabric not up), and stops unless NCCL_IGNORE_DISABLED_P2P=1",
     "check the GPUs' links (`nvidia-smi nvlink -s`, `nvidia-smi topo -p2p n`), Fabric Manager on NVSwitch "
     "systems (`systemctl status nvidia-fabricmanager`) and dmesg for Xid 74 or 79; in a VM or container, that "
     "peer access is allowed"},
    // NCCL's invalid-usage result (ncclInvalidUsage: "invalid usage (run with NCCL_DEBUG=WARN
    // for details)" in a framework's error): the program called NCCL wrongly.
    {"invalid usage", code::kNcclInvalidUsage,
     "NCCL refused a call as invalid usage: the ranks disagree (a rank number outside the communicator, "
     "different rank counts, two ranks on one GPU), or a call on a communicator in the wrong state",
     "rerun with NCCL_DEBUG=WARN: the warning before it names the check that failed; check the launcher's "
     "world size and rank numbering against the ranks started"},
    // NCCL's own checks of how it is called and launched (init.cc, bootstrap.cc, argcheck.cc).
    {"Invalid rank requested", code::kNcclInvalidUsage, "", ""},
    {"improper usage of ncclCommInitRank", code::kNcclInvalidUsage, "", ""},
    {"ranks has already checked in", code::kNcclInvalidUsage, "", ""},
    {"mismatch in info from procs", code::kNcclInvalidUsage, "", ""},
    {"Attempt to use communicator before the previous operation", code::kNcclInvalidUsage, "", ""},
    {"root should be in the", code::kNcclInvalidUsage, "", ""},
    {"is not a valid pointer", code::kNcclInvalidUsage, "", ""},
    {"mismatchs with NCCL device", code::kNcclInvalidUsage, "", ""},
    {"ncclInvalidUsage", code::kNcclInvalidUsage, "", ""},
    // NCCL's topology XML lacking what it needs (graph/xml.h: "Attribute arch of node cpu not
    // found"): a topology file written for another machine, or for all of its GPUs when only
    // some are visible (a net plugin's static profile, an image's NCCL_TOPO_FILE).
    {"of node", code::kNcclTopoFileInvalid,
     "NCCL's topology or graph file does not fit this machine (an attribute NCCL needs missing from its XML, a "
     "device it names absent, the file unreadable or of another version): a file (NCCL_TOPO_FILE or "
     "NCCL_GRAPH_FILE, set in the environment, /etc/nccl.conf, or by a net plugin's static profile) made for another "
     "machine, or for all of its GPUs while only some are visible",
     "look for `NCCL_TOPO_FILE` or `NCCL_GRAPH_FILE set by environment` in the INFO log; unset it to let NCCL "
     "detect the machine, or regenerate it there (NCCL_TOPO_DUMP_FILE, NCCL_GRAPH_DUMP_FILE from a run without it); "
     "a net plugin that loads its own static profile (older aws-ofi-nccl on p4d/p5) needs a version that builds it "
     "from the devices present"},
    {"XML Parse", code::kNcclTopoFileInvalid, "", ""},  // graph/xml.cc reading NCCL_TOPO_FILE
    {"XML Topology has wrong version", code::kNcclTopoFileInvalid, "", ""},
    // NCCL_GRAPH_FILE (graph/xml.cc, graph/search.cc): unreadable, of another version, or
    // naming a NIC this machine does not have ("XML Import Channel : dev 3 not found.").
    {"XML Graph has wrong version", code::kNcclTopoFileInvalid, "", ""},
    {"Could not open XML graph file", code::kNcclTopoFileInvalid, "", ""},
    {"XML Import Channel", code::kNcclTopoFileInvalid, "", ""},
    // NCCL walking sysfs for a device's PCI path and not finding it (graph/xml.cc: "Could not
    // find real path of /sys/class/pci_bus/0000:01/../../0000:01:00.0").
    {"Could not find real path", code::kNcclPciSysfsMissing,
     "NCCL could not find a device's PCI path in sysfs, so it cannot build the machine's topology: /sys does not "
     "show the GPU or NIC as the host has it (WSL2, where the GPU is not on a PCI bus, a container with a partial "
     "/sys, a VM whose devices sit behind a virtual bus)",
     "compare the path with `ls -l /sys/class/pci_bus/` and `lspci` where the job runs; give the container the "
     "host's /sys (read-only), or give NCCL its topology (NCCL_TOPO_FILE); under WSL2 use an NCCL release that "
     "supports it"},
    // NCCL's interface search found nothing to use (bootstrap.cc, net_socket.cc): the
    // NCCL_SOCKET_IFNAME filter matches no interface with an address on this host.
    {"no socket interface found", code::kNcclSocketIfnameNoMatch,
     "NCCL found no network interface to use (bootstrap or NET/Socket): NCCL_SOCKET_IFNAME names none this host "
     "has, or the only ones left are loopback or docker bridges it skips",
     "compare NCCL_SOCKET_IFNAME with `ip -br addr` on the failing host (a prefix such as eth matches eth0, =eth0 "
     "only that name, ^ excludes); unset it to let NCCL choose, or name the interface the hosts reach each other "
     "on; in a Kubernetes pod, check that its network attachments (net1 ...) exist"},
    {"No usable listening interface found", code::kNcclSocketIfnameNoMatch, "", ""},
    // misc/socket.cc (2.4 to 2.18), NCCL_COMM_ID's address in no local interface's subnet:
    // "Net : No interface found in the same subnet as remote address 10.0.0.5<45123>".
    {"No interface found in the same subnet", code::kNcclSocketIfnameNoMatch, "", ""},
    {"verify NCCL_OOB_NET_IFNAME", code::kNcclSocketIfnameNoMatch, "", ""},
    {"NET/IB : No IP interface found", code::kNcclSocketIfnameNoMatch, "", ""},
    {"NET/Socket : no interface found", code::kNcclSocketIfnameNoMatch, "", ""},
    // Older NCCL went on without an interface and failed at its first socket: the address
    // it was given has no family ("Socket creation failed : Address family not supported by
    // protocol", EAFNOSUPPORT), so there was none to take it from.
    {"Address family not supported", code::kNcclSocketIfnameNoMatch, "", ""},
    // ncclUnhandledCudaError's text, as NCCL and the frameworks print it ("RuntimeError: NCCL
    // error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)"): a CUDA call under
    // NCCL failed. Alone, it names no call; NCCL's own "Cuda failure 'X'" lines, read by their
    // own entries, say which.
    {"unhandled cuda error", code::kNcclCudaError,
     "a CUDA call under NCCL failed: a GPU, its driver or the CUDA runtime on one of the hosts (where every other "
     "host runs the same software, most often one node's GPU)",
     "run with NCCL_DEBUG=INFO to see which CUDA call failed on which rank; on that rank's host read the kernel log "
     "for Xid errors (`dmesg -T | grep -i xid`) and run `nvidia-smi -q -d ECC,RETIRED_PAGES`; drain the host whose "
     "GPU fails, as a job without it then runs"},
    {"unhandled system error", code::kNcclSystemError,
     "an operating-system call failed (often the network or /dev/shm)",
     "rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET to see which call; check ulimits and /dev/shm"},
    {"remote process exited or there was a network error", code::kNcclPeerLost,
     "a peer rank died or the network between them failed",
     "find the rank that failed first (its own log, dmesg for Xid/OOM) before blaming the network"},
    {"remote process exiting", code::kNcclPeerLost, "", ""},  // PyTorch's ncclRemoteError text
    // PyTorch's wait for rank 0's ncclUniqueId in the c10d store ended by the store's host
    // closing the connection ("[1] is setting up NCCL communicator and retrieving ncclUniqueId
    // from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection
    // reset by peer").
    {"got error: Connection reset by peer", code::kNcclPeerLost,
     "the c10d store's host closed the connection while this rank waited on it (for rank 0's ncclUniqueId): the "
     "process that held the store, rank 0 or the launcher's agent on the master node, exited or crashed",
     "read rank 0's (the master node's) own log for why it exited first: that error is the cause"},
    // NCCL's proxy service failing an operation with ncclRemoteError (6) as its result code
    // ("[Proxy Service] Failed to execute operation Connect from rank 3, retcode 6").
    {"retcode 6", code::kNcclPeerLost, "", ""},
    {"Connection closed by remote peer", code::kNcclPeerLost, "", ""},
    // Gloo's pair losing its peer ("[gloo/transport/tcp/pair.cc:598] Connection closed by peer
    // [10.0.0.1]:3456"): that process exited.
    {"Connection closed by peer [", code::kNcclPeerLost, "", ""},
    // misc/socket.cc (2.19 on): "socketProgressOpt: Call to recv from 10.0.0.2<43210> failed :
    // Connection reset by peer", the peer's process gone (a send to it: Broken pipe).
    {"failed : Connection reset by peer", code::kNcclPeerLost, "", ""},
    {"failed : Broken pipe", code::kNcclPeerLost, "", ""},
    // libfabric's EFA provider's completion statuses (prov/efa/src/efa_errno.h, in both the
    // wordings of libfabric 1.18-1.21 and of 1.22 on), as aws-ofi-nccl's "NET/OFI Request
    // ... completed with error. RC: 5. Error: ..." and libfabric's own warnings print them:
    // the peer's queue pair or endpoint gone (its process died), or a peer that answered
    // once and stopped.
    {"Invalid receiver queue pair number", code::kNcclPeerLost, "", ""},                            // 9
    {"QP does not exist or is in error state", code::kNcclPeerLost, "", ""},                        // 9
    {"Receiver connection aborted", code::kNcclPeerLost, "", ""},                                   // 8
    {"Connection was reset by remote peer", code::kNcclPeerLost, "", ""},                           // 8
    {"Unresponsive remote (was previously responsive)", code::kNcclPeerLost, "", ""},               // 13
    {"Unresponsive receiver (connection previously established)", code::kNcclPeerLost, "", ""},     // 4124
    {"peer closed its memory registration or endpoint mid-transfer", code::kNcclPeerLost, "", ""},  // 4127
    // A peer EFA never heard from: the security group not letting the instances' EFA
    // traffic through (EFA needs all traffic allowed to and from the group itself), the
    // instances outside one subnet's reach, or no process there.
    {"Unreachable remote - never received a response", code::kNcclOfiUnreachable,
     "EFA never received a response from the peer (an unreachable remote): the instances' security group does not "
     "allow all traffic to and from itself (EFA's requirement), the peer is outside the reach of this subnet, or "
     "no process listens there",
     "check the security group of every instance: an inbound and an outbound rule allowing all traffic with the "
     "group itself as source and destination; then that the peer process started (its own log) and `fi_info -p "
     "efa` on both hosts"},
    {"Unresponsive receiver (connection never established or unknown)", code::kNcclOfiUnreachable, "", ""},  // 13
    {"Unresponsive receiver (reachable by EFA device but handshake failed)", code::kNcclOfiUnreachable, "", ""},
    // PyTorch's monitored barrier naming the rank that never arrived ("Rank 1 failed to pass
    // monitoredBarrier in 2000 ms").
    {"failed to pass monitoredBarrier", code::kNcclTimeout, "", ""},
    {"imeout", code::kNcclTimeout,
     "an operation timed out: a rank stopped progressing or the network dropped it (PyTorch's watchdog names the "
     "collective and its sequence number)",
     "look for the slowest or stuck rank (the one whose last sequence number is lowest), and for link flaps and "
     "errors on its NIC"},
    // PyTorch's wait for rank 0's ncclUniqueId in the c10d store ended by its timeout ("[3] is
    // setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store
    // by key '0', but store->get('0') got error: Socket Timeout"): rank 0 never published the id.
    {"retrieving ncclUniqueId from", code::kNcclTimeout,
     "ranks waited for rank 0's ncclUniqueId through the c10d store and gave up: rank 0 never reached NCCL's "
     "communicator setup in time (it failed or hung before it: a GPU it could not get, a crash, or work slower than "
     "the timeout such as loading a model), so every other rank times out",
     "read rank 0's own log: its first error is the cause; raise the process group's timeout only where rank 0 is "
     "merely slow to get there"},
    // NCCL's socket code by its own words (misc/socket.cc, 2.4 to 2.28), not any line with
    // "connect" in it: "P2P is disabled between NVLINK connected GPUs" or "Attempted to
    // connect incompatible devices" are not sockets.
    {"socketFinalizeAccept", code::kNcclSocketAccept,
     "a socket connection of the wrong type or from the wrong peer (bootstrap)",
     "every rank must reach the others on NCCL_SOCKET_IFNAME's interface; another job's stray connection or "
     "ranks of different NCCL versions also do this"},
    {"socketTryAccept", code::kNcclSocketAccept, "", ""},
    {"ncclSocketAccept", code::kNcclSocketAccept, "", ""},
    {"Accept failed", code::kNcclSocketAccept, "", ""},
    {"connect to ", code::kNcclSocketConnect, "a socket connection failed (bootstrap or NET/Socket)",
     "check NCCL_SOCKET_IFNAME on every host and that the ranks can reach each other on it"},
    {"socketPollConnect", code::kNcclSocketConnect, "", ""},
    {"socketStartConnect", code::kNcclSocketConnect, "", ""},
    {"ncclSocketConnect", code::kNcclSocketConnect, "", ""},
    {"connecting to address", code::kNcclSocketConnect, "", ""},
    {"Connection refused", code::kNcclSocketConnect, "", ""},
};

// CUDA's errors that point at the machine rather than the program, by CUDA's catalogue
// (cudaGetErrorString and the enums of driver_types.h and cuda.h, CUDA 13.0): each by its
// message, its runtime name and its driver name, as NCCL's "Cuda failure 'MESSAGE'", a
// framework's "CUDA error: MESSAGE", cuda-samples' "code=711(cudaErrorTooManyPeers)" or a
// driver-API program prints it. Left out: the program's own mistakes (invalid argument,
// stream capture), errors with no one cause (initialization error, unknown error, OS call
// failed), out of memory outside NCCL (the application's tensors), and those read
// elsewhere (214 ECC, 217 peer access, 802 not initialized, 803 driver mismatch). An empty
// meaning is the code's entry in kWarnMeanings.
struct CudaError {
  int number;
  std::string_view runtime;  // cudaErrorTooManyPeers
  std::string_view driver;   // CUDA_ERROR_TOO_MANY_PEERS
  std::string_view text;     // peer mapping resources exhausted
  std::string_view code;
  std::string_view meaning;
  std::string_view hint;
};
constexpr CudaError kCudaErrors[] = {
    {711, "cudaErrorTooManyPeers", "CUDA_ERROR_TOO_MANY_PEERS", "peer mapping resources exhausted",
     code::kNcclCudaTooManyPeers,
     "a GPU ran out of peer mappings (CUDA error 711): the hardware maps a limited number of peers per GPU (8 over "
     "PCIe), so a process enabling peer access to more GPUs than that, or on a GPU whose mappings other programs "
     "already hold, is refused",
     "count the GPUs each process peers with (`nvidia-smi topo -m`) and what else holds the GPUs (`nvidia-smi`); "
     "give each process at most 8 peers on a PCIe machine (CUDA_VISIBLE_DEVICES), or let NCCL reach the others "
     "without P2P (NCCL_P2P_LEVEL)"},
    {220, "cudaErrorNvlinkUncorrectable", "CUDA_ERROR_NVLINK_UNCORRECTABLE",
     "uncorrectable NVLink error detected during the execution", code::kNcclCudaNvlinkError,
     "CUDA saw an uncorrectable NVLink error (CUDA error 220, or 226: an invalid access of peer memory over NVLink "
     "or a hardware error): an NVLink or NVSwitch path between the GPUs failed under the job, and the process "
     "cannot use CUDA again",
     "read dmesg on that host for the Xid at the same time (74: NVLink, 79: a GPU lost, 144-150: NVLink and "
     "NVSwitch); check `nvidia-smi nvlink -s` and `-e` for links down or counting errors, and Fabric Manager's "
     "log on NVSwitch systems; drain the node if a link keeps failing"},
    {226, "cudaErrorContained", "CUDA_ERROR_CONTAINED",
     "Invalid access of peer GPU memory over nvlink or a hardware error", code::kNcclCudaNvlinkError, "", ""},
    {702, "cudaErrorLaunchTimeout", "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated",
     code::kNcclCudaLaunchTimeout,
     "a kernel ran past the GPU's watchdog and was killed (CUDA error 702): the kernel execution timeout is on, as "
     "on a GPU that drives a display; NCCL's kernels wait for their peers and trip it",
     "`nvidia-smi -q | grep -i timeout` or deviceQuery's \"Run time limit on kernels\": run on GPUs with no "
     "display attached (stop the display server, or use another GPU for it)"},
    {102, "cudaErrorDeviceNotLicensed", "CUDA_ERROR_DEVICE_NOT_LICENSED", "device doesn't have valid Grid license",
     code::kNcclCudaUnlicensed,
     "a virtual GPU without its licence (CUDA error 102): the vGPU guest driver found no valid NVIDIA licence, and "
     "CUDA refuses work",
     "`nvidia-smi -q | grep -i -A2 licen` in the guest; check the licence client's configuration and its reach to "
     "the licence server (nvidia-gridd's log)"},
    {805, "cudaErrorMpsConnectionFailed", "CUDA_ERROR_MPS_CONNECTION_FAILED",
     "MPS client failed to connect to the MPS control daemon or the MPS server", code::kNcclCudaMps,
     "CUDA's Multi-Process Service failed the process (CUDA errors 805-810): the MPS daemon or server is not "
     "running, not reachable from the process (its pipe directory), recovering from a fault, or out of clients",
     "check the MPS control daemon (`echo get_server_list | nvidia-cuda-mps-control`) and that the job sees its "
     "CUDA_MPS_PIPE_DIRECTORY; stop MPS on the GPUs if the job does not need it"},
    {806, "cudaErrorMpsRpcFailure", "CUDA_ERROR_MPS_RPC_FAILURE",
     "the remote procedural call between the MPS server and the MPS client failed", code::kNcclCudaMps, "", ""},
    {807, "cudaErrorMpsServerNotReady", "CUDA_ERROR_MPS_SERVER_NOT_READY",
     "MPS server is not ready to accept new MPS client requests", code::kNcclCudaMps, "", ""},
    {808, "cudaErrorMpsMaxClientsReached", "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED",
     "the hardware resources required to create MPS client have been exhausted", code::kNcclCudaMps, "", ""},
    {809, "cudaErrorMpsMaxConnectionsReached", "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED",
     "the hardware resources required to support device connections have been exhausted", code::kNcclCudaMps, "", ""},
    {810, "cudaErrorMpsClientTerminated", "CUDA_ERROR_MPS_CLIENT_TERMINATED",
     "the MPS client has been terminated by the server", code::kNcclCudaMps, "", ""},
    // The driver older than what the program needs.
    {35, "cudaErrorInsufficientDriver", "CUDA_ERROR_INSUFFICIENT_DRIVER",
     "CUDA driver version is insufficient for CUDA runtime version", code::kNcclCudaDriverTooOld, "", ""},
    {36, "cudaErrorCallRequiresNewerDriver", "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
     "API call is not supported in the installed CUDA driver", code::kNcclCudaDriverTooOld, "", ""},
    {222, "cudaErrorUnsupportedPtxVersion", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain", code::kNcclCudaDriverTooOld, "", ""},
    // The program's CUDA newer than the driver, and the forward-compatibility libraries
    // (cuda-compat, a container's /usr/local/cuda/compat) tried on a GPU they do not support.
    {804, "cudaErrorCompatNotSupportedOnDevice", "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
     "forward compatibility was attempted on non supported HW", code::kNcclCudaDriverTooOld,
     "the NVIDIA driver is older than the CUDA the program was built with, and CUDA's forward-compatibility "
     "libraries it then tried do not run on this GPU (CUDA error 804): they support datacenter GPUs only, so CUDA "
     "refuses the GPU",
     "upgrade the driver to one that supports the program's CUDA (`nvidia-smi` prints the newest CUDA the driver "
     "supports; in Kubernetes, the GPU operator's driver version), or use an image built for the driver's CUDA"},
    // No GPU, or none this process may use.
    {100, "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected", code::kNcclNoCudaDevice,
     "", ""},
    {34, "cudaErrorStubLibrary", "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library", code::kNcclNoCudaDevice,
     "", ""},
    {101, "cudaErrorInvalidDevice", "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal", code::kNcclInvalidDevice, "",
     ""},
    {46, "cudaErrorDevicesUnavailable", "CUDA_ERROR_DEVICE_UNAVAILABLE", "busy or unavailable",
     code::kNcclGpuUnavailable, "", ""},
    {216, "cudaErrorDeviceAlreadyInUse", "CUDA_ERROR_CONTEXT_ALREADY_IN_USE",
     "exclusive-thread device already in use by a different thread", code::kNcclGpuUnavailable, "", ""},
    {209, "cudaErrorNoKernelImageForDevice", "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device", code::kNcclNoKernelImage, "", ""},
    {98, "cudaErrorInvalidDeviceFunction", "CUDA_ERROR_INVALID_DEVICE_FUNCTION", "invalid device function",
     code::kNcclNoKernelImage, "", ""},
    // A kernel that faulted: the program's, NCCL's, or the path between GPUs.
    {700, "cudaErrorIllegalAddress", "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered",
     code::kNcclCudaKernelFault, "", ""},
    {719, "cudaErrorLaunchFailure", "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure",
     code::kNcclCudaKernelFault, "", ""},
    {714, "cudaErrorHardwareStackError", "CUDA_ERROR_HARDWARE_STACK_ERROR", "hardware stack error",
     code::kNcclCudaKernelFault, "", ""},
    {715, "cudaErrorIllegalInstruction", "CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered",
     code::kNcclCudaKernelFault, "", ""},
    {716, "cudaErrorMisalignedAddress", "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address",
     code::kNcclCudaKernelFault, "", ""},
    {718, "cudaErrorInvalidPc", "CUDA_ERROR_INVALID_PC", "invalid program counter", code::kNcclCudaKernelFault, "", ""},
    // PyTorch's own words for two of them (torch/cuda/__init__.py, ProcessGroupNCCL.cpp):
    // "The NVIDIA driver on your system is too old (found version 11040).", "ProcessGroupNCCL is
    // only supported with GPUs, no GPUs found!".
    {35, "cudaErrorInsufficientDriver", "CUDA_ERROR_INSUFFICIENT_DRIVER", "NVIDIA driver on your system is too old",
     code::kNcclCudaDriverTooOld, "", ""},
    {100, "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE", "ProcessGroupNCCL is only supported with GPUs, no GPUs found",
     code::kNcclNoCudaDevice, "", ""},
    {100, "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE", "No CUDA GPUs are available", code::kNcclNoCudaDevice, "", ""},
    // The container toolkit's check of an image's CUDA against the host's driver before it
    // starts (libnvidia-container): "nvidia-container-cli: requirement error: unsatisfied
    // condition: cuda>=11.0, please update your driver to a newer version, or use an earlier
    // cuda container".
    {35, "cudaErrorInsufficientDriver", "CUDA_ERROR_INSUFFICIENT_DRIVER", "unsatisfied condition: cuda>",
     code::kNcclCudaDriverTooOld, "", ""},
};

const CudaError* cuda_error_of(std::string_view line) {
  for (const CudaError& e : kCudaErrors) {
    if (contains(line, e.text) || contains(line, e.runtime) || contains(line, e.driver)) return &e;
  }
  return nullptr;
}

// A verbs call refused with ENOMEM, as any RDMA user prints it: NCCL's "Call to ibv_reg_mr
// failed with error Cannot allocate memory", UCX's "ibv_create_cq(cqe=4096) failed: Cannot
// allocate memory" and "mlx5_0: mlx5dv_devx_umem_reg(size=131072 access=0x0) failed: ...".
// Queue, completion-queue and registered host buffers are all locked memory: RLIMIT_MEMLOCK
// is what refuses them first. Not a dma-buf registration (ibv_reg_dmabuf_mr): GPU memory,
// which the limit does not count.
bool verbs_enomem(std::string_view msg) {
  if (!contains(msg, "Cannot allocate memory") || contains(msg, "dmabuf")) return false;
  // aws-ofi-nccl creating libfabric's queues and endpoints ("NET/OFI Couldn't open CQ. RC: -12,
  // ERROR: Cannot allocate memory"), and libfabric's EFA provider its completion queue
  // ("Unable to create extended CQ: Cannot allocate memory"): verbs underneath.
  if ((contains(msg, "Couldn't ") && contains(msg, "RC: -12")) || contains(msg, "create extended CQ")) return true;
  const size_t call = std::min(msg.find("ibv_"), msg.find("mlx5dv_"));
  return call != std::string_view::npos && msg.find("fail", call) != std::string_view::npos;
}

// What a code means and what to do: the first entry of kWarnMeanings with that code, else
// of kCudaErrors.
struct Meaning {
  std::string_view code, meaning, hint;
};
Meaning meaning_of(std::string_view code) {
  for (const WarnMeaning& w : kWarnMeanings) {
    if (w.code == code && !w.meaning.empty()) return {w.code, w.meaning, w.hint};
  }
  for (const CudaError& e : kCudaErrors) {
    if (e.code == code && !e.meaning.empty()) return {e.code, e.meaning, e.hint};
  }
  return {kWarnMeanings[0].code, kWarnMeanings[0].meaning, kWarnMeanings[0].hint};
}

// What a line of that code means: the entry whose pattern it matches where that entry says
// its own (a code with several causes, each its wording: nccl.known_bug's bugs), the longest
// such pattern where several match (the most particular: "retrieving ncclUniqueId from" over
// "imeout"), else the code's.
Meaning meaning_of(std::string_view code, std::string_view msg) {
  const WarnMeaning* best = nullptr;
  for (const WarnMeaning& w : kWarnMeanings) {
    if (w.code == code && !w.meaning.empty() && contains_nocase(msg, w.pattern) &&
        (!best || w.pattern.size() > best->pattern.size())) {
      best = &w;
    }
  }
  return best ? Meaning{best->code, best->meaning, best->hint} : meaning_of(code);
}

// The code of a warning's or error's text: CUDA's catalogue first (its messages are whole
// phrases; "the launch timed out" is not NCCL's timeout), then NCCL's wordings; empty for
// none.
std::string_view warn_code(std::string_view msg) {
  if (const CudaError* e = cuda_error_of(msg)) return e->code;
  if (verbs_enomem(msg)) return code::kNcclIbMemlock;
  // Patterns match in any case ("socketFinalizeAccept", "Connect to", "Timeout"): the message
  // and the patterns in lower case, each pattern found by find's memchr for its first character.
  static const std::vector<std::string> patterns = [] {
    std::vector<std::string> out;
    for (const WarnMeaning& w : kWarnMeanings) out.push_back(lower(w.pattern));
    return out;
  }();
  const std::string text = lower(msg);
  for (size_t i = 0; i < patterns.size(); ++i) {
    if (contains(text, patterns[i])) return kWarnMeanings[i].code;
  }
  return {};
}

// Warnings another signature reads, with its own code: not "other NCCL WARN lines".
// NET/IB's and UCX's asynchronous events of the fabric, not of the job's queues: libibverbs'
// ibv_event_type_str() names, as NCCL prints them ("NET/IB : mlx5_0:1 Got non-fatal async
// event: SM change(16)", before 2.19 "Got async event : LID change") and UCX ("IB Async event
// on mlx5_0: client reregistration on port 1"), and NCCL's own "GID table changed" (2.19 on).
// What each says of the fabric; nullptr for a line that is none of them.
struct FabricEvent {
  std::string_view name;  // ibv_event_type_str's
  std::string_view kind;  // the group the finding says
};
constexpr FabricEvent kFabricEvents[] = {
    {"port active", "a port came up under the job (it had been down: a link that flapped)"},
    {"LID change", "the subnet manager changed a port's address (LID) under the job"},
    {"SM change", "the subnet manager of the port changed (a failover or restart) under the job"},
    {"client reregistration", "the subnet manager asked the port to register again (a new or restarted SM)"},
    {"P_Key change", "the port's partition keys changed under the job"},
    {"GID table change",
     "the RoCE port's GID table changed under the job (an address added to or removed from its "
     "network interface)"},
};
const FabricEvent* fabric_event(std::string_view msg) {
  const bool gid = contains(msg, "GID table changed");
  if (!gid && !contains(msg, "sync event")) return nullptr;  // "async event", UCX's "Async event"
  for (const FabricEvent& e : kFabricEvents) {
    if (contains(msg, e.name) || (gid && e.name == "GID table change")) return &e;
  }
  return nullptr;
}

bool read_elsewhere(const NcclFact& n) {
  if (fabric_event(n.msg)) return true;  // check_fabric_events
  for (std::string_view w :
       {"Failed to bind NVLink SHARP", "Mismatched NCCL version detected", "NCCL version mismatch with remote peer",
        "Failed to open libnvidia-ml.so", "Failed to find CUDA library", "peer access is not supported",
        "mixed local Net device counts", "Peermem is not supported", "fi_getinfo() call failed: No data available",
        "GDR disabled on GDR-supported", "requires at least libfabric version", "Error: network IB not found",
        "has a different number of devices", "Failed to open libibverbs", "Missing \"iommu=pt\" from kernel",
        "NET/OFI Could not find any optimal provider", "NET/OFI No eligible providers",
        "NET/OFI Unable to find a protocol that worked"}) {
    if (contains(n.msg, w)) return true;
  }
  return contains(n.where.text, "nvls.cc") && contains(n.msg, "Cuda failure");  // check_nvls
}

// The codes in the order their findings are given: kWarnMeanings', then kCudaErrors' new ones.
std::vector<std::string_view> warn_codes_in_order() {
  std::vector<std::string_view> order;
  const auto add = [&](std::string_view c) {
    if (std::find(order.begin(), order.end(), c) == order.end()) order.push_back(c);
  };
  for (const WarnMeaning& w : kWarnMeanings) add(w.code);
  for (const CudaError& e : kCudaErrors) add(e.code);
  return order;
}

// The ranks that stalled before a collective the others timed out in: PyTorch's watchdog
// prints each timed-out rank's "last enqueued NCCL work: N"; ranks whose N is below the
// others' never enqueued the collective those wait in. Empty where fewer than two ranks
// say, or all say the same.
struct Stalled {
  std::vector<int> ranks;  // the lowest N's
  int64_t behind = 0, ahead = 0;
  std::vector<Quote> quotes;
};
Stalled stalled_ranks(const Facts& facts) {
  std::map<int, std::pair<int64_t, Quote>> enqueued;  // rank -> highest N said, its line
  for (const NcclFact& n : facts.nccl) {
    const size_t at = n.msg.find("last enqueued NCCL work: ");
    if (at == std::string::npos || n.rank < 0) continue;
    int64_t v = -1;
    const std::string_view digits = std::string_view(n.msg).substr(at + 25);
    if (std::from_chars(digits.data(), digits.data() + digits.size(), v).ec != std::errc() || v < 0) continue;
    auto [it, added] = enqueued.try_emplace(n.rank, v, n.where);
    if (!added && v > it->second.first) it->second = {v, n.where};
  }
  Stalled s;
  if (enqueued.size() < 2) return s;
  s.behind = s.ahead = enqueued.begin()->second.first;
  for (const auto& [rank, e] : enqueued) {
    s.behind = std::min(s.behind, e.first);
    s.ahead = std::max(s.ahead, e.first);
  }
  if (s.behind == s.ahead) return s;
  for (const auto& [rank, e] : enqueued) {
    if (e.first == s.behind) {
      s.ranks.push_back(rank);
      s.quotes.push_back(e.second);
    }
  }
  return s;
}

// The timeout's finding named for the ranks that stalled, where the watchdog's lines show them.
void name_stalled_ranks(const Facts& facts, std::vector<Finding>& out) {
  const Stalled s = stalled_ranks(facts);
  if (s.ranks.empty()) return;
  for (Finding& f : out) {
    if (f.code != code::kNcclTimeout) continue;
    const std::string ranks = fmt::format("{}", fmt::join(s.ranks, ", "));
    f.subject = fmt::format("rank{} {}", s.ranks.size() == 1 ? "" : "s", ranks);
    f.message += fmt::format(
        "; rank{} {} enqueued NCCL work up to {} only, the others up to {}: {} never reached the collective the "
        "others wait in",
        s.ranks.size() == 1 ? "" : "s", ranks, s.behind, s.ahead, s.ranks.size() == 1 ? "it" : "they");
    f.hint = fmt::format(
                 "look at rank{} {} first (its host's dmesg, its own log before the timeout: a hang, an "
                 "exception, a slow data loader), not at the network; ",
                 s.ranks.size() == 1 ? "" : "s", ranks) +
             f.hint;
    f.evidence["stalled_ranks"] = s.ranks;
    // The stalled ranks' lines first, then the others.
    auto lines = quote_json(s.quotes);
    for (const auto& l : f.evidence["lines"]) {
      if (std::none_of(s.quotes.begin(), s.quotes.end(),
                       [&](const Quote& q) { return l.at("file") == q.file && l.at("line") == q.line; })) {
        lines.push_back(l);
      }
    }
    f.evidence["lines"] = std::move(lines);
  }
}

// NCCL's bootstrap failing in its sockets where no warning says why: the error trace of a
// process (INFO "misc/socket.cc:567 -> 2", then "bootstrap.cc:270 -> 2", innermost first)
// runs from NCCL's socket code through its bootstrap with an error. The bootstrap's
// interface, where a line names it (the "Bootstrap : Using" list, NET/IB's "OOB" entry),
// is said with it: NCCL takes an IPoIB interface (ib*) first unless NCCL_SOCKET_IFNAME
// says otherwise, and in containers that interface often does not reach the other hosts.
std::string_view result_name(int r) {
  static constexpr std::string_view kNames[] = {"success",        "unhandled CUDA error", "system error",
                                                "internal error", "invalid argument",     "invalid usage",
                                                "remote error",   "in progress"};
  return r >= 0 && r < static_cast<int>(std::size(kNames)) ? kNames[r] : std::string_view("error");
}

// The bootstrap's interface on `host` as its lines name it ("ibp75s0:192.168.0.103"), or "".
std::string bootstrap_interface(const Facts& facts, const std::string& host) {
  for (const InterfaceListFact& i : facts.interfaces) {
    if (i.what == "Bootstrap" && i.host == host && !i.names.empty()) return i.names.front();
  }
  for (const NcclFact& n : facts.nccl) {
    const size_t oob = n.msg.find("; OOB ");
    if (n.host != host || !n.msg.starts_with("NET/IB") || oob == std::string::npos) continue;
    std::string_view e = std::string_view(n.msg).substr(oob + 6);
    e = e.substr(0, std::min(e.find('<'), e.find(' ')));
    return std::string(e);
  }
  return "";
}

void check_bootstrap_trace(const Facts& facts, std::vector<Finding>& out) {
  for (const Finding& f : out) {  // a warning said what failed: its finding stands for it
    if (f.code == code::kNcclSocketConnect || f.code == code::kNcclSocketAccept ||
        f.code == code::kNcclSocketIfnameNoMatch || f.code == code::kNcclSocketIfacesUnroutable) {
      return;
    }
  }
  struct Trace {
    const NcclFact* socket = nullptr;  // the innermost socket frame with an error
    const NcclFact* bootstrap = nullptr;
  };
  std::map<std::string, Trace> by_process;  // "host:pid" -> its frames
  for (const NcclFact& n : facts.nccl) {
    const auto frame = nccl_trace_frame(n.msg);
    if (!frame || frame->result == 0) continue;
    Trace& t = by_process[proc_of(n)];
    if (frame->file.ends_with("socket.cc") && !t.socket) t.socket = &n;
    if (frame->file.ends_with("bootstrap.cc") && !t.bootstrap) t.bootstrap = &n;
  }
  std::vector<Quote> quotes;
  std::vector<std::string> hosts;
  const NcclFact* first = nullptr;
  for (const auto& [proc, t] : by_process) {
    if (!t.socket || !t.bootstrap) continue;
    if (!first) first = t.socket;
    quotes.push_back(t.socket->where);
    quotes.push_back(t.bootstrap->where);
    hosts.push_back(t.socket->host);
  }
  if (!first) return;
  const RankMap ranks = rank_map(facts);
  const auto frame = nccl_trace_frame(first->msg);
  const std::string iface = bootstrap_interface(facts, first->host);
  std::string message = fmt::format(
      "NCCL's bootstrap failed in its sockets ({}, returned through bootstrap.cc) on {} process{}, first {}: the "
      "ranks could not open or connect the TCP sockets they find each other with, and no warning line says why",
      result_name(frame->result), quotes.size() / 2, quotes.size() == 2 ? "" : "es", who(*first, ranks));
  std::string hint =
      "set NCCL_SOCKET_IFNAME to the interface the hosts reach each other on and check that every host reaches the "
      "others' addresses on it (ping, nc); NCCL_DEBUG_SUBSYS=INIT,NET shows the interface each rank chose";
  if (!iface.empty()) {
    const bool ipoib = iface.starts_with("ib");
    message +=
        fmt::format("; the bootstrap used {}{}", iface,
                    ipoib ? ", an IPoIB interface, which NCCL picks first when NCCL_SOCKET_IFNAME is unset" : "");
    if (ipoib) hint = "point NCCL_SOCKET_IFNAME at the Ethernet interface the hosts reach each other on; " + hint;
  }
  out.push_back(finding(code::kNcclSocketConnect, Severity::kError, who(*first, ranks), hosts, std::move(message),
                        std::move(hint), quotes,
                        {{"first_host", first->host}, {"bootstrap_interface", iface}, {"result", frame->result}}));
}

// Warnings that are another's consequence, moved to that other's lines: a segment error
// after shm_open's refusal, a framework's "invalid usage" after the check that failed, its
// "unhandled system error" after the warning its "Last error:" gives.
void fold_consequences(std::map<std::string_view, std::vector<const NcclFact*>>& by_code) {
  // "Error while creating shared memory segment" after shm_open's "Permission denied" is
  // the refusal's consequence, not a full /dev/shm.
  if (auto perm = by_code.find(code::kNcclShmPermission), full = by_code.find(code::kNcclShmExhausted);
      perm != by_code.end() && full != by_code.end()) {
    auto& from = full->second;
    for (auto it = from.begin(); it != from.end();) {
      if (contains((*it)->msg, "creating shared memory segment")) {
        perm->second.push_back(*it);
        it = from.erase(it);
      } else {
        ++it;
      }
    }
    if (from.empty()) by_code.erase(full);
    std::sort(perm->second.begin(), perm->second.end(), std::less<const NcclFact*>());  // facts' order
  }
  // A framework's "invalid usage" after the warning that says which check failed is that
  // warning's consequence.
  if (auto usage = by_code.find(code::kNcclInvalidUsage); usage != by_code.end()) {
    for (std::string_view cause : {code::kNcclDuplicateGpu, code::kNcclInvalidDevice, code::kNcclMessageTruncated}) {
      auto it = by_code.find(cause);
      if (it == by_code.end()) continue;
      it->second.insert(it->second.end(), usage->second.begin(), usage->second.end());
      std::sort(it->second.begin(), it->second.end(), std::less<const NcclFact*>());
      by_code.erase(usage);
      break;
    }
  }
  // The topology search's fallback beside the known bug it leads to in NCCL 2.25-2.26: the
  // bug's lines say what to do.
  if (auto bug = by_code.find(code::kNcclKnownBug), fallback = by_code.find(code::kNcclTopologyFallback);
      bug != by_code.end() && fallback != by_code.end()) {
    bug->second.insert(bug->second.end(), fallback->second.begin(), fallback->second.end());
    std::sort(bug->second.begin(), bug->second.end(), std::less<const NcclFact*>());
    by_code.erase(fallback);
  }
  // "unhandled cuda error" beside a CUDA failure NCCL named (nccl.cuda_oom, nccl.cuda_ecc, ...):
  // the named one says which call and why.
  if (auto cuda = by_code.find(code::kNcclCudaError); cuda != by_code.end()) {
    for (auto& [c, facts_of] : by_code) {
      if (c == code::kNcclCudaError || !c.starts_with("nccl.cuda_")) continue;
      facts_of.insert(facts_of.end(), cuda->second.begin(), cuda->second.end());
      std::sort(facts_of.begin(), facts_of.end(), std::less<const NcclFact*>());
      by_code.erase(cuda);
      break;
    }
  }
  // A framework's "unhandled system error" whose "Last error:" (on its line, or within the
  // three after it) is a warning with a meaning of its own is that warning's consequence:
  // the system call that failed is the one the warning names.
  if (auto sys = by_code.find(code::kNcclSystemError); sys != by_code.end()) {
    auto& from = sys->second;
    for (auto it = from.begin(); it != from.end();) {
      const NcclFact* error = *it;
      std::vector<const NcclFact*>* into = nullptr;
      for (auto& [c, facts_of] : by_code) {
        if (c == code::kNcclSystemError || c == code::kNcclInvalidUsage || into) continue;
        for (const NcclFact* n : facts_of) {
          if (n->where.file == error->where.file && n->where.line >= error->where.line &&
              n->where.line <= error->where.line + 3) {
            into = &facts_of;
            break;
          }
        }
      }
      if (!into) {
        ++it;
        continue;
      }
      into->push_back(error);
      std::sort(into->begin(), into->end(), std::less<const NcclFact*>());
      it = from.erase(it);
    }
    if (from.empty()) by_code.erase(sys);
  }
}

// PyTorch's processes out of room in /dev/shm (gather.cpp's shm_full): NCCL's own lines
// about it, where the files have them, say the same and come first.
void check_torch_shm(const Facts& facts, std::vector<Finding>& out) {
  if (facts.shm_full.empty()) return;
  if (std::any_of(out.begin(), out.end(), [](const Finding& f) { return f.code == code::kNcclShmExhausted; })) return;
  out.push_back(finding(
      code::kNcclShmExhausted, Severity::kError, "/dev/shm", {},
      fmt::format("PyTorch's processes ran out of shared memory ({}): DataLoader workers and torch.multiprocessing "
                  "pass tensors through /dev/shm, and a write it cannot back ends the worker with a bus error; a "
                  "container's /dev/shm is 64 MiB unless it is given more",
                  count_lines(facts.shm_full.size())),
      "give the container more /dev/shm (docker --shm-size=16g or --ipc=host; Kubernetes: a memory-backed emptyDir "
      "mounted at /dev/shm), check with `df -h /dev/shm` inside it; fewer DataLoader workers use less",
      facts.shm_full, {{"lines", facts.shm_full.size()}}));
}

// An RDMA resource refused for lack of locked memory in another program's line (libfabric's
// own log, a verbs program's): said where NCCL's lines have not said it.
void check_rdma_enomem(const Facts& facts, std::vector<Finding>& out) {
  if (facts.rdma_enomem.empty()) return;
  if (std::any_of(out.begin(), out.end(), [](const Finding& f) { return f.code == code::kNcclIbMemlock; })) return;
  const Meaning m = meaning_of(code::kNcclIbMemlock);
  out.push_back(finding(code::kNcclIbMemlock, Severity::kError, "RDMA resources", {},
                        fmt::format("an RDMA library was refused a queue or a registration ({}): {}",
                                    count_lines(facts.rdma_enomem.size()), m.meaning),
                        std::string(m.hint), facts.rdma_enomem, {{"lines", facts.rdma_enomem.size()}}));
}

// Whose error lines these are, counted: "2 NCCL error lines", "1 UCX error line", "1 NCCL
// error line and 1 UCX error line" (UCX's own lines, read by NCCL's meanings where UCX says the
// same, are not NCCL's), "1 program error line" (a program's own line that names neither, read
// by NCCL's meanings: a libfabric registration it made itself).
bool ucx_line(const NcclFact& n) {
  return contains(n.where.text, "UCX ") && (contains(n.where.text, "ERROR") || contains(n.where.text, "WARN"));
}
std::string error_lines(const std::vector<const NcclFact*>& facts, std::string_view other = "",
                        std::string_view nccl_word = "error", std::string_view ucx_word = "error") {
  size_t ucx = 0, program = 0;
  for (const NcclFact* n : facts) {
    if (ucx_line(*n)) {
      ++ucx;
    } else if (n->level == "ERROR" && !contains_nocase(n->where.text, "nccl")) {
      ++program;
    }
  }
  const size_t nccl = facts.size() - ucx - program;
  auto part = [&](size_t n, std::string_view who, std::string_view word) {
    return fmt::format("{} {}{} {} line{}", n, other, who, word, n == 1 ? "" : "s");
  };
  std::vector<std::string> parts;
  if (nccl > 0 || facts.empty()) parts.push_back(part(nccl, "NCCL", nccl_word));
  if (ucx > 0) parts.push_back(part(ucx, "UCX", ucx_word));
  if (program > 0) parts.push_back(part(program, "program", "error"));
  return fmt::format("{}", fmt::join(parts, " and "));
}

// A version's digits and dots at the head of `t` ("2.9.9-1+cuda11.3" -> "2.9.9"): two dots or
// more, or nothing.
std::string_view dotted_version(std::string_view t) {
  size_t end = 0, dots = 0;
  while (end < t.size() && (std::isdigit(static_cast<unsigned char>(t[end])) || t[end] == '.')) {
    dots += t[end] == '.' ? 1 : 0;
    ++end;
  }
  while (end > 0 && t[end - 1] == '.') {
    --end;
    --dots;
  }
  return dots >= 2 && end > 0 && std::isdigit(static_cast<unsigned char>(t[0])) ? t.substr(0, end) : std::string_view();
}

// The word around position `at` of `t` (between spaces, quotes or a listing's '|').
std::string_view word_at(std::string_view t, size_t at) {
  const size_t from = t.find_last_of(" \t'\"|`", at);
  const size_t to = t.find_first_of(" \t'\"|`", at);
  return t.substr(from == std::string_view::npos ? 0 : from + 1,
                  (to == std::string_view::npos ? t.size() : to) - (from == std::string_view::npos ? 0 : from + 1));
}

}  // namespace

std::optional<NcclInstall> nccl_install(std::string_view t) {
  // A library file or a link's target: "DIR/libnccl.so.2.9.9", "libnccl.so.2 -> libnccl.so.2.23.4".
  if (const size_t so = t.rfind("libnccl.so."); so != std::string_view::npos) {
    const std::string_view v = dotted_version(t.substr(so + 11));
    if (!v.empty()) {
      // The directory: of the link's own name where ls -l shows one, else of the file.
      const size_t arrow = t.find("-> ");
      const size_t name = arrow != std::string_view::npos ? t.substr(0, arrow).rfind("libnccl.so") : so;
      const std::string_view word = name == std::string_view::npos ? std::string_view() : word_at(t, name);
      std::string_view dir = word.substr(0, word.rfind('/') == std::string_view::npos ? 0 : word.rfind('/'));
      return NcclInstall{std::string(v), dir.empty() ? std::string("the current directory") : std::string(dir)};
    }
  }
  // A package: rpm's and a file's "libnccl-2.9.9-1+cuda11.3", "libnccl-devel-2.8.3-1+cuda10.1",
  // Debian's "libnccl2_2.18.3-1+cuda12.2_amd64.deb", dpkg -l's "libnccl2  2.18.3-1+cuda12.2",
  // pip's "nvidia-nccl-cu12  2.18.1" and "nvidia-nccl-cu12==2.18.1".
  for (std::string_view head : {"libnccl", "nvidia-nccl-cu"}) {
    const size_t at = t.find(head);
    if (at == std::string_view::npos) continue;
    const std::string_view word = word_at(t, at);
    std::string_view rest = t.substr(at + head.size());
    // The package's name runs to its first '-', '_' or '=' followed by a digit, or to its end.
    size_t v = 0;
    while (v < rest.size() && !((rest[v] == '-' || rest[v] == '_' || rest[v] == '=') && v + 1 < rest.size() &&
                                std::isdigit(static_cast<unsigned char>(rest[v + 1])))) {
      if (rest[v] == ' ' || rest[v] == '\t') break;
      ++v;
    }
    if (v < rest.size() && rest[v] != ' ' && rest[v] != '\t') {
      rest = rest.substr(v + 1 + (rest[v] == '=' && v + 1 < rest.size() && rest[v + 1] == '=' ? 1 : 0));
    } else {  // dpkg -l's and pip list's columns: the version is the next word
      rest = trim(rest.substr(v));
    }
    if (!rest.empty() && rest.front() == '=') rest.remove_prefix(1);
    const std::string_view version = dotted_version(rest);
    if (version.empty()) continue;
    return NcclInstall{std::string(version), std::string(word)};
  }
  return std::nullopt;
}

namespace {

// Listings naming NCCL installs of two versions or more (library files, ls -l's links,
// packages: nccl_install): a program loads whichever its link and LD_LIBRARY_PATH find
// first, and one built against the newer runs on the older (nccl#1784: nccl-tests built with
// NCCL_HOME's 2.27 ran on the system's 2.23, without ncclCommWindowRegister); a package built
// for another CUDA than the machine's is the same fault.
void check_nccl_library_versions(const Facts& facts, std::vector<Finding>& out) {
  std::map<std::string, std::string> version_dirs;  // version -> the first place listing it
  for (const Quote& q : facts.nccl_library_links) {
    if (auto install = nccl_install(q.text)) version_dirs.emplace(install->version, install->where);
  }
  if (version_dirs.size() < 2) return;
  std::vector<std::string> listed;
  for (const auto& [version, dir] : version_dirs) listed.push_back(fmt::format("{} in {}", version, dir));
  out.push_back(finding(
      code::kFrameworkNcclLibraryMismatch, Severity::kWarning, "NCCL libraries", {},
      fmt::format("the listing shows NCCL of {} versions ({}): a program loads whichever its link and "
                  "LD_LIBRARY_PATH find first, so one built against one version may run on another (an older one "
                  "lacks newer calls, ncclCommWindowRegister in 2.27), and a package built for another CUDA than "
                  "the machine's fails in CUDA calls",
                  version_dirs.size(), fmt::join(listed, "; ")),
      "`ldd PROGRAM | grep nccl` (or `ldd` on the framework's library) names the one it loads; put the intended "
      "one first (LD_LIBRARY_PATH=$NCCL_HOME/lib, nccl-tests built with NCCL_HOME), or remove the other",
      facts.nccl_library_links, {{"versions", version_dirs.size()}}));
}

// A crash in NCCL's RAS thread (Facts::ras_crash_frames): RAS (2.24 on) runs in every NCCL
// process, and its bugs crash jobs that never asked it anything (nccl#1669: a status query
// racing a communicator's init, fixed in 2.27.3; nccl#1996: rasMsgHandlePeersUpdate in
// 2.27.7); NCCL_RAS_ENABLE=0 turns it off.
void check_ras_crash(const Facts& facts, std::vector<Finding>& out) {
  lines_finding(out, facts.ras_crash_frames, code::kNcclKnownBug, Severity::kError, "NCCL RAS",
                "a process crashed in NCCL's RAS subsystem ({} of its backtrace): the reliability thread every "
                "NCCL process since 2.24 runs, whose bugs crash jobs that never queried it (NVIDIA/nccl#1669, "
                "#1996); the machine is not at fault",
                "set NCCL_RAS_ENABLE=0 for the job, and load the newest NCCL (its release notes list the RAS fixes: "
                "2.27.3 the race with a communicator's init)");
}

// The loader refusing a program for an NCCL symbol (Facts::nccl_symbol_missing): the libnccl
// it found is older than the one it was built against, as a second NCCL on the path gives
// (another package's wheel, a conda nccl, a system libnccl ahead in LD_LIBRARY_PATH).
void check_nccl_symbol_missing(const Facts& facts, std::vector<Finding>& out) {
  std::set<std::string> symbols;
  for (const Quote& q : facts.nccl_symbol_missing) {
    const std::string_view t = q.text;
    std::string_view s = t.substr(t.find("undefined symbol: ") + 18);
    s = s.substr(0, s.find_first_of(" \t,)'\""));
    symbols.emplace(s);
  }
  if (facts.nccl_symbol_missing.empty()) return;
  out.push_back(finding(
      code::kFrameworkNcclLibraryMismatch, Severity::kError, "NCCL library", {},
      fmt::format("the program could not load: the NCCL library the loader found lacks {} ({}), so it is older than "
                  "the NCCL the program was built against; another NCCL comes first on the library path (a second "
                  "wheel such as nvidia-nccl-cu11 beside -cu12, a conda nccl, a system libnccl in LD_LIBRARY_PATH)",
                  fmt::join(symbols, ", "), count_lines(facts.nccl_symbol_missing.size())),
      "`pip list | grep nccl`, `conda list nccl` and LD_LIBRARY_PATH name the candidates: remove the stray one or put "
      "the framework's own first (site-packages/nvidia/nccl/lib), or install the framework build that matches it",
      facts.nccl_symbol_missing, {{"lines", facts.nccl_symbol_missing.size()}}));
}

// DCGM's IMEX check failing (Facts::imex_not_ready): no IMEX daemon ready on the node, so no
// job can share GPU memory over the multi-node NVLink domain (NCCL's MNNVL fails or is left
// out). On Kubernetes NVIDIA's DRA driver starts a daemon per ComputeDomain, so a node without
// one in use has none: the check fails there with nothing broken.
void check_imex_not_ready(const Facts& facts, std::vector<Finding>& out) {
  lines_finding(out, facts.imex_not_ready, code::kNvlinkImexUnavailable, Severity::kWarning, "IMEX",
                "DCGM finds no IMEX daemon ready on the node ({}: DCGM_FR_IMEX_UNHEALTHY): a "
                "job cannot share GPU memory across the multi-node NVLink domain, so NCCL's MNNVL fails or is left "
                "out; on Kubernetes the DRA driver runs IMEX per ComputeDomain, so an idle node has none and the check "
                "fails with nothing broken",
                "`nvidia-imex-ctl -N` (every node of the domain Ready and connected) and `systemctl status "
                "nvidia-imex` where IMEX runs as a service; on Kubernetes, whether a ComputeDomain is in use on the "
                "node; a single-node NVSwitch system needs no IMEX, and its check can be left out");
}

void check_warn(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  check_nccl_library_versions(facts, out);
  check_imex_not_ready(facts, out);
  check_nccl_symbol_missing(facts, out);
  check_ras_crash(facts, out);
  const RankMap ranks = rank_map(facts);
  std::map<std::string_view, std::vector<const NcclFact*>> by_code;
  std::vector<const NcclFact*> other;
  for (const NcclFact& n : facts.nccl) {
    // WARN lines, a framework's NCCL errors, and the INFO line NCCL prints before its
    // kernels fail to launch.
    if (n.level != "WARN" && n.level != "ERROR" && !contains(n.msg, "ncclMaxSharedMem")) continue;
    // NVLS multicast memory used up is not the GPU's memory (check_nvls).
    if (contains(n.msg, "Failed to bind NVLink SHARP") && contains(n.msg, "'out of memory'")) continue;
    if (const std::string_view c = warn_code(n.msg); !c.empty()) {
      by_code[c].push_back(&n);
    } else if (!read_elsewhere(n)) {
      other.push_back(&n);
    }
  }
  fold_consequences(by_code);
  // CUDA's errors in other programs' lines (a framework's traceback, a test program).
  std::map<std::string_view, std::vector<Quote>> cuda_by_code;
  for (const Quote& q : facts.cuda_errors) {
    if (const CudaError* e = cuda_error_of(q.text)) cuda_by_code[e->code].push_back(q);
  }
  for (std::string_view c : warn_codes_in_order()) {
    Meaning w = meaning_of(c);
    if (auto it = by_code.find(c); it != by_code.end()) {
      const NcclFact& first = *it->second.front();
      w = meaning_of(c, first.msg);
      std::vector<Quote> quotes;
      std::vector<std::string> hosts;
      for (const NcclFact* n : it->second) {
        quotes.push_back(n->where);
        hosts.push_back(n->host);
      }
      if (auto cuda = cuda_by_code.find(c); cuda != cuda_by_code.end()) {
        quotes.insert(quotes.end(), cuda->second.begin(), cuda->second.end());
      }
      out.push_back(
          finding(w.code, Severity::kError, who(first, ranks), hosts,
                  fmt::format("{}: {}; first at {} ({}:{})", error_lines(it->second), w.meaning, who(first, ranks),
                              first.where.file, first.where.line),
                  std::string(w.hint), quotes,
                  {{"first_host", first.host}, {"first_pid", first.pid}, {"first_rank", first_rank(first, ranks)}}));
    } else if (auto cuda = cuda_by_code.find(c); cuda != cuda_by_code.end()) {
      const Quote& first = cuda->second.front();
      // The first error's own meaning where its row has one (804's is not 35's).
      if (const CudaError* e = cuda_error_of(first.text); e && !e->meaning.empty()) w = {e->code, e->meaning, e->hint};
      out.push_back(finding(w.code, Severity::kError, "CUDA", {},
                            fmt::format("CUDA error ({}): {}; first at {}:{}", count_lines(cuda->second.size()),
                                        w.meaning, first.file, first.line),
                            std::string(w.hint), cuda->second, {{"lines", cuda->second.size()}}));
    }
  }
  check_torch_shm(facts, out);
  check_rdma_enomem(facts, out);
  name_stalled_ranks(facts, out);
  check_bootstrap_trace(facts, out);
  if (!other.empty()) {
    std::vector<Quote> quotes;
    for (const NcclFact* n : other) quotes.push_back(n->where);
    out.push_back(finding(code::kNcclWarn, Severity::kWarning, who(*other.front(), ranks), {other.front()->host},
                          fmt::format("{}; the first from {}", error_lines(other, "other ", "WARN", "ERROR or WARN"),
                                      who(*other.front(), ranks)),
                          "read the first one: later warnings usually follow from it", quotes));
  }
}

// The fabric changing under the job, as the NICs' asynchronous events tell it: a warning
// (each is survivable alone; beside a job's failure, its likeliest cause), naming the
// events and the ports. A port error is nccl.ib_port_error's, a fatal event
// nccl.ib_fatal_event's.
void check_fabric_events(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  const RankMap ranks = rank_map(facts);
  std::vector<const NcclFact*> seen;
  std::vector<std::string_view> kinds;
  for (const NcclFact& n : facts.nccl) {
    const FabricEvent* e = fabric_event(n.msg);
    if (!e) continue;
    seen.push_back(&n);
    if (std::find(kinds.begin(), kinds.end(), e->kind) == kinds.end()) kinds.push_back(e->kind);
  }
  if (seen.empty()) return;
  std::vector<Quote> quotes;
  std::vector<std::string> hosts;
  for (const NcclFact* n : seen) {
    quotes.push_back(n->where);
    if (std::find(hosts.begin(), hosts.end(), n->host) == hosts.end()) hosts.push_back(n->host);
  }
  const bool roce = std::all_of(kinds.begin(), kinds.end(), [](std::string_view k) { return contains(k, "RoCE"); });
  out.push_back(finding(
      code::kNcclIbFabricEvent, Severity::kWarning, who(*seen.front(), ranks), hosts,
      fmt::format("the fabric changed while the job ran ({} asynchronous event{} of the NICs, first at {}:{}): {}; "
                  "connections made before may fail or stall until paths settle",
                  seen.size(), seen.size() == 1 ? "" : "s", seen.front()->where.file, seen.front()->where.line,
                  fmt::join(kinds, "; ")),
      roce ? "find what changes the interface's addresses (DHCP renewals, NetworkManager, a CNI plugin adding or "
             "removing addresses) and keep them fixed while jobs run; `show_gids` before and after shows the "
             "indices that moved, and NCCL_IB_GID_INDEX must name one that stays"
           : "read the subnet manager's log (opensm.log, UFM's events) and the switches' for that time: an SM "
             "failover or restart, a re-sweep after a link or switch went down; the ports' link_downed counters "
             "and dmesg say which link flapped",
      quotes, {{"events", seen.size()}}));
}

// What NCCL's RAS client says of the job (Facts::ras): the processes and ranks it lost, an
// error naming each (dead: unreachable over RAS for 60 s; else not answering its queries);
// and ranks that launched fewer collectives than the others, a warning (RAS's own caution:
// a snapshot of a busy job shows that too; counts that do not move across queries are a hang).
void check_ras(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<const RasFact*> lost, behind;
  for (const RasFact& f : facts.ras) (f.what == "behind" ? behind : lost).push_back(&f);
  auto hosts_of = [](const std::vector<const RasFact*>& fs) {
    std::vector<std::string> hosts;
    for (const RasFact* f : fs) {
      if (!f->host.empty() && std::find(hosts.begin(), hosts.end(), f->host) == hosts.end()) hosts.push_back(f->host);
    }
    return hosts;
  };
  auto quotes_of = [](const std::vector<const RasFact*>& fs) {
    std::vector<Quote> q;
    for (const RasFact* f : fs) q.push_back(f->where);
    return q;
  };
  if (!lost.empty()) {
    // Each process or rank once, dead where any line says so.
    std::vector<std::string> dead, other;
    for (const RasFact* f : lost) {
      std::string n =
          f->process.empty() ? fmt::format("rank {}{}", f->rank, f->comm.empty() ? "" : " of " + f->comm) : f->process;
      if (f->rank >= 0 && !f->process.empty()) n = fmt::format("rank {} ({})", f->rank, f->process);
      if (f->what == "dead") {
        std::erase(other, n);
        if (std::find(dead.begin(), dead.end(), n) == dead.end()) dead.push_back(std::move(n));
      } else if (std::find(dead.begin(), dead.end(), n) == dead.end() &&
                 std::find(other.begin(), other.end(), n) == other.end()) {
        other.push_back(std::move(n));
      }
    }
    std::string said;
    if (!dead.empty()) said = fmt::format("dead (unreachable over RAS for 60 s): {}", fmt::join(dead, "; "));
    if (!other.empty()) said += fmt::format("{}not answering: {}", said.empty() ? "" : "; ", fmt::join(other, "; "));
    const std::vector<std::string> hosts = hosts_of(lost);
    const size_t n = dead.size() + other.size();
    out.push_back(finding(
        code::kNcclRasProcessLost, Severity::kError,
        hosts.empty() ? (dead.empty() ? other : dead).front() : fmt::format("{}", fmt::join(hosts, ", ")), hosts,
        fmt::format("NCCL's RAS lost {} of the job ({}): {}; the other ranks' collectives wait on {}",
                    n == 1 ? "a process or rank" : fmt::format("{} processes or ranks", n), count_lines(lost.size()),
                    said, n == 1 ? "it" : "them"),
        "on that node: is the process alive and running (`ps -o stat -p PID`: T stopped, D in the kernel, gone), "
        "where it waits (`py-spy dump --pid PID`, `gdb -p PID`), and dmesg at that time (Xid, the OOM killer, NIC "
        "errors); query RAS again (`ncclras -v`) to see whether it comes back",
        quotes_of(lost), {{"processes", n}}));
  }
  // A group RAS counts without naming it, behind the ranks it names: the named ones are ahead.
  // Ranks it names that are behind too (a third count) follow as ranks behind of their own.
  const auto unnamed = std::find_if(behind.begin(), behind.end(), [](const RasFact* f) { return f->unnamed > 0; });
  if (unnamed != behind.end()) {
    const RasFact& g = **unnamed;
    std::erase_if(behind, [](const RasFact* f) { return f->unnamed > 0; });
    out.push_back(finding(
        code::kNcclRasRanksBehind, Severity::kWarning, fmt::format("{} ranks", g.unnamed), {},
        fmt::format("NCCL's RAS shows {} ranks behind the others{}: {} up to operation {} only, while rank{} {} "
                    "reached {}; RAS names the ranks of the smaller group, and here those are ahead, waiting in the "
                    "collective the {} have not launched; if a second query shows the same counts, those {} are "
                    "stuck before it",
                    g.unnamed, g.comm.empty() ? "" : " in communicator " + g.comm,
                    g.coll.empty() ? "collectives launched" : g.coll + " launched", g.op,
                    g.named_ahead.size() == 1 ? "" : "s", fmt::join(g.named_ahead, ", "), g.ahead, g.unnamed,
                    g.unnamed),
        "query RAS again a few seconds later (`ncclras -v`): counts that move are a busy job; counts that stay are a "
        "hang: look at what the many ranks do instead of the collective (their stacks with `py-spy dump`, a data "
        "loader or a rank-dependent branch), not at the ranks RAS names",
        {g.where}, {{"ranks", g.unnamed}, {"ahead", g.named_ahead}}));
  }
  if (!behind.empty()) {
    std::vector<int> ranks;
    for (const RasFact* f : behind) {
      if (f->rank >= 0 && std::find(ranks.begin(), ranks.end(), f->rank) == ranks.end()) ranks.push_back(f->rank);
    }
    const RasFact& first = *behind.front();
    const std::vector<std::string> hosts = hosts_of(behind);
    const std::string who = fmt::format("rank{} {}", ranks.size() == 1 ? "" : "s", fmt::join(ranks, ", "));
    out.push_back(finding(
        code::kNcclRasRanksBehind, Severity::kWarning, who, hosts,
        fmt::format("NCCL's RAS shows {}{}{} behind the others{}: {} up to operation {} only, the others up to {}; if "
                    "a second query shows the same counts, {} stuck before the collective the others wait in",
                    who, hosts.empty() ? "" : " (on ", hosts.empty() ? "" : fmt::format("{})", fmt::join(hosts, ", ")),
                    first.comm.empty() ? "" : " in communicator " + first.comm,
                    first.coll.empty() ? "collectives launched" : first.coll + " launched", first.op, first.ahead,
                    ranks.size() == 1 ? "it is" : "they are"),
        "query RAS again a few seconds later (`ncclras -v`): counts that move are a busy job; counts that stay are a "
        "hang, and those ranks are where to look (their stacks with `py-spy dump`, their host's dmesg, a data loader "
        "or a rank-dependent branch that skipped the collective)",
        quotes_of(behind), {{"ranks", ranks}}));
  }
}

// Logs of fewer ranks than the communicator has: a judgement about the others is not
// possible.
void check_coverage(const Facts& facts, std::vector<Finding>&, std::vector<std::string>& missing) {
  const RankMap ranks = rank_map(facts);
  std::set<int> seen;
  for (const auto& [proc, r] : ranks.rank_of) seen.insert(r);
  if (ranks.nranks > 0 && static_cast<int>(seen.size()) < ranks.nranks) {
    missing.push_back(fmt::format("NCCL lines of {} of {} ranks: the others' NICs and warnings are not in the files",
                                  seen.size(), ranks.nranks));
  }
  const bool has_log = std::any_of(facts.files.begin(), facts.files.end(), [](const TriageFile& f) {
    return std::find(f.kinds.begin(), f.kinds.end(), "nccl-log") != f.kinds.end() ||
           std::find(f.kinds.begin(), f.kinds.end(), "framework-log") != f.kinds.end() ||
           std::find(f.kinds.begin(), f.kinds.end(), "nccl-ras") != f.kinds.end();
  });
  if (!has_log && facts.tables.empty() && facts.kernel.empty() && facts.counters.empty() && facts.snapshots.empty() &&
      std::any_of(facts.files.begin(), facts.files.end(), [](const TriageFile& f) { return !f.kinds.empty(); })) {
    missing.emplace_back("no NCCL log, nccl-tests output, kernel log or counters: nothing says how the job ran");
  }
}

// --- nccl-tests -------------------------------------------------------------------

void check_nccl_tests(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  for (const auto& [file, t] : facts.tables) {
    std::vector<std::string> sizes;
    std::vector<Quote> quotes;
    int64_t wrong = 0;
    std::vector<double> busbw;
    for (const NcclTestsRow& r : t.rows) {
      int64_t w = 0;
      for (const auto* p : {&r.out_of_place, &r.in_place}) {
        if (*p && (*p)->wrong) w += *(*p)->wrong;
      }
      if (w > 0) {
        wrong += w;
        sizes.push_back(format_size(r.size_bytes));
        quotes.push_back({file, r.line, fmt::format("{} bytes: #wrong {}", r.size_bytes, w)});
      }
      if (r.out_of_place) busbw.push_back(r.out_of_place->busbw_gbps);
    }
    const std::string name = t.program.empty() ? "nccl-tests" : t.program;
    if (wrong > 0) {
      out.push_back(finding(code::kNcclTestsWrong, Severity::kError, fmt::format("{} in {}", name, file), {},
                            fmt::format("{} reported {} wrong element(s) at {} size(s): {}: data corruption, the run "
                                        "fails",
                                        name, wrong, sizes.size(), fmt::join(sizes, ", ")),
                            "rerun with -c 1 on subsets of the hosts to find the GPU, NIC or link; check dmesg for "
                            "Xid 48/63/94/95 (ECC) and the NICs' error counters",
                            quotes, {{"wrong", wrong}}));
    }
    // A dip: a size below half its neighbours' bus bandwidth (the curve rises with size).
    for (size_t i = 1; i + 1 < t.rows.size(); ++i) {
      const auto& a = t.rows[i - 1].out_of_place;
      const auto& b = t.rows[i].out_of_place;
      const auto& c = t.rows[i + 1].out_of_place;
      if (!a || !b || !c || t.rows[i].size_bytes < (1u << 20)) continue;
      const double around = std::min(a->busbw_gbps, c->busbw_gbps);
      if (around > 0 && b->busbw_gbps < 0.5 * around) {
        // The in-place run of the same size at its neighbours' rate: the size is not the cause
        // (a protocol or algorithm chosen for it would slow both), one run was disturbed.
        const auto& same = t.rows[i].in_place;
        const bool one_run = same && same->busbw_gbps >= 0.5 * around;
        out.push_back(finding(
            code::kNcclTestsDip, one_run ? Severity::kInfo : Severity::kWarning,
            fmt::format("{} at {}", name, format_size(t.rows[i].size_bytes)), {},
            one_run ? fmt::format("{} at {}: out-of-place busbw {:.2f} GB/s, under half its neighbours' ({:.2f} "
                                  "GB/s), while in-place at the same size ran at {:.2f} GB/s: one run disturbed, "
                                  "not the size",
                                  name, format_size(t.rows[i].size_bytes), b->busbw_gbps, around, same->busbw_gbps)
                    : fmt::format("{} at {}: busbw {:.2f} GB/s, under half its neighbours' ({:.2f} GB/s)", name,
                                  format_size(t.rows[i].size_bytes), b->busbw_gbps, around),
            "a protocol or algorithm switch at this size (NCCL_PROTO/NCCL_ALGO) or a transient: "
            "rerun with -n 100 and compare",
            {{file, t.rows[i].line, fmt::format("{} bytes: busbw {:.2f}", t.rows[i].size_bytes, b->busbw_gbps)}}));
      }
    }
  }
}

// The collective a table measured: the one its binary names, else what its rows show. A
// root (>= 0) is broadcast or reduce, by the operator; no root and an operator is
// all-reduce where busbw >= algbw (its factor 2(n-1)/n), reduce-scatter where below;
// no root and no operator is send/recv where busbw = algbw, all-gather or all-to-all
// (alike in every column: not told apart) where below. Empty where the rows cannot say.
std::optional<Collective> table_collective(const NcclTestsTable& t, bool* inferred = nullptr) {
  if (inferred) *inferred = false;
  if (auto c = collective_named_in(t.program)) return c;
  bool rooted = false, reduces = false, told = false;
  std::vector<double> ratio;
  for (const NcclTestsRow& r : t.rows) {
    if (r.redop.empty() || !r.root) return std::nullopt;  // a layout without the columns
    rooted |= *r.root >= 0;
    reduces |= r.redop != "none";
    told = true;
    if (r.out_of_place && r.out_of_place->algbw_gbps > 0 && r.out_of_place->busbw_gbps > 0) {
      ratio.push_back(r.out_of_place->busbw_gbps / r.out_of_place->algbw_gbps);
    }
  }
  if (!told) return std::nullopt;
  std::optional<Collective> c;
  if (rooted) {
    c = reduces ? Collective::kReduce : Collective::kBroadcast;
  } else if (!ratio.empty()) {
    const bool full = median(ratio) >= 0.995;  // 1 or above: printed to two decimals
    if (reduces) c = full ? Collective::kAllReduce : Collective::kReduceScatter;
    if (!reduces && full) c = Collective::kSendRecv;
  }
  if (inferred) *inferred = c.has_value();
  return c;
}

// A communicator of one rank: busbw 0 at every size while data moved (algbw > 0). The
// classic cause: nccl-tests built without MPI=1, started by mpirun, every process running
// its own one-rank test.
bool single_rank(const NcclTestsTable& t) {
  if (t.rows.empty()) return false;
  if (auto c = table_collective(t); c && info(*c).bus_factor == CollectiveInfo::BusFactor::kOne) {
    return false;  // busbw is algbw there: never 0 for one rank
  }
  bool moved = false;
  for (const NcclTestsRow& r : t.rows) {
    if (!r.out_of_place || r.out_of_place->busbw_gbps != 0) return false;
    moved |= r.out_of_place->algbw_gbps > 0;
  }
  return moved;
}

void check_single_rank(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>& missing) {
  std::map<std::string, std::vector<const NcclTestsTable*>> by_file;
  for (const auto& [file, t] : facts.tables) {
    if (single_rank(t)) by_file[file].push_back(&t);
  }
  for (const auto& [file, tables] : by_file) {
    double algbw = 0;
    std::vector<Quote> quotes;
    for (const NcclTestsTable* t : tables) {
      for (const NcclTestsRow& r : t->rows) algbw = std::max(algbw, r.out_of_place->algbw_gbps);
      const NcclTestsRow& last = t->rows.back();
      quotes.push_back({file, last.line,
                        fmt::format("{} bytes: algbw {:.2f} busbw {:.2f}", last.size_bytes,
                                    last.out_of_place->algbw_gbps, last.out_of_place->busbw_gbps)});
    }
    // Several one-rank tables in one output are processes that each ran alone: the fault.
    // One table of one device is a one-GPU run, perhaps on purpose: said, not blamed.
    const bool alone = tables.size() == 1 && tables.front()->devices.size() <= 1;
    out.push_back(finding(
        code::kNcclTestsSingleRank, alone ? Severity::kInfo : Severity::kWarning, fmt::format("nccl-tests in {}", file),
        {},
        fmt::format("{} table{} in {} show busbw 0 at every size (algbw up to {:.2f} GB/s): {}, so nothing crossed a "
                    "link and the numbers say nothing about the fabric",
                    tables.size(), tables.size() == 1 ? "" : "s", file, algbw,
                    alone ? "one rank on one GPU (if the job had more ranks, each ran alone)" : "each ran on one rank"),
        "nccl-tests built without MPI=1 and started by mpirun runs one single-rank test per process: rebuild with "
        "`make MPI=1 MPI_HOME=...` (the binary then prints one table for all ranks), or give one process the node's "
        "GPUs with -g N",
        quotes, {{"tables", tables.size()}}));
    missing.push_back(fmt::format("{}: its nccl-tests ran on one rank each: no measurement of the fabric", file));
  }
  // The device list: one rank number printed by two processes (a pid or host apart): each
  // process ran a test of its own, whether or not its table made it into the paste.
  std::map<std::pair<std::string, int>, std::map<int, std::vector<const TestDeviceFact*>>> ranks_by_block;
  for (const TestDeviceFact& d : facts.test_devices)
    ranks_by_block[{d.where.file, d.block}][d.device.rank].push_back(&d);
  std::set<std::string> said;
  for (const auto& [block, ranks] : ranks_by_block) {
    const std::string& file = block.first;
    if (by_file.count(file) || said.count(file)) continue;
    for (const auto& [rank, lines] : ranks) {
      std::set<std::pair<std::string, int>> procs;
      for (const TestDeviceFact* d : lines) procs.insert({d->device.host, d->device.pid});
      if (procs.size() < 2) continue;
      std::vector<Quote> quotes;
      std::vector<std::string> where;
      for (const TestDeviceFact* d : lines) {
        quotes.push_back(d->where);
        where.push_back(fmt::format("pid {} on {}", d->device.pid, d->device.host));
      }
      out.push_back(finding(
          code::kNcclTestsSingleRank, Severity::kWarning, fmt::format("nccl-tests in {}", file), {},
          fmt::format("rank {} is listed by {} processes ({}): each process ran a test of its own, so nothing "
                      "crossed between them and the numbers say nothing about the fabric",
                      rank, procs.size(), fmt::join(where, ", ")),
          "nccl-tests built without MPI=1 and started by mpirun runs one test per process: rebuild with `make MPI=1 "
          "MPI_HOME=...` (one header, ranks numbered across the job)",
          quotes, {{"rank", rank}, {"processes", procs.size()}}));
      missing.push_back(fmt::format("{}: its nccl-tests ran one test per process: no measurement of the fabric", file));
      said.insert(file);
      break;
    }
  }
  // Without tables: each process's summary, one after the other.
  std::map<std::string, std::vector<Quote>> doubled;
  for (const auto& [a, b] : facts.doubled_summaries) {
    if (by_file.count(a.file)) continue;
    auto& q = doubled[a.file];
    if (q.empty() || q.back().line != a.line) q.push_back(a);
    q.push_back(b);
  }
  for (const auto& [file, quotes] : doubled) {
    out.push_back(finding(
        code::kNcclTestsSingleRank, Severity::kWarning, fmt::format("nccl-tests in {}", file), {},
        fmt::format("{} nccl-tests headers or summaries follow one another in {} with no table between: each "
                    "process printed "
                    "its own run, so each ran its own communicator and no figure measures the job's ranks together",
                    quotes.size(), file),
        "nccl-tests built without MPI=1 and started by mpirun runs one test per process: rebuild with "
        "`make MPI=1 MPI_HOME=...` (after `make clean`); the binary then prints one table for all ranks",
        quotes, {{"summaries", quotes.size()}}));
    missing.push_back(fmt::format("{}: each process ran its own nccl-tests: no measurement of the fabric", file));
  }
}

// NIC bandwidth of one host, GB/s per direction: what a ring all-reduce's bus bandwidth
// can reach across hosts (each NIC carries its share of the rings).
struct HostNicBandwidth {
  double gbytes = 0;
  std::vector<std::string> nics;
  std::string from;
  std::vector<Quote> where;
};

// Per host: NCCL's GRAPH dump ("+ NET[50.0] - NET/0-c (...)", GB/s), else the port rates
// of the NICs the topology knows (those of NCCL's NET/IB list where the host has one; a
// host with a NIC of unknown rate has no figure).
std::map<std::string, HostNicBandwidth> nic_bandwidth(const Facts& facts) {
  std::map<std::string, std::map<std::string, std::pair<double, Quote>>> graph;  // host -> NET node -> bw
  for (const NcclFact& n : facts.nccl) {
    const std::string_view m = trim(n.msg);
    if (!m.starts_with("+ NET[")) continue;
    const size_t close = m.find(']');
    const size_t dash = m.find(" - ");
    if (close == std::string_view::npos || dash == std::string_view::npos || close < 6) continue;
    double bw = 0;
    const std::string_view num = m.substr(6, close - 6);
    auto r = std::from_chars(num.data(), num.data() + num.size(), bw);
    if (r.ec != std::errc() || !(bw > 0) || bw > 1e6) continue;
    std::string_view node = m.substr(dash + 3);
    node = node.substr(0, node.find(' '));
    graph[n.host].emplace(std::string(node), std::make_pair(bw, n.where));
  }
  std::map<std::string, HostNicBandwidth> out;
  for (const auto& [host, nets] : graph) {
    HostNicBandwidth& b = out[host];
    for (const auto& [node, v] : nets) {
      b.gbytes += v.first;
      b.nics.push_back(node);
      b.where.push_back(v.second);
    }
    std::sort(b.where.begin(), b.where.end(),
              [](const Quote& x, const Quote& y) { return std::tie(x.file, x.line) < std::tie(y.file, y.line); });
    b.from = fmt::format("NCCL's topology dump: {} NET entries", nets.size());
  }
  for (const topo::HostTopology& h : facts.topology.hosts) {
    if (out.count(h.host)) continue;
    std::vector<const topo::Nic*> nics;
    if (!h.nccl_nets.empty()) {
      for (const std::string& name : h.nccl_nets) {
        if (const int i = h.find_nic(name); i >= 0) nics.push_back(&h.nics[static_cast<size_t>(i)]);
      }
    } else {
      for (const topo::Nic& n : h.nics) {
        if (n.rdma && topo::usable(n)) nics.push_back(&n);
      }
    }
    double gbits = 0;
    bool known = !nics.empty();
    std::vector<std::string> names;
    for (const topo::Nic* n : nics) {
      const double r = topo::nic_rate(*n);
      known &= r > 0;
      gbits += r;
      names.push_back(fmt::format("{} {:g} Gb/s", n->name, r));
    }
    if (!known) continue;
    HostNicBandwidth& b = out[h.host];
    b.gbytes = gbits / 8;
    for (const topo::Nic* n : nics) b.nics.push_back(n->name);
    b.from = fmt::format("port rates: {}", fmt::join(names, ", "));
  }
  return out;
}

// Whether the job behind a table crossed hosts: its "# Rank" lines name two hosts or
// more; without them, the NCCL lines show traffic over the network (or "nNodes 1");
// nullopt where nothing says.
std::optional<bool> crossed_hosts(const NcclTestsTable& t, const Facts& facts) {
  std::set<std::string> hosts;
  for (const NcclTestsDevice& d : t.devices) hosts.insert(d.host);
  if (!t.devices.empty()) return hosts.size() >= 2;
  std::optional<bool> crossed;
  for (const NcclFact& n : facts.nccl) {
    if (contains(n.msg, " via NET/") || (contains(n.msg, " nNodes ") && !contains(n.msg, " nNodes 1 "))) return true;
    if (contains(n.msg, " nNodes 1 ")) crossed = false;
  }
  return crossed;
}

constexpr uint64_t kPeakSizeBytes = 64ull << 20;  // a sweep reaching this size shows its peak
constexpr double kBelowNicsShare = 0.5;           // busbw under this share of the NICs' rate

// A multi-host all-reduce, all-gather or reduce-scatter whose peak bus bandwidth is far
// below what the hosts' NICs allow (the sum of their rates, the bound of a ring across hosts).
void check_below_nics(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>& missing) {
  const auto nics = nic_bandwidth(facts);
  for (const auto& [file, t] : facts.tables) {
    bool inferred = false;
    const auto c = table_collective(t, &inferred);
    if (t.rows.empty() || single_rank(t)) continue;
    if (c && *c != Collective::kAllReduce && *c != Collective::kAllGather && *c != Collective::kReduceScatter) continue;
    const std::optional<bool> crossed = crossed_hosts(t, facts);
    if (crossed == false) continue;  // one host: NVLink's figure, not the fabric's
    const std::string name = !t.program.empty() ? t.program
                             : c                ? fmt::format("nccl-tests ({}, from its columns)", fabscope::name(*c))
                                                : std::string("nccl-tests");
    if (!crossed) {
      missing.push_back(
          fmt::format("{}: no `# Rank` lines or NCCL log say which hosts ran {}: its bus bandwidth is "
                      "not judged against the NICs",
                      file, name));
      continue;
    }
    if (!c) {
      missing.push_back(
          fmt::format("{}: no nccl-tests binary named, and its columns do not tell which collective it measured "
                      "(all-gather and all-to-all print alike): its bus bandwidth is not judged against the NICs",
                      file));
      continue;
    }
    if (t.rows.back().size_bytes < kPeakSizeBytes) {
      missing.push_back(fmt::format("{}: {} stops at {}: too small to show the peak bus bandwidth (run to {} or more)",
                                    file, name, format_size(t.rows.back().size_bytes), format_size(kPeakSizeBytes)));
      continue;
    }
    double peak = 0;
    const NcclTestsRow* at = nullptr;
    for (const NcclTestsRow& r : t.rows) {
      for (const auto* p : {&r.out_of_place, &r.in_place}) {
        if (*p && (*p)->busbw_gbps > peak) {
          peak = (*p)->busbw_gbps;
          at = &r;
        }
      }
    }
    if (!at) {  // every row 0: nothing moved (a damaged paste), no peak to judge
      missing.push_back(
          fmt::format("{}: {} shows no bandwidth at any size: nothing to judge against the NICs", file, name));
      continue;
    }
    std::set<std::string> table_hosts;
    for (const NcclTestsDevice& d : t.devices) table_hosts.insert(d.host);
    const HostNicBandwidth* least = nullptr;
    std::string least_host;
    for (const auto& [host, b] : nics) {
      if (!table_hosts.empty() && !table_hosts.count(host)) continue;
      if (!least || b.gbytes < least->gbytes) {
        least = &b;
        least_host = host;
      }
    }
    if (!least) {
      missing.push_back(fmt::format(
          "{}: no NIC rates in the files (NCCL's GRAPH lines, ibstat, ibv_devinfo -v, NCCL's topology XML): cannot "
          "tell whether {} GB/s of bus bandwidth is what the fabric allows",
          file, fmt::format("{:.1f}", peak)));
      continue;
    }
    const double share = peak / least->gbytes;
    if (share >= kBelowNicsShare) continue;
    std::vector<Quote> quotes = {
        {file, at->line, fmt::format("{} bytes: busbw {:.2f} GB/s (the table's peak)", at->size_bytes, peak)}};
    quotes.insert(quotes.end(), least->where.begin(), least->where.begin() + std::min<size_t>(3, least->where.size()));
    out.push_back(finding(
        code::kNcclTestsBelowNics, Severity::kError, fmt::format("{} in {}", name, file), {},
        fmt::format("{} peaks at {:.1f} GB/s bus bandwidth across hosts, {:.0f}% of the {:.1f} GB/s that {}'s {} "
                    "NIC(s) allow ({})",
                    name, peak, 100 * share, least->gbytes, least_host.empty() ? "a host" : least_host,
                    least->nics.size(), least->from),
        "a ring across hosts reaches about the sum of each host's NIC rates: look for GPUDirect RDMA off, GPUs "
        "sharing NICs, far NICs (`fabscope topo`), a slow PCIe link (NCCL's PCI[...] figures), or a virtualised "
        "PCIe topology; then `fabscope diagnose` on the hosts",
        quotes, {{"peak_busbw_gbps", peak}, {"nic_gbps", least->gbytes}, {"share", share}}));
  }
}

// --- kernel log -------------------------------------------------------------------

struct XidMeaning {
  int xid;
  Severity severity;
  std::string_view meaning;
};
// Every code NVIDIA's Xid catalogue describes for Ampere and later GPUs (docs.nvidia.com/
// deploy/xid-errors, "Analyzing Xid Errors with the Xid Catalog"), in its words where short,
// with its immediate action; a code the catalogue marks unused is left to the generic text
// (61, a breakpoint of older GPUs' PMU, is kept). The severity follows the action: reset the
// GPU or the node, drain it, check the power or the NVLink fabric is an error; restart the
// application a warning; nothing to do information.
constexpr XidMeaning kXids[] = {
    {8, Severity::kWarning,
     "GPU stopped processing (an idle timeout): restart the application; NVIDIA support if it repeats"},
    {11, Severity::kWarning, "invalid or corrupted push buffer stream: usually the application or CUDA; restart it"},
    {13, Severity::kWarning, "graphics engine exception: usually the application (an illegal memory access)"},
    {25, Severity::kWarning, "invalid or illegal push buffer stream: usually the application or CUDA; restart it"},
    {31, Severity::kWarning, "GPU memory page fault: usually the application, sometimes the driver"},
    {32, Severity::kWarning,
     "invalid or corrupted push buffer stream (PBDMA): usually the application or CUDA, else the PCIe path; restart "
     "it"},
    {37, Severity::kInfo,
     "driver firmware error (an unimplemented firmware method): NVIDIA's catalogue says ignore it; check the "
     "application and CUDA if it repeats"},
    {38, Severity::kWarning, "driver firmware error (a firmware watchdog timeout): NVIDIA support if it repeats"},
    {39, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {40, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {41, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {43, Severity::kWarning, "GPU stopped processing: the application's context was ended"},
    {44, Severity::kWarning, "graphics engine fault during a context switch: NVIDIA support if it repeats"},
    {45, Severity::kWarning, "preemptive cleanup: follows another error or a killed process"},
    {46, Severity::kError, "GPU stopped processing (a GPU timeout): reset the GPU"},
    {48, Severity::kError, "double-bit ECC error: drain the GPU and reset it"},
    {54, Severity::kError, "the GPU board's auxiliary power is not connected: check its power cables"},
    {60, Severity::kWarning, "video processor exception: restart the application"},
    {61, Severity::kError, "internal micro-controller breakpoint/warning: reset the GPU"},
    {62, Severity::kError, "internal micro-controller halt: reset the GPU"},
    {63, Severity::kWarning, "ECC page retirement or row remapping recorded: watch the count"},
    {64, Severity::kError, "ECC page retirement or row remapping failed: drain the GPU"},
    {66, Severity::kInfo,
     "illegal access by the driver: NVIDIA's catalogue says ignore it; investigate the software if it repeats"},
    {67, Severity::kInfo,
     "illegal access by the driver: NVIDIA's catalogue says ignore it; NVIDIA support if it repeats"},
    {68, Severity::kWarning, "video decoder (NVDEC) exception: restart the application"},
    {69, Severity::kWarning, "graphics engine class error: usually the application or CUDA; restart it"},
    {70, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {71, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {72, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {74, Severity::kError, "NVLink error: check the NVLink/NVSwitch links and fabric manager"},
    {75, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {76, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {77, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {78, Severity::kError, "vGPU start error: update the host's and guest's vGPU software and firmware"},
    {79, Severity::kError, "GPU has fallen off the bus: drain the node (PCIe, power, thermal)"},
    {80, Severity::kWarning,
     "corrupted data sent to the GPU (push buffer CRC mismatch): restart the application; check the PCIe path "
     "(AER lines) if it repeats"},
    {82, Severity::kWarning, "JPEG decoder (NVJPG) error: restart the application"},
    {83, Severity::kWarning, "video decoder (NVDEC) error: restart the application"},
    {84, Severity::kWarning, "video decoder (NVDEC) error: restart the application"},
    {85, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {86, Severity::kWarning, "optical flow accelerator (OFA) error: restart the application"},
    {88, Severity::kWarning, "video decoder (NVDEC) error: restart the application"},
    {89, Severity::kWarning, "video decoder (NVDEC) error: restart the application"},
    {92, Severity::kWarning, "high single-bit ECC error rate"},
    {93, Severity::kInfo, "the InfoROM's provisioned wear limit exceeded (not fatal): NVIDIA support if it repeats"},
    {94, Severity::kWarning, "contained ECC error: the application was stopped, the GPU is usable"},
    {95, Severity::kError, "uncontained ECC error: reset the GPU"},
    {96, Severity::kWarning, "video decoder (NVDEC) error: restart the application"},
    {97, Severity::kWarning, "video decoder (NVDEC) error: restart the application"},
    {98, Severity::kWarning, "video decoder (NVDEC) error: restart the application"},
    {99, Severity::kWarning, "JPEG decoder (NVJPG) error: restart the application"},
    {100, Severity::kWarning, "JPEG decoder (NVJPG) error: restart the application"},
    {101, Severity::kWarning, "JPEG decoder (NVJPG) error: restart the application"},
    {102, Severity::kWarning, "JPEG decoder (NVJPG) error: restart the application"},
    {103, Severity::kWarning, "JPEG decoder (NVJPG) error: restart the application"},
    {104, Severity::kWarning, "JPEG decoder (NVJPG) error: restart the application"},
    {105, Severity::kWarning, "JPEG decoder (NVJPG) error: restart the application"},
    {106, Severity::kInfo, "SMBPBI test message: nothing to do"},
    {107, Severity::kInfo, "SMBPBI test message: nothing to do"},
    {109, Severity::kWarning, "context switch timeout: usually the application, sometimes the driver"},
    {110, Severity::kError, "security fault error: reset the GPU"},
    {119, Severity::kError, "GSP RPC timeout: reset the GPU, check the driver version"},
    {120, Severity::kError, "GSP error: reset the GPU, check the driver version"},
    {121, Severity::kWarning,
     "C2C error on the CPU-GPU chip-to-chip link (NVLink-C2C, Grace): NVIDIA support if it repeats"},
    {126, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {127, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {128, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {129, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {130, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {131, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {132, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {133, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {134, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {135, Severity::kWarning, "copy engine exception: restart the application; NVIDIA support if it repeats"},
    {136, Severity::kError,
     "link training failed: reset the GPU; check the link's signal integrity (cable, connector, tray) if it "
     "repeats"},
    {137, Severity::kWarning,
     "NVLink FLA privilege error: an access across NVLink the fabric refused (the application)"},
    {139, Severity::kWarning, "optical flow accelerator (OFA) error: restart the application"},
    {140, Severity::kError, "unrecovered ECC error: reset the GPU; drain it if it repeats"},
    {141, Severity::kInfo, "CUDA fast path error: NVIDIA support if it repeats"},
    {142, Severity::kWarning, "video encoder (NVENC) error: restart the application"},
    {143, Severity::kError, "GPU initialisation failure: reset the GPU or reboot; drain it if it repeats"},
    {144, Severity::kError, "NVLink error (SAW): check the NVLink links and the NVSwitch fabric"},
    {145, Severity::kError, "NVLink error (RLW): check the NVLink links and the NVSwitch fabric"},
    {146, Severity::kError, "NVLink error (TLW): check the NVLink links and the NVSwitch fabric"},
    {147, Severity::kError, "NVLink error (TREX): check the NVLink links and the NVSwitch fabric"},
    {148, Severity::kError, "NVLink error (NVLPW control): check the NVLink links and the NVSwitch fabric"},
    {149, Severity::kError, "NVLink error (NETIR): check the NVLink links and the NVSwitch fabric"},
    {150, Severity::kError, "NVLink error (MSE): check the NVLink links and the NVSwitch fabric"},
    {151, Severity::kError, "key rotation error (confidential computing): restart the VM"},
    {152, Severity::kInfo, "deep learning accelerator (DLA) error: NVIDIA support if it repeats"},
    {153, Severity::kInfo, "deep learning accelerator (DLA) error: NVIDIA support if it repeats"},
    {154, Severity::kError,
     "GPU recovery action changed: the line says what the GPU needs now (a reset, a node reboot, P2P drained)"},
    {155, Severity::kError,
     "NVLink error defined by software: reset the GPU; investigate the software and the user's job"},
    {156, Severity::kError, "GPU resource retirement event: reset the GPU so the retirement takes effect"},
    {157, Severity::kWarning, "GPU resource retirement failure: NVIDIA support"},
    {158, Severity::kError, "GPU fatal timeout: reset the GPU; NVIDIA support if it repeats"},
    {159, Severity::kWarning, "CHI non-data error: check unified memory (UVM) use; it usually accompanies another Xid"},
    {160, Severity::kWarning, "channel retirement event: investigate the software"},
    {161, Severity::kWarning, "channel retirement failure: investigate the software"},
    {162, Severity::kInfo, "power smoothing circuitry re-engaged"},
    {163, Severity::kWarning, "power smoothing circuitry disengaged"},
    {164, Severity::kWarning, "power smoothing circuitry at low lifetime: plan its service"},
    {165, Severity::kError, "power smoothing circuitry lifetime exhausted: service the GPU board"},
    {166, Severity::kWarning, "NVLink traffic of confidential computing before the link was set up for encryption"},
    {167, Severity::kError,
     "PCIe fatal timeout: the GPU stopped answering on PCIe; drain the node and check the slot, riser and power"},
    {168, Severity::kError,
     "errors in the write-protected region: the GPU runs with less memory; reset it, NVIDIA support if it "
     "repeats"},
    {169, Severity::kError, "internal micro-controller (SEC2) halt: reset the GPU"},
    {170, Severity::kWarning, "NVLink interrupt in confidential computing mode"},
    {171, Severity::kError, "uncorrectable DRAM error (detail of Xid 48): drain the GPU and reset it"},
    {172, Severity::kError, "uncorrectable SRAM error (detail of Xid 48): drain the GPU and reset it"},
};

// The host a kernel line names: journalctl's "Mon DD HH:MM:SS HOST kernel:".
std::string kernel_host(std::string_view line) {
  const size_t k = line.find(" kernel: ");
  if (k == std::string_view::npos) return {};
  const auto words = split_ws(line.substr(0, k));
  return words.empty() ? std::string() : std::string(words.back());
}

// A Broadcom NIC's firmware failing, in its drivers' words (Linux's bnxt_en, ESXi's bnxtnet):
// "Firmware fatal reset event received", "HWRM cmd resp_len timeout, cmd_type 0x..",
// "VER_GET failed- FW_STATUS_REG: 0x89021", and the firmware's own trace, "CRT FATAL ERROR:
// 0x9021".
bool broadcom_nic_failed(std::string_view t) {
  if (contains(t, "CRT FATAL ERROR")) return true;
  if (!contains(t, "bnxt")) return false;
  return contains(t, "fatal reset event") || contains(t, "FW_STATUS_REG") || contains(t, "resp_len timeout");
}

// The kernel's lines by what they report, with the hosts journalctl's prefix names.
struct KernelLines {
  std::map<int, std::vector<Quote>> xids;
  std::vector<Quote> aer_uncorrected, aer_corrected, oom, mlx5_cmd, reset_required, hca_firmware;
  std::map<std::string, std::vector<Quote>> link_down;  // interface/device -> lines
  std::vector<std::string> xid_hosts, oom_hosts;
  // mlx5's own words (drivers/net/ethernet/mellanox/mlx5/core, events.c and health.c):
  // a transceiver or cable module in error, or unplugged; the adapter's health.
  std::vector<Quote> module_error, module_unplugged, nic_health;
};

// Where a line's Xid is: "NVRM: Xid (PCI:...)", or "Xid (PCI:...)" quoted without the
// driver's tag; not NVSwitch's "SXid (PCI:...)". npos for none.
size_t xid_at(std::string_view t) {
  if (const size_t at = t.find("NVRM: Xid"); at != std::string_view::npos) return at;
  const size_t at = t.find("Xid (PCI:");
  return at != std::string_view::npos && (at == 0 || t[at - 1] != 'S') ? at : std::string_view::npos;
}

// The firmware's error records through APEI (GHES) for PCIe: "{8}[Hardware Error]: event
// severity: corrected" then, a few lines on, "{8}[Hardware Error]:   section_type: PCIe error":
// the same AER event as the kernel's own "AER: Corrected error received", told by the firmware
// (firmware-first platforms). Counted once per record, by its section line.
void sort_apei_pcie(const Facts& facts, KernelLines& k) {
  bool corrected = false;
  for (const Quote& q : facts.kernel) {
    const std::string_view t = q.text;
    if (!contains(t, "[Hardware Error]")) continue;
    if (const size_t at = t.find("event severity: "); at != std::string_view::npos) {
      corrected = t.substr(at + 16).starts_with("corrected");
    } else if (contains(t, "section_type: PCIe error")) {
      (corrected ? k.aer_corrected : k.aer_uncorrected).push_back(q);
    }
  }
}

// The NIC drivers' kernel lines (mlx4, mlx5, Broadcom's) into `k`: firmware asked for, a cable
// module in error or unplugged, the adapter's health, a firmware command failed, a link down.
void sort_nic_line(const Quote& q, KernelLines& k) {
  const std::string_view t = q.text;
  if ((contains(t, "mlx4") || contains(t, "mlx5")) && (contains(t, "upgrade") || contains(t, "please update")) &&
      (contains(t, "FW") || contains(t, "firmware"))) {
    // The driver asking for newer HCA firmware: "mlx4_en 0000:0d:00.0: LSO not supported,
    // please upgrade to later FW version to enable LSO".
    k.hca_firmware.push_back(q);
  } else if (contains(t, "Port module event[error]")) {
    // "mlx5_core 0000:5c:00.0: Port module event[error]: module 0, Cable error, High Temperature"
    k.module_error.push_back(q);
  } else if (contains(t, "Port module event") && contains(t, "Cable unplugged")) {
    k.module_unplugged.push_back(q);
  } else if (contains(t, "mlx5") &&
             (contains(t, "health compromised") || contains(t, "unrecoverable hardware error") ||
              contains(t, "insufficient power on the PCIe slot") || contains(t, "health recovery flow aborted") ||
              contains(t, "handling bad device here") || contains(t, "mlx5_pci_err_detected") ||
              contains(t, "Driver is in error state") || contains(t, "fw_fatal_reporter_err_work") ||
              (contains(t, "print_health_info") && contains(t, "synd 0x")))) {
    // health.c's "device's health compromised - reached miss count", its syndromes
    // ("print_health_info:520:(pid 0): synd 0x10: High temperature", "unrecoverable hardware
    // error"), its recovery ("mlx5_health_try_recover: handling bad device here", "health
    // recovery flow aborted, PCI reads still not working"), the firmware's fatal reporter
    // ("mlx5_fw_fatal_reporter_err_work:1983:(pid 123): Driver is in error state. Unloading");
    // events.c's "Detected insufficient power on the PCIe slot (27W)", after which the adapter
    // powers its ports down.
    k.nic_health.push_back(q);
  } else if (broadcom_nic_failed(t)) {
    k.nic_health.push_back(q);
  } else if (contains(t, "mlx5") && (contains(t, "cmd_work_handler") || contains(t, "mlx5_cmd_check") ||
                                     contains(t, "mlx5_cmd_out_err") || contains(t, "failed,") ||
                                     // a command the firmware never completed (mlx5 cmd.c's wait_func)
                                     contains(t, "No done completion") || contains(t, "wait_func"))) {
    k.mlx5_cmd.push_back(q);
  } else if (contains(t, "Link down") || contains(t, "link down") || contains(t, "Link is Down") ||
             contains(t, "NIC Link is Down") || contains(t, "link becomes down")) {
    // "mlx5_core 0000:3b:00.0 ens3np0: Link down": the device is the word before the colon.
    std::string dev = "?";
    const size_t colon = t.rfind(": ", t.find("ink"));
    if (colon != std::string_view::npos) {
      const auto words = split_ws(t.substr(0, colon));
      if (!words.empty()) dev = std::string(words.back());
    }
    k.link_down[dev].push_back(q);
  }
}

KernelLines sort_kernel_lines(const Facts& facts) {
  KernelLines k;
  sort_apei_pcie(facts, k);
  // Names for k's members this loop fills (std::tie's tuple holds references).
  auto [xids, aer_uncorrected, aer_corrected, oom, reset_required, xid_hosts, oom_hosts] =
      std::tie(k.xids, k.aer_uncorrected, k.aer_corrected, k.oom, k.reset_required, k.xid_hosts, k.oom_hosts);
  // The driver's own line for a GPU lost from PCIe (osinit.c: "NVRM: GPU 0000:3b:00.0: GPU
  // has fallen off the bus."): the event Xid 79 reports, printed with or without its Xid
  // line. Read as Xid 79 where the files hold no Xid 79 line.
  std::vector<Quote> off_bus;
  std::vector<std::string> off_bus_hosts;
  for (const Quote& q : facts.kernel) {
    const std::string_view t = q.text;
    if (contains(t, "[Hardware Error]")) continue;  // sort_apei_pcie's
    if (contains(t, "NVRM: GPU ") && contains(t, ": GPU has fallen off the bus")) {
      off_bus.push_back(q);
      off_bus_hosts.push_back(kernel_host(t));
    } else if (const size_t at = xid_at(t); at != std::string_view::npos) {
      // "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus.", also quoted
      // without "NVRM: " (not NVSwitch's "SXid").
      const size_t close = t.find("):", at);
      if (close != std::string_view::npos) {
        std::string_view num = trim(t.substr(close + 2));
        int xid = 0;
        std::from_chars(num.data(), num.data() + num.size(), xid);
        if (xid > 0) {
          xids[xid].push_back(q);
          xid_hosts.push_back(kernel_host(t));
        }
      }
    } else if (contains(t, "NVRM: ") && (contains(t, "NV_ERR_RESET_REQUIRED") || contains(t, "Reset required"))) {
      // The driver refusing work because the GPU needs a reset: printed with no Xid number
      // (GSP's "Assertion failed: Reset required [NV_ERR_RESET_REQUIRED]").
      reset_required.push_back(q);
      xid_hosts.push_back(kernel_host(t));
    } else if ((contains(t, "AER:") || contains(t, "PCIe Bus Error:")) &&
               (contains(t, "Uncorrected") || contains(t, "Uncorrectable"))) {
      aer_uncorrected.push_back(q);  // the kernel's words before 4.20 and since ("Uncorrectable (Fatal)")
    } else if ((contains(t, "AER:") || contains(t, "PCIe Bus Error:")) &&
               (contains(t, "Corrected") || contains(t, "Correctable"))) {
      aer_corrected.push_back(q);
    } else if (contains(t, "Killed process") || contains(t, "oom-kill") || contains(t, "oom_kill event") ||
               contains(t, ": Out Of Memory")) {
      // The kill itself ("Out of memory: Killed process", a cgroup's "Memory cgroup out of
      // memory: Killed process"), Slurm's count of them and srun's task; not the kernel's
      // "oom-kill:constraint=..." line that goes with each.
      if (contains(t, "out of memory: Killed process") || contains(t, "Out of memory: Killed process") ||
          contains(t, " oom-kill event") || contains(t, " oom_kill event") ||
          (contains(t, "srun: error:") && contains(t, ": Out Of Memory"))) {
        oom.push_back(q);
        oom_hosts.push_back(kernel_host(t));
      }
    } else {
      sort_nic_line(q, k);
    }
  }
  if (!off_bus.empty() && !xids.count(79)) {
    xids[79] = std::move(off_bus);
    xid_hosts.insert(xid_hosts.end(), off_bus_hosts.begin(), off_bus_hosts.end());
  }
  return k;
}

// An HCA whose driver asks for newer firmware. Where an RDMA tool also finds no device,
// the card is on the bus and its driver loaded, yet no RDMA port came up: the firmware is
// the likeliest cause (an error). Alone it is information: a card a generation old prints
// it for an offload it lacks and works.
void check_hca_firmware(const Facts& facts, const std::vector<Quote>& lines, std::vector<Finding>& out) {
  const bool no_device = !facts.rdma_absent.empty();
  std::vector<Quote> quotes = facts.rdma_absent;  // the tool's "no device" first
  quotes.insert(quotes.end(), lines.begin(), lines.end());
  const std::string asks =
      fmt::format("asks for newer firmware ({} line{})", lines.size(), lines.size() == 1 ? "" : "s");
  out.push_back(finding(
      code::kKernelHcaFirmware, no_device ? Severity::kError : Severity::kInfo, "HCA firmware", {},
      no_device ? fmt::format("no RDMA device is listed, while the NIC's driver loaded and {}: the card did not bring "
                              "up its RDMA ports",
                              asks)
                : fmt::format("the RDMA NIC's driver {}; nothing in the files says its ports are missing", asks),
      no_device ? "update the HCA's firmware to what the driver wants (`mstflint -d PCI q` shows the PSID: a card "
                  "with another OEM's PSID needs that vendor's image), then reload the driver and check `ibstat`"
                : "compare the card's firmware (`ibv_devinfo` fw_ver, `mstflint -d PCI q`) with the version the "
                  "driver wants",
      quotes));
}

// PCIe AER, uncorrected (an error) or corrected (a warning).
void check_pcie_aer(std::vector<Quote>& aer_uncorrected, std::vector<Quote>& aer_corrected, std::vector<Finding>& out) {
  // One error is one "PCIe Bus Error: severity=..." line (the device's) and, from the port
  // that received it, one "AER: ... received from" line: counted by the first where it is there.
  for (std::vector<Quote>* lines : {&aer_uncorrected, &aer_corrected}) {
    if (std::any_of(lines->begin(), lines->end(), [](const Quote& x) { return contains(x.text, "PCIe Bus Error:"); })) {
      std::erase_if(*lines, [](const Quote& x) { return !contains(x.text, "PCIe Bus Error:"); });
    }
  }
  if (!aer_uncorrected.empty()) {
    out.push_back(finding(
        code::kKernelPcieAer, Severity::kError, "PCIe uncorrected errors", {},
        fmt::format("{} PCIe AER uncorrected error line(s): a device on the bus failed", aer_uncorrected.size()),
        "the device named in the line (GPU or NIC) and its slot: reseat or replace; drain the node", aer_uncorrected));
  } else if (!aer_corrected.empty()) {
    // Corrected errors are recovered by a replay or a retrain, each of which costs the
    // link time: one now and then is noise, a stream of them a marginal link. Either way
    // the device the lines name is where to look.
    out.push_back(finding(code::kKernelPcieAer, Severity::kWarning, "PCIe corrected errors", {},
                          fmt::format("{} PCIe AER corrected error line{}: the link recovered each time, by a replay "
                                      "or a retrain that costs it bandwidth; a steady stream is a marginal link",
                                      aer_corrected.size(), aer_corrected.size() == 1 ? "" : "s"),
                          "count them over a day (`journalctl -k | grep -c AER`) and check the device's link width "
                          "and speed (lspci -vv LnkSta) against its capability; reseat or replace the card or riser "
                          "if they keep coming; with ASPM on, pcie_aspm=off tells a power-state cause apart",
                          aer_corrected));
  }
}

// The kernel refusing a module built for another version of one it uses; NVML failing in a
// container that lost its GPU device nodes.
void check_modules_and_containers(const Facts& facts, std::vector<Finding>& out) {
  if (!facts.module_abi.empty()) {
    // The modules named, in order: "nvidia_peermem: disagrees about version of symbol X".
    std::vector<std::string> modules;
    for (const Quote& q : facts.module_abi) {
      std::string_view t = q.text;
      std::string m;
      if (const size_t quote = t.find("could not insert '"); quote != std::string_view::npos) {
        const std::string_view rest = t.substr(quote + 18);
        m = std::string(rest.substr(0, rest.find('\'')));
      } else {
        size_t at = t.find(": disagrees about version of symbol");
        if (at == std::string_view::npos) at = t.find(": Unknown symbol");
        if (at == std::string_view::npos) continue;
        const auto words = split_ws(t.substr(0, at));
        if (words.empty()) continue;
        m = std::string(words.back());
      }
      if (std::find(modules.begin(), modules.end(), m) == modules.end()) modules.push_back(m);
    }
    out.push_back(finding(
        code::kKernelDriverMismatch, Severity::kError,
        modules.empty() ? std::string("kernel module") : fmt::format("kernel module {}", fmt::join(modules, ", ")), {},
        fmt::format("the kernel refused {} built against another version of a module it uses, or against one "
                    "that is not loaded ({}: \"disagrees about version of symbol\", \"Unknown symbol\"): it is not "
                    "loaded, and what it provides is missing (for nvidia-peermem or nv_peer_mem, GPUDirect RDMA)",
                    modules.empty() ? std::string("a module") : fmt::format("{}", fmt::join(modules, ", ")),
                    count_lines(facts.module_abi.size())),
        "the module was built for a driver stack that has since been replaced (MOFED or DOCA installed or upgraded "
        "after the NVIDIA driver, a kernel update): rebuild it against the running one (reinstall the NVIDIA driver "
        "or its DKMS module after the NIC driver; with the GPU operator, restart its driver pod) and load it again "
        "(`modprobe nvidia-peermem`, then `lsmod`); dmesg names the symbol; a module release that never loads on "
        "this kernel needs a newer one",
        facts.module_abi, {{"lines", facts.module_abi.size()}}));
  }
  lines_finding(
      out, facts.driver_libs_missing, code::kContainerDriverLibsMissing, Severity::kError, "NVIDIA driver libraries",
      "the NVIDIA driver's user-space libraries are not there ({}: libnvidia-ml.so.1 or libcuda.so not "
      "found): in a "
      "container, the NVIDIA runtime did not mount them (started without the NVIDIA runtime or "
      "--gpus); on a host, the driver's libraries are not installed or not on the loader's path",
      "in a container: start it with the NVIDIA runtime (docker --gpus all, runtimeClassName nvidia, the device "
      "plugin's resource) and check `ldconfig -p | grep libnvidia-ml` inside; on a host: reinstall the driver's "
      "utility package and run `ldconfig`");
  lines_finding(
      out, facts.nvml_unknown, code::kContainerGpuAccessLost, Severity::kError, "NVML in a container",
      "nvidia-smi cannot start NVML ('Unknown Error', {}): in a container, it has lost access to the "
      "GPU device nodes; NVIDIA's notice: where the runtime uses systemd's cgroup driver, a `systemctl "
      "daemon-reload` on the host (or anything that re-applies the container's cgroup) takes the "
      "NVIDIA devices out of a running container",
      "restart the container to get the GPUs back; for good, create the /dev/char links on the host (`nvidia-ctk "
      "system create-dev-char-symlinks --create-all`, as a udev rule) or run the runtime with the cgroupfs driver; "
      "on a host rather than a container, read dmesg for the driver's own error");
  lines_finding(
      out, facts.nvml_denied, code::kContainerGpuAccessLost, Severity::kError, "GPU device nodes",
      "NVML may not open the GPU device nodes ({}: 'Insufficient Permissions'): /dev/nvidiactl and "
      "/dev/nvidiaN are not readable and writable by this process, so nvidia-smi, CUDA and NCCL find no "
      "usable GPU",
      "`ls -l /dev/nvidia*` as that user: on a host, the driver's NVreg_DeviceFileMode and NVreg_DeviceFileGID (or a "
      "udev rule) set who may open them; in a container, start it with the GPUs given by the NVIDIA runtime "
      "(--gpus, the device plugin) rather than the nodes mounted by hand, and check its device cgroup and SELinux "
      "label");
  lines_finding(
      out, facts.gpu_cgroup_denied, code::kContainerGpuAccessLost, Severity::kError, "GPU devices in a container",
      "the container's device cgroup lets the NVIDIA devices (major 195) be created but not read or "
      "written ({}): every GPU call in it fails (NVML's 'Unknown Error', CUDA finding no device); "
      "systemd re-applied the container's cgroup (a `systemctl daemon-reload` on the host, with the "
      "runtime on systemd's cgroup driver) and took them out",
      "restart the container to get the GPUs back; for good, create the /dev/char links on the host (`nvidia-ctk "
      "system create-dev-char-symlinks --create-all`, as a udev rule) or run the runtime with the cgroupfs driver");
}

// nvidia-smi's table: "ERR!" where NVML could not read a GPU (it fell off the bus or is in
// an error state: Xid 79, 48, 119), and a volatile uncorrectable ECC count above 0, in the
// table or in -q's "ECC Errors" (memory errors since the driver loaded, whose remap waits
// for the GPU's reset). The GPUs by bus id.
void check_smi_table(const Facts& facts, std::vector<Finding>& out) {
  const auto gpus = [](const std::vector<SmiGpuFact>& lines) {
    std::set<std::string> ids;
    for (const SmiGpuFact& l : lines) ids.insert(l.gpu.empty() ? std::string("a GPU not named in the paste") : l.gpu);
    return std::vector<std::string>(ids.begin(), ids.end());
  };
  const auto quotes = [](const std::vector<SmiGpuFact>& lines) {
    std::vector<Quote> q;
    for (const SmiGpuFact& l : lines) q.push_back(l.where);
    return q;
  };
  if (!facts.smi_gpu_err.empty()) {
    const std::vector<std::string> ids = gpus(facts.smi_gpu_err);
    out.push_back(finding(
        code::kKernelGpuResetRequired, Severity::kError, "GPU in error (nvidia-smi)", {},
        fmt::format("nvidia-smi could not read {} ({}: ERR! in its table): the GPU stopped answering the driver "
                    "(fallen off the bus, Xid 79) or is in an error state after a fault, and fails every job until "
                    "it is reset",
                    ids.size() == 1 ? "GPU " + ids[0] : fmt::format("{} GPUs ({})", ids.size(), fmt::join(ids, ", ")),
                    count_lines(facts.smi_gpu_err.size())),
        "drain the node; read the kernel log for the GPU's Xid (`dmesg | grep -i xid`), reset it (`nvidia-smi -r -i "
        "N`) or reboot, and reseat or replace it if it comes back in error",
        quotes(facts.smi_gpu_err), {{"lines", facts.smi_gpu_err.size()}, {"gpus", ids}}));
  }
  if (!facts.smi_uncorrectable.empty()) {
    const std::vector<std::string> ids = gpus(facts.smi_uncorrectable);
    out.push_back(finding(
        code::kKernelGpuResetRequired, Severity::kError, "GPU memory (nvidia-smi)", {},
        fmt::format("nvidia-smi counts uncorrectable ECC errors since the driver loaded on {} (its volatile "
                    "uncorrectable count above 0): its memory returned data it could not correct; CUDA work on it "
                    "fails (Xid 48, 94, "
                    "95) and the repair (a row remap) waits for the GPU's reset",
                    ids.size() == 1 ? "GPU " + ids[0] : fmt::format("{} GPUs ({})", ids.size(), fmt::join(ids, ", "))),
        "drain the node; `nvidia-smi -q -d ECC,ROW_REMAPPER -i N` shows the counts and a remap pending; reset the GPU "
        "or reboot, and replace it if the remapping failed or the errors recur",
        quotes(facts.smi_uncorrectable), {{"lines", facts.smi_uncorrectable.size()}, {"gpus", ids}}));
  }
  if (!facts.smi_slowdown.empty()) {
    const std::vector<std::string> ids = gpus(facts.smi_slowdown);
    std::set<std::string> reasons;  // "HW Thermal Slowdown", ... as nvidia-smi names them
    for (const SmiGpuFact& l : facts.smi_slowdown)
      reasons.insert(std::string(trim(l.where.text.substr(0, l.where.text.find(':')))));
    const bool brake = reasons.count("HW Power Brake Slowdown") > 0;
    const bool heat = reasons.count("HW Thermal Slowdown") > 0 || reasons.count("SW Thermal Slowdown") > 0;
    out.push_back(finding(
        code::kKernelGpuSlowdown, Severity::kWarning, "GPU clocks (nvidia-smi)", {},
        fmt::format("nvidia-smi shows {} held below its clocks ({}: {} Active): a slowed GPU runs every kernel "
                    "slower, and a collective waits for the slowest rank{}",
                    ids.size() == 1 ? "GPU " + ids[0] : fmt::format("{} GPUs ({})", ids.size(), fmt::join(ids, ", ")),
                    count_lines(facts.smi_slowdown.size()), fmt::join(reasons, ", "),
                    brake  ? "; the power brake is asserted by the system (a power supply failed or over its budget)"
                    : heat ? "; it is too hot (cooling, airflow, a fan)"
                           : ""),
        "read the GPU's temperature and power (`nvidia-smi -q -d TEMPERATURE,POWER,PERFORMANCE`) under load and "
        "compare with its neighbours; check the node's power supplies and fans (BMC event log); drain it while it "
        "persists",
        quotes(facts.smi_slowdown), {{"lines", facts.smi_slowdown.size()}, {"gpus", ids}}));
  }
}

// What CUDA, the driver and nvidia-smi -q say of a GPU's memory and the driver itself: an
// uncorrectable ECC error, the module at another version than its libraries, a memory
// repair pending or failed.
void check_gpu_memory_and_driver(const Facts& facts, std::vector<Finding>& out) {
  lines_finding(
      out, facts.cuda_ecc, code::kKernelGpuResetRequired, Severity::kError, "GPU memory (CUDA)",
      "CUDA reports an uncorrectable ECC error ({}): a GPU's memory returned data it could not "
      "correct, and the GPU refuses new work (CUDA error 214) until it is reset",
      "drain the node; find the GPU (`nvidia-smi -q -d ECC,ROW_REMAPPER`: volatile uncorrectable counts, a remap "
      "pending), reset it (`nvidia-smi -r -i N`) or reboot so the remap takes effect, and replace it if the errors "
      "recur or the remapping failed");
  lines_finding(
      out, facts.driver_mismatch, code::kKernelDriverMismatch, Severity::kError, "NVIDIA driver",
      "the NVIDIA kernel module and the driver's user-space libraries or its GSP firmware are "
      "different versions ({}): NVML and CUDA refuse the GPUs until they match",
      "a driver upgraded without a reboot, or a new kernel whose module DKMS did not build: compare `cat "
      "/sys/module/nvidia/version` with the libraries' version (`modinfo nvidia`, the package), then reboot or "
      "rebuild and reload the module; drain the node until they match");
  lines_finding(
      out, facts.gpu_lost, code::kKernelGpuResetRequired, Severity::kError, "GPU lost",
      "nvidia-smi: a GPU is lost ({}): it stopped answering on PCIe (fallen off the bus, as with Xid "
      "79), and only a reboot or a reset of its slot brings it back",
      "drain the node and reboot it; read the kernel log around the loss (Xid 79, PCIe AER, a power or thermal "
      "event); a GPU lost again needs reseating or replacing");
  check_smi_table(facts, out);
  lines_finding(
      out, facts.gpudirect_pin_failed, code::kKernelGpudirectPinFailed, Severity::kError, "GPUDirect RDMA",
      "the NVIDIA driver refused to pin GPU memory for another device (nvidia_p2p_get_pages failed, "
      "{}): GPUDirect RDMA (nvidia-peermem, nv_peer_mem, gdrcopy) cannot register GPU buffers, so "
      "NCCL's registrations fail or it falls back to copies through host memory",
      "the peer-memory module (nvidia-peermem, nv_peer_mem, gdrdrv) must be built for the running driver, and the "
      "CUDA toolkit supported by it: compare `modinfo nvidia-peermem` (or the module's package) with "
      "`cat /proc/driver/nvidia/version` and rebuild or reinstall; ret -22 (EINVAL) is also a range not aligned "
      "to 64 KiB, -12 (ENOMEM) the BAR1 aperture full (`nvidia-smi -q -d MEMORY`)");
  lines_finding(
      out, facts.gpu_mr_refused, code::kKernelGpudirectPinFailed, Severity::kError, "GPUDirect RDMA",
      "perftest could not register its GPU buffer with the NIC ({}; EFAULT): the NIC cannot pin GPU memory, because "
      "no peer-memory module is loaded (nvidia-peermem) or, on a system that shares GPU memory through DMA-BUF "
      "instead, perftest was not told to use it",
      "with DMA-BUF (open kernel modules, no nvidia-peermem) run perftest with `--use_cuda_dmabuf` (and "
      "`--use_data_direct` where the NIC needs it); otherwise load nvidia-peermem (`modprobe nvidia-peermem`, "
      "`lsmod | grep peermem`) built for the running driver");
  if (!facts.gpu_repair_pending.empty() || !facts.gpu_remap_failed.empty()) {
    std::vector<Quote> quotes = facts.gpu_remap_failed;
    quotes.insert(quotes.end(), facts.gpu_repair_pending.begin(), facts.gpu_repair_pending.end());
    const bool failed = !facts.gpu_remap_failed.empty();
    out.push_back(finding(
        code::kKernelGpuResetRequired, Severity::kError, "GPU memory repair", {},
        failed ? "nvidia-smi -q: a GPU's row remapping failed (Remapping Failure Occurred: Yes): its spare memory rows "
                 "ran out, and uncorrectable memory errors will recur on it"
               : fmt::format("nvidia-smi -q: {} GPU memory repair{} pending (a row remap or page retirement after "
                             "uncorrectable ECC errors): it takes effect only when the GPU is reset, and until then "
                             "the bad memory can fail jobs again (Xid 48, 63, 64, 94, 95)",
                             facts.gpu_repair_pending.size(), facts.gpu_repair_pending.size() == 1 ? "" : "s"),
        failed ? "drain the node and replace the GPU (a field diagnostic, `dcgmi diag -r 3`, confirms it)"
               : "drain the node and reset the GPU (`nvidia-smi -r -i N`, or reboot) so the repair takes effect; then "
                 "`nvidia-smi -q -d ROW_REMAPPER` shows Pending: No",
        quotes, {{"pending", facts.gpu_repair_pending.size()}, {"remap_failed", facts.gpu_remap_failed.size()}}));
  }
}

// mlx5's transceiver (module) events and its health: a module in error (too hot, a bad or
// shorted cable, over its power budget) takes its port down; an unplugged one is a port
// down by hand or a loose cable; a health failure or too little slot power, the adapter.
// What follows "Port module event[error]: ": "module 0, Cable error, High Temperature".
std::string_view module_event(std::string_view line) {
  constexpr std::string_view kAt = "event[error]: ";
  const size_t at = line.find(kAt);
  return at == std::string_view::npos ? line : trim(line.substr(at + kAt.size()));
}

void check_nic_hardware(const KernelLines& k, std::vector<Finding>& out) {
  if (!k.module_error.empty() || !k.module_unplugged.empty()) {
    const bool error = !k.module_error.empty();
    std::vector<Quote> quotes = k.module_error;
    quotes.insert(quotes.end(), k.module_unplugged.begin(), k.module_unplugged.end());
    out.push_back(finding(
        code::kKernelNicModule, error ? Severity::kError : Severity::kWarning, "NIC transceiver", {},
        error ? fmt::format("a NIC's transceiver or cable module reported an error ({} line{}: {}): the adapter "
                            "takes that port down while it lasts",
                            k.module_error.size(), k.module_error.size() == 1 ? "" : "s",
                            module_event(k.module_error.front().text))
              : fmt::format("a NIC's cable or transceiver was unplugged ({} line{}): its port is down",
                            k.module_unplugged.size(), k.module_unplugged.size() == 1 ? "" : "s"),
        "`mlxlink -d <dev> -m` (or `ethtool -m <if>`) shows the module's temperature, power and errors; High "
        "Temperature needs airflow or a passive cable (an optical module draws more), a bad or shorted cable "
        "replacing, a power budget a module the adapter supports",
        quotes, {{"error_lines", k.module_error.size()}, {"unplugged_lines", k.module_unplugged.size()}}));
  }
  if (!k.nic_health.empty()) {
    out.push_back(finding(code::kKernelNicHealth, Severity::kError, "NIC health", {},
                          fmt::format("the NIC's driver reports the adapter itself failing ({} line{}): mlx5's health "
                                      "poll failed, an unrecoverable hardware error, or too little power in its "
                                      "PCIe slot, after which it powers its ports down; or a Broadcom NIC's "
                                      "firmware crashed (a fatal error, its commands timing out)",
                                      k.nic_health.size(), k.nic_health.size() == 1 ? "" : "s"),
                          "drain the node; read the lines around these in dmesg (the health syndrome, firmware "
                          "asserts); too little slot power needs the adapter in a slot that supplies it (or the "
                          "server's power setting); a health failure needs a reset (reboot, mlxfwreset) and the "
                          "firmware checked, and the adapter replaced if it recurs",
                          k.nic_health));
  }
}

// NVSwitch errors: the nvswitch driver's "nvidia-nvswitch3: SXid (PCI:0000:c5:00.0): 12028,
// Non-fatal, Link 32 ..." (common_nvswitch.h's NVSWITCH_PRINT_SXID, "Fatal" or "Non-fatal"
// after the number), and Fabric Manager's "detected NVSwitch fatal error 12028 on fid 0 on
// NVLink 32". A fatal one takes the NVLink fabric through that switch down until the system
// is reset: an error; non-fatal ones a warning.
void check_nvswitch_errors(const Facts& facts, std::vector<Finding>& out) {
  std::vector<Quote> fatal, nonfatal;
  std::set<std::string> sxids;
  const auto take = [&](const Quote& q, std::string_view after) {
    std::string_view rest = trim(after);
    int sxid = 0;
    const auto r = std::from_chars(rest.data(), rest.data() + rest.size(), sxid);
    if (r.ec == std::errc() && sxid > 0) sxids.insert(std::to_string(sxid));
    rest = trim(rest.substr(static_cast<size_t>(r.ptr - rest.data())));
    if (rest.starts_with(",")) rest = trim(rest.substr(1));
    (rest.starts_with("Fatal") ? fatal : nonfatal).push_back(q);
  };
  for (const Quote& q : facts.kernel) {
    if (const size_t at = q.text.find("SXid (PCI:"); at != std::string::npos) {
      const size_t close = q.text.find("):", at);
      if (close != std::string::npos) take(q, std::string_view(q.text).substr(close + 2));
    }
  }
  for (const Quote& q : facts.fabric_manager) {
    for (std::string_view kind : {"detected NVSwitch fatal error ", "detected NVSwitch non-fatal error "}) {
      if (const size_t at = q.text.find(kind); at != std::string::npos) {
        const std::string_view num = std::string_view(q.text).substr(at + kind.size());
        int sxid = 0;
        if (std::from_chars(num.data(), num.data() + num.size(), sxid).ec == std::errc() && sxid > 0) {
          sxids.insert(std::to_string(sxid));
        }
        (contains(kind, "non-fatal") ? nonfatal : fatal).push_back(q);
      }
    }
  }
  if (fatal.empty() && nonfatal.empty()) return;
  std::vector<Quote> quotes = fatal;
  quotes.insert(quotes.end(), nonfatal.begin(), nonfatal.end());
  out.push_back(finding(
      code::kNvlinkNvswitchError, fatal.empty() ? Severity::kWarning : Severity::kError, "NVSwitch", {},
      fmt::format("NVSwitch errors (SXid {}; {} fatal, {} non-fatal): {}", fmt::join(sxids, ", "), fatal.size(),
                  nonfatal.size(),
                  fatal.empty() ? "an NVLink or switch port with errors, whose traffic is retried or slowed"
                                : "the NVLink fabric through that switch is down, and the GPUs' NVLink traffic fails "
                                  "until the system is reset"),
      fatal.empty() ? "watch whether they recur on the same link (`nvidia-smi nvlink -e`); the SXid and link in the "
                      "line name the port; a link that keeps erring needs its cable tray or baseboard checked"
                    : "drain the node and reset the system (stop the jobs, restart nvidia-fabricmanager or reboot); "
                      "look up the SXid in NVIDIA's NVSwitch error catalogue, and replace the baseboard where fatal "
                      "errors recur",
      quotes, {{"fatal", fatal.size()}, {"non_fatal", nonfatal.size()}}));
}

void check_kernel(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  check_nvswitch_errors(facts, out);
  KernelLines k = sort_kernel_lines(facts);
  check_nic_hardware(k, out);
  auto& [xids, aer_uncorrected, aer_corrected, oom, mlx5_cmd, reset_required, hca_firmware, link_down, xid_hosts,
         oom_hosts, module_error, module_unplugged, nic_health] = k;
  auto nonempty = [](std::vector<std::string> v) {
    v.erase(std::remove(v.begin(), v.end(), std::string()), v.end());
    return v;
  };
  for (const auto& [xid, quotes] : xids) {
    const XidMeaning* m = nullptr;
    for (const XidMeaning& x : kXids) {
      if (x.xid == xid) m = &x;
    }
    out.push_back(finding(code::kKernelGpuXid, m ? m->severity : Severity::kWarning, fmt::format("Xid {}", xid),
                          nonempty(xid_hosts),
                          fmt::format("GPU Xid {} ({} line{}): {}", xid, quotes.size(), quotes.size() == 1 ? "" : "s",
                                      m ? m->meaning : "see NVIDIA's Xid catalogue"),
                          "the PCI address in the line names the GPU (nvidia-smi -q maps it to an index); a job "
                          "failing at that time failed because of it",
                          quotes, {{"xid", xid}}));
  }
  check_pcie_aer(aer_uncorrected, aer_corrected, out);
  for (const auto& [dev, quotes] : link_down) {
    out.push_back(finding(code::kKernelLinkFlap, quotes.size() >= 2 ? Severity::kError : Severity::kWarning,
                          fmt::format("link {}", dev), {},
                          fmt::format("{} went down {} time(s) in the kernel log", dev, quotes.size()),
                          "a flapping link drops or stalls every flow on it: check the cable, transceiver and switch "
                          "port (their error counters, `ethtool -S`, `perfquery`)",
                          quotes, {{"downs", quotes.size()}}));
  }
  if (!reset_required.empty()) {
    out.push_back(finding(code::kKernelGpuResetRequired, Severity::kError, "GPU reset required", nonempty(xid_hosts),
                          fmt::format("the NVIDIA driver refuses work on a GPU that needs a reset ({} line{}): jobs "
                                      "using it fail (CUDA: device busy or unavailable) until it is reset",
                                      reset_required.size(), reset_required.size() == 1 ? "" : "s"),
                          "drain the node, reset the GPU (`nvidia-smi -r -i N`) or reboot; look above these lines "
                          "for the Xid or GSP error that put it there, and check the driver version",
                          reset_required));
  }
  check_gpu_memory_and_driver(facts, out);
  check_modules_and_containers(facts, out);
  if (!mlx5_cmd.empty()) {
    // CREATE_MKEY refused for "limits exceeded": the adapter holds no more memory keys, one per
    // registered memory region (the kernel's "async reg mr failed. status -12" beside it).
    const bool mkeys = std::any_of(mlx5_cmd.begin(), mlx5_cmd.end(), [](const Quote& q) {
      return contains(q.text, "CREATE_MKEY") && contains(q.text, "limits exceeded");
    });
    out.push_back(finding(
        code::kKernelMlx5Cmd, Severity::kWarning, "mlx5 command failures", {},
        mkeys ? fmt::format("{} mlx5 firmware command failure line(s): CREATE_MKEY refused for \"limits exceeded\": "
                            "the adapter has no memory key left for another registered memory region, so "
                            "registrations fail (ENOMEM) and the programs making them (MPI, UCX, NCCL) fail or crash",
                            mlx5_cmd.size())
              : fmt::format("{} mlx5 firmware command failure line(s)", mlx5_cmd.size()),
        mkeys ? "the processes registered more memory regions than the adapter holds: a registration cache that keeps "
                "every small region it registered (UCX's, unbounded by default: bound it, e.g. "
                "UCX_IB_RCACHE_MAX_REGIONS=262144, or register on demand with UCX_IB_REG_METHODS=odp), many ranks per "
                "node each registering their own buffers, or a program registering in a loop without deregistering"
              : "the NIC's firmware refused or timed out a command: check the firmware version and the driver; a "
                "timeout often precedes a NIC reset",
        mlx5_cmd));
  }
  if (!hca_firmware.empty()) check_hca_firmware(facts, hca_firmware, out);
  if (!oom.empty()) {
    out.push_back(finding(code::kKernelOomKill, Severity::kError, "out-of-memory kill", nonempty(oom_hosts),
                          fmt::format("the kernel killed {} process(es) for memory: a rank killed this way shows as "
                                      "'remote process exited' on its peers",
                                      oom.size()),
                          "the job's host memory use (pinned buffers, data loaders) or the container's limit", oom));
  }
}

// HPE Slingshot's NIC finding its packets addressed for another port (Facts::kernel): the
// cxi driver's "C_EC_UNCOR_NS: C_IXE error: port_dfa_mismatch (37)". Slingshot derives a NIC's
// fabric address (its algorithmic MAC address, AMA) from the switch port it is cabled to; a NIC
// whose AMA does not match that port gets nothing delivered (libfabric's cxi provider then
// reports UNDELIVERABLE), and the job hangs or fails.
void check_cxi_address(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> lines;
  for (const Quote& q : facts.kernel) {
    if (contains(q.text, "port_dfa_mismatch") && lines.size() < 16) lines.push_back(q);
  }
  lines_finding(out, lines, code::kFabricCxiAddressMismatch, Severity::kError, "Slingshot NIC address",
                "a Slingshot NIC's fabric address does not match the switch port it is cabled to ({}: the cxi "
                "driver's port_dfa_mismatch): its algorithmic MAC address (AMA) was not set for that port, so "
                "traffic to it is undeliverable and jobs using it hang or fail",
                "on the node, compare the NIC's AMA (`cxi_stat`, the slingshot-ama service or the NetworkManager "
                "profile that sets it) with the switch port's; a topology file (fabric template) or cabling that "
                "differs from the design gives the wrong one; set it right and reboot the node, as the driver's "
                "ACTION line asks");
}

// PCI address space the kernel could not give a device (Facts::kernel): "pci 0000:53:00.0: BAR
// 0: no space for [mem size 0x02000000 64bit pref]" then "... BAR 0: failed to assign [...]",
// and Linux 6.x's "BAR 0 [mem size 0x02000000 64bit pref]: can't assign; no space". A device
// without its registers' window (BARs 0-5) is not usable: a GPU or NIC missing from nvidia-smi
// or ibv_devinfo, or failing at its driver's start. Bridge windows (BARs 13-15, "bridge
// window") and SR-IOV's (7-12) alone leave the device itself mapped: information.
void check_pci_bars(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> device, other;
  std::vector<std::string> devices;
  for (const Quote& q : facts.kernel) {
    const std::string_view t = q.text;
    const size_t bar = t.find(": BAR ");
    if (bar == std::string_view::npos && !contains(t, "bridge window")) continue;
    if (!contains(t, "no space for [") && !contains(t, "failed to assign") && !contains(t, "can't assign")) continue;
    int index = -1;
    if (bar != std::string_view::npos) {
      const std::string_view n = t.substr(bar + 6);
      std::from_chars(n.data(), n.data() + n.size(), index);
    }
    if (index >= 0 && index <= 5) {
      device.push_back(q);
      // The device's address: the word before ": BAR ".
      const std::string_view head = t.substr(0, bar);
      const size_t space = head.rfind(' ');
      const std::string addr(trim(head.substr(space == std::string_view::npos ? 0 : space + 1)));
      if (!addr.empty() && std::find(devices.begin(), devices.end(), addr) == devices.end()) devices.push_back(addr);
    } else {
      other.push_back(q);
    }
  }
  if (device.empty() && other.empty()) return;
  std::vector<Quote> lines = device;
  lines.insert(lines.end(), other.begin(), other.end());
  if (lines.size() > 16) lines.resize(16);
  const std::string hint =
      "in the BIOS: Above 4G Decoding (and Resizable BAR or MMIO above 4G, MMIOH size) on, SR-IOV as the vendor "
      "advises for GPUs; then, if the kernel still runs out, `pci=realloc` (or `pci=realloc=off` where the firmware's "
      "own assignment was right); `lspci -vv -s ADDRESS` shows the regions a device got";
  if (device.empty()) {
    out.push_back(finding(code::kKernelPciBarUnassigned, Severity::kInfo, "PCI address space", {},
                          fmt::format("the kernel could not give PCI bridges or SR-IOV functions all the address "
                                      "space they ask for ({}): the devices themselves were mapped",
                                      count_lines(other.size())),
                          hint, lines, {{"lines", other.size()}}));
    return;
  }
  out.push_back(finding(
      code::kKernelPciBarUnassigned, Severity::kWarning, "PCI address space", {},
      fmt::format("the kernel found no PCI address space for a device's registers ({}: {}): such a device cannot be "
                  "used, so a GPU or NIC behind it is missing (nvidia-smi, ibv_devinfo) or its driver fails to start "
                  "(large BARs of GPUs need the 64-bit space above 4 GiB)",
                  count_lines(device.size()), fmt::join(devices, ", ")),
      hint, lines, {{"lines", device.size()}, {"devices", devices}}));
}

// The host's memory failing, in the kernel's words: EDAC's per-error lines ("EDAC MC0: 1 UE
// memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0 ...)", "... 1 CE ..."),
// the firmware's error records through APEI ("{1}[Hardware Error]: event severity: fatal" with
// "section_type: memory error"), and the kernel taking a poisoned page away ("Memory failure:
// 0x12345: recovery action for dirty LRU page: Recovered", "... due to hardware memory
// corruption"). Uncorrected errors kill what touches the page (a rank: SIGBUS, or the node);
// corrected ones alone are a DIMM to watch.
void check_host_memory(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> uncorrected, corrected, apei;
  bool apei_memory = false, apei_severe = false;
  for (const Quote& q : facts.kernel) {
    const std::string_view t = q.text;
    if (contains(t, "EDAC ") && contains(t, " error")) {
      if (contains(t, " UE ") || contains(t, "Uncorrected") || contains(t, " Fatal ")) {
        uncorrected.push_back(q);
      } else if (contains(t, " CE ")) {
        corrected.push_back(q);
      }
    } else if (contains(t, "Memory failure: ") || contains(t, "hardware memory corruption")) {
      uncorrected.push_back(q);
    } else if (contains(t, "[Hardware Error]")) {
      apei_memory = apei_memory || contains(t, "section_type: memory error");
      apei_severe = apei_severe || contains(t, "event severity: fatal") || contains(t, "event severity: recoverable");
      if (apei.size() < 8) apei.push_back(q);
    }
  }
  if (apei_memory && apei_severe) uncorrected.insert(uncorrected.end(), apei.begin(), apei.end());
  if (!uncorrected.empty()) {
    if (uncorrected.size() > 16) uncorrected.resize(16);
    out.push_back(finding(
        code::kKernelHostMemoryError, Severity::kError, "host memory", {},
        fmt::format("the host's memory reported uncorrectable errors ({}): a process that touches a bad page is "
                    "killed (a rank with SIGBUS, its peers then lose it) and the node may crash; a DIMM is failing",
                    count_lines(uncorrected.size())),
        "drain the node; `ras-mc-ctl --errors` or `edac-util -v` names the DIMM (socket, channel, slot), the BMC's "
        "event log (`ipmitool sel list`) too; replace the DIMM before the node runs jobs again",
        uncorrected, {{"lines", uncorrected.size()}, {"corrected_lines", corrected.size()}}));
  } else if (!corrected.empty()) {
    if (corrected.size() > 16) corrected.resize(16);
    out.push_back(finding(code::kKernelHostMemoryError, Severity::kInfo, "host memory", {},
                          fmt::format("the host's memory corrected errors ({}): no data was lost, but a DIMM that "
                                      "keeps correcting often fails later",
                                      count_lines(corrected.size())),
                          "watch the rate (`ras-mc-ctl --summary`, `edac-util -v`); replace a DIMM whose count keeps "
                          "rising",
                          corrected, {{"lines", corrected.size()}}));
  }
}

// nvidia-smi -q's Fabric section with a registration that failed (Facts::gpu_fabric_failed):
// the GPU is not part of a working NVLink fabric, so NVLink to the GPUs behind NVSwitches (or
// across a multi-node NVLink domain) is not there: NCCL falls back to PCIe or the network, or
// fails where it needs NVLS or MNNVL.
void check_gpu_fabric(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::set<std::string> statuses;
  for (const Quote& q : facts.gpu_fabric_failed) {
    const std::string_view t = q.text;
    if (!t.starts_with("Status")) continue;
    statuses.emplace(trim(t.substr(t.find(':') + 1)));
  }
  if (statuses.empty()) return;
  out.push_back(finding(
      code::kNvlinkFabricRegistrationFailed, Severity::kError, "NVLink fabric", {},
      fmt::format("nvidia-smi -q shows a GPU whose registration with the NVLink fabric failed (Status: {}): it is not "
                  "part of a working NVLink fabric or clique, so the GPUs behind the NVSwitches are not reachable "
                  "over NVLink; NCCL falls back to slower paths, or fails where it needs NVLS or a multi-node NVLink "
                  "domain",
                  fmt::join(statuses, ", ")),
      "drain the node; check Fabric Manager (`systemctl status nvidia-fabricmanager`, its log) and, on GB200/GB300 "
      "racks, the NVLink switch trays' NVLink subnet manager and IMEX; a GPU whose status stays failed after a "
      "reboot needs its NVLink ports or tray checked",
      facts.gpu_fabric_failed, {{"lines", facts.gpu_fabric_failed.size()}}));
}

// CUDA's multicast objects refused (Facts::multicast_unsupported): they need NVSwitches
// (NVLink SHARP) and a driver of 535 or later, so a workstation's or a PCIe server's GPUs, or an
// older driver, cannot give them; TransformerEngine's comm+GEMM overlap asks for them by
// default, and falls back to CUDA IPC with UB_SKIPMC=1.
void check_multicast_unsupported(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(out, facts.multicast_unsupported, code::kNvlinkCudaMulticastUnsupported, Severity::kError,
                "CUDA multicast",
                "the program needs CUDA's multicast objects and this GPU, driver or CUDA cannot give them ({}): "
                "multicast (NVLink SHARP) needs GPUs joined by NVSwitches and a driver of 535 or later, so a "
                "workstation's or a PCIe server's GPUs, or an older driver, refuse it",
                "on such a machine run without it: TransformerEngine's comm+GEMM overlap with UB_SKIPMC=1 (CUDA IPC "
                "instead), or with the overlap off; on an NVSwitch system, check the driver's version and that "
                "Fabric Manager runs (`nvidia-smi -q`'s Fabric section: State Completed, Status Success)");
}

// A framework that found no NCCL library (Facts::nccl_library_missing): not installed where the
// framework looks (JAX since 0.4.18 and its local-CUDA installs leave NCCL to the user), not on
// the library path, or a framework build without NCCL (PyTorch on Windows and macOS).
void check_nccl_library_missing(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(out, facts.nccl_library_missing, code::kFrameworkNcclLibraryMissing, Severity::kError, "NCCL library",
                "the program found no NCCL library ({}): NCCL is not installed where it looks, or not on the library "
                "path, or the framework was built without it; no collective across GPUs can run",
                "install the NCCL the framework expects (pip's nvidia-nccl-cu12, JAX's `jax[cuda12]` extra rather than "
                "a local-CUDA install without NCCL, or the system's libnccl2) and put its lib directory on "
                "LD_LIBRARY_PATH; a framework build without NCCL (PyTorch on Windows or macOS) needs the gloo "
                "backend instead");
}

// A NIC driver without its firmware file, in the kernel's words ("bnx2x 0000:02:00.1: Direct
// firmware load for bnx2x/bnx2x-e2-7.13.21.0.fw failed with error -2", Debian's "firmware:
// failed to load ... (-2)"): the driver refuses the port, which never comes up; ice without
// its DDP package ("The DDP package file was not found or could not be read. Entering Safe
// Mode") runs with most of its offloads off. Only network drivers: other devices' optional
// firmware (a GPU's, a Wi-Fi card's) missing is routine.
void check_nic_firmware(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  static constexpr std::string_view kNicDrivers[] = {"bnx2x", "bnxt_en", "tg3",  "qed",    "qede",     "ice",
                                                     "i40e",  "cxgb4",   "hfi1", "be2net", "liquidio", "ionic"};
  std::vector<Quote> missing, safe_mode;
  std::set<std::string> drivers;
  for (const Quote& q : facts.kernel) {
    const std::string_view t = q.text;
    const bool load = contains(t, "Direct firmware load for") || contains(t, "firmware: failed to load");
    const bool ddp = contains(t, "DDP package file was not found");
    if (!load && !ddp) continue;
    // The driver: the word before the device's bus id ("kernel: bnx2x 0000:02:00.1: ...").
    const auto words = split_ws(t);
    std::string_view driver;
    for (size_t i = 1; i < words.size() && driver.empty(); ++i) {
      if (words[i].ends_with(':') && words[i].find('.') != std::string_view::npos &&
          std::count(words[i].begin(), words[i].end(), ':') >= 2) {
        driver = words[i - 1];
      }
    }
    if (std::find(std::begin(kNicDrivers), std::end(kNicDrivers), driver) == std::end(kNicDrivers)) continue;
    drivers.insert(std::string(driver));
    (ddp ? safe_mode : missing).push_back(q);
  }
  if (missing.empty() && safe_mode.empty()) return;
  std::vector<Quote> quotes = missing;
  quotes.insert(quotes.end(), safe_mode.begin(), safe_mode.end());
  out.push_back(finding(
      code::kKernelNicFirmwareMissing, missing.empty() ? Severity::kWarning : Severity::kError,
      fmt::format("{} firmware", fmt::join(drivers, ", ")), {},
      missing.empty() ? fmt::format("the ice driver found no DDP package ({}) and runs the NIC in safe mode, with "
                                    "most of its offloads and queues off",
                                    count_lines(safe_mode.size()))
                      : fmt::format("a NIC driver ({}) could not load its firmware file ({}): the driver refuses "
                                    "the port, which does not come up",
                                    fmt::join(drivers, ", "), count_lines(missing.size())),
      "install the firmware the running kernel's driver asks for (the file it names, from linux-firmware or the "
      "distribution's package: firmware-bnx2x, the ice DDP package), rebuild the initramfs where the driver loads "
      "at boot, and reload the driver or reboot",
      quotes, {{"lines", quotes.size()}}));
}

// The NVIDIA container toolkit refused a privileged step before the container started
// (gather.cpp's toolkit_denied).
void check_toolkit_denied(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  if (facts.toolkit_denied.empty()) return;
  const bool path = std::any_of(facts.toolkit_denied.begin(), facts.toolkit_denied.end(),
                                [](const Quote& q) { return contains(q.text, "path error:"); });
  std::string message = fmt::format(
      "the NVIDIA container toolkit was refused a privileged step while setting up the container's GPUs ({}: "
      "nvidia-container-cli's permission error): the container does not start, or starts without its GPUs; SELinux "
      "enforcing on the host, or a rootless runtime the toolkit is not configured for",
      count_lines(facts.toolkit_denied.size()));
  std::string hint =
      "`getenforce` on the host: where it says Enforcing, install the NVIDIA SELinux policy for containers or run "
      "the container with a label that allows it (`setenforce 0` only to confirm); for a rootless runtime (enroot, "
      "rootless Docker or Podman) set `no-cgroups = true` in /etc/nvidia-container-runtime/config.toml";
  if (std::any_of(facts.toolkit_denied.begin(), facts.toolkit_denied.end(),
                  [](const Quote& q) { return contains(q.text, "SELinux is preventing"); })) {
    message +=
        "; here SELinux says which step it refused (\"SELinux is preventing ...\"): the nvidia-docker wrapper runs "
        "docker through bash, which the policy does not let enter the docker binary";
    hint =
        "run docker itself with the NVIDIA runtime (`docker run --gpus all` or `--runtime=nvidia`) instead of the "
        "nvidia-docker wrapper, or allow the step with a local policy (`ausearch -c nvidia-docker --raw | "
        "audit2allow -M my-nvidiadocker` and `semodule -i my-nvidiadocker.pp`); " +
        hint;
  }
  if (path) {
    message +=
        "; or a host file it mounts into the container is not readable by the user it runs as (its path error: "
        "enroot and pyxis run it as the job's user; the Fabric Manager's socket made 0600 is one)";
    hint =
        "for a path error: `ls -l` the file it names on the host and let the job's user read it (or run the "
        "toolkit as root); a libnvidia-container with NVIDIA/libnvidia-container#304 skips an unreadable file as a "
        "missing one; " +
        hint;
  }
  out.push_back(finding(code::kContainerToolkitDenied, Severity::kError, "NVIDIA container toolkit", {},
                        std::move(message), std::move(hint), facts.toolkit_denied,
                        {{"lines", facts.toolkit_denied.size()}}));
}

// The container image lacks the program its runtime starts (gather.cpp's image_no_shell).
void check_image_no_shell(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.image_no_shell, code::kContainerImageNoShell, Severity::kError, "container image",
      "the container runtime could not start the program it runs first in the image ({}: no such file): "
      "the image has no shell or no such command (a minimal or scratch image), so the job never starts",
      "use an image with a shell (enroot and pyxis run /bin/sh in the container: a distribution or CUDA base image, "
      "not scratch or hello-world), or give the command by a path that exists in it; `enroot list` and "
      "`ls ROOTFS/bin` show what the image holds");
}

// A container image written to a filesystem without room (gather.cpp's image_storage_full).
void check_image_storage_full(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.image_storage_full, code::kContainerImageStorageFull, Severity::kError, "container image",
      "the container image could not be written ({}: no space left on device): the filesystem the "
      "runtime unpacks or builds images on is full, so the job never starts (pyxis and enroot write "
      "the image's squashfs under /run, a RAM-backed tmpfs, by default)",
      "`df -h` the runtime's storage and free it or move it to a larger disk: pyxis' runtime_path in "
      "plugstack.conf, enroot's ENROOT_CACHE_PATH, ENROOT_DATA_PATH and ENROOT_TEMP_PATH, Docker's data-root, "
      "containerd's root; remove unused images (`docker system prune`, `crictl rmi --prune`)");
}

// A kernel module that did not build against the running kernel (gather.cpp's
// module_build_failed): the module it names, where modpost's line does.
void check_module_build_failed(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  if (facts.module_build_failed.empty()) return;
  std::set<std::string> modules;
  bool gpl = false;
  for (const Quote& q : facts.module_build_failed) {
    const std::string_view t = q.text;
    gpl = gpl || contains(t, "GPL-only symbol");
    if (const size_t m = t.find("module "); m != std::string_view::npos && contains(t, "modpost")) {
      std::string_view name = t.substr(m + 7);
      name = name.substr(0, name.find(' '));
      if (name.ends_with(".ko")) modules.insert(std::string(name));
    }
  }
  out.push_back(finding(
      code::kKernelModuleBuildFailed, Severity::kError, "kernel module", {},
      fmt::format("a kernel module did not build against this kernel ({}{}): it is not loaded, so what needs it "
                  "(the GPU driver, nvidia-peermem, gdrcopy's gdrdrv, a NIC driver) is missing after the kernel "
                  "changed{}",
                  count_lines(facts.module_build_failed.size()),
                  modules.empty() ? std::string() : fmt::format(", {}", fmt::join(modules, ", ")),
                  gpl ? "; modpost refused a GPL-only symbol the newer kernel exports only to GPL modules, which "
                        "that release of the module cannot use"
                      : ""),
      "install the module's release that supports this kernel (a newer driver, gdrcopy or OFED), with the kernel "
      "headers of `uname -r`; DKMS's make.log (/var/lib/dkms/MODULE/VERSION/build/make.log) holds the first error; "
      "`dkms status` lists what built for which kernel",
      facts.module_build_failed, {{"lines", facts.module_build_failed.size()}, {"modules", modules}}));
}

// modprobe finding no module of a GPU or RDMA driver under /lib/modules/KERNEL (gather.cpp's
// module_not_found): the modules named, and the kernel.
void check_module_not_found(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  if (facts.module_not_found.empty()) return;
  std::set<std::string> modules, kernels;
  for (const Quote& q : facts.module_not_found) {
    const std::string_view t = q.text;
    std::string_view m = t.substr(t.find("Module ") + 7);
    modules.emplace(m.substr(0, m.find(' ')));
    if (const size_t k = t.find("/lib/modules/"); k != std::string_view::npos) {
      std::string_view v = t.substr(k + 13);
      v = v.substr(0, v.find_first_of(" \"'/"));
      if (!v.empty()) kernels.emplace(v);
    }
  }
  out.push_back(finding(
      code::kKernelModuleNotFound, Severity::kError, "kernel module", {},
      fmt::format("modprobe found no {} module for the running kernel{} ({}): it is not installed for that kernel, "
                  "so what needs it (the GPU driver, GPUDirect RDMA's nvidia-peermem, an RDMA driver) cannot load",
                  fmt::join(modules, ", "),
                  kernels.empty() ? std::string() : fmt::format(" ({})", fmt::join(kernels, ", ")),
                  count_lines(facts.module_not_found.size())),
      "a kernel updated without the module built for it (`dkms status`, the driver's package for `uname -r`), or, "
      "in a container that loads modules (a driver container, a peermem sidecar), no module tree for the host's "
      "kernel in its /lib/modules: `ls /lib/modules/$(uname -r)` and `modinfo MODULE` where modprobe runs, then "
      "install or rebuild the module (or restart the driver container so that it builds or mounts it)",
      facts.module_not_found, {{"lines", facts.module_not_found.size()}, {"modules", modules}, {"kernels", kernels}}));
}

// The container engine has no NVIDIA runtime to give a container its GPUs (gather.cpp's
// toolkit_missing).
void check_toolkit_missing(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.toolkit_missing, code::kContainerToolkitMissing, Severity::kError, "NVIDIA container runtime",
      "the container engine has no NVIDIA runtime to start the container with its GPUs ({}): the NVIDIA "
      "container toolkit is not installed on that host, or the engine was not configured for it or not "
      "restarted since",
      "install nvidia-container-toolkit on the host, then `nvidia-ctk runtime configure --runtime=docker` (or "
      "=containerd, =crio) and restart the engine; check with `docker info | grep -i runtime`. In Kubernetes the "
      "GPU operator's toolkit pod does this per node, and the pod's runtimeClassName needs a RuntimeClass of that "
      "name");
}

// --- NVIDIA Fabric Manager ---------------------------------------------------------

// Fabric Manager's two failures that stop NVLink on an NVSwitch system: it found no
// NVSwitch (NV_WARN_NOTHING_TO_DO: none visible, or none there: a PCIe or NVLink-bridge
// machine, where it is not needed), or its version is not the driver's.
// NCCL's NVLink SHARP (NVLS) setup failing in CUDA (transport/nvls.cc: "Cuda failure 1
// 'invalid argument'", "999 'unknown error'"): the NVSwitches' multicast objects are not
// there, as when Fabric Manager stopped, or was restarted without the GPUs being reset.
// True where the files show it.
bool check_nvls(const Facts& facts, std::vector<Finding>& out) {
  std::vector<Quote> nvls, exhausted;
  std::set<std::string> nvls_hosts;
  bool failed = false;
  for (const NcclFact& n : facts.nccl) {
    // "Cuda failure" from nvls.cc, and since 2.20 its own "Failed to bind NVLink SHARP (NVLS)
    // Multicast memory of size N : CUDA error 1 'invalid argument'": a WARN where NVLS was
    // forced, an INFO "... Proceeding without NVLS support." where NCCL chose it itself; a
    // framework's error quoting it (2.29 fails where 2.28 went on without NVLS).
    const bool bind = contains(n.msg, "Failed to bind NVLink SHARP");
    if (((n.level == "WARN" || n.level == "ERROR") &&
         (bind || (contains(n.where.text, "nvls.cc") && contains(n.msg, "Cuda failure")))) ||
        (bind && contains(n.msg, "Proceeding without NVLS"))) {
      const bool stopped = n.level != "INFO" && !contains(n.msg, "Proceeding without NVLS");
      failed = failed || stopped;
      // CUDA error 2, out of memory: the multicast objects used up (an NVSwitch has a fixed
      // number, and NCCL takes them per communicator: many sub-communicators), not a fabric
      // that is down (nccl#2077).
      (bind && contains(n.msg, "'out of memory'") ? exhausted : nvls).push_back(n.where);
      nvls_hosts.insert(n.host);
    }
  }
  if (!exhausted.empty()) {
    out.push_back(finding(
        code::kNvlinkNvlsExhausted, failed ? Severity::kError : Severity::kWarning, "NVLink SHARP (NVLS)",
        std::vector<std::string>(nvls_hosts.begin(), nvls_hosts.end()),
        fmt::format("NCCL could not bind NVLink SHARP multicast memory: CUDA ran out of it ({}, \"out of memory\"): "
                    "the NVSwitches' multicast resources, or the GPU memory behind them, are used up, most often "
                    "by many communicators each with NVLS (sub-communicators of FSDP or tensor parallelism); the "
                    "fabric itself is up{}",
                    count_lines(exhausted.size()), failed ? "" : ", and NCCL went on without NVLS"),
        "set NCCL_NVLS_ENABLE=0 for the job; NCCL 2.28 went on without NVLS where 2.29 fails (NVIDIA/nccl#2077); "
        "fewer communicators with NVLS (a framework's small sub-communicators) or more free GPU memory also help",
        exhausted));
    if (nvls.empty()) return true;
  }
  if (nvls.empty()) return false;
  out.push_back(
      finding(code::kNvlinkFmFailed, failed ? Severity::kError : Severity::kWarning, "NVLink SHARP (NVLS)",
              std::vector<std::string>(nvls_hosts.begin(), nvls_hosts.end()),
              fmt::format("NCCL's NVLink SHARP setup failed in CUDA (transport/nvls.cc){}: the NVSwitches' multicast "
                          "memory is not available, as when NVIDIA Fabric Manager is stopped, in error, or was "
                          "restarted without the GPUs being reset",
                          failed ? "" : ", and NCCL went on without NVLS (lower all-reduce bandwidth on NVSwitch)"),
              "check `systemctl status nvidia-fabricmanager` and its log (`nvidia-smi -q | grep -A2 Fabric`: State "
              "Completed, Status Success); after a Fabric Manager restart reset the GPUs (`nvidia-smi -r`) or reboot; "
              "NCCL_NVLS_ENABLE=0 runs without NVLS meanwhile",
              nvls));
  return true;
}

void check_fabric_manager(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> nothing, version, failed, umad;
  for (const Quote& q : facts.fabric_manager) {
    // NVLSM (NVLink 5 systems: GB200 NVL72, HGX B200) reads the IB management device:
    // "umad_init: can't read ABI version from /sys/class/infiniband_mad/abi_version ...".
    if (contains(q.text, "umad") && (contains(q.text, "ib_umad") || contains(q.text, "infiniband_mad"))) {
      umad.push_back(q);
    }
    if (contains(q.text, "NV_WARN_NOTHING_TO_DO")) nothing.push_back(q);
    if (contains(q.text, "match with driver version")) version.push_back(q);  // "... don't match with driver version"
    // The service's state (systemctl status' "Active:" line under its unit) and systemd's
    // journal lines about it: it did not start, or stopped with an error.
    if ((q.text.starts_with("Active:") && (contains(q.text, "failed") || contains(q.text, "inactive"))) ||
        contains(q.text, "Failed with result") || contains(q.text, "Failed to start") ||
        contains(q.text, "status=1/FAILURE")) {
      failed.push_back(q);
    }
  }
  // Its reason, when the files hold it, is a finding of its own; the failure alone is the
  // service's state.
  const bool nvls = check_nvls(facts, out);
  if (!umad.empty()) {
    out.push_back(finding(code::kNvlinkFmFailed, Severity::kError, "NVIDIA Fabric Manager (NVLSM)", {},
                          "NVLSM, the NVLink subnet manager that Fabric Manager starts on NVLink 5 systems (GB200 "
                          "NVL72, HGX B200), cannot open the InfiniBand management interface "
                          "(/sys/class/infiniband_mad): the ib_umad kernel module is not loaded, so Fabric Manager "
                          "fails and the GPUs' NVLink fabric never comes up",
                          "`modprobe ib_umad` (and list it in /etc/modules-load.d so it loads at boot), then "
                          "`systemctl restart nvidia-fabricmanager`",
                          umad));
  }
  // CUDA's "system not yet initialized" (802): the GPUs wait for their NVLink fabric, which
  // Fabric Manager brings up; its own reason, where the files hold it, is the finding.
  if (!facts.cuda_not_ready.empty() && version.empty() && umad.empty()) {
    std::vector<Quote> quotes = facts.cuda_not_ready;
    quotes.insert(quotes.end(), failed.begin(), failed.end());
    out.push_back(finding(
        code::kNvlinkFmFailed, Severity::kError, "NVIDIA Fabric Manager", {},
        fmt::format("CUDA refuses the GPUs: system not yet initialized (cudaErrorSystemNotReady, error 802; {}): on "
                    "an NVSwitch system (HGX, DGX) the GPUs' NVLink fabric is not up because NVIDIA Fabric Manager is "
                    "not installed, not running, or not finished{}",
                    count_lines(facts.cuda_not_ready.size()), failed.empty() ? "" : "; its service is not running"),
        "install the nvidia-fabricmanager package of exactly the driver's version, `systemctl enable --now "
        "nvidia-fabricmanager`, and read `journalctl -u nvidia-fabricmanager` if it does not stay up; "
        "`nvidia-smi -q | grep -A2 Fabric` says State Completed, Status Success when the fabric is ready",
        quotes, {{"lines", facts.cuda_not_ready.size()}}));
  }
  if (!failed.empty() && facts.cuda_not_ready.empty() && nothing.empty() && version.empty() && umad.empty() && !nvls) {
    out.push_back(finding(code::kNvlinkFmFailed, Severity::kWarning, "NVIDIA Fabric Manager", {},
                          "Fabric Manager's service is not running (it failed or never started): on an NVSwitch "
                          "system (HGX, DGX) CUDA cannot initialise the GPUs' NVLink fabric without it, so jobs fail "
                          "at start or NCCL hangs; on a PCIe machine it is not needed",
                          "read why in `journalctl -u nvidia-fabricmanager` (most often its version is not the "
                          "driver's: `nv-fabricmanager --version` against `nvidia-smi`), fix, then "
                          "`systemctl restart nvidia-fabricmanager` before the GPUs are used",
                          failed));
  }
  if (!nothing.empty()) {
    out.push_back(finding(code::kNvlinkFmNoNvswitch, Severity::kWarning, "NVIDIA Fabric Manager", {},
                          "Fabric Manager found no NVSwitch to manage (NV_WARN_NOTHING_TO_DO) and stopped: on an "
                          "NVSwitch system (HGX, DGX) the GPUs cannot use NVLink until it runs; on a PCIe or "
                          "NVLink-bridge machine it has nothing to do",
                          "NVSwitch system: check that the NVSwitches are visible (`nvidia-smi nvlink -s`, "
                          "`lspci | grep -i nvidia`) and that the nvidia-fabricmanager package matches the driver; "
                          "otherwise disable the service (`systemctl disable nvidia-fabricmanager`)",
                          nothing));
  }
  if (!version.empty()) {
    out.push_back(finding(code::kNvlinkFmVersionMismatch, Severity::kError, "NVIDIA Fabric Manager", {},
                          "Fabric Manager's version is not the driver's, so it does not start: on an NVSwitch system "
                          "CUDA then fails to initialise (system not yet initialized) and NVLink is down",
                          "install the nvidia-fabricmanager package of exactly the driver's version (and hold both "
                          "against partial upgrades)",
                          version));
  }
}

// --- NVLink -----------------------------------------------------------------------

// nvidia-smi nvlink -s: links inactive on a GPU whose other links are up, or on a GPU of a
// listing where other GPUs' links are up. A listing where every link is inactive is a
// machine without NVLink (PCIe cards, no bridges): nothing to say.
// A GPU that only comes on an NVLink baseboard (SXM, HGX, the Grace-Blackwell boards), by
// the name nvidia-smi prints: its NVLinks are always cabled, so all of them down is a fault
// even with no other GPU listed. PCIe cards ("PCIe", "NVL" bridged pairs) may have none.
bool nvlink_baseboard_gpu(std::string_view gpu_line) {
  if (contains(gpu_line, "PCIe") || contains(gpu_line, " NVL")) return false;
  for (std::string_view name : {"SXM", "HBM3", "H200", "B200", "B100", "B300", "GB200", "GB300", "GH200"}) {
    if (contains(gpu_line, name)) return true;
  }
  return false;
}

void check_nvlinks(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  struct Gpu {
    std::vector<int> inactive;
    int active = 0;
    bool all = false;  // nvidia-smi: all its links inactive
    bool baseboard = false;
    double top = 0;  // GB/s of its fastest link
    std::vector<Quote> quotes;
  };
  std::map<int, std::map<int, Gpu>> listings;  // listing -> GPU -> its links
  std::map<int, std::string> file_of;
  for (const NvlinkFact& l : facts.nvlinks) {
    Gpu& g = listings[l.listing][l.gpu];
    file_of[l.listing] = l.where.file;
    if (g.quotes.empty()) g.quotes.push_back(l.gpu_line);
    g.baseboard = nvlink_baseboard_gpu(l.gpu_line.text);
    if (l.all) {
      g.all = true;
      g.quotes.push_back(l.where);
    } else if (l.inactive) {
      g.inactive.push_back(l.link);
      g.quotes.push_back(l.where);
    } else {
      ++g.active;
      g.top = std::max(g.top, l.gbps);
    }
  }
  for (const auto& [listing, gpus] : listings) {
    int active = 0;
    double top = 0;
    for (const auto& [gpu, g] : gpus) {
      active += g.active;
      top = std::max(top, g.top);
    }
    const bool baseboard_down =
        std::any_of(gpus.begin(), gpus.end(), [](const auto& e) { return e.second.all && e.second.baseboard; });
    if (active == 0 && !baseboard_down) continue;
    // PCIe cards are bridged in pairs: with an even number of them up and one card with no
    // link at all, that card is the odd one out with no partner, not a bridge that failed.
    int bridged = 0, unbridged = 0, odd = -1;
    for (const auto& [gpu, g] : gpus) {
      if (g.active > 0 && !g.baseboard) ++bridged;
      if (g.all && !g.baseboard) {
        ++unbridged;
        odd = gpu;
      }
    }
    if (unbridged != 1 || bridged % 2 != 0 || bridged == 0) odd = -1;
    std::vector<std::string> parts;
    std::vector<Quote> quotes;
    nlohmann::ordered_json evidence = nlohmann::ordered_json::array();
    std::vector<int> flagged;
    for (const auto& [gpu, g] : gpus) {
      if (gpu == odd) {
        out.push_back(finding(
            code::kNvlinkLinkInactive, Severity::kInfo, fmt::format("NVLink of GPU {} ({})", gpu, file_of[listing]), {},
            fmt::format("GPU {}: all its links inactive, beside {} PCIe cards whose links are up: NVLink bridges join "
                        "cards in pairs, so this one has no partner (no bridge fitted), not a link that failed",
                        gpu, bridged),
            "nothing to do unless a bridge was fitted to it; its traffic to the others goes over PCIe", g.quotes,
            {{"gpu", gpu}}));
        continue;
      }
      if (g.all && (active > 0 || g.baseboard)) {
        flagged.push_back(gpu);
        parts.push_back(fmt::format("GPU {}: all its links inactive{}", gpu,
                                    g.baseboard ? " (a baseboard GPU, whose NVLinks are always cabled)" : ""));
        quotes.insert(quotes.end(), g.quotes.begin(), g.quotes.end());
        evidence.push_back({{"gpu", gpu}, {"inactive", "all"}, {"active", 0}});
        continue;
      }
      if (g.inactive.empty()) continue;
      flagged.push_back(gpu);
      parts.push_back(fmt::format("GPU {}: link{} {} inactive of {}", gpu, g.inactive.size() == 1 ? "" : "s",
                                  fmt::join(g.inactive, ", "), g.inactive.size() + g.active));
      quotes.insert(quotes.end(), g.quotes.begin(), g.quotes.end());
      evidence.push_back({{"gpu", gpu}, {"inactive", g.inactive}, {"active", g.active}});
    }
    if (flagged.empty()) continue;
    out.push_back(finding(
        code::kNvlinkLinkInactive, Severity::kWarning,
        fmt::format("NVLink of GPU{} {} ({})", flagged.size() == 1 ? "" : "s", fmt::join(flagged, ", "),
                    file_of[listing]),
        {},
        active > 0 ? fmt::format("{}, where the others are up at {:g} GB/s: traffic between those GPUs takes fewer "
                                 "links or falls back to PCIe",
                                 fmt::join(parts, "; "), top)
                   : fmt::format("{}: its traffic to the other GPUs has no NVLink (PCIe, or jobs fail where NVLink "
                                 "is required)",
                                 fmt::join(parts, "; ")),
        "reseat or replace the NVLink bridge (PCIe cards) or have the baseboard's link checked (SXM: "
        "`nvidia-smi nvlink -e` for its error counters, `nvidia-smi -q` for the GPU's state, a field diagnostic); a "
        "link down since boot may come back after a GPU reset",
        quotes, {{"gpus", evidence}}));
  }
}

// --- PCIe links -------------------------------------------------------------------

// The kernel's report of a link trained below its device's capability (pcie_print_link_
// status): "0000:01:00.0: 8.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x4
// link at 0000:00:1c.0 (capable of 31.504 Gb/s with 8.0 GT/s PCIe x4 link)".
std::optional<PcieLinkFact> kernel_pcie_link(const Quote& q) {
  const std::string_view t = q.text;
  const size_t by = t.find("available PCIe bandwidth, limited by ");
  const size_t with = t.find("(capable of ");
  if (by == std::string_view::npos || with == std::string_view::npos) return std::nullopt;
  auto read = [](std::string_view v, double& gts, int& width) {
    auto r = std::from_chars(v.data(), v.data() + v.size(), gts);
    const size_t x = v.find("PCIe x");
    if (r.ec == std::errc() && x != std::string_view::npos) {
      const std::string_view w = v.substr(x + 6);
      std::from_chars(w.data(), w.data() + w.size(), width);
    }
  };
  PcieLinkFact l;
  l.where = q;
  read(t.substr(by + 37), l.sta_gts, l.sta_width);
  const size_t with_speed = t.find(" with ", with);
  if (with_speed != std::string_view::npos) read(t.substr(with_speed + 6), l.cap_gts, l.cap_width);
  // The device: the word before the ": " that precedes the figure.
  const std::string_view head = t.substr(0, by);
  const size_t colon = head.rfind(": ");
  if (colon != std::string_view::npos) {
    const auto words = split_ws(head.substr(0, colon));
    if (!words.empty()) l.device = std::string(words.back());
  }
  return l;
}

// The device a kernel line is about: the word before its first ": " after the driver's name
// ("ixgbe 0000:03:00.0: ..." -> "0000:03:00.0").
std::string kernel_device(std::string_view t) {
  const size_t colon = t.find(": ");
  if (colon == std::string_view::npos) return {};
  const auto words = split_ws(t.substr(0, colon));
  return words.empty() ? std::string() : std::string(words.back());
}

// NIC drivers' own judgement of their slot, from before the kernel's "limited by" line
// (ixgbe_main.c, i40e_main.c): ixgbe's "(Speed:5.0GT/s, Width: x4, Encoding Loss:20%)" then
// "This is not sufficient for optimal performance of this card."; i40e's "PCI-Express: Speed
// 8.0GT/s Width x4" then "PCI-Express bandwidth available for this device may be
// insufficient for optimal performance.". The link's figures come from the line before.
std::vector<PcieLinkFact> driver_pcie_links(const std::vector<Quote>& kernel) {
  std::vector<PcieLinkFact> links;
  std::map<std::string, std::pair<double, int>> seen;  // device -> its link as its driver printed it
  for (const Quote& q : kernel) {
    const std::string_view t = q.text;
    const std::string device = kernel_device(t);
    const size_t speed = std::min(t.find("(Speed:"), t.find("PCI-Express: Speed "));
    if (speed != std::string_view::npos) {
      std::string_view v = t.substr(t.find("Speed", speed) + 5);
      if (!v.empty() && (v.front() == ':' || v.front() == ' ')) v.remove_prefix(1);
      double gts = 0;
      int width = 0;
      std::from_chars(v.data(), v.data() + v.size(), gts);
      if (const size_t x = v.find("Width"); x != std::string_view::npos) {
        std::string_view w = v.substr(x + 5);
        while (!w.empty() && (w.front() == ':' || w.front() == ' ' || w.front() == 'x')) w.remove_prefix(1);
        std::from_chars(w.data(), w.data() + w.size(), width);
      }
      seen[device] = {gts, width};
      continue;
    }
    if (!contains(t, "not sufficient for optimal performance") &&
        !contains(t, "may be insufficient for optimal performance")) {
      continue;
    }
    PcieLinkFact l;
    l.where = q;
    l.device = device;
    l.driver_says = true;
    // The driver's name: the word before the device ("[ 5.1] ixgbe 0000:03:00.0: ...").
    const auto head = split_ws(t.substr(0, t.find(": ")));
    if (head.size() >= 2 && !head[head.size() - 2].ends_with(']')) l.judged_by = std::string(head[head.size() - 2]);
    if (auto it = seen.find(device); it != seen.end()) std::tie(l.sta_gts, l.sta_width) = it->second;
    l.speed_downgraded = true;
    links.push_back(std::move(l));
  }
  return links;
}

void check_pcie_links(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<PcieLinkFact> links = facts.pcie_links;
  for (const Quote& q : facts.kernel) {
    if (auto l = kernel_pcie_link(q)) links.push_back(std::move(*l));
  }
  for (PcieLinkFact& l : driver_pcie_links(facts.kernel)) links.push_back(std::move(l));
  std::set<std::string> said;  // one finding per device and file
  for (const PcieLinkFact& l : links) {
    const bool narrow = (l.sta_width > 0 && l.cap_width > 0 && l.sta_width < l.cap_width) || l.width_downgraded;
    const bool slow = (l.sta_gts > 0 && l.cap_gts > 0 && l.sta_gts < l.cap_gts) || l.speed_downgraded;
    if (!narrow && !slow) continue;
    const std::string device = l.device.empty() ? "a PCIe device (its lspci line is not in the paste)" : l.device;
    if (!said.insert(l.where.file + "\n" + device).second) continue;
    // An idle GPU lowers its link's speed to save power; its width stays.
    const Severity severity = narrow || !l.may_idle ? Severity::kWarning : Severity::kInfo;
    std::vector<Quote> quotes;
    if (l.capability.line > 0) quotes.push_back(l.capability);
    quotes.push_back(l.where);
    const double share = l.cap_gts * l.cap_width > 0 ? l.sta_gts * l.sta_width / (l.cap_gts * l.cap_width) : 0;
    out.push_back(finding(
        code::kTopoPcieDegraded, severity, device, {},
        l.cap_gts > 0 && l.cap_width > 0
            ? fmt::format("{}: its PCIe link runs at {:g} GT/s x{} where the device can do {:g} GT/s x{}{}", device,
                          l.sta_gts, l.sta_width, l.cap_gts, l.cap_width,
                          share > 0 ? fmt::format(" ({:.0f}% of its bandwidth)", 100 * share) : std::string())
        : l.cap_gts > 0 && l.cap_width == 0 && l.sta_width == 0  // speeds alone (sichek's tree check)
            ? fmt::format("{}: its PCIe link runs at {:g} GT/s where it can do {:g} GT/s ({:.0f}% of its bandwidth)",
                          device, l.sta_gts, l.cap_gts, 100 * l.sta_gts / l.cap_gts)
            : l.driver_says
                  ? fmt::format("{}: its NIC driver{} says its PCIe link{} is not enough for the card's bandwidth",
                                device, l.judged_by.empty() ? "" : fmt::format(" ({})", l.judged_by),
                                l.sta_gts > 0 ? fmt::format(" ({:g} GT/s x{})", l.sta_gts, l.sta_width) : std::string())
                  : fmt::format(
                        "{}: its PCIe link runs at {:g} GT/s x{}, which lspci marks as below the device's {} (its "
                        "LnkCap is not in the paste)",
                        device, l.sta_gts, l.sta_width,
                        narrow && slow ? "speed and width"
                        : narrow       ? "width"
                                       : "speed"),
        l.driver_says
            ? "the slot gives the card fewer lanes or an older PCIe generation than its ports need: move it to "
              "a slot with more lanes or a newer generation (compare the card's and the slot's LnkCap and "
              "LnkSta in lspci -vv)"
        : narrow ? "a link narrower than its device: the card sits in a slot (or riser) wired for fewer lanes, or a "
                   "lane failed to train: reseat it or move it to a full-width slot"
                 : "a link slower than its device: a riser, cable or slot of an older generation, or a retrain after "
                   "errors; an idle GPU also lowers its speed to save power, so read LnkSta again under load "
                   "(nvidia-smi -q -d PCIE)",
        quotes,
        {{"current_gts", l.sta_gts},
         {"current_width", l.sta_width},
         {"capable_gts", l.cap_gts},
         {"capable_width", l.cap_width}}));
  }
}

// lspci's ACSCtl lines with a redirection on: peer-to-peer traffic below a PCIe switch
// goes up to the root complex instead of across the switch (NCCL's troubleshooting guide:
// disable ACS where GPUDirect is used). One finding over every file's lines.
void check_pcie_acs(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  // NVIDIA's rdma_topo check (DOCA) on the path between a NIC's DMA function and its GPU:
  // ACS bits other than GPU-memory RDMA needs, or the two in different IOMMU groups.
  if (!facts.rdma_topo_failed.empty()) {
    const bool groups = std::any_of(facts.rdma_topo_failed.begin(), facts.rdma_topo_failed.end(),
                                    [](const Quote& q) { return contains(q.text, "iommu_group"); });
    out.push_back(finding(
        code::kTopoPcieAcs, Severity::kError, "PCIe ACS (rdma_topo)", {},
        fmt::format("rdma_topo finds the PCIe path between a NIC's DMA function and a GPU set against GPUDirect "
                    "RDMA ({}): ACS bits on its root port or switch ports other than the check wants{}, so the "
                    "NIC's reads and writes of GPU memory are redirected or refused",
                    count_lines(facts.rdma_topo_failed.size()),
                    groups ? ", and the DMA function and the GPU in different IOMMU groups" : ""),
        "apply the ACS policy the tool writes (`rdma_topo write-grub-acs`: a config_acs= kernel argument for those "
        "ports), reboot, and run `rdma_topo check` again until every line is OK",
        facts.rdma_topo_failed, {{"lines", facts.rdma_topo_failed.size()}}));
  }
  std::vector<Quote> on;
  size_t listed = 0;
  for (const AcsFact& a : facts.acs) {
    ++listed;
    if (a.redirect) on.push_back(a.where);
  }
  if (on.empty()) return;
  std::vector<std::string> devices;
  for (const AcsFact& a : facts.acs) {
    if (a.redirect && !a.device.empty() && devices.size() < 4)
      devices.push_back(a.device.substr(0, a.device.find(' ')));
  }
  const size_t n = on.size();
  if (on.size() > 6) on.resize(6);
  out.push_back(finding(
      code::kTopoPcieAcs, Severity::kWarning, "PCIe Access Control Services", {},
      fmt::format("PCIe ACS redirects peer-to-peer requests on {} of the {} ports listed{}: GPU-to-GPU and GPU-to-NIC "
                  "traffic below a switch goes up to the root complex (and the IOMMU), where GPUDirect P2P and RDMA "
                  "slow down, hang or fail (an IB completion with error 4, local protection)",
                  n, listed, devices.empty() ? "" : fmt::format(" ({})", fmt::join(devices, ", "))),
      "on bare metal, disable ACS on the PCIe switches' ports (the BIOS's ACS option, or at every boot `setpci -s "
      "BDF ECAP_ACS+0x6.w=0000` for each bridge with SrcValid+) and check with `lspci -vvv | grep ACSCtl`; in a "
      "VM, where ACS isolates passed-through devices, enable ATS instead; NCCL_P2P_LEVEL or NCCL_NET_GDR_LEVEL "
      "lowered is the workaround, at a cost",
      on, {{"ports_redirecting", n}, {"ports_listed", listed}}));
}

// RDMA devices listed with a GUID of zeros: an InfiniBand port without a GUID cannot join
// its subnet (the SM assigns no LID); SR-IOV virtual functions get none unless given.
// CUDA's error 217 where the ranks of one node each see one GPU of their own (CUDA_VISIBLE_DEVICES
// set per process: Ray's workers, Slurm's --gpus-per-task, a GPU per container): every NCCL
// process of the host logs device 0. A rank cannot ask CUDA whether its GPU reaches a GPU it
// does not see, NCCL takes P2P over CUDA IPC, and opening the peer's buffer fails (ray#16979;
// Horovod's troubleshooting guide: CUDA_VISIBLE_DEVICES per process breaks IPC). The host
// judged is the one the error's line names, or the log's only host.
bool visible_devices_split(const Facts& facts, std::vector<Finding>& out) {
  for (const auto& [host, processes] : facts.nccl_processes) {
    const bool named =
        facts.nccl_processes.size() == 1 || std::any_of(facts.cuda_p2p.begin(), facts.cuda_p2p.end(),
                                                        [&](const Quote& q) { return contains(q.text, host); });
    if (processes.size() < 2 || !named) continue;
    if (std::any_of(processes.begin(), processes.end(), [](const auto& p) { return p.second.dev != 0; })) continue;
    std::vector<Quote> quotes = facts.cuda_p2p;
    quotes.push_back(processes.begin()->second.first);
    quotes.push_back(std::next(processes.begin())->second.first);
    out.push_back(finding(
        code::kLauncherVisibleDevicesSplit, Severity::kError, fmt::format("CUDA_VISIBLE_DEVICES on {}", host), {host},
        fmt::format("CUDA refuses peer access between two GPUs ({}) on {}, where each of the {} NCCL processes logs "
                    "device 0: every rank sees only a GPU of its own (CUDA_VISIBLE_DEVICES set per process), so "
                    "it cannot ask CUDA whether its GPU reaches the others, NCCL takes P2P over CUDA IPC, and "
                    "opening the peer's memory fails",
                    count_lines(facts.cuda_p2p.size()), host, processes.size()),
        "give every rank of a node the same CUDA_VISIBLE_DEVICES (all the node's GPUs) and pick its GPU by local "
        "rank (Ray Train: share_cuda_visible_devices; Slurm: --gpus-per-node rather than --gpus-per-task or "
        "--gpu-bind=single); where that cannot change, NCCL_P2P_DISABLE=1 sends the traffic through host memory",
        quotes, {{"processes", processes.size()}}));
    return true;
  }
  return false;
}

// CUDA's error 217: two GPUs with no peer-to-peer path (no NVLink, and PCIe P2P not
// allowed between them: consumer GPUs, a path through the CPU's host bridge, a VM, ACS).
// NCCL finds its own way around (SHM through host memory); what fails is code that needs
// P2P outright, as the custom all-reduce of vLLM, SGLang and TensorRT-LLM does.
void check_p2p_unsupported(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  // Cray MPICH's GPU transport: CUDA IPC to another rank's buffer refused as an invalid
  // value, where Slurm bound each task to a GPU of its own (NERSC's Perlmutter: jobs need
  // --gpu-bind=none; jdftx#252).
  lines_finding(
      out, facts.gtl_ipc_failed, code::kLauncherVisibleDevicesSplit, Severity::kError, "Cray MPICH GPU transport",
      "Cray MPICH's GPU transport (GTL) cannot open another rank's GPU memory over CUDA IPC ({}: "
      "cuIpcOpenMemHandle, invalid value): the ranks of a node do not see the same GPUs (Slurm's --gpu-bind or "
      "--gpus-per-task gave each its own), so a handle from a peer's GPU means nothing to it",
      "run with `--gpu-bind=none` (every task sees the node's GPUs and selects its own by local rank, "
      "SLURM_LOCALID), as NERSC asks on Perlmutter; or turn CUDA IPC off in MPICH (MPICH_GPU_IPC_ENABLED=0), at a "
      "cost to on-node GPU transfers");
  // NCCL's own INFO (paths.cc, 2.12 on) for two GPUs under one PCIe switch or host bridge
  // that CUDA gives no peer access: "P2P is disabled between connected GPUs 1 and 0. You can
  // repress this message with NCCL_IGNORE_DISABLED_P2P=1." NCCL goes through host memory.
  std::vector<Quote> nccl;
  for (const NcclFact& n : facts.nccl) {
    if (n.msg.starts_with("P2P is disabled between connected GPUs")) nccl.push_back(n.where);
  }
  lines_finding(out, facts.framework_p2p_refused, code::kTopoP2pUnsupported, Severity::kError, "GPU peer access",
                "Accelerate refused to start NCCL on RTX 4000-series GPUs ({}): they have no peer-to-peer path, and "
                "NCCL would try P2P (and InfiniBand) between them",
                "launch with `accelerate launch`, which sets them, or set NCCL_P2P_DISABLE=1 and NCCL_IB_DISABLE=1 "
                "yourself (NCCL then goes through host memory); `nvidia-smi topo -p2p r` shows which pairs can");
  auto warn = [&](std::string text, std::string todo, const std::vector<Quote>& q) {
    out.push_back(finding(code::kTopoP2pUnsupported, Severity::kWarning, "GPU peer access", {},
                          fmt::format("{} ({})", text, count_lines(q.size())), std::move(todo), q,
                          {{"lines", q.size()}}));
  };
  if (facts.cuda_p2p.empty() && !nccl.empty()) {
    warn(
        "NCCL found GPUs connected through PCIe without peer access between them, and their traffic goes through "
        "host memory (SHM) at a fraction of P2P's bandwidth",
        "`nvidia-smi topo -p2p r` shows which pairs can: GeForce cards, most VMs, and PCIe ACS or an IOMMU in "
        "translated mode on the path (`lspci -vvv | grep ACSCtl`, iommu=pt) stop it",
        nccl);
    return;
  }
  if (facts.cuda_p2p.empty() && !facts.peer_tool_denied.empty()) {
    warn(
        "no pair of the GPUs listed has peer access, as the peer-access test says: GPU-to-GPU copies and NCCL's "
        "traffic between them go through host memory, and programs that need P2P (a custom all-reduce, CUDA IPC "
        "between devices) fail or hang",
        "GeForce cards have no PCIe P2P, nor do most VMs; on other GPUs check the path (`nvidia-smi topo -m`: PIX or "
        "PXB under one switch), PCIe ACS (`lspci -vvv | grep ACSCtl`) and the IOMMU (iommu=pt). Turn off a custom "
        "all-reduce (vLLM and SGLang: --disable-custom-all-reduce); NCCL_P2P_DISABLE=1 where NCCL hangs",
        facts.peer_tool_denied);
    return;
  }
  if (facts.cuda_p2p.empty()) return;
  // NCCL's own SHM transport refused (transport/shm.cc: "Cuda failure 217 'peer access is not
  // supported between these two devices'"): it shares host buffers through cuMem
  // (NCCL_CUMEM_HOST_ENABLE), which asks for peer access between GPUs that may have none;
  // without cuMem host memory it works (nccl#1838).
  std::vector<Quote> shm;
  for (const Quote& q : facts.cuda_p2p) {
    if (contains(q.text, "transport/shm.cc")) shm.push_back(q);
  }
  if (!shm.empty()) {
    out.push_back(finding(
        code::kNcclCumemHostNeedsP2p, Severity::kError, "NCCL SHM transport", {},
        fmt::format("NCCL's shared-memory transport failed on GPUs without peer access ({}, transport/shm.cc): it "
                    "shares host memory through cuMem (NCCL_CUMEM_HOST_ENABLE), which asked CUDA for peer access "
                    "these GPUs do not have (PCIe cards without P2P, most VMs)",
                    count_lines(shm.size())),
        "set NCCL_CUMEM_HOST_ENABLE=0 for the job (the SHM transport then uses plain shared memory), or use an NCCL "
        "release that falls back by itself; `nvidia-smi topo -p2p r` shows which GPU pairs have peer access",
        shm, {{"lines", shm.size()}}));
    return;
  }
  if (visible_devices_split(facts, out)) return;
  out.push_back(finding(
      code::kTopoP2pUnsupported, Severity::kError, "GPU peer access", {},
      fmt::format("CUDA refuses peer access between two GPUs ({}): they have no peer-to-peer path, and the "
                  "program needed one",
                  count_lines(facts.cuda_p2p.size())),
      "`nvidia-smi topo -p2p r` shows which pairs can; without NVLink, PCIe P2P needs the GPUs under one PCIe switch "
      "or host bridge that allows it (not in most VMs, nor on GeForce cards). Turn off the program's custom "
      "all-reduce (vLLM and SGLang: --disable-custom-all-reduce) to fall back to NCCL, which works without P2P",
      facts.cuda_p2p, {{"lines", facts.cuda_p2p.size()}}));
}

// Ranks NCCL connects through P2P or SHM are ranks it believes on the same node. A peer
// rank on a GPU that another rank of that host holds, and that logs nothing from the host
// itself, is on another node NCCL took for this one: their host hashes are equal (before
// 2.4 the hostname cut at its first dot, nccl#187; later the hostname with the boot id, or
// NCCL_HOSTID set alike), and CUDA IPC between them fails or hangs. Not judged where a
// process shows two ranks: several communicators, numbered apart, in one log.
void check_host_identity(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  for (const auto& [host, ranks] : facts.intra_node) {
    if (ranks.mixed) continue;
    std::map<int, int> holder;  // GPU: the rank of this host on it
    for (const auto& [rank, gpu] : ranks.own) holder.try_emplace(gpu.first, rank);
    for (const auto& [peer, gpu] : ranks.peers) {
      const auto held = holder.find(gpu.first);
      if (ranks.own.count(peer) || held == holder.end() || held->second == peer) continue;
      const Quote& mine = ranks.own.at(held->second).second;
      out.push_back(finding(
          code::kNcclHostIdentityCollision, Severity::kError, fmt::format("NCCL on {}", host), {host},
          fmt::format("NCCL connects rank {} as a rank of {} (through {}), but its GPU {} there is rank {}'s: rank {} "
                      "is on another node that NCCL takes for this one (the same host hash), and GPU memory "
                      "shared within a node (CUDA IPC, SHM) does not reach it",
                      peer, host, contains(gpu.second.text, "via SHM") ? "SHM" : "P2P", gpu.first, held->second, peer),
          "give every node its own hostname (NCCL before 2.4 compared hostnames only up to their first dot: "
          "upgrade, or name nodes apart there); in containers and cloned images check that nodes differ in "
          "hostname or /proc/sys/kernel/random/boot_id, and that NCCL_HOSTID is not set alike on them",
          {gpu.second, mine}, {{"rank", peer}, {"gpu", gpu.first}, {"rank_on_gpu", held->second}}));
      break;  // one per host: the first shows it
    }
  }
}

// show_gids of a RoCE port whose table has no entry at index 0 although it lists its
// link-local GIDs (a listing grepped for v2 or for an address has neither): a device in a
// pod (macvlan, ipvlan) sees only its own addresses' entries, at the host's indexes. NCCL
// releases that stop their GID search at the first empty entry find none (nccl#1573, pull
// request 1587).
void check_gid_tables(const Facts& facts, std::vector<Finding>& out) {
  std::map<std::tuple<std::string, std::string, int>, std::vector<const GidRowFact*>> ports;
  for (const GidRowFact& g : facts.gid_rows) ports[{g.where.file, g.device, g.port}].push_back(&g);
  for (const auto& [key, rows] : ports) {
    const auto& [file, device, port] = key;
    int first = rows.front()->index;
    bool link_local = false, v1 = false, v2 = false;
    const GidRowFact* suggest = nullptr;  // the RoCE v2 GID of an IPv4 address
    for (const GidRowFact* g : rows) {
      first = std::min(first, g->index);
      link_local = link_local || g->gid.starts_with("fe80:");
      v1 = v1 || g->version == "v1";
      v2 = v2 || g->version == "v2";
      if (!suggest && g->version == "v2" && !g->ipv4.empty()) suggest = g;
    }
    if (first == 0 || !link_local || !v1 || !v2) continue;
    std::vector<Quote> quotes;
    for (const GidRowFact* g : rows) {
      if (quotes.size() < 4) quotes.push_back(g->where);
    }
    out.push_back(finding(
        code::kTopoRoceGidSparse, Severity::kWarning, fmt::format("{} port {}", device, port), {},
        fmt::format("the GID table of {} port {} starts at index {} (indexes 0 to {} empty): a RoCE device in a pod "
                    "(macvlan, ipvlan) sees only its own addresses' entries, at the host's indexes; NCCL releases "
                    "that stop their GID search at the first empty entry find no GID and fail (nccl#1573)",
                    device, port, first, first - 1),
        suggest ? fmt::format("set NCCL_IB_GID_INDEX={} (the RoCE v2 GID of {}) for the job, or use an NCCL release "
                              "that searches past empty entries",
                              suggest->index, suggest->ipv4)
                : std::string("set NCCL_IB_GID_INDEX to the index of the RoCE v2 GID of the pod's address (show_gids), "
                              "or use an NCCL release that searches past empty entries"),
        quotes, {{"device", device}, {"port", port}, {"first_index", first}}));
  }
}

// The kind of address a GID is: a RoCE port's table lists the link-local one and each of the
// interface's addresses (IPv4 ones mapped, ::ffff:a.b.c.d), once for RoCE v1 and once for v2
// where both are enabled. Empty for a GID of zeros (an unused entry).
std::string_view gid_kind(std::string_view gid) {
  if (gid.starts_with("fe80:")) return "link-local";
  if (gid.starts_with("0000:0000:0000:0000:0000:ffff:")) return "IPv4";
  if (gid.find_first_not_of("0:") == std::string_view::npos) return {};
  return "global IPv6";
}

// ibv_devinfo -v's GID tables of two or more hosts in which one index holds different kinds of
// address (one host lists RoCE v1 and v2 entries of each address, another v2 only): a GID
// index fixed for the whole job (NCCL_IB_GID_INDEX, UCX_IB_GID_INDEX, a program's default)
// names the routable GID on one host and the link-local one on another, and the queue pairs
// between them do not connect (openucx/ucx#7785).
void check_gid_index_mismatch(const Facts& facts, std::vector<Finding>& out) {
  std::map<std::string, std::map<int, const Facts::GidIndexFact*>> hosts;
  for (const Facts::GidIndexFact& g : facts.gid_indexes) hosts[g.host].emplace(g.index, &g);
  if (hosts.size() < 2) return;
  const auto& [first_host, first] = *hosts.begin();
  std::vector<std::string> differ;
  std::vector<Quote> quotes;
  std::set<std::string> named{first_host};
  for (const auto& [host, table] : hosts) {
    if (host == first_host) continue;
    for (const auto& [index, g] : table) {
      const auto there = first.find(index);
      if (there == first.end()) continue;
      const std::string_view a = gid_kind(there->second->gid), b = gid_kind(g->gid);
      if (a.empty() || b.empty() || a == b) continue;
      if (differ.size() < 4) {
        differ.push_back(fmt::format("index {}: {} on {}, {} on {}", index, a, first_host, b, host));
        quotes.push_back(there->second->where);
        quotes.push_back(g->where);
      }
      named.insert(host);
    }
  }
  if (differ.empty()) return;
  out.push_back(finding(
      code::kTopoRoceGidIndexMismatch, Severity::kWarning, "RoCE GID tables",
      std::vector<std::string>(named.begin(), named.end()),
      fmt::format("the hosts' GID tables differ ({}): one GID index fixed for the whole job (NCCL_IB_GID_INDEX, "
                  "UCX_IB_GID_INDEX, a program's default) names a routable address on one host and another kind on "
                  "the other, so the queue pairs between them do not connect; most often one host lists RoCE v1 and "
                  "v2 entries of each address and the other v2 only",
                  fmt::join(differ, "; ")),
      "make the hosts' RoCE setup alike (the same NIC driver, firmware and RoCE versions enabled) so that each index "
      "means the same on all, or let NCCL choose the GID by address family (leave NCCL_IB_GID_INDEX unset, NCCL 2.21 "
      "and later; "
      "NCCL_IB_ROCE_VERSION_NUM, NCCL_IB_ADDR_FAMILY); for UCX give UCX_IB_GID_INDEX only where it means the same "
      "GID everywhere",
      quotes, {{"hosts", named}}));
}

void check_zero_guids(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  check_gid_tables(facts, out);
  check_gid_index_mismatch(facts, out);
  if (!facts.roce_gid_empty.empty()) {
    out.push_back(finding(
        code::kTopoRoceGidEmpty, Severity::kError, "RoCE GID", {},
        fmt::format("perftest on a RoCE port shows a GID of zeros ({}): the port has no RoCE GID where the test "
                    "ran, as when its network interface has no IP address in that network namespace (a pod "
                    "without the secondary network that carries RDMA), so its queue pairs cannot connect (Failed "
                    "to modify QP to RTR)",
                    count_lines(facts.roce_gid_empty.size())),
        "give the RDMA device's network interface an address where the job runs (in Kubernetes, attach the "
        "macvlan, ipvlan or SR-IOV network of the RDMA device to the pod); `show_gids` or `ibv_devinfo -v` then "
        "lists a GID with that address: pass its index (perftest -x N, NCCL_IB_GID_INDEX)",
        facts.roce_gid_empty));
  }
  if (facts.zero_guids.empty()) return;
  std::vector<std::string> devices;
  std::vector<Quote> quotes;
  for (const ZeroGuidFact& g : facts.zero_guids) {
    const std::string d = g.device.empty() ? "a device" : g.device;
    if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
    if (quotes.size() < 6) quotes.push_back(g.where);
  }
  out.push_back(finding(
      code::kTopoIbZeroGuid, Severity::kWarning, fmt::format("RDMA device {}", devices.front()), {},
      fmt::format("{} listed with a GUID of zeros: an InfiniBand port without a node and port GUID gets no LID from "
                  "the subnet manager and carries no RDMA traffic; SR-IOV virtual functions have none unless one is "
                  "assigned",
                  fmt::join(devices, ", ")),
      "give each VF its GUIDs before binding it (`ip link set PF vf N node_guid G` and `port_guid G`, or the "
      "SR-IOV network operator's or device plugin's settings), then check `ibstat` shows them and the port "
      "Active",
      quotes, {{"devices", devices}}));
}

// fabscope's profiler plugin's snapshots of a running job, judged interval by interval as
// `fabscope watch` judges them: a link that turned slow (nccl.link_wait), a rank whose
// snapshots stopped while the others' went on (run.hang). Each snapshot's own clock
// orders them: a rank is silent whose last interval ended two intervals before the newest.
void check_snapshots(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>& missing) {
  if (facts.snapshots.empty()) return;
  std::map<std::string, std::pair<std::set<int>, int>> ranks;  // comm -> (ranks with a snapshot, nranks)
  for (const Snapshot& s : facts.snapshots) {
    ranks[s.comm].first.insert(s.rank);
    ranks[s.comm].second = s.nranks;
  }
  for (const auto& [comm, r] : ranks) {
    if (static_cast<int>(r.first.size()) < r.second) {
      missing.push_back(
          fmt::format("snapshots of {} of communicator {}'s {} ranks: the others' links are not in the "
                      "files (each rank writes its own, into its node's FABSCOPE_PROFILE_DIR)",
                      r.first.size(), comm, r.second));
    }
  }
  uint64_t origin = UINT64_MAX, newest = 0;
  for (const Snapshot& s : facts.snapshots) {
    origin = std::min(origin, s.start_ns);
    newest = std::max(newest, s.end_ns);
  }
  std::vector<const Snapshot*> order;
  for (const Snapshot& s : facts.snapshots) order.push_back(&s);
  std::sort(order.begin(), order.end(), [](const Snapshot* a, const Snapshot* b) { return a->end_ns < b->end_ns; });
  Watch watch{WatchOptions{}};
  for (const Snapshot* s : order) {
    if (!watch.add(*s, static_cast<double>(s->end_ns - origin) / 1e9).ok()) return;
  }
  if (!watch.check_one_job().ok()) return;
  std::vector<Finding> found;
  watch.judge(static_cast<double>(newest - origin) / 1e9, found, /*flush=*/true);
  for (Finding& f : found) {
    std::vector<Quote> quotes;
    for (const Snapshot& s : facts.snapshots) {
      const bool of_it =
          f.evidence.contains("rank")
              ? s.rank == f.evidence.at("rank").get<int>() && s.seq == f.evidence.at("last_interval").get<uint64_t>()
              : s.rank == f.evidence.value("src_rank", -1) && s.seq == f.evidence.value("interval", uint64_t{0});
      if (of_it && s.comm == f.evidence.value("comm", std::string())) {
        quotes.push_back({s.file, 1, fmt::format("snapshot {} of rank {} ({})", s.seq, s.rank, s.host)});
      }
    }
    out.push_back(finding(f.code, f.severity, f.subject, f.hosts, f.message, f.hint, quotes, f.evidence));
  }
}

// --- counters ---------------------------------------------------------------------

// Lower case, without '_' and a trailing "counter": PortXmitWait, port_xmit_wait -> portxmitwait.
std::string norm(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c != '_' && c != '-') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (out.ends_with("counter")) out.resize(out.size() - 7);
  return out;
}

// Link-quality counters by norm()'s name: perfquery's and sysfs's, mlx5's PHY counters, and
// ibcheckerrors' and ibdiagnet's own names for them (SymbolErrors, LinkRecovers,
// link_down_counter ...).
constexpr std::string_view kLinkErrorCounters[] = {
    "symbolerror",
    "linkdowned",
    "linkerrorrecovery",
    "portrcverrors",
    "localintegrityerrors",
    "excessivebufferoverrunerrors",
    "portrcvremotephysicalerrors",
    "rxcrcerrorsphy",
    "rxsymbolerrphy",
    "linkdowneventsphy",
    "rxcorruptedbitsphy",
    "symbolerrors",
    "linkrecovers",
    "linkdown",
    "rcverrors",
    "linkintegrityerrors",
    "excbufoverrunerrors",
    "rcvremotephyserrors",
};
// Waits, congestion notifications, pauses and discards (ibcheckerrors' XmtDiscards among them).
constexpr std::string_view kCongestionCounters[] = {
    "portxmitwait",   "npcnpsent",        "rpcnphandled", "npecnmarkedrocepackets", "rxpausectrlphy",
    "txpausectrlphy", "portxmitdiscards", "outofbuffer",  "rxdiscardsphy",          "xmtdiscards",
};

bool pegged(uint64_t v) { return v == 0xffull || v == 0xffffull || v == 0xffffffffull || v == ~0ull; }

// AWS's ENA driver counts the packets the hypervisor queued or dropped because the instance
// went past one of its network allowances (ethtool -S: bw_in_allowance_exceeded,
// bw_out_allowance_exceeded, pps_allowance_exceeded, conntrack_allowance_exceeded,
// linklocal_allowance_exceeded), since the driver loaded.
bool allowance_counter(const std::string& n) { return n.ends_with("allowanceexceeded"); }

void check_counters(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<const CounterFact*> errors, saturated, congestion, allowance;
  for (const CounterFact& c : facts.counters) {
    const std::string n = norm(c.name);
    if (allowance_counter(n)) {
      if (c.value > 0) allowance.push_back(&c);
      continue;
    }
    const bool error =
        std::find(std::begin(kLinkErrorCounters), std::end(kLinkErrorCounters), n) != std::end(kLinkErrorCounters);
    const bool cong =
        std::find(std::begin(kCongestionCounters), std::end(kCongestionCounters), n) != std::end(kCongestionCounters);
    if ((error || cong) && pegged(c.value)) {
      saturated.push_back(&c);
    } else if (error && c.value > 0) {
      errors.push_back(&c);
    } else if (cong && c.value > 0) {
      congestion.push_back(&c);
    }
  }
  auto quotes_of = [](const std::vector<const CounterFact*>& cs) {
    std::vector<Quote> q;
    for (const CounterFact* c : cs) q.push_back(c->where);
    return q;
  };
  auto listed = [](const std::vector<const CounterFact*>& cs) {
    std::vector<std::string> s;
    for (const CounterFact* c : cs) {
      if (s.size() == 6) {
        s.push_back(fmt::format("and {} more", cs.size() - 6));
        break;
      }
      s.push_back(fmt::format("{}{} {}", c->device.empty() ? "" : c->device + " ", c->name, c->value));
    }
    return s;
  };
  if (!errors.empty()) {
    uint64_t worst = 0;
    for (const CounterFact* c : errors) worst = std::max(worst, c->value);
    out.push_back(finding(code::kCountersLinkErrors, worst >= 100 ? Severity::kError : Severity::kWarning,
                          "link-quality counters", {},
                          fmt::format("link-quality error counters are non-zero: {}", fmt::join(listed(errors), ", ")),
                          "symbol errors and recoveries mean a bad cable, transceiver or port: clear the counters, "
                          "run traffic, read them again; a rising count is the link to replace",
                          quotes_of(errors)));
  }
  if (!saturated.empty()) {
    out.push_back(finding(code::kCountersSaturated, Severity::kWarning, "counters at their maximum", {},
                          fmt::format("counters pegged at their maximum: {}: the real value is unknown",
                                      fmt::join(listed(saturated), ", ")),
                          "clear them (perfquery -x -R, or the switch's counters) and measure again",
                          quotes_of(saturated)));
  }
  if (!allowance.empty()) {
    out.push_back(finding(
        code::kCountersAllowanceExceeded, Severity::kWarning, "the instance's network allowances", {},
        fmt::format("the cloud instance went past its network allowances ({}): AWS's hypervisor queued or dropped "
                    "its packets for moving more than the instance type allows (bandwidth in or out, packets per "
                    "second, tracked connections, link-local traffic), whatever the NIC's line rate",
                    fmt::join(listed(allowance), ", ")),
        "these count since the driver loaded: read them before and after a run to see whether the run went past; "
        "then move the traffic to an instance type with more network bandwidth (or EFA for the collectives), "
        "spread it over more instances or interfaces, or pace it below the allowance",
        quotes_of(allowance)));
  }
  if (!congestion.empty()) {
    out.push_back(finding(code::kCountersCongestion, Severity::kInfo, "congestion counters", {},
                          fmt::format("congestion counters are non-zero: {}", fmt::join(listed(congestion), ", ")),
                          "waits, ECN/CNP and pauses mean flows competed for a port: alone they are normal under "
                          "load; compare their rate with a quiet period",
                          quotes_of(congestion)));
  }
}

// RoCE that lost packets where neither of its lossless mechanisms ever acted: in one
// file's counters (ethtool -S of the netdev, the RDMA device's hw_counters: one host's,
// the netdev and its RDMA device side by side), since boot: RDMA traffic, and drops or
// go-back-N recoveries, while every PFC pause counter and every ECN/CNP counter listed is
// 0. Only where the file lists both a pause and an ECN/CNP counter: one without them
// cannot say.
constexpr std::string_view kRoceLossCounters[] = {"outofsequence",      "packetseqerr",  "impliednakseqerr",
                                                  "localacktimeouterr", "rxdiscardsphy", "outofbuffer"};
constexpr std::string_view kRoceEcnCounters[] = {"npecnmarkedrocepackets", "npcnpsent", "rpcnphandled", "rpcnpignored"};
bool roce_pause_counter(const std::string& n) {  // rx_pause_ctrl_phy, tx_prio3_pause, rx_global_pause
  return n.ends_with("pausectrlphy") || (n.starts_with("rxprio") && n.ends_with("pause")) ||
         (n.starts_with("txprio") && n.ends_with("pause")) || n == "rxglobalpause" || n == "txglobalpause";
}
bool roce_traffic_counter(const std::string& n) {  // the vport's RDMA counters, or RDMA requests served
  return n.starts_with("rxvportrdma") || n.starts_with("txvportrdma") || n == "rxwriterequests" ||
         n == "rxreadrequests";
}

void check_roce_flow_control(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  struct Listing {
    bool traffic = false, pause_listed = false, ecn_listed = false, acted = false;
    std::vector<const CounterFact*> losses;
  };
  std::map<std::string, Listing> files;
  auto in = [](const auto& list, const std::string& n) {
    return std::find(std::begin(list), std::end(list), n) != std::end(list);
  };
  for (const CounterFact& c : facts.counters) {
    const std::string n = norm(c.name);
    Listing& l = files[c.where.file];
    if (roce_traffic_counter(n) && c.value > 0) l.traffic = true;
    if (roce_pause_counter(n)) {
      l.pause_listed = true;
      l.acted |= c.value > 0;
    } else if (in(kRoceEcnCounters, n)) {
      l.ecn_listed = true;
      l.acted |= c.value > 0;
    } else if (in(kRoceLossCounters, n) && c.value > 0 && !pegged(c.value)) {
      l.losses.push_back(&c);
    }
  }
  for (const auto& [file, l] : files) {
    if (!l.traffic || !l.pause_listed || !l.ecn_listed || l.acted || l.losses.empty()) continue;
    std::vector<std::string> lost;
    std::vector<Quote> quotes;
    for (const CounterFact* c : l.losses) {
      lost.push_back(fmt::format("{}{} {}", c->device.empty() ? "" : c->device + " ", c->name, c->value));
      quotes.push_back(c->where);
    }
    out.push_back(finding(
        code::kCountersRoceNoFlowControl, Severity::kWarning, fmt::format("RoCE in {}", file), {},
        fmt::format("RoCE lost packets ({}) while no PFC pause and no ECN/CNP counter listed beside them ever "
                    "moved: the fabric carries RoCE without lossless flow control, so each drop costs a go-back-N "
                    "retransmit (and a timeout where a whole window is lost)",
                    fmt::join(lost, ", ")),
        "enable PFC on the RoCE priority and ECN (DCQCN) end to end: `mlnx_qos -i IF --trust dscp --pfc "
        "0,0,0,1,0,0,0,0` on every host, the same priority lossless on every switch port, and NCCL_IB_TC / "
        "NCCL_IB_SL mapping NCCL's traffic to it; then the pause or CNP counters move under load and "
        "out_of_sequence stops rising",
        quotes));
  }
}

// An RDMA NIC on the bus (lspci) while an RDMA tool finds no device (ibstatus' "sys files
// not found (/sys/class/infiniband/*/ports)", ibv_devinfo's "No IB devices found"): the
// card's RDMA driver (mlx5_ib, mlx4_ib: MOFED/DOCA or the distribution's) is not loaded or
// not installed. Where the NIC's driver asks for newer firmware, or its RDMA module's lines
// are there, kernel.hca_firmware or those lines say more, and this stays quiet.
void check_rdma_stack_missing(const Facts& facts, std::vector<Finding>& out) {
  // libibverbs' own word for a kernel without its verbs interface (ib_uverbs not loaded, or
  // the RDMA stack stopped: /sys/class/infiniband_verbs absent): ENOSYS, "Failed to get IB
  // devices list: Function not implemented"; DPDK's mlx drivers ask it ("cannot list devices,
  // is ib_uverbs loaded?").
  std::vector<Quote> enosys;
  for (const Quote& q : facts.rdma_absent) {
    if (contains(q.text, "Function not implemented") || contains(q.text, "is ib_uverbs loaded")) enosys.push_back(q);
  }
  if (!enosys.empty()) {
    out.push_back(finding(
        code::kTopoRdmaProviderMissing, Severity::kWarning, "RDMA driver stack", {},
        fmt::format("libibverbs finds no verbs interface in the kernel ({}: \"{}\"): the RDMA stack's kernel modules "
                    "(ib_uverbs, the NIC's mlx5_ib or mlx4_ib) are not loaded or were stopped, so nothing can use the "
                    "NICs for RDMA and NCCL, MPI, UCX and DPDK fall back to TCP or fail",
                    count_lines(enosys.size()),
                    contains(enosys.front().text, "Function not implemented") ? "Function not implemented"
                                                                              : "is ib_uverbs loaded?"),
        "load the RDMA stack (`modprobe ib_uverbs mlx5_ib`, mlx4_ib for a ConnectX-3, or start it: "
        "`/etc/init.d/openibd start`, `systemctl "
        "start openibd`); then `ls /sys/class/infiniband_verbs` and `ibv_devinfo` list the devices",
        enosys, {{"lines", enosys.size()}}));
    return;
  }
  if (facts.rdma_absent.empty() || facts.rdma_nics_on_bus.empty()) return;
  for (const Quote& q : facts.kernel) {
    const std::string_view t = q.text;
    if (contains(t, "mlx5_ib") || contains(t, "mlx4_ib") ||
        ((contains(t, "firmware") || contains(t, "FW")) && (contains(t, "upgrade") || contains(t, "update")))) {
      return;
    }
  }
  std::vector<Quote> quotes = facts.rdma_absent;
  quotes.insert(
      quotes.end(), facts.rdma_nics_on_bus.begin(),
      facts.rdma_nics_on_bus.begin() + static_cast<ptrdiff_t>(std::min<size_t>(4, facts.rdma_nics_on_bus.size())));
  out.push_back(finding(
      code::kTopoRdmaProviderMissing, Severity::kWarning, "RDMA driver stack", {},
      fmt::format("{} RDMA-capable NIC{} on the PCI bus ({}), yet the RDMA tools find no device ({}): the card's "
                  "RDMA driver (mlx5_ib or mlx4_ib, from the distribution or MOFED/DOCA) is not loaded or not "
                  "installed, so nothing can use it for RDMA and NCCL, MPI and UCX fall back to TCP",
                  facts.rdma_nics_on_bus.size(), facts.rdma_nics_on_bus.size() == 1 ? " is" : "s are",
                  facts.rdma_nics_on_bus.front().text.substr(0, 100), count_lines(facts.rdma_absent.size())),
      "check `lsmod | grep -E 'mlx[45]_ib|ib_core'` and `ls /sys/class/infiniband`; install the RDMA stack for the "
      "card (rdma-core and the inbox modules, or MOFED/DOCA for the kernel running) and load it (`modprobe "
      "mlx5_ib`), then `ibstat` should list the ports",
      quotes, {{"nics", facts.rdma_nics_on_bus.size()}}));
}

// libibverbs finding the kernel's RDMA devices with no user-space driver for them: the
// provider library (rdma-core's libmlx5, in Debian's ibverbs-providers) missing from the
// image or host, or its configuration (libibverbs.d) not where libibverbs looks.
// NCCL's "Failed to open libibverbs.so[.1]", which it says wherever there is no RDMA stack,
// is the same fault where RDMA is expected (rdma_expected): the verbs library itself missing.
void check_rdma_provider(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> no_verbs;
  for (const NcclFact& n : facts.nccl) {
    if (n.msg.starts_with("Failed to open libibverbs")) no_verbs.push_back(n.where);
  }
  if (const RdmaExpected rdma = no_verbs.empty() ? RdmaExpected() : rdma_expected(facts); rdma.expected()) {
    out.push_back(finding(
        code::kTopoRdmaProviderMissing, Severity::kError, "libibverbs", {},
        fmt::format("NCCL could not load libibverbs ({}: \"Failed to open libibverbs.so[.1]\") although RDMA is "
                    "expected here{}: without the verbs library NCCL's IB transport cannot start, and NCCL moves "
                    "data over TCP sockets",
                    count_lines(no_verbs.size()),
                    rdma.ipoib.empty() ? std::string() : fmt::format(" ({} is an IPoIB interface)", rdma.ipoib)),
        "install rdma-core's libraries where NCCL runs (`libibverbs1` and `ibverbs-providers` on Debian and Ubuntu, "
        "`libibverbs` on RHEL; in a container, the image needs them as well as /dev/infiniband), then look for "
        "`NET/IB : Using` in NCCL's INFO lines",
        no_verbs, rdma.json()));
  }
  // A provider libibverbs could not load, then no device found (ibv_devinfo's "No IB devices
  // found", NCCL's "NET/IB : No device found."): that provider was the NICs'.
  std::vector<Quote> unloaded;
  const bool none_found = !facts.rdma_absent.empty() ||
                          std::any_of(facts.nccl.begin(), facts.nccl.end(),
                                      [](const NcclFact& n) { return n.msg.starts_with("NET/IB : No device found"); });
  if (none_found) unloaded = facts.rdma_driver_unloaded;
  if (facts.rdma_no_provider.empty() && unloaded.empty()) {
    check_rdma_stack_missing(facts, out);
    return;
  }
  std::vector<Quote> quotes = facts.rdma_no_provider;
  quotes.insert(quotes.end(), unloaded.begin(), unloaded.end());
  quotes.insert(quotes.end(), facts.rdma_absent.begin(), facts.rdma_absent.end());  // what followed
  out.push_back(finding(
      code::kTopoRdmaProviderMissing, Severity::kError, "RDMA user-space driver", {},
      fmt::format("{}: no program can use the NICs for RDMA, so NCCL finds no IB device and MPI and UCX fall back "
                  "to TCP",
                  facts.rdma_no_provider.empty()
                      ? fmt::format("libibverbs could not load the user-space driver its configuration names ({}: "
                                    "\"couldn't load driver\"), and then found no RDMA device",
                                    count_lines(unloaded.size()))
                      : fmt::format("libibverbs sees the kernel's RDMA devices but has no user-space driver for them "
                                    "({}: \"no userspace device-specific driver found\")",
                                    count_lines(facts.rdma_no_provider.size() + unloaded.size()))),
      "install the providers where the program runs (rdma-core's: `ibverbs-providers` on Debian and Ubuntu, "
      "`libibverbs` on RHEL; MOFED or DOCA bring their own) and check `ls /etc/libibverbs.d` (a build from source "
      "may have put it under /usr/local/etc) and `ibv_devices`; in a container, the image needs them as well as the "
      "devices",
      quotes, {{"lines", facts.rdma_no_provider.size() + unloaded.size()}}));
}

// NET/IB's queue pairs on a RoCE port using a link-local GID (fe80::, which NCCL prints
// byte-swapped as "GID 0 (80FE/...)"): RoCE v2 packets from such an address cannot leave
// the link (no router forwards them), so hosts on other subnets, or a container's address
// NCCL cannot reach this way, time out or fail ibv_modify_qp. RoCE is known by the line's
// form (2.20 and later print a GID only for RoCE, with fifoRkey) or by a MAC-derived
// interface id (EUI-64's FF FE, printed as "FEFF" at its 7th character). A fault where
// NCCL_IB_GID_INDEX forced it, or where NCCL chose it itself (2.21 and later pick a
// routable GID when the port has one); NCCL before 2.21 took GID 0 by default, which a
// flat layer-2 RoCE network runs on, and is not judged.
bool link_local_roce_gid(std::string_view msg) {
  if (!msg.starts_with("NET/IB:")) return false;
  const size_t gid = msg.find(" GID ");
  if (gid == std::string_view::npos) return false;
  const size_t open = msg.find(" (80FE/", gid);
  if (open == std::string_view::npos) return false;
  const std::string_view iid = msg.substr(open + 7);
  const bool mac_derived = iid.size() >= 16 && iid.substr(6, 4) == "FEFF";
  return contains(msg, "fifoRkey") || mac_derived;
}
void check_roce_link_local(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> quotes;
  std::set<std::string> hosts;
  std::optional<Quote> forced;
  std::string index;
  bool auto_selected = false;  // NCCL 2.21 or later, which picks a routable GID itself
  for (const NcclFact& n : facts.nccl) {
    if (const size_t at = n.msg.find("NCCL_IB_GID_INDEX set by environment to "); at != std::string::npos) {
      forced = n.where;
      index = std::string(trim(n.msg.substr(at + 40)));
      if (index.ends_with('.')) index.pop_back();
    }
    if (n.msg.starts_with("NCCL version ")) {
      int major = 0, minor = 0;
      if (std::sscanf(n.msg.c_str() + 13, "%d.%d", &major, &minor) == 2) {
        auto_selected = major > 2 || (major == 2 && minor >= 21);
      }
    }
    if (link_local_roce_gid(n.msg) && quotes.size() < 8) {
      quotes.push_back(n.where);
      hosts.insert(n.host);
    }
  }
  if (quotes.empty() || (!forced && !auto_selected)) return;
  if (forced) quotes.insert(quotes.begin(), *forced);
  out.push_back(finding(
      code::kNcclRoceGidLinkLocal, Severity::kWarning, "NET/IB RoCE GID",
      std::vector<std::string>(hosts.begin(), hosts.end()),
      forced ? fmt::format("NCCL_IB_GID_INDEX is forced to {} and that GID is link-local (fe80::, MAC-derived): RoCE "
                           "traffic from it cannot be routed, so peers on another subnet (or a container's network) "
                           "time out or refuse the queue pair",
                           index)
             : std::string("NCCL chose a link-local GID (fe80::) for RoCE: the port has no routable (IPv4 or global "
                           "IPv6) GID, so peers on another subnet time out or refuse the queue pair"),
      forced ? "unset NCCL_IB_GID_INDEX (NCCL 2.21 and later pick a routable RoCE v2 GID themselves) or set it to the "
               "index `show_gids` lists with the interface's IPv4 address and v2; in a container, check the GID table "
               "the container sees"
             : "give the RoCE interface its IP address (the GID table gains a RoCE v2 IPv4 entry; `show_gids`), and in "
               "a container check the GID table the container sees",
      quotes, {{"forced_index", forced ? nlohmann::ordered_json(index) : nlohmann::ordered_json()}}));
}

// MUNGE, which Slurm and PMIx authenticate with: its daemon unreachable (its socket missing
// or refusing: munged not running where the process runs, a chroot or container without
// /run/munge), or a credential another host refused (a different key, clocks apart, a
// user the daemon may not decode for). libmunge's own wordings.
// The shared RDMA device plugin (Mellanox's k8s-rdma-shared-dev-plugin) exits where the
// kernel's RDMA subsystem keeps each RDMA device in one network namespace ("rdma system set
// netns exclusive", or ib_core's netns_mode=0): it hands one device to many pods, which only
// the shared mode allows. SR-IOV's RDMA CNI wants exclusive, so the two cannot share a node.
void check_rdma_netns(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.rdma_netns, code::kContainerRdmaNetnsExclusive, Severity::kError,
      "RDMA subsystem network namespace mode",
      "the shared RDMA device plugin refuses to start ({}: \"incorrect RDMA subsystem network "
      "namespace\"): the node's RDMA subsystem is in exclusive network-namespace mode, where a device "
      "belongs to one namespace, so it cannot give the RDMA devices to the pods and they get none",
      "check `rdma system` on the node (\"netns shared\" is what the shared plugin needs); set it back with `rdma "
      "system set netns shared` before any pod uses RDMA, and remove what sets it exclusive (ib_core's "
      "`netns_mode=0` in /etc/modprobe.d, or an SR-IOV RDMA CNI setup, which needs exclusive and cannot share the "
      "node with this plugin)");
}

// iblinkinfo's links: below what both ends support (its own "Could be 4X", "Could be 25.78125
// Gbps": a bad cable or transceiver, a port forced down, a link that retrained narrower after
// errors), and links physically up whose state never reached Active (no subnet manager
// brought them up, or one that cannot reach them).
// NET/IB's asynchronous event for a port whose speed changed under the job (common.cc:
// "NET/IB : mlx5_0:1 speed change detected: 400000 -> 200000 Mbps"): a link that
// renegotiated lower, as a failing cable or transceiver does; the job runs at the new rate.
void check_ib_speed_changes(const Facts& facts, std::vector<Finding>& out) {
  std::vector<Quote> quotes;
  std::vector<std::string> shown;
  std::set<std::string> hosts;
  for (const NcclFact& n : facts.nccl) {
    const size_t at = n.msg.find(" speed change detected: ");
    if (at == std::string::npos || !n.msg.starts_with("NET/IB")) continue;
    const std::string_view rest = std::string_view(n.msg).substr(at + 24);
    uint64_t before = 0, after = 0;
    const auto r = std::from_chars(rest.data(), rest.data() + rest.size(), before);
    const size_t arrow = rest.find("-> ");
    if (r.ec != std::errc() || arrow == std::string_view::npos) continue;
    const std::string_view next = rest.substr(arrow + 3);
    if (std::from_chars(next.data(), next.data() + next.size(), after).ec != std::errc() || after >= before) continue;
    const std::string_view head = std::string_view(n.msg).substr(0, at);
    const std::string_view port = trim(head.substr(head.find(':') + 1));  // "mlx5_0:1"
    if (shown.size() < 6) shown.push_back(fmt::format("{} on {}: {} -> {} Mb/s", port, n.host, before, after));
    quotes.push_back(n.where);
    if (!n.host.empty()) hosts.insert(n.host);
  }
  if (quotes.empty()) return;
  out.push_back(finding(
      code::kFabricLinkDegraded, Severity::kWarning, "NIC ports that slowed under the job",
      {hosts.begin(), hosts.end()},
      fmt::format("NCCL saw {} port{} renegotiate to a lower speed while the job ran ({}): every collective crossing "
                  "{} runs at the new rate",
                  quotes.size(), quotes.size() == 1 ? "" : "s", fmt::join(shown, "; "),
                  quotes.size() == 1 ? "it" : "them"),
      "a link that drops its speed is failing: reseat or replace the cable or transceiver (`mlxlink -d DEV` for its "
      "errors), and check the port's counters and the switch side",
      quotes, {{"ports", quotes.size()}}));
}

void check_ib_links(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  check_ib_speed_changes(facts, out);
  lines_finding(out, facts.ibdiag_links, code::kFabricLinkDegraded, Severity::kWarning,
                "InfiniBand links below the expected rate",
                "ibdiagnet reports links running below the speed or width expected of them ({}; a port whose rate "
                "is below its IPoIB group's cannot join it): every collective crossing such a link runs at its rate",
                "reseat or replace the cable or transceiver at either end (`mlxlink -d DEV -p PORT` for its errors), "
                "check that no one forced the port's width or speed (`ibportstate`), and watch its symbol and "
                "link-recovery counters (`perfquery`); `ibdiagnet --ls SPEED --lw WIDTH` checks every link against "
                "what the fabric should run");
  std::vector<const IbLinkFact*> slow, idle;
  for (const IbLinkFact& l : facts.ib_links) (l.could_be.empty() ? idle : slow).push_back(&l);
  if (!facts.no_sm.empty()) {
    std::vector<Quote> quotes(facts.no_sm.begin(),
                              facts.no_sm.begin() + static_cast<ptrdiff_t>(std::min<size_t>(8, facts.no_sm.size())));
    out.push_back(finding(
        code::kFabricLinkNotActive, Severity::kWarning, "InfiniBand subnet manager", {},
        fmt::format("no subnet manager answers on the ports queried ({}: \"No SM/SA found on port\"): the ports "
                    "are down, or no subnet manager runs on the fabric, so they never become Active and no "
                    "traffic crosses them",
                    count_lines(facts.no_sm.size())),
        "check the ports' state (`ibstat`: Down/Polling is the cable or the switch port, Initializing is no subnet "
        "manager) and that a subnet manager runs and sees them (`sminfo`, `systemctl status opensm`, the switch's "
        "or UFM's SM)",
        quotes, {{"lines", facts.no_sm.size()}}));
  }
  const auto name = [](const IbLinkFact& l) {
    return fmt::format("{} port {}{}", l.node.empty() ? std::string("a node") : l.node, l.port,
                       l.remote.empty() ? std::string() : fmt::format(" to \"{}\"", l.remote));
  };
  if (!slow.empty()) {
    std::vector<std::string> shown;
    std::vector<Quote> quotes;
    for (const IbLinkFact* l : slow) {
      if (shown.size() < 6) shown.push_back(fmt::format("{} at {} {} ({})", name(*l), l->width, l->speed, l->could_be));
      if (quotes.size() < 8) quotes.push_back(l->where);
    }
    out.push_back(finding(
        code::kFabricLinkDegraded, Severity::kWarning, "InfiniBand links below their capability", {},
        fmt::format("{} link{} of the fabric run{} narrower or slower than both ends support (iblinkinfo's \"Could "
                    "be\"): {}",
                    slow.size(), slow.size() == 1 ? "" : "s", slow.size() == 1 ? "s" : "", fmt::join(shown, "; ")),
        "every collective crossing such a link runs at its rate: reseat or replace the cable or transceiver at either "
        "end (`mlxlink -d DEV -p PORT` for its errors and eye), check that no one forced the port's width or speed "
        "(`ibportstate`), and watch its symbol and link-recovery counters (`perfquery`)",
        quotes, {{"links", slow.size()}}));
  }
  if (!idle.empty()) {
    std::vector<std::string> shown;
    std::vector<Quote> quotes;
    for (const IbLinkFact* l : idle) {
      if (shown.size() < 6) shown.push_back(fmt::format("{} ({}/{})", name(*l), l->state, l->phys));
      if (quotes.size() < 8) quotes.push_back(l->where);
    }
    out.push_back(finding(
        code::kFabricLinkNotActive, Severity::kWarning, "InfiniBand links not Active", {},
        fmt::format("{} link{} physically up but not Active: {}: no subnet manager has configured {}, so no traffic "
                    "crosses {}",
                    idle.size(), idle.size() == 1 ? " is" : "s are", fmt::join(shown, "; "),
                    idle.size() == 1 ? "it" : "them", idle.size() == 1 ? "it" : "them"),
        "check that a subnet manager runs and sees these ports (`sminfo`, `systemctl status opensm`, the UFM or "
        "switch SM's log) and that the ports are not outside its partitions",
        quotes, {{"links", idle.size()}}));
  }
}

// DCGM's diagnostic (dcgmi diag) with tests that failed or warned: what each says, and
// where to look by what failed (its memory, its temperature, its PCIe or NVLink, its power).
void check_dcgm_diag(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  if (facts.dcgm_diag.empty()) return;
  bool failed = false;
  std::vector<std::string> said;
  std::vector<Quote> quotes;
  std::string details, tests;  // for the hint: what DCGM says first, then the tests' names
  for (const DcgmDiagFact& d : facts.dcgm_diag) {
    failed |= d.result != "Warn";
    std::string s = fmt::format("{}: {}{}", d.test, d.result == "Warn" ? "warned" : "failed",
                                d.gpus.empty() ? std::string() : " on " + d.gpus);
    if (!d.detail.empty()) s += fmt::format(" (\"{}\")", d.detail.substr(0, 200));
    if (said.size() < 6) said.push_back(std::move(s));
    details += d.detail + " ";
    tests += d.test + " ";
    if (quotes.size() < 8) quotes.push_back(d.where);
  }
  const std::string& about = details.find_first_not_of(' ') != std::string::npos ? details : tests;
  const auto has = [&](std::string_view w) { return contains(about, w); };
  std::string hint;
  if (has("emory") || has("ECC") || has("remap") || has("DBE")) {
    hint =
        "its memory: `nvidia-smi -q -d ECC,ROW_REMAPPER` for the counts and a remap pending; reset the GPU or "
        "reboot so the remap takes effect, and replace the GPU if the remapping failed or the errors recur";
  } else if (has("hermal") || has("emperature")) {
    hint =
        "its cooling: the GPU throttled for heat under load (`nvidia-smi -q -d TEMPERATURE,PERFORMANCE`); check "
        "the fans, airflow, heat sink and the room before returning the GPU";
  } else if (has("PCIe") || has("replay")) {
    hint =
        "its PCIe link: `nvidia-smi -q -d PCIE` (link width and generation, replays) and `lspci -vv`; reseat the "
        "GPU or its riser, and read dmesg for AER errors";
  } else if (has("NVLink") || has("nvlink")) {
    hint = "its NVLinks: `nvidia-smi nvlink -s` and `-e`, Fabric Manager on NVSwitch systems, dmesg for Xid 74";
  } else if (has("ower")) {
    hint =
        "its power: the GPU did not reach its power target (`nvidia-smi -q -d POWER,CLOCK`); check its power "
        "cables and the node's power supply and capping";
  } else {
    hint =
        "rerun `dcgmi diag -r 3 -j` for each failure's DCGM_FR code and what DCGM says to do; drain the node "
        "until it passes";
  }
  out.push_back(
      finding(code::kDcgmDiagFailed, failed ? Severity::kError : Severity::kWarning, "DCGM diagnostic", {},
              fmt::format("DCGM's diagnostic {} {} test{}: {}", failed ? "failed" : "warned on", facts.dcgm_diag.size(),
                          facts.dcgm_diag.size() == 1 ? "" : "s", fmt::join(said, "; ")),
              "drain the node and look at " + hint, quotes, {{"tests", facts.dcgm_diag.size()}}));
}

// libnvidia-container refusing to start a container whose image carries NVIDIA driver files
// (nvidia-smi, libnvidia-ml, libcuda): the runtime mounts the host's own over those paths,
// and a file already there stops it ("file creation failed: ...: file exists").
void check_driver_files_in_image(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.driver_files_in_image, code::kContainerDriverFilesInImage, Severity::kError, "container image",
      "the NVIDIA container runtime could not mount the host's driver files into the container: the image "
      "already has them ({}: \"file creation failed: ...: file exists\"), so the container does not "
      "start",
      "build the image without the NVIDIA driver (no nvidia-smi, libnvidia-*, libcuda.so.1 from a driver package: "
      "start from an nvidia/cuda base image, which leaves them out); the runtime brings the host's driver, which "
      "must match the kernel module");
}

void check_munge(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> unavailable, rejected;
  bool clocks = false, key = false, user = false;
  for (const Quote& q : facts.munge) {
    const bool refused = contains(q.text, " credential") && !contains(q.text, "create credential");
    if (refused && !contains(q.text, "Socket")) {
      rejected.push_back(q);
      clocks |= contains(q.text, "Expired credential") || contains(q.text, "Rewound credential");
      key |= contains(q.text, "Invalid credential") || contains(q.text, "security realm");
      user |= contains(q.text, "Unauthorized credential");
    } else {
      unavailable.push_back(q);
    }
  }
  if (!unavailable.empty()) {
    out.push_back(finding(
        code::kLauncherMungeUnavailable, Severity::kError, "MUNGE", {},
        fmt::format("MUNGE's daemon cannot be reached ({}: its socket missing or refusing): Slurm and PMIx "
                    "authenticate every launch with it, so the job's processes cannot start or join",
                    count_lines(unavailable.size())),
        "start munged on every host (`systemctl status munge`, `munge -n | unmunge`); where the processes run in a "
        "chroot or container, give them /run/munge (its socket, munge.socket.2) or launch without MUNGE "
        "authentication (PMIx: PMIX_MCA_psec=native)",
        unavailable, {{"lines", unavailable.size()}}));
  }
  if (!rejected.empty()) {
    std::vector<std::string> why;
    if (key) why.emplace_back("an invalid credential: the hosts' /etc/munge/munge.key differ");
    if (clocks) why.emplace_back("an expired or rewound credential: the hosts' clocks differ by minutes");
    if (user) why.emplace_back("an unauthorized credential: the decoding user may not read it");
    if (why.empty()) why.emplace_back("a replayed credential: the same credential used twice");
    out.push_back(finding(code::kLauncherMungeRejected, Severity::kError, "MUNGE", {},
                          fmt::format("MUNGE refused credentials ({}): {}; Slurm's and PMIx's launches between "
                                      "those hosts fail",
                                      count_lines(rejected.size()), fmt::join(why, "; ")),
                          "compare `md5sum /etc/munge/munge.key` on every host (copy one key to all, restart munged) "
                          "and their clocks (`chronyc tracking` or `timedatectl`); check across two hosts with "
                          "`munge -n | ssh OTHER unmunge`",
                          rejected, {{"lines", rejected.size()}}));
  }
}

// Slurm's daemons and commands of different releases (Facts::slurm_version): a job credential
// slurmctld packed that slurmd of another release unpacks differently, or a message in a
// protocol version the receiver does not speak.
void check_slurm_version(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  if (facts.slurm_version.empty()) return;
  std::vector<std::string> why;
  if (std::any_of(facts.slurm_version.begin(), facts.slurm_version.end(),
                  [](const Quote& q) { return contains(q.text, "Credential data mismatch"); })) {
    why.emplace_back(
        "slurmd could not verify a job credential slurmctld signed (\"Credential data mismatch\": "
        "the two releases pack it differently), so the job step does not launch");
  }
  if (std::any_of(facts.slurm_version.begin(), facts.slurm_version.end(),
                  [](const Quote& q) { return !contains(q.text, "Credential data mismatch"); })) {
    why.emplace_back(
        "a daemon received a message in a protocol version it does not speak (\"Incompatible "
        "versions of client and server code\")");
  }
  out.push_back(finding(code::kLauncherSlurmVersionMismatch, Severity::kError, "Slurm", {},
                        fmt::format("Slurm's daemons or commands are of different releases ({}): {}",
                                    count_lines(facts.slurm_version.size()), fmt::join(why, "; ")),
                        "compare `slurmctld -V`, `slurmd -V`, `slurmdbd -V` and `sinfo --version` on every host (a "
                        "command earlier on PATH than the cluster's own is a common one); upgrade slurmdbd first, "
                        "then slurmctld, then every slurmd and the commands: a daemon speaks its own release and the "
                        "two before it, never a newer one",
                        facts.slurm_version, {{"lines", facts.slurm_version.size()}}));
}

// Slurm's job credential expired by the time slurmd checked it: it lives a few minutes from
// the controller's clock, so a node whose clock runs ahead of the controller's (or a launch
// that waited that long) refuses it.
void check_slurm_credential_expired(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(out, facts.slurm_credential_expired, code::kLauncherClockSkew, Severity::kError, "Slurm job credential",
                "Slurm refused to launch the job step: its credential had expired when the node's "
                "slurmd checked it ({}: \"Job credential expired\"); a credential lives a few "
                "minutes from the controller's clock, so the node's clock and the controller's are "
                "apart (or the launch waited minutes to reach the node)",
                "compare the clocks (`date` on the controller and on the node named; `chronyc tracking` or "
                "`timedatectl` for their time sync), run chronyd or ntpd on every host, and launch again");
}

// Slurm's GPUs (its GRES) configured in a way Slurm refuses (Facts::slurm_gres), by what it
// leads to: slurmd not starting over gres.conf, a node drained for reporting fewer GPUs than
// slurm.conf gives it, a job asking for a GRES no node has.
void check_slurm_gres(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  if (facts.slurm_gres.empty()) return;
  bool refused = false, fewer = false, request = false, sockets = false, cores = false;
  for (const Quote& q : facts.slurm_gres) {
    if (contains(q.text, "count reported lower") || contains(q.text, "count too low") ||
        contains(q.text, "does not match what was detected")) {
      fewer = true;
    } else if (contains(q.text, "invalid GRES core specification")) {
      cores = true;
    } else if (contains(q.text, "(gres) specification")) {
      request = true;
    } else if (contains(q.text, "doesn't match socket boundaries")) {
      sockets = true;
    } else {
      refused = true;
    }
  }
  std::vector<std::string> what, fix;
  if (refused) {
    what.emplace_back(
        "slurmd refused the node's gres.conf and stops at start (the node stays down): records it cannot take "
        "together, such as Name=gpu lines beside AutoDetect=nvml, which finds the GPUs itself (\"duplicate "
        "records\"), records with File= or Type= beside others without, or a Count that does not match File=");
    fix.emplace_back(
        "correct gres.conf on the node: with AutoDetect=nvml give no Name=gpu lines of its own (or one per GPU "
        "type, each with File=), and give every record of a GRES the same fields; `slurmd -G` prints what slurmd "
        "makes of it, then restart slurmd");
  }
  if (fewer) {
    what.emplace_back(
        "a node reports fewer GPUs than slurm.conf's Gres= gives it, and the controller drains it (its reason: "
        "\"gres/gpu count reported lower than configured\"): a GPU gone from the node (fallen off the bus, the "
        "driver not loaded when slurmd started), or slurmd not finding them (AutoDetect=nvml in a slurmd built "
        "without NVML, a File= that names no device)");
    fix.emplace_back(
        "compare `nvidia-smi -L` on the node with its Gres= in slurm.conf and with `slurmd -G`: a GPU missing from "
        "nvidia-smi is the hardware's (read the kernel log: Xid 79, PCIe errors); all there but not counted is the "
        "configuration's; then `scontrol update nodename=N state=resume`");
  }
  if (sockets) {
    what.emplace_back(
        "the GPUs' CPU affinity that AutoDetect found does not fall on the sockets slurm.conf gives the node "
        "(\"autodetected core affinity ... doesn't match socket boundaries\"): Slurm binds GPUs by socket, so its "
        "node definition (Sockets=, CoresPerSocket=) and the hardware disagree");
    fix.emplace_back(
        "make the node's Sockets=, CoresPerSocket= and ThreadsPerCore= in slurm.conf what `slurmd -C` prints on "
        "the node (or give Cores= for each GPU in gres.conf in place of AutoDetect's), then restart slurmd");
  }
  if (cores) {
    what.emplace_back(
        "the controller refuses the CPU affinity gres.conf gives the node's GPUs (\"invalid GRES core "
        "specification\"): a CPUs= list of CPU ids (threads), which current releases read as Cores= of core ids, or "
        "cores beyond the node's definition in slurm.conf");
    fix.emplace_back(
        "give each GPU's record Cores= with core ids of the node's definition (`slurmd -C` counts them; not the "
        "thread ids nvidia-smi topo -m lists), or drop them and let AutoDetect=nvml find the affinity, then restart "
        "slurmd and slurmctld");
  }
  if (request) {
    what.emplace_back(
        "a job asked for a generic resource no node of the partition has (\"Invalid generic resource (gres) "
        "specification\"): a name or type not in GresTypes= and the nodes' Gres=, or more per node than any has");
    fix.emplace_back(
        "`scontrol show node` lists each node's Gres=: ask for a name and type listed there (--gres=gpu:N, "
        "--gpus=N), and add the GRES to GresTypes= and the nodes' Gres= where the cluster has them");
  }
  out.push_back(finding(code::kLauncherSlurmGresConfig, Severity::kError, "Slurm GPU resources (GRES)", {},
                        fmt::format("Slurm refuses its GPU configuration ({}): {}",
                                    count_lines(facts.slurm_gres.size()), fmt::join(what, "; ")),
                        fmt::format("{}", fmt::join(fix, "; ")), facts.slurm_gres,
                        {{"lines", facts.slurm_gres.size()}}));
}

// Open MPI's openib BTL finding that only part of the host's memory can be registered for RDMA
// (Facts::rdma_registration_capped): the HCA driver's memory translation table is smaller than
// the memory (mlx4_core's log_num_mtt and log_mtts_per_seg), so large registrations fail.
void check_rdma_registration_capped(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  if (facts.rdma_registration_capped.empty()) return;
  std::string host, registerable, total;
  for (const Quote& q : facts.rdma_registration_capped) {
    const size_t colon = q.text.find(':');
    if (colon == std::string::npos) continue;
    const std::string value(trim(std::string_view(q.text).substr(colon + 1)));
    if (q.text.starts_with("Local host:") && host.empty()) host = value;
    if (q.text.starts_with("Registerable memory:") && registerable.empty()) registerable = value;
    if (q.text.starts_with("Total memory:") && total.empty()) total = value;
  }
  std::vector<std::string> hosts;
  if (!host.empty()) hosts.push_back(host);
  out.push_back(finding(
      code::kKernelRdmaRegistrationCapped, Severity::kWarning, host.empty() ? std::string("RDMA registration") : host,
      hosts,
      fmt::format("only part of the host's memory can be registered for RDMA{}{}: the HCA driver's memory "
                  "translation table (MTT) covers less than the memory, so MPI jobs that register much (large "
                  "buffers, many ranks) run erratically, hang or crash when a registration fails",
                  registerable.empty() ? "" : fmt::format(" ({} of {}", registerable, total.empty() ? "?" : total),
                  registerable.empty() ? "" : fmt::format("{})", host.empty() ? "" : " on " + host)),
      "raise the driver's table: for mlx4 (ConnectX-3), `options mlx4_core log_num_mtt=N log_mtts_per_seg=M` in "
      "/etc/modprobe.d so that 2^N x 2^M x the page size (4 KiB) is at least twice the memory, then reload the "
      "driver or reboot (Open MPI's FAQ, ib-locked-pages); `ulimit -l` is a separate limit, the process's",
      facts.rdma_registration_capped, {{"lines", facts.rdma_registration_capped.size()}}));
}

// NVIDIA's NIC driver container refusing to replace the RDMA stack while storage modules use
// it (NFS over RDMA's rpcrdma and xprtrdma, NVMe-oF's nvme_rdma and nvmet_rdma, iSER's
// ib_isert, SRP's ib_srpt): the node keeps its inbox driver, or none, and its RDMA resources
// are not offered.
void check_nic_driver_storage_modules(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.nic_driver_storage_modules, code::kContainerNicDriverStorageModules, Severity::kError,
      "NIC driver container",
      "NVIDIA's NIC driver container (the Network Operator's MOFED/DOCA driver) would not load its "
      "driver: storage modules over RDMA are loaded and hold the kernel's RDMA stack ({}: \"Storage "
      "modules are loaded for current driver\"), so the node's RDMA devices are not set up for jobs",
      "`lsmod | grep -E 'rpcrdma|xprtrdma|nvme_rdma|nvmet_rdma|ib_isert|ib_srpt'` shows which (an NFS-over-RDMA or "
      "NVMe-oF mount made before the driver container ran loads them); set UNLOAD_STORAGE_MODULES=true in the "
      "NicClusterPolicy's driver env so the container unloads and reloads them, or mount those volumes after the "
      "driver is ready");
}

// NVIDIA's GPU driver container (the GPU Operator's nvidia-driver-daemonset) unloads the
// NVIDIA modules before it installs its own; where they are held (a driver installed on the
// host and in use, nvidia-persistenced, DCGM, a GPU pod) it cannot, and retries for ever.
void check_gpu_driver_in_use(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.gpu_driver_in_use, code::kContainerGpuDriverInUse, Severity::kError, "GPU driver install",
      "NVIDIA's driver installer (or the GPU operator's driver container) cannot install its driver: NVIDIA "
      "kernel modules already loaded are in use and will not unload ({}: \"driver is in use\", \"appears to "
      "already be loaded\"); most often a driver installed on the host itself, which the node's GPUs run on "
      "meanwhile",
      "where the host has its own driver (`nvidia-smi` on the node, `dkms status`, the distribution's packages), "
      "install the GPU Operator with driver.enabled=false so that it uses that driver, or remove the host's driver "
      "and reboot; otherwise find what holds the GPUs (`lsof /dev/nvidia*`, `lsmod | grep nvidia`: "
      "nvidia-persistenced, DCGM, a GPU pod, a display server) and stop it");
  lines_finding(
      out, facts.mig_in_use, code::kContainerGpuDriverInUse, Severity::kError, "MIG manager",
      "NVIDIA's MIG manager cannot change a GPU's MIG layout: an instance it must destroy is held by a "
      "client ({}: \"In use by another client\"), so the node's mig.config state turns failed and its GPUs keep "
      "the old layout",
      "drain the node of GPU workloads before relabelling nvidia.com/mig.config (and let the MIG manager stop the "
      "operator's own GPU clients: device plugin, DCGM exporter); `nvidia-smi` on the node lists the processes "
      "still holding it");
}

// UCC's shared-memory team layer failing (Facts::ucc_shm_failed): the MPI's own collectives,
// which Open MPI and HPC-X run through UCC (coll/ucc) beside NCCL's, not NCCL. Its ranks of
// one host share System V segments (shmat): ranks in containers with their own IPC
// namespaces, or a segment above kernel.shmmax, cannot (openucx/ucx#10055).
void check_ucc_shm_failed(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.ucc_shm_failed, code::kMpiUccShmFailed, Severity::kError, "MPI collectives (UCC)",
      "the MPI library's collectives failed in UCC's shared-memory layer (TL/SHM, {}): the ranks of a "
      "host could not share a System V segment, as where each runs in a container of its own (its own "
      "IPC namespace); the job stops in the launcher's MPI, not in NCCL",
      "run the ranks of a host in one IPC namespace (docker --ipc=host, a pod's hostIPC) and check kernel.shmmax "
      "and kernel.shmall; or keep UCC off shared memory (UCC_TLS=ucp) or off the MPI's collectives (--mca "
      "coll_ucc_enable 0)");
}

// A program that picks its RoCE GID itself finding none it can use (Facts::roce_gid_unusable):
// Mooncake's transfer engine takes a RoCE v2 GID (before its fix for kvcache-ai/Mooncake#1593,
// an IPv4-mapped one only) and disables the device where it finds none, then has no RDMA NIC
// left. A RoCE v2 GID comes from an address of the port's netdev: a bond or port without the
// address family the program wants has none.
void check_roce_gid_unusable(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.roce_gid_unusable, code::kTopoRoceGidUnusable, Severity::kError, "RoCE GID",
      "the program found no RoCE GID it could use on an RDMA device ({}), and leaves the device out: "
      "the port's GID table has no RoCE v2 entry of the kind it picks (IPv4-mapped, where the netdev "
      "has only IPv6 addresses, or none where it has no address at all)",
      "`show_gids` lists the port's GIDs and their kinds: give the netdev (the bond, for mlx5_bond_N) the address "
      "the fabric uses, or name the GID index to use (Mooncake: MC_GID_INDEX; NCCL: NCCL_IB_GID_INDEX); Mooncake "
      "after #1597 also takes IPv6 RoCE v2 GIDs");
}

// A NIC whose RDMA support its own firmware turns off (Facts::nic_rdma_disabled): Broadcom's
// NICs keep RoCE behind an NVM option, off on many as shipped (AMD's RoCE configuration guide
// for Instinct clusters: "niccli -i N nvm -setoption support_rdma -value 1", then a reboot).
void check_nic_rdma_disabled(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(out, facts.nic_rdma_disabled, code::kTopoNicRdmaDisabled, Severity::kError, "NIC RDMA support",
                "a NIC's firmware has its RDMA support turned off ({}: support_rdma = False): it offers no RoCE, so "
                "its RDMA device is missing or unusable and NCCL or RCCL falls back to sockets",
                "enable it in the NIC's NVM (`niccli -i N nvm -setoption support_rdma -scope 0 -value 1`, for each "
                "NIC), reboot (or reset the NIC) and check `ibv_devices`; the other NICs of the node need the same");
}

// RDMA user space and the kernel's driver that do not go together (Facts::rdma_abi_mismatch):
// libibverbs' provider refusing the kernel's uverbs ABI, or a DEVX method the kernel's mlx5_ib
// does not have (EPROTONOSUPPORT): a container's rdma-core or MLNX_OFED libraries newer (or
// older) than the host's driver (openucx/ucx#6906: MOFED 5 libraries over a MOFED 4 kernel).
void check_rdma_abi_mismatch(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.rdma_abi_mismatch, code::kKernelRdmaAbiMismatch, Severity::kError, "RDMA user space and kernel driver",
      "the RDMA libraries and the kernel's RDMA driver are of versions that do not go together ({}): "
      "the user space (rdma-core or MLNX_OFED's libmlx5, often a container's) asks the kernel's mlx5_ib "
      "for an interface it does not have",
      "run the user space that matches the host's driver: `ofed_info -s` and `modinfo mlx5_ib` on the host, the "
      "image's rdma-core or MLNX_OFED version inside (a container from the host's OFED release, or the inbox "
      "rdma-core with the inbox driver); UCX can leave DEVX out meanwhile (UCX_TLS=^rc_x, UCX_IB_MLX5_DEVX=no)");
}

// Open MPI's PMIx client failing at start (Facts::pmix_client_failed): no PMIx server to
// talk to, or another's. Under srun, Slurm starts the ranks itself and serves them through
// its PMI plugin: one Open MPI cannot use (--mpi=none, PMI-2 for an Open MPI without it), or
// a PMIx of another version than the one Open MPI carries (deepops#642).
void check_pmix_client(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  if (facts.pmix_client_failed.empty()) return;
  const bool srun = facts.srun_seen || std::any_of(facts.pmix_client_failed.begin(), facts.pmix_client_failed.end(),
                                                   [](const Quote& q) { return contains(q.text, "srun"); });
  out.push_back(finding(
      code::kMpiPmixClientFailed, Severity::kError, "Open MPI's PMIx client", {},
      fmt::format("Open MPI could not start: its PMIx client found no launcher to talk to ({}){}",
                  count_lines(facts.pmix_client_failed.size()),
                  srun ? ": the ranks were started by srun, and Slurm's PMI plugin for them is one this Open MPI "
                         "cannot use (none asked for, PMI-2 where Open MPI was built without it, or a PMIx of "
                         "another version than Open MPI's own)"
                       : ", as when a program built with Open MPI is started without mpirun or with another MPI's "
                         "launcher"),
      srun ? "`srun --mpi=list` shows Slurm's plugins: launch with `srun --mpi=pmix` (pmix_v3, pmix_v4 as listed; "
             "MpiDefault=pmix in slurm.conf), and build Open MPI against the PMIx Slurm's plugin was built with "
             "(--with-pmix=DIR; `ompi_info | grep -i pmix` shows Open MPI's); or start the ranks with mpirun inside "
             "the allocation"
           : "start the ranks with the mpirun of the Open MPI the program was built with (`which mpirun`, "
             "`ompi_info`), or under srun with --mpi=pmix",
      facts.pmix_client_failed, {{"lines", facts.pmix_client_failed.size()}}));
}

// Open MPI's daemons not started on the other nodes (Facts::mpi_daemons_failed): mpirun
// starts one daemon per node (orted, prted) through ssh or the resource manager, and names
// no cause in its box; a remote shell's or ssh's line before it does (Facts::mpi_launch_cause).
void check_mpi_daemons(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  if (facts.mpi_daemons_failed.empty()) return;
  const auto cause_has = [&](std::string_view what) {
    return std::any_of(facts.mpi_launch_cause.begin(), facts.mpi_launch_cause.end(),
                       [&](const Quote& q) { return contains(q.text, what); });
  };
  std::string cause = "its box names no cause, and no line of ssh's or the remote shell's before it does";
  std::string hint =
      "run `ssh NODE which orted` (`prted` for Open MPI 5) from the node that runs mpirun: the remote non-interactive "
      "shell must find Open MPI's binaries and libraries without a login (PATH and LD_LIBRARY_PATH in ~/.bashrc, or "
      "`mpirun --prefix DIR`), ssh must reach every node without a password or a question, and the daemons must be "
      "able to connect back (no firewall between the nodes; `--mca oob_tcp_if_include` naming the network they share)";
  if (cause_has("orted") || cause_has("prted")) {
    cause =
        "the remote shell did not find Open MPI's daemon (\"orted: command not found\", or its libraries not "
        "loaded): Open MPI is not on the other nodes' PATH for a non-interactive shell";
    hint =
        "install the same Open MPI on every node at the same path, and let a non-interactive shell find it: "
        "`mpirun --prefix /path/to/openmpi` (or configure with --enable-orterun-prefix-by-default), or PATH and "
        "LD_LIBRARY_PATH set in ~/.bashrc before its interactive-only return; check with `ssh NODE which orted`";
  } else if (cause_has("Could not resolve hostname")) {
    cause = "ssh could not resolve a node's name (\"Could not resolve hostname\")";
    hint =
        "give every host name in the host file or allocation an address on the node running mpirun (DNS or "
        "/etc/hosts), or list the nodes by address";
  } else if (cause_has("Host key verification failed") || cause_has("(publickey")) {
    cause =
        "ssh was refused or asked a question (\"Host key verification failed\", \"Permission denied "
        "(publickey...)\"): mpirun needs ssh to every node without a password or a prompt";
    hint =
        "set up key-based ssh from the node running mpirun to every node (and accept their host keys once, or "
        "StrictHostKeyChecking=accept-new for the cluster's hosts); check with `ssh NODE hostname`, which must "
        "print the name and nothing else";
  } else if (cause_has("_peer_send_blocking")) {
    cause =
        "a daemon started but could not talk back to mpirun (\"tcp_peer_send_blocking: send() ... failed\"): a "
        "firewall, or an interface the nodes do not share";
    hint =
        "let the nodes reach each other on any TCP port (or open Open MPI's: oob_tcp_static_ipv4_ports), and name "
        "the network they share: `mpirun --mca oob_tcp_if_include <subnet or interface>`";
  }
  std::vector<Quote> lines = facts.mpi_launch_cause;
  lines.insert(lines.end(), facts.mpi_daemons_failed.begin(), facts.mpi_daemons_failed.end());
  out.push_back(finding(code::kMpiDaemonStartFailed, Severity::kError, "Open MPI's launch", {},
                        fmt::format("mpirun could not start its daemons on the other nodes ({}), so no rank ran "
                                    "there: {}",
                                    count_lines(facts.mpi_daemons_failed.size()), cause),
                        hint, lines, {{"lines", lines.size()}}));
}

// ORTE's daemons unable to read each other's messages (Facts::mpi_unpack_failed): what one
// packed, the other reads with another layout: Open MPI of another release on some node (or
// mpirun's and the daemons' from different installs), or an hwloc other than the one Open MPI
// was built with (a system hwloc ahead of it: Horovod's troubleshooting guide, ompi#4437).
void check_mpi_unpack(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(out, facts.mpi_unpack_failed, code::kMpiRuntimeMismatch, Severity::kError, "Open MPI's runtime",
                "Open MPI's daemons could not read each other's messages ({}: \"Data unpack would read past end of "
                "buffer\"): the processes run different Open MPI releases, or one loads another hwloc than the one "
                "Open MPI was built with, so what one packs the other cannot unpack",
                "run one Open MPI everywhere: `mpirun --version` and `ssh NODE which orted; ompi_info | head` on each "
                "node (mpirun --prefix pins the daemons' install); check which libhwloc each loads (`ldd $(which "
                "orted) | grep hwloc`) and remove a system hwloc of another version from its path (or rebuild Open "
                "MPI with its internal hwloc)");
}

// Open MPI's MPI_Init failing where its point-to-point layer connects the processes (Facts::
// mpi_pml_add_procs_failed): the PML chosen (UCX by default where Open MPI has it) found no way
// to reach some peers, "Not found" (-13) where no transport of it serves them; ABCI's FAQ
// gives `--mca pml ob1` for the Open MPI releases that fail so.
void check_mpi_pml(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  const std::vector<Quote>& q = facts.mpi_pml_add_procs_failed;
  if (q.empty()) return;
  std::string returned;
  for (const Quote& l : q) {
    if (const size_t at = l.text.find("--> Returned "); at != std::string::npos && returned.empty()) {
      std::string_view r = std::string_view(l.text).substr(at + 13);
      returned = std::string(r.substr(0, r.find(" instead of")));
    }
  }
  out.push_back(finding(
      code::kMpiPmlAddProcsFailed, Severity::kError, "Open MPI's point-to-point layer", {},
      fmt::format("MPI_Init failed where Open MPI's point-to-point layer (PML) adds the peer processes{} ({}): the "
                  "PML chosen, UCX where Open MPI was built with it, found no transport to some peers (UCX without "
                  "the fabric's transport or device, UCX_NET_DEVICES or UCX_TLS naming what a node lacks), so no "
                  "rank starts",
                  returned.empty() ? std::string() : fmt::format(" (returned {})", returned), count_lines(q.size())),
      "rerun with `--mca pml_base_verbose 10 --mca pml_ucx_verbose 10` (and UCX_LOG_LEVEL=info) to see which PML "
      "and transport it tried; `ucx_info -d` on each node lists what UCX can use; `--mca pml ob1` (Open MPI's "
      "own BTLs) works around it, as ABCI's FAQ gives for the releases that fail so",
      q, {{"lines", q.size()}}));
}

// Several active ports of a host with the factory-default subnet prefix (Facts::
// default_subnet_prefix): one fabric, harmless; physically separate fabrics, which Open MPI
// (and any program that tells fabrics apart by prefix) then cannot tell apart.
void check_default_subnet_prefix(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.default_subnet_prefix, code::kFabricDefaultSubnetPrefix, Severity::kWarning, "InfiniBand subnets",
      "a host has more than one active port whose subnet prefix is the factory default, fe80:: ({}: Open MPI's "
      "openib warning): where those ports are on physically separate fabrics, Open MPI takes them for one and "
      "connections between them fail or hang",
      "give each physically separate fabric its own subnet prefix in its subnet manager (OpenSM's subnet_prefix, "
      "UFM's), then restart it; where the ports are one fabric the warning is harmless "
      "(btl_openib_warn_default_gid_prefix=0 silences it); `ibv_devinfo -v` shows each port's GID[0] prefix");
}

// A process of Open MPI unable to reach another over TCP (Facts::mpi_oob_unreachable), and
// TCP connections that reached another process than the one they were made for
// (Facts::mpi_tcp_wrong_peer).
void check_mpi_tcp(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<std::string> hosts;
  for (const Quote& q : facts.mpi_oob_unreachable) {
    const std::string_view t = trim(q.text);
    if (t.starts_with("Local host:") || t.starts_with("Remote host:")) {
      const std::string h(trim(t.substr(t.find(':') + 1)));
      if (!h.empty() && std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
    }
  }
  // ORTE's "does not know how to route a message to the specified daemon" after its daemons
  // failed to start is that failure's echo (no daemon there to route to), not a connection lost.
  const bool routing_echo =
      !facts.mpi_daemons_failed.empty() &&
      std::all_of(facts.mpi_oob_unreachable.begin(), facts.mpi_oob_unreachable.end(), [](const Quote& q) {
        return contains(q.text, "know how to route") || contains(q.text, "Local host:") ||
               contains(q.text, "Remote host:");
      });
  if (!facts.mpi_oob_unreachable.empty() && !routing_echo) {
    out.push_back(finding(
        code::kMpiOobUnreachable, Severity::kError, "Open MPI's connections between nodes", hosts,
        fmt::format("a process or daemon of Open MPI could not open a TCP connection to another ({}{}): mpirun, its "
                    "daemons and the ranks connect to each other over TCP before anything else, and a firewall on "
                    "the remote host or an address it cannot be reached at stops the job there",
                    count_lines(facts.mpi_oob_unreachable.size()),
                    hosts.empty() ? std::string() : ": " + fmt::format("{}", fmt::join(hosts, ", "))),
        "allow TCP between the nodes (firewalld, iptables, a cloud security group: any port, or Open MPI's given by "
        "oob_tcp_static_ipv4_ports and btl_tcp_port_min_v4), and make Open MPI use the network the nodes share: "
        "`--mca oob_tcp_if_include` and `--mca btl_tcp_if_include` with that subnet or interface (a container "
        "bridge, a VPN or a second NIC's address may be the one it tried)",
        facts.mpi_oob_unreachable, {{"lines", facts.mpi_oob_unreachable.size()}}));
  }
  lines_finding(
      out, facts.mpi_tcp_wrong_peer, code::kMpiTcpWrongPeer, Severity::kError, "Open MPI's TCP connections",
      "a TCP connection of Open MPI reached another process than the one it was made for ({}: \"received unexpected "
      "process identifier\"): an address that is the same on several nodes (docker0's 172.17.0.1, virbr0's "
      "192.168.122.1, a NAT) or that leads to another host, which Open MPI tried because it uses every interface it "
      "finds",
      "tell Open MPI which network the nodes share: `--mca btl_tcp_if_include <subnet or interface>` and `--mca "
      "oob_tcp_if_include` the same (or btl_tcp_if_exclude with lo and the bridges: docker0, virbr0); `ip -4 addr` on "
      "each node shows the addresses that repeat");
}

// An MPI library without CUDA support asked to carry GPU buffers (Facts::mpi_not_cuda_aware):
// it reads device pointers as host memory, and the ranks crash or send garbage.
void check_mpi_not_cuda_aware(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  lines_finding(
      out, facts.mpi_not_cuda_aware, code::kMpiNotCudaAware, Severity::kError, "MPI library",
      "the MPI library was built without CUDA support, and the job asked for it ({}: \"The user requested "
      "CUDA support ... but the library was not compiled with any support\"): GPU buffers handed to MPI are "
      "read as host memory, so the ranks crash (a segmentation fault after it) or move garbage",
      "use a CUDA-aware MPI: `ompi_info --parsable --all | grep mpi_built_with_cuda_support:value` must say true (Open "
      "MPI configured --with-cuda, or over a UCX built with CUDA: `ucx_info -v`); a conda or pip MPI needs its CUDA "
      "build; else copy the buffers to host memory before the MPI calls");
}

// An inference framework's custom all-reduce failing in CUDA IPC (Facts::custom_allreduce): it
// shares each rank's buffers with the others through CUDA IPC handles rather than NCCL, which
// works only for memory cudaMalloc made, within one node, between GPUs with peer access.
void check_custom_allreduce(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  if (facts.custom_allreduce.empty()) return;
  std::string message = fmt::format(
      "the inference framework's custom all-reduce (vLLM's or SGLang's, which shares the ranks' GPU buffers through "
      "CUDA "
      "IPC instead of NCCL) failed at a CUDA call ({}): its buffers could not be exported or opened over CUDA IPC, as "
      "happens to memory PyTorch's expandable_segments allocator made (CUDA virtual memory, which legacy IPC cannot "
      "export), to a group that spans nodes (IPC works within one), or between GPUs without peer access",
      count_lines(facts.custom_allreduce.size()));
  std::vector<Quote> quotes = facts.custom_allreduce;
  if (!facts.expandable_segments.empty()) {
    const Quote& e = facts.expandable_segments.front();
    message += fmt::format("; expandable_segments is on in these files ({}:{}): the likeliest cause", e.file, e.line);
    quotes.push_back(e);
  }
  out.push_back(finding(code::kFrameworkCustomAllreduceIpc, Severity::kError, "custom all-reduce", {},
                        std::move(message),
                        "remove expandable_segments from PYTORCH_CUDA_ALLOC_CONF, or start the server with "
                        "--disable-custom-all-reduce (NCCL then does the all-reduce); keep a tensor-parallel group "
                        "within one node, and check peer access between its GPUs (`nvidia-smi topo -p2p r`)",
                        quotes, {{"lines", facts.custom_allreduce.size()}}));
}

// LBNL NHC's checks as Azure's azurehpc-health-checks names them (customTests/*.nhc), with
// the code a failure is read as and what it says of the node; a check not listed is
// healthcheck.failed with NHC's own words.
struct NhcCheck {
  std::string_view check;
  std::string_view code;
  std::string_view meaning;
  std::string_view hint;
};
constexpr NhcCheck kNhcChecks[] = {
    {"check_nvlink_status", code::kNvlinkLinkInactive,
     "NVLink links of a GPU are inactive (a GPU or NVSwitch link down, or a board whose links are not all wired: the "
     "H100 PCIe's bridges carry 12 of its 18)",
     "compare `nvidia-smi nvlink -s` with what the GPU model wires; on SXM boards with NVSwitches, read the Fabric "
     "Manager's log and dmesg (Xid 74, 79), and reset or replace the GPU or baseboard"},
    {"check_ib_link_flapping", code::kKernelLinkFlap,
     "an InfiniBand link went down and up more often than the check allows (its count in the kernel and SM logs)",
     "find the port in dmesg and the switch's logs; reseat or replace the cable or transceiver, and drain the node "
     "until it holds"},
    {"check_hw_ib", code::kTopoPortDown,
     "an InfiniBand port the node should have is not ACTIVE at its rate (down, initialising, or at a lower speed)",
     "`ibstat` on the node: a port Down or Polling is a cable, transceiver or switch port; a port Active at a lower "
     "rate is a degraded link; check the subnet manager sees it"},
    {"check_gpu_count", code::kHealthcheckFailed,
     "the node shows fewer GPUs than it has: one fell off the bus or was not initialised (Xid 79, a driver load "
     "failure)",
     "`nvidia-smi -L` and `lspci | grep -i nvidia` on the node, dmesg for Xid 79 and NVRM errors; drain it, reset "
     "or reboot, and replace the GPU if it stays lost"},
    {"check_gpu_ecc", code::kHealthcheckFailed,
     "a GPU's memory reports errors past the check's limits (a row remap pending or failed, SRAM or DRAM "
     "uncorrectable errors, a full page retirement table)",
     "`nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT` on the node: a pending remap needs a GPU reset; a failed "
     "remap, SRAM uncorrectable errors or a full table need the GPU replaced"},
    {"check_gpu_bw", code::kHealthcheckFailed,
     "a GPU's copy bandwidth (host to device, device to host or peer to peer) is below the check's threshold: a "
     "PCIe link trained down, a GPU throttled, or a threshold that does not fit the SKU",
     "`nvidia-smi -q -d PCIE` for the link's current generation and width against its maximum, and `nvidia-smi -q "
     "-d PERFORMANCE` for throttling; compare the threshold with the SKU's documented figures"},
    {"check_ib_bw", code::kHealthcheckFailed,
     "an InfiniBand port's write bandwidth (ib_write_bw, with or without GPUDirect) is below the check's threshold: a "
     "degraded link or cable, or GPUDirect RDMA not working",
     "`ibstat` for the port's rate and the counters for errors (symbol_error, link_downed, port_rcv_errors); rerun "
     "ib_write_bw between this node and a good one to tell the port from the peer"},
    {"check_nccl_allreduce", code::kHealthcheckFailed,
     "the node's NCCL all-reduce (all its GPUs, or its NICs looped back) is below the check's bus bandwidth, or gave "
     "wrong values",
     "rerun all_reduce_perf on the node with NCCL_DEBUG=INFO: the channels' transports show whether NVLink, P2P or "
     "the NICs are in use; wrong values point at a GPU or NIC (dmesg for Xid)"},
    {"check_hw_topology", code::kHealthcheckFailed,
     "the node's PCI topology differs from the SKU's: a GPU or NIC missing or in another place",
     "`nvidia-smi topo -m` and `lspci -tv` against a good node of the SKU"},
    {"check_nvsmi_healthmon", code::kHealthcheckFailed,
     "nvidia-smi's health monitor failed: a GPU fell off the bus, its InfoROM is corrupt, or its power cables are not "
     "attached",
     "drain the node; dmesg for Xid 79 and NVRM errors; a corrupt InfoROM or missing power needs the hardware fixed"},
};

// A node health check's failures (Facts::nhc), by the check: one finding per code, naming
// the nodes and each failure in NHC's words.
void check_nhc(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::map<std::string_view, std::vector<const Facts::NhcFailure*>> by_code;
  auto table_of = [](const std::string& check) -> const NhcCheck* {
    for (const NhcCheck& c : kNhcChecks) {
      if (check.starts_with(c.check)) return &c;
    }
    return nullptr;
  };
  for (const Facts::NhcFailure& f : facts.nhc) {
    const NhcCheck* c = table_of(f.check);
    by_code[c ? c->code : code::kHealthcheckFailed].push_back(&f);
  }
  for (const auto& [code_of, failures] : by_code) {
    std::vector<std::string> hosts, said;
    std::vector<Quote> quotes;
    std::string meaning, hint;
    for (const Facts::NhcFailure* f : failures) {
      if (!f->host.empty() && std::find(hosts.begin(), hosts.end(), f->host) == hosts.end()) hosts.push_back(f->host);
      quotes.push_back(f->where);
      std::string one = fmt::format("{}{}{}{}", f->host.empty() ? "" : f->host + ": ", f->check,
                                    f->check.empty() || f->words.empty() ? "" : ": ", f->words);
      if (said.size() < 6 && std::find(said.begin(), said.end(), one) == said.end()) said.push_back(std::move(one));
      if (const NhcCheck* c = table_of(f->check); c && meaning.find(c->meaning) == std::string::npos) {
        meaning += (meaning.empty() ? "" : "; ") + std::string(c->meaning);
        hint += (hint.empty() ? "" : "; ") + std::string(c->hint);
      }
    }
    if (meaning.empty()) meaning = "the node failed a health check (its words above)";
    if (hint.empty()) {
      hint =
          "rerun the check by hand on the node (`nhc -d` with its config) to see what it measured, and drain the "
          "node until it passes";
    }
    out.push_back(finding(code_of, Severity::kError,
                          hosts.empty() ? std::string("node health check") : fmt::format("{}", fmt::join(hosts, ", ")),
                          hosts,
                          fmt::format("a node health check failed ({}): {}; {}", count_lines(failures.size()),
                                      fmt::join(said, "; "), meaning),
                          std::move(hint), quotes, {{"lines", failures.size()}}));
  }
}

// A link speed as mlxlink names it, ranked: InfiniBand's generations ("IB-HDR", "HDR"), or
// an Ethernet rate in Gb/s ("200G", "100G_2X", "400G_4X"); 0 where it names neither.
double mlxlink_speed(std::string_view s) {
  if (s.starts_with("IB-")) s.remove_prefix(3);
  static constexpr std::pair<std::string_view, double> kIb[] = {{"XDR", 800}, {"NDR", 400},  {"HDR", 200},
                                                                {"EDR", 100}, {"FDR10", 40}, {"FDR", 56},
                                                                {"QDR", 40},  {"DDR", 20},   {"SDR", 10}};
  for (const auto& [name, gbps] : kIb) {
    if (s == name) return gbps;
  }
  const size_t g = s.find('G');
  if (g == 0 || g == std::string_view::npos) return 0;
  return parse_number(s.substr(0, g)).value_or(0);
}
// The highest speed of mlxlink's list ("0x0000001f (FDR,FDR10,QDR,DDR,SDR)"); 0 for none.
double mlxlink_max_speed(std::string_view list) {
  const size_t open = list.find('('), close = list.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return 0;
  double best = 0;
  for (std::string_view item : split(list.substr(open + 1, close - open - 1), ',')) {
    best = std::max(best, mlxlink_speed(trim(item)));
  }
  return best;
}

// mlxlink's ports (Facts::mlxlink): a port not Active is down; one whose speed is below what
// both its enabled speeds and its cable allow is degraded (a cable that allows no more is
// not: the link runs at its cable's rate); mlxlink's own recommendation, where it found an
// issue; errors FEC could not correct, and link downs.
void check_mlxlink(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  for (const Facts::MlxlinkPort& p : facts.mlxlink) {
    const std::string dev = p.device.empty() ? "the port mlxlink shows" : p.device;
    std::string state = p.state;
    while (!state.empty() && state.back() == ' ') state.pop_back();
    if (!state.empty() && state != "Active") {
      out.push_back(finding(code::kTopoPortDown, Severity::kError, dev, {},
                            fmt::format("mlxlink shows {} {} (physical state {}): the link is not up", dev, state,
                                        p.physical.empty() ? "not shown" : p.physical),
                            "check the cable and transceiver (`mlxlink -d DEV -m` for the module), the switch port "
                            "at the other end, and that the subnet manager sees the port (InfiniBand)",
                            {p.where}));
    }
    const double now = mlxlink_speed(p.speed), enabled = mlxlink_max_speed(p.enabled),
                 cable = mlxlink_max_speed(p.cable);
    const double limit = cable > 0 && enabled > 0 ? std::min(enabled, cable) : enabled;
    if (state == "Active" && now > 0 && limit > now) {
      out.push_back(finding(
          code::kTopoPortDegraded, Severity::kWarning, dev, {},
          fmt::format("mlxlink shows {} at {}, below the {:g} Gb/s its enabled speeds{} allow: the link trained down",
                      dev, p.speed, limit, cable > 0 ? " and its cable" : ""),
          "a link below what both ends and the cable support is a failing cable, transceiver or port: `mlxlink -d DEV "
          "-c` for its errors and BER, reseat or replace the cable; check the switch port's speed settings",
          {p.speed_line}));
    }
    if (!p.recommendation.empty() && p.recommendation != "No issue was observed" && p.recommendation != "N/A") {
      out.push_back(
          finding(code::kLinkMlxlinkIssue, Severity::kWarning, dev, {},
                  fmt::format("mlxlink's troubleshooting found an issue on {}: \"{}\"", dev, p.recommendation),
                  "follow mlxlink's recommendation; `mlxlink -d DEV -c -e` shows the counters, BER and eye "
                  "opening behind it",
                  {p.recommendation_line}));
    }
    if (p.effective_errors > 0 || p.link_down > 0) {
      out.push_back(finding(
          code::kCountersLinkErrors, p.effective_errors > 0 ? Severity::kError : Severity::kWarning, dev, {},
          fmt::format("mlxlink counts on {}{}{}", dev,
                      p.effective_errors > 0
                          ? fmt::format(" {} effective physical errors (errors FEC could not correct: corrupted "
                                        "packets the link layer drops and resends)",
                                        p.effective_errors)
                          : "",
                      p.link_down > 0 ? fmt::format("{} {} link down event{}", p.effective_errors > 0 ? " and" : "",
                                                    p.link_down, p.link_down == 1 ? "" : "s")
                                      : ""),
          "errors after FEC and links that went down are a cable, transceiver or port going bad: replace the cable or "
          "module, and compare with the switch side's counters",
          {p.errors_line}));
    }
  }
}

// enroot's hook failing as pyxis starts a Slurm job's container: its NVIDIA hook
// (98-nvidia.sh) runs nvidia-container-cli, whose error line says why. Where another reader
// names that error (permissions, the driver's libraries, the toolkit missing), that is the
// finding.
void check_enroot_hook(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  if (facts.enroot_hook_failed.empty() || !facts.toolkit_denied.empty() || !facts.driver_libs_missing.empty() ||
      !facts.toolkit_missing.empty()) {
    return;
  }
  const std::string& text = facts.enroot_hook_failed.front().text;
  const size_t at = text.find("hooks.d/") + 8;
  const std::string hook = text.substr(at, text.find(' ', at) - at);
  std::string why;
  std::vector<Quote> quotes = facts.container_cli_errors;
  if (!quotes.empty()) {
    const std::string& t = quotes.front().text;
    const size_t cli = t.find("nvidia-container-cli: ");
    why = t.substr(cli == std::string::npos ? t.find("container-cli: ") : cli);
  }
  quotes.insert(quotes.end(), facts.enroot_hook_failed.begin(), facts.enroot_hook_failed.end());
  const bool ldcache = contains(why, "ldcache error");
  const bool lookup = contains(why, "file lookup failed") && contains(why, "ermission denied");
  std::string hint =
      ldcache  ? "nvidia-container-cli runs ldconfig inside the new container to register the driver's libraries: "
                 "where that container starts inside another (slurmd in a Kubernetes pod), mount /proc in the outer "
                 "one first (`mount -t proc none /proc` in its entrypoint); check the ldconfig path in "
                 "/etc/nvidia-container-runtime/config.toml (\"@/sbin/ldconfig.real\" on Debian and Ubuntu)"
      : lookup ? "nvidia-container-cli could not read the container's files as the user enroot runs it as: "
                 "libnvidia-container 1.17.7 broke enroot this way (NVIDIA/enroot#232, #234): hold the release that "
                 "worked (libnvidia-container1, libnvidia-container-tools) until a fixed one, and check the "
                 "permissions of ENROOT_DATA_PATH"
               : "run the container by hand on that node (`enroot start` with the job's image) to see the hook's "
                 "output; `nvidia-container-cli -k -d /dev/tty info` shows what the toolkit finds on the node";
  out.push_back(finding(
      code::kContainerRuntimeHookFailed, Severity::kError, "enroot hook", {},
      fmt::format("enroot's hook {} failed, so the job's container did not start{}", hook,
                  why.empty() ? std::string(" (pyxis: \"couldn't start container\")") : fmt::format(": {}", why)),
      std::move(hint), quotes, {{"hook", hook}, {"lines", quotes.size()}}));
}

// An OCI runtime's hook that failed (Facts::runtime_hook_failed): the container is not created.
// Its own words follow "stderr:"; a read-only filesystem among them is a mount the hook cannot
// write through (the NVIDIA toolkit's CDI hooks write into the container: 1.20.0's
// update-application-profile makes /etc/nvidia/nvidia-application-profiles-rc.d).
void check_runtime_hook(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>& missing) {
  check_enroot_hook(facts, out, missing);
  // The NVIDIA toolkit's legacy hook with nvidia-container-cli's words: their own readers name
  // those they know (permissions, the driver's libraries or version, the toolkit missing);
  // the others are the hook's.
  const auto named_elsewhere = [&](const Quote& q) {
    return contains(q.text, "requirement error") || contains(q.text, "load library failed") ||
           contains(q.text, "driver not loaded") || contains(q.text, "permission error") ||
           (contains(q.text, "nvidia-container-cli") &&
            (!facts.toolkit_denied.empty() || !facts.driver_libs_missing.empty() || !facts.toolkit_missing.empty()));
  };
  if (facts.runtime_hook_failed.empty() ||
      std::any_of(facts.runtime_hook_failed.begin(), facts.runtime_hook_failed.end(), named_elsewhere) ||
      std::any_of(facts.container_cli_errors.begin(), facts.container_cli_errors.end(), named_elsewhere)) {
    return;
  }
  // The hook's name as the runtime gives it: "createContainer hook #6".
  const std::string& text = facts.runtime_hook_failed.front().text;
  const size_t at = text.find(" hook #");
  const size_t begin = at == std::string::npos || at == 0 ? 0 : text.rfind(' ', at - 1) + 1;
  const size_t end = at == std::string::npos ? std::string::npos : text.find(':', at);
  const std::string hook = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  const bool read_only = std::any_of(facts.runtime_hook_failed.begin(), facts.runtime_hook_failed.end(),
                                     [](const Quote& q) { return contains(q.text, "read-only file system"); });
  out.push_back(finding(
      code::kContainerRuntimeHookFailed, Severity::kError, "container runtime hook", {},
      fmt::format("the container runtime ran a hook that failed ({}; {}), so the container was not created{}", hook,
                  count_lines(facts.runtime_hook_failed.size()),
                  read_only ? ": the hook writes into the container's filesystem and a read-only mount refused it "
                              "(\"read-only file system\": readOnlyRootFilesystem, or a ConfigMap or volume mounted "
                              "read-only where the hook writes)"
                            : ""),
      "the hook comes from the runtime's configuration or a CDI spec (the NVIDIA Container Toolkit's `nvidia-cdi-hook` "
      "entries in /etc/cdi or /var/run/cdi, `nvidia-ctk cdi list`); its stderr says what it could not do. A toolkit "
      "upgrade can add a hook (1.20.0's update-application-profile creates /etc/nvidia/"
      "nvidia-application-profiles-rc.d): pin the toolkit that worked or make that path writable, and create the pod "
      "again",
      facts.runtime_hook_failed, {{"lines", facts.runtime_hook_failed.size()}}));
}

// The IOMMU between the devices and memory. A device's DMA it refused: Intel's "DMAR: [DMA
// Read NO_PASID] Request device [3b:00.0] fault addr 0x7f000 [fault reason 0x06] PTE Read
// access is not set" (older: "[DMA Read] Request device [3b:00.0] PASID ffffffff fault addr
// ..."), AMD's "AMD-Vi: Event logged [IO_PAGE_FAULT device=3b:00.0 domain=0x000e address=...]"
// (newer: the device's own prefix, "mlx5_core 0000:3b:00.0: AMD-Vi: Event logged
// [IO_PAGE_FAULT domain=..."). Its default domain translating ("iommu: Default domain type:
// Translated"): GPU peer-to-peer and GPUDirect RDMA then pass through it, which hangs them or
// slows them where ACS sends them up to the root complex; NCCL's and RCCL's guides ask for
// passthrough (iommu=pt) on bare metal.
std::string iommu_device(std::string_view t) {
  for (std::string_view key : {"Request device [", "IO_PAGE_FAULT device="}) {
    if (const size_t at = t.find(key); at != std::string_view::npos) {
      std::string_view d = t.substr(at + key.size());
      return std::string(d.substr(0, d.find_first_of("] ")));
    }
  }
  // "mlx5_core 0000:3b:00.0: AMD-Vi: ...": the word before the tag.
  if (const size_t tag = t.find(": AMD-Vi:"); tag != std::string_view::npos) {
    const std::string_view before = t.substr(0, tag);
    const size_t space = before.rfind(' ');
    return std::string(space == std::string_view::npos ? before : before.substr(space + 1));
  }
  return {};
}
void check_iommu(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> faults, translated, cmdline, interrupts, rmrr, peer;
  std::set<std::string> devices;
  bool passthrough = false;
  for (const Quote& q : facts.kernel) {
    const std::string_view t = q.text;
    // The NVIDIA driver mapping a peer GPU's memory through the IOMMU for P2P, refused
    // ("NVRM: IOMMU mapping failed from GPU1 to GPU0", after "NVRM: The peer DMA address
    // 0x1800400000 is not aligned at 0x20000000"): only a translating IOMMU needs that map.
    if (contains(t, "IOMMU mapping failed from GPU")) {
      if (peer.size() < 16) peer.push_back(q);
      continue;
    }
    if (contains(t, "IO_PAGE_FAULT") || (contains(t, "DMAR: [DMA ") && contains(t, "fault addr"))) {
      if (faults.size() < 16) faults.push_back(q);
      if (std::string d = iommu_device(t); !d.empty()) devices.insert(std::move(d));
    } else if (contains(t, "DMAR: [INTR-REMAP] Request device [")) {
      // Intel's interrupt remapping refusing a device's interrupt ("... fault index 0xa00
      // [fault reason 0x25] Blocked a compatibility format interrupt request").
      if (interrupts.size() < 16) interrupts.push_back(q);
      if (std::string d = iommu_device(t); !d.empty()) devices.insert(std::move(d));
    } else if (contains(t, "DMAR: [Firmware Bug]: No firmware reserved region can cover this RMRR")) {
      rmrr.push_back(q);
    } else if (contains(t, "Default domain type: Translated")) {
      translated.push_back(q);
    } else if (contains(t, "Default domain type: Passthrough")) {
      passthrough = true;
    } else if (contains(t, "ommand line: ") && (contains(t, "intel_iommu=on") || contains(t, "amd_iommu=on")) &&
               !contains(t, "iommu=pt") && !contains(t, "iommu.passthrough=1")) {
      // The kernel's first line, "Command line: BOOT_IMAGE=... intel_iommu=on": the IOMMU on,
      // and no passthrough asked for, so its devices' DMA is translated.
      cmdline.push_back(q);
    }
  }
  // RCCL's own look at /proc/cmdline (init.cc, on AMD's platforms, where the IOMMU is on by
  // default): "NCCL WARN Missing \"iommu=pt\" from kernel command line which can lead to system
  // instablity or hang!", which ROCm's install FAQ gives for multi-GPU hangs.
  bool rccl = false;
  for (const NcclFact& n : facts.nccl) {
    if (n.msg.starts_with("Missing \"iommu=pt\" from kernel command line") && cmdline.size() < 16) {
      cmdline.push_back(n.where);
      rccl = true;
    }
  }
  if (translated.empty() && !passthrough) translated = cmdline;
  if (!faults.empty()) {
    out.push_back(finding(
        code::kKernelIommuFault, Severity::kError, "IOMMU", {},
        fmt::format("the IOMMU refused DMA ({}{}): a device's transfer to an address the IOMMU does not map for "
                    "it; with GPUs and NICs, most often GPU peer-to-peer or GPUDirect RDMA going through a "
                    "translating IOMMU, which the transfer then hangs or fails on",
                    count_lines(faults.size()),
                    devices.empty() ? std::string() : fmt::format(", device {}", fmt::join(devices, ", "))),
        "on bare metal set the IOMMU to passthrough (kernel command line `iommu=pt`, with `intel_iommu=on` or "
        "`amd_iommu=on`) or off in the BIOS, and disable ACS on the PCIe switches between GPUs and NICs; `lspci -s "
        "DEVICE` names the device",
        faults, {{"lines", faults.size()}, {"devices", devices}}));
  }
  if (!interrupts.empty()) {
    out.push_back(finding(
        code::kKernelIommuFault, Severity::kError, "IOMMU interrupt remapping", {},
        fmt::format("the IOMMU's interrupt remapping blocked a device's interrupts ({}{}): the driver never hears "
                    "from the device, which then stalls or times out; a driver or firmware sending interrupts the "
                    "remapping does not accept (compatibility format: kernel bugzilla 214219, a VMD driver "
                    "regression), or a chipset whose remapping has an erratum",
                    count_lines(interrupts.size()),
                    devices.empty() ? std::string() : fmt::format(", device {}", fmt::join(devices, ", "))),
        "update the kernel (the driver of the device named) and the BIOS; meanwhile `intremap=off` (or "
        "`intel_iommu=off` where nothing needs the IOMMU) on the kernel command line avoids it",
        interrupts, {{"lines", interrupts.size()}, {"devices", devices}}));
  }
  lines_finding(out, rmrr, code::kKernelIommuFault, Severity::kError, "IOMMU reserved memory (BIOS)",
                "the BIOS hands the IOMMU reserved regions (RMRR) that its own memory map does not reserve ({}): "
                "with the IOMMU on, devices' firmware-owned memory is mapped wrongly, and servers of that age "
                "hang or reboot under kernels that check it (6.8 on)",
                "update the BIOS; where none fixes it, boot with the IOMMU off (`intel_iommu=off`) or on a kernel "
                "before the check");
  lines_finding(out, peer, code::kKernelIommuTranslated, Severity::kError, "IOMMU peer mapping",
                "the NVIDIA driver could not map one GPU's memory for another through the IOMMU ({}): with the "
                "IOMMU translating, every peer-to-peer transfer needs such a map, and between these GPUs there is "
                "none, so P2P between them fails",
                "set the IOMMU to passthrough (`iommu=pt` with `intel_iommu=on` or `amd_iommu=on`) or turn it off in "
                "the BIOS, and reboot; where the driver also says the peer DMA address is not aligned, the GPUs' "
                "BAR1 layout is the reason a translated map cannot be made");
  if (!translated.empty()) {
    out.push_back(finding(
        code::kKernelIommuTranslated, Severity::kWarning, "IOMMU", {},
        fmt::format("the IOMMU translates every device's DMA ({}): GPU peer-to-peer and GPUDirect RDMA go through "
                    "it, and hang or slow down where PCIe ACS sends them up to the root complex; NCCL's and RCCL's "
                    "guides ask for passthrough on bare metal",
                    contains(translated.front().text, "Default domain type")
                        ? "its default domain is Translated, not Passthrough"
                    : rccl && !contains(translated.front().text, "ommand line: ")
                        ? "RCCL found no iommu=pt on the kernel command line, and AMD's IOMMU is on by default"
                        : "the kernel command line turns it on without iommu=pt"),
        "set `iommu=pt` on the kernel command line (with `intel_iommu=on` or `amd_iommu=on`) and reboot, or disable "
        "the IOMMU (VT-d, AMD-Vi) in the BIOS where nothing needs it; check with `dmesg | grep -i 'default domain'`",
        translated, {{"lines", translated.size()}}));
  }
}

// PyTorch's c10d store, which every rank joins (MASTER_ADDR:MASTER_PORT, torchrun's
// rendezvous endpoint) before NCCL starts: a failure there is the network between the hosts
// or the launch, never NCCL. The store's address is its "(HOST, PORT)"; the socket's errno
// says why a connect failed.
std::string rendezvous_target(std::string_view t) {
  for (std::string_view key : {"network address of (", "to connect to (", "network addresses of ("}) {
    if (const size_t at = t.find(key); at != std::string_view::npos) {
      std::string_view rest = t.substr(at + key.size());
      rest = rest.substr(0, rest.find(')'));
      if (const size_t comma = rest.find(", "); comma != std::string_view::npos) {
        return fmt::format("{}:{}", trim(rest.substr(0, comma)), trim(rest.substr(comma + 2)));
      }
    }
  }
  return {};
}
// Whether a c10d line is a failure (the error PyTorch raises), not a warning about one
// address of several (gather.cpp's rendezvous_line).
bool rendezvous_failure(std::string_view t) {
  return contains(t, "failed to connect to any network address") || contains(t, "has timed out after") ||
         contains(t, "connect() timed out") || contains(t, "failed to listen on any local network address") ||
         contains(t, "Error: Address already in use") || contains(t, "name: EADDRINUSE") ||
         contains(t, "clients joined") || contains(t, "host not found: ") || contains(t, "store based barrier");
}
// Lightning's processes starting their process group ("Initializing distributed:
// GLOBAL_RANK: 0, MEMBER: 1/4"), fewer of them than the world size, and no "All distributed
// processes registered" after: the rendezvous still waits for the rest (Lightning's Slurm
// guide: the script not started with srun, or --nodes/--ntasks-per-node unlike the
// Trainer's num_nodes/devices).
void check_lightning_members(const Facts& facts, std::vector<Finding>& out) {
  if (facts.lightning_members.empty() || facts.lightning_registered) return;
  std::set<long> members;
  long world = 0;
  for (const Quote& q : facts.lightning_members) {
    const std::string_view t = q.text;
    const size_t at = t.find(", MEMBER: ");
    const std::string_view rest = t.substr(at + 10);
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) continue;
    const long k = std::atol(std::string(rest.substr(0, slash)).c_str());
    const long n = std::atol(std::string(rest.substr(slash + 1)).c_str());
    if (k < 1 || n < 2 || k > n) continue;
    members.insert(k);
    world = std::max(world, n);
  }
  if (world < 2 || static_cast<long>(members.size()) >= world) return;
  out.push_back(finding(
      code::kRendezvousClientsMissing, Severity::kWarning, "Lightning's process group", {},
      fmt::format("{} of {} processes started Lightning's process group (MEMBER lines), and none says all were "
                  "registered: the rest never joined, and those that did wait",
                  members.size(), world),
      "start the script with srun under Slurm (`srun python train.py`), and make --nodes and --ntasks-per-node match "
      "the Trainer's (or Fabric's) num_nodes and devices; a node that failed to start has its own log",
      facts.lightning_members, {{"members", members.size()}, {"world_size", world}}));
}

void check_rendezvous(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  check_lightning_members(facts, out);
  if (std::none_of(facts.rendezvous.begin(), facts.rendezvous.end(),
                   [](const Quote& q) { return rendezvous_failure(q.text); })) {
    return;  // warnings about single addresses, and no failure: the store was reached another way
  }
  std::vector<Quote> unreachable, in_use, unresolved, missing;
  std::set<std::string> targets;
  for (const Quote& q : facts.rendezvous) {
    const std::string_view t = q.text;
    if (contains(t, "Address already in use") || contains(t, "EADDRINUSE")) {
      in_use.push_back(q);
    } else if (contains(t, "(gai error") || contains(t, "host not found: ")) {
      unresolved.push_back(q);
      if (std::string s = rendezvous_target(t); !s.empty()) targets.insert(s);
    } else if (contains(t, "clients joined") || contains(t, "store based barrier")) {
      missing.push_back(q);
    } else if (!contains(t, "server socket")) {  // the server side failing is not a client that cannot reach it
      unreachable.push_back(q);
      if (std::string s = rendezvous_target(t); !s.empty()) targets.insert(s);
    }
  }
  const std::string where = targets.empty() ? std::string("the store") : fmt::format("{}", fmt::join(targets, ", "));
  if (!unresolved.empty()) {
    out.push_back(finding(code::kRendezvousMasterUnresolved, Severity::kError, "c10d store", {},
                          fmt::format("the store's host name does not resolve ({}, {}): no rank can join the "
                                      "rendezvous",
                                      where, count_lines(unresolved.size())),
                          "set MASTER_ADDR (or torchrun's --rdzv-endpoint) to a name every host resolves, or to the "
                          "address; in Kubernetes, the headless service's name and its namespace",
                          unresolved, {{"store", where}}));
  }
  // Connection warnings beside another failure (the port taken, ranks missing) are that one's.
  if (std::any_of(unreachable.begin(), unreachable.end(), [](const Quote& q) { return rendezvous_failure(q.text); })) {
    const auto text = [&](std::string_view w) {
      return std::any_of(unreachable.begin(), unreachable.end(), [&](const Quote& q) { return contains(q.text, w); });
    };
    const std::string why =
        text("No route to host")     ? "no route to it (errno 113): a firewall rejects the port, or the address is "
                                       "on a network this host cannot reach"
        : text("Connection refused") ? "nothing listens there (errno 111): rank 0 has not started its store, or "
                                       "the port or address is not rank 0's"
        : text("Operation not permitted") ? "the process may not open a socket to it (errno 1): a sandbox or a "
                                            "security policy"
        : text("timed out") || text("Connection timed out")
            ? "no answer before the timeout: a firewall dropping the port, a wrong MASTER_ADDR, or rank 0 never "
              "started"
            : "the connection failed";
    out.push_back(finding(code::kRendezvousStoreUnreachable, Severity::kError, "c10d store", {},
                          fmt::format("ranks cannot reach the c10d store at {} ({}): {}; the job never reaches NCCL",
                                      where, count_lines(unreachable.size()), why),
                          "from a failing host, `nc -vz HOST PORT` (or `curl -v telnet://HOST:PORT`) while rank 0 "
                          "runs; open the port between the hosts, make MASTER_ADDR the address of the interface the "
                          "hosts share, and check that rank 0 started",
                          unreachable, {{"store", where}}));
  }
  if (!in_use.empty()) {
    out.push_back(finding(code::kRendezvousPortInUse, Severity::kError, "c10d store", {},
                          fmt::format("the store's port is taken on its host ({}: Address already in use): another "
                                      "job, or a previous run that has not exited, holds MASTER_PORT",
                                      count_lines(in_use.size())),
                          "`ss -ltnp | grep PORT` on rank 0's host names the holder: end it, or give this job another "
                          "MASTER_PORT",
                          in_use, {{"lines", in_use.size()}}));
  }
  if (!missing.empty()) {
    out.push_back(finding(code::kRendezvousClientsMissing, Severity::kError, "c10d store", {},
                          fmt::format("the store waited for ranks that never joined ({}): fewer processes were "
                                      "started, or reached it, than the world size says",
                                      count_lines(missing.size())),
                          "compare the world size (nnodes x nproc_per_node) with the processes launched, and read the "
                          "missing hosts' own logs: a node that failed to start, or cannot reach the store",
                          missing, {{"lines", missing.size()}}));
  }
}

// The NVIDIA driver not started (its module not loaded: a kernel updated without the module
// rebuilt, Secure Boot refusing an unsigned module), or started without a GPU it could not
// bring up: the driver's own words at probe (RmInitAdapter, an invalid BAR, a GPU this
// release does not support, one fallen off the bus before any Xid), nvidia-smi's "No
// devices were found".
void check_gpu_start(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> not_loaded, failed;
  bool secure_boot = false, bar = false, unsupported = false, off_bus = false, rm_init = false, none = false,
       open_module = false, other_driver = false, none_probed = false, none_on_bus = false, probe_failed = false;
  for (const Quote& q : facts.gpu_start) {
    const std::string_view t = q.text;
    if (contains(t, "couldn't communicate with the NVIDIA driver") || contains(t, "could not insert 'nvidia") ||
        contains(t, "Driver Not Loaded") || contains(t, "nvml error: driver not loaded") ||
        (contains(t, "Kernel module nvidia") && contains(t, "is not loaded")) ||
        contains(t, "Found no NVIDIA driver on your system") ||
        contains(t, "Unable to load the kernel module 'nvidia")) {
      not_loaded.push_back(q);
      secure_boot |= contains(t, "Key was rejected by service");
    } else {
      failed.push_back(q);
      bar |= contains(t, "PCI I/O region");
      unsupported |= contains(t, "is not supported by the");
      off_bus |= contains(t, "fallen off the bus");
      rm_init |= contains(t, "RmInitAdapter");
      open_module |= contains(t, "Open nvidia.ko is only ready");
      none |= trim(t) == "No devices were found";
      other_driver |= contains(t, "probe routine was not called");
      none_probed |= contains(t, "No NVIDIA devices probed");
      none_on_bus |= contains(t, "No NVIDIA GPU found");
      probe_failed |= contains(t, "probe routine failed");
    }
  }
  if (!not_loaded.empty()) {
    out.push_back(finding(
        code::kKernelGpuDriverNotLoaded, Severity::kError, "NVIDIA driver", {},
        fmt::format("the NVIDIA kernel module is not loaded ({}){}: no program can use the GPUs",
                    count_lines(not_loaded.size()),
                    secure_boot ? ": Secure Boot refused the unsigned module (Key was rejected by service)" : ""),
        secure_boot ? "sign the module with a key enrolled in the firmware (mokutil), or turn Secure Boot off; then "
                      "`modprobe nvidia` and `nvidia-smi`"
                    : "`lsmod | grep nvidia` and `dmesg | grep -i nvrm`: a kernel updated without the module rebuilt "
                      "(`dkms status`), nouveau holding the GPUs, or the module refused at load; rebuild or reinstall "
                      "the driver for the running kernel, then reboot",
        not_loaded, {{"lines", not_loaded.size()}}));
  }
  if (!failed.empty()) {
    std::vector<std::string> why;
    if (open_module) {
      why.emplace_back(
          "the open kernel module refuses this GPU (it drives data-centre GPUs only unless "
          "NVreg_OpenRmEnableUnsupportedGpus=1): load the proprietary module, or set that parameter");
    }
    if (bar)
      why.emplace_back("a BAR the firmware placed badly (enable Above 4G Decoding and Resizable BAR in the BIOS)");
    if (unsupported) why.emplace_back("a GPU this driver release does not support (a newer or older branch is needed)");
    if (off_bus) why.emplace_back("a GPU not answering on PCIe at all (fallen off the bus: reseat, power, riser)");
    if (rm_init && !open_module)
      why.emplace_back(
          "RmInitAdapter failed: the driver could not initialise the GPU (its error code "
          "in the line; a GPU that keeps failing needs replacing)");
    if (other_driver)  // alone a warning: a host may give GPUs to vfio-pci for its VMs on purpose
      why.emplace_back(
          "another driver holds GPUs (the NVIDIA probe routine was not called for them): nouveau or vfio-pci; "
          "`lspci -k -d 10de:` names the driver in use");
    if (none_on_bus)
      why.emplace_back(
          "no NVIDIA GPU on the PCI bus for the driver: not passed through to this VM, or lost from "
          "the bus (`lspci -d 10de:`)");
    if (why.empty() && probe_failed)
      why.emplace_back(
          "the driver's probe could not start a GPU (the NVIDIA probe routine failed): the NVRM lines before it say "
          "why; a GPU that fails its probe on every boot is faulty or badly seated");
    if (why.empty() && none_probed)
      why.emplace_back(
          "the driver loaded but started no GPU (No NVIDIA devices probed): the NVRM lines before it "
          "say why");
    if (why.empty() && none)
      why.emplace_back(
          "nvidia-smi saw none: every GPU failed to start, or none was given "
          "to this container");
    out.push_back(finding(
        code::kKernelGpuInitFailed,
        (none || (other_driver && !none_probed)) && why.size() == 1 ? Severity::kWarning : Severity::kError,
        "GPU start", {},
        fmt::format("the NVIDIA driver did not bring up a GPU ({}): {}", count_lines(failed.size()),
                    fmt::join(why, "; ")),
        "drain the node; the PCI address in the driver's lines names the GPU (`lspci -s ADDR -vv`); read the kernel "
        "log around it for PCIe AER and Xid lines, and compare the driver's version with the GPU's support",
        failed, {{"lines", failed.size()}}));
  }
}

// Locked-memory limits below what RDMA needs: every buffer NCCL, MPI or UCX registers with
// the NIC is locked, so the limit must be unlimited (or at least gigabytes); a job inherits
// the limit of what started it (slurmd, the container runtime).
constexpr uint64_t kMemlockEnough = 1ull << 30;
void check_memlock(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>&) {
  std::vector<Quote> low;
  uint64_t lowest = std::numeric_limits<uint64_t>::max();
  for (const MemlockFact& m : facts.memlock) {
    if (m.bytes >= kMemlockEnough) continue;
    low.push_back(m.where);
    lowest = std::min(lowest, m.bytes);
  }
  if (low.empty()) return;
  out.push_back(finding(
      code::kLimitsMemlockLow, Severity::kWarning, "locked-memory limit", {},
      fmt::format("{} (RLIMIT_MEMLOCK, {}): RDMA locks every buffer it registers with the NIC, so NCCL's, MPI's and "
                  "UCX's registrations fail (ibv_reg_mr or ibv_create_qp: Cannot allocate memory) or they fall back "
                  "to TCP",
                  lowest == 0 ? std::string("a process's locked-memory limit is too small, by its own words")
                              : fmt::format("a process may lock only {} of memory", format_size(lowest)),
                  count_lines(low.size())),
      "set memlock unlimited where the ranks start: /etc/security/limits.conf (`* - memlock unlimited`) for login "
      "sessions, LimitMEMLOCK=infinity in slurmd's and the container runtime's systemd units (jobs inherit the "
      "daemon's limit), docker --ulimit memlock=-1; check with `ulimit -l` inside the job",
      low, {{"lowest_bytes", lowest}}));
}

const std::vector<Signature> kSignatures = {
    {{code::kTopoRdmaProviderMissing},
     "libibverbs: kernel RDMA devices with no user-space driver (\"no userspace device-specific driver found\"), "
     "or NCCL unable to load libibverbs where RDMA is expected",
     check_rdma_provider},
    {{code::kNcclRoceGidLinkLocal},
     "RoCE queue pairs on a link-local GID (NET/IB's \"GID 0 (80FE/...)\"): NCCL_IB_GID_INDEX forced to it, or no "
     "routable GID for NCCL 2.21 and later to choose",
     check_roce_link_local},
    {{code::kFabricLinkDegraded, code::kFabricLinkNotActive},
     "iblinkinfo's links running below what both ends support (its \"Could be\") or physically up and not Active",
     check_ib_links},
    {{code::kDcgmDiagFailed},
     "DCGM's diagnostic (dcgmi diag) with a test that failed or warned, with DCGM's own detail",
     check_dcgm_diag},
    {{code::kContainerDriverFilesInImage},
     "libnvidia-container unable to mount the host's driver files over the image's own (\"file exists\")",
     check_driver_files_in_image},
    {{code::kContainerRdmaNetnsExclusive},
     "the shared RDMA device plugin refusing a node whose RDMA subsystem's network namespace mode is exclusive",
     check_rdma_netns},
    {{code::kLauncherMungeUnavailable, code::kLauncherMungeRejected},
     "MUNGE, which Slurm and PMIx authenticate with: its daemon unreachable, or credentials refused (keys or clocks "
     "that differ)",
     check_munge},
    {{code::kLauncherSlurmVersionMismatch},
     "Slurm's daemons and commands of different releases: a job credential slurmd cannot verify (\"Credential data "
     "mismatch\"), a protocol version the receiver does not speak",
     check_slurm_version},
    {{code::kLauncherSlurmGresConfig},
     "Slurm's GPUs (GRES) configured in a way it refuses: slurmd stopping over gres.conf (\"duplicate records for "
     "gpu\"), a node drained for fewer GPUs than slurm.conf gives it (\"count reported lower than configured\"), "
     "a job asking for a GRES no node has",
     check_slurm_gres},
    {{code::kKernelRdmaRegistrationCapped},
     "Open MPI's openib BTL finding only part of the memory registerable for RDMA (\"configured to only allow "
     "registering part of your physical memory\"): the HCA driver's translation table (mlx4's log_num_mtt)",
     check_rdma_registration_capped},
    {{code::kLauncherClockSkew},
     "Slurm's job credential expired when the node's slurmd checked it (\"Job credential expired\"): clocks apart",
     check_slurm_credential_expired},
    {{code::kContainerNicDriverStorageModules},
     "NVIDIA's NIC driver container refusing to reload the RDMA stack while storage modules over it are loaded",
     check_nic_driver_storage_modules},
    {{code::kContainerGpuDriverInUse},
     "NVIDIA's GPU driver container unable to unload NVIDIA modules in use (a driver installed on the host); the MIG "
     "manager unable to destroy an instance a client holds",
     check_gpu_driver_in_use},
    {{code::kHealthcheckFailed},
     "a node health check's failures (LBNL NHC, as Azure's azurehpc-health-checks runs it), each read by its check "
     "(NVLink inactive, IB link flapping, an IB port not active, GPUs missing, GPU memory errors, bandwidth below "
     "the SKU's)",
     check_nhc},
    {{code::kLinkMlxlinkIssue},
     "mlxlink's ports: not Active, below the speed enabled and cable allow, its own recommendation, errors after FEC",
     check_mlxlink},
    {{code::kMpiNotCudaAware},
     "an MPI built without CUDA support asked to carry GPU buffers (Open MPI's help message)",
     check_mpi_not_cuda_aware},
    {{code::kMpiPmixClientFailed},
     "Open MPI's PMIx client failing at start (\"OPAL ERROR: ... pmix3x_client.c\"), its help for an srun launch "
     "without Slurm's PMI",
     check_pmix_client},
    {{code::kMpiDaemonStartFailed},
     "Open MPI's daemons not started on the other nodes (\"ORTE was unable to reliably start one or more "
     "daemons\"), with the cause a remote shell or ssh printed before it",
     check_mpi_daemons},
    {{code::kMpiRuntimeMismatch},
     "Open MPI's daemons unable to read each other's messages (\"Data unpack would read past end of buffer\"): "
     "Open MPI or its hwloc of different versions",
     check_mpi_unpack},
    {{code::kMpiPmlAddProcsFailed},
     "Open MPI's MPI_Init failing in its point-to-point layer (\"PML add procs failed\")",
     check_mpi_pml},
    {{code::kFabricDefaultSubnetPrefix},
     "several active ports of a host with the factory-default subnet prefix (Open MPI's openib warning): separate "
     "fabrics it cannot tell apart",
     check_default_subnet_prefix},
    {{code::kMpiOobUnreachable, code::kMpiTcpWrongPeer},
     "Open MPI's processes unable to reach each other over TCP (\"unable to complete a TCP connection\"), or "
     "reaching another process than the one meant (\"received unexpected process identifier\")",
     check_mpi_tcp},
    {{code::kMpiUccShmFailed},
     "UCC's shared-memory team layer failing under the MPI's collectives (TL_SHM ERROR)",
     check_ucc_shm_failed},
    {{code::kKernelRdmaAbiMismatch},
     "RDMA user space and kernel driver that do not go together (libibverbs: does not support the kernel ABI; "
     "mlx5dv_devx_*() failed: Protocol not supported)",
     check_rdma_abi_mismatch},
    {{code::kTopoRoceGidUnusable},
     "a program that picks its RoCE GID itself finding none it can use (Mooncake: No suitable GID found on)",
     check_roce_gid_unusable},
    {{code::kTopoNicRdmaDisabled},
     "a NIC's RDMA support off in its firmware (Broadcom's niccli: support_rdma = False)",
     check_nic_rdma_disabled},
    {{code::kFrameworkCustomAllreduceIpc},
     "an inference framework's custom all-reduce failing in CUDA IPC (vLLM's, SGLang's custom_all_reduce.cuh)",
     check_custom_allreduce},
    {{code::kContainerRuntimeHookFailed},
     "an OCI runtime's hook that failed (\"error running createContainer hook #N: exit status 1\"), with its stderr; "
     "enroot's hook under pyxis, with nvidia-container-cli's error as its why",
     check_runtime_hook},
    {{code::kKernelIommuFault, code::kKernelIommuTranslated},
     "the IOMMU refusing a device's DMA (DMAR faults, AMD-Vi IO_PAGE_FAULT), or translating all DMA (not "
     "passthrough), which GPU peer-to-peer and GPUDirect RDMA go through",
     check_iommu},
    {{code::kRendezvousStoreUnreachable, code::kRendezvousPortInUse, code::kRendezvousMasterUnresolved,
      code::kRendezvousClientsMissing},
     "PyTorch's c10d store failing before NCCL starts: unreachable, its port taken, its host name unresolved, ranks "
     "missing (the store's count, or fewer of Lightning's MEMBER lines than its world size)",
     check_rendezvous},
    {{code::kKernelGpuDriverNotLoaded, code::kKernelGpuInitFailed},
     "the NVIDIA driver not loaded (nvidia-smi cannot reach it, modprobe refused), or a GPU it could not start "
     "(RmInitAdapter, an invalid BAR, an unsupported GPU, fallen off the bus at probe, no devices found)",
     check_gpu_start},
    {{code::kLimitsMemlockLow},
     "locked-memory limits below what RDMA needs: /proc/PID/limits, `ulimit -a`, `ulimit -l`",
     check_memlock},
    {{code::kNcclNoIbDevice, code::kNcclSocketFallback},
     "NCCL moves data over sockets where RDMA devices exist (or over an IPoIB interface), or found no IB device "
     "(containers)",
     check_socket_fallback},
    {{code::kNcclSocketIfacesUnroutable},
     "NCCL's sockets (NET/Socket, bootstrap) over container bridges, veth pairs or the loopback; a connection "
     "NCCL or Open MPI's TCP transport failed to open to the loopback, docker0's default address or a "
     "link-local one",
     check_socket_interfaces},
    {{code::kNcclGdrOff, code::kNcclGdrPartial},
     "GPUDirect RDMA off, or on some channels of a GPU and off on others",
     check_gdr},
    {{code::kNcclSharedNic}, "several GPUs of a host on one NIC while it has others", check_shared_nic},
    {{code::kNcclNetPluginLoadFailed},
     "an NCCL network plugin installed but failing to load (NCCL's `NET/Plugin` lines with the loader's error), "
     "NCCL then on its internal plugin",
     check_net_plugin_load},
    {{code::kNcclVersionMismatch, code::kNcclSettingMismatch, code::kNcclIbListMismatch},
     "different NCCL versions, NCCL_* settings or NET/IB lists across ranks",
     check_mismatch},
    {{code::kNcclKernelSharedMem,
      code::kNcclShmPermission,
      code::kNcclShmExhausted,
      code::kNcclSocketIfnameNoMatch,
      code::kNcclIbRetryExceeded,
      code::kNcclIbLocalProtection,
      code::kNcclIbQpAccessError,
      code::kNcclIbCompletionError,
      code::kNcclIbvFailed,
      code::kNcclSystemError,
      code::kNcclCudaError,
      code::kNcclTopoFileInvalid,
      code::kNcclPciSysfsMissing,
      code::kNcclMessageTruncated,
      code::kNcclCollectiveMismatch,
      code::kNcclCudaOom,
      code::kNcclCudaDriverTooOld,
      code::kNcclInvalidDevice,
      code::kNcclDuplicateGpu,
      code::kNcclTopologyFallback,
      code::kNcclKnownBug,
      code::kLimitsPtraceDenied,
      code::kUcxPortSpeedUnknown,
      code::kUcxTransportOpenFailed,
      code::kFrameworkNcclLibraryMismatch,
      code::kNcclInvalidUsage,
      code::kNcclCudaKernelFault,
      code::kNcclCudaEcc,
      code::kNcclNoCudaDevice,
      code::kNcclGpuUnavailable,
      code::kNcclNoKernelImage,
      code::kNcclIbIncompatibleDevices,
      code::kNcclIbPortError,
      code::kNcclIbFatalEvent,
      code::kNcclIbMemlock,
      code::kNcclOfiRegisterFailed,
      code::kNcclP2pDisabledNvlink,
      code::kNcclPeerLost,
      code::kNcclTimeout,
      code::kNcclSocketAccept,
      code::kNcclSocketConnect,
      code::kNcclCudaTooManyPeers,
      code::kNcclCudaNvlinkError,
      code::kNcclCudaLaunchTimeout,
      code::kNcclCudaUnlicensed,
      code::kNcclCudaMps,
      code::kNcclIbDeviceUnopened,
      code::kNcclCommIdUnresolved,
      code::kNvlinkImexUnavailable,
      code::kNcclOfiUnreachable,
      code::kNcclWarn},
     "NCCL WARN lines and a framework's NCCL errors with what they usually mean, and the first failing rank; CUDA's "
     "errors that point at the machine, in any program's line; NCCL's error trace through its bootstrap's sockets "
     "with no warning saying why",
     check_warn},
    {{code::kNcclRasProcessLost, code::kNcclRasRanksBehind},
     "NCCL's RAS client's status: processes dead or not answering, ranks behind the others' collective counts",
     check_ras},
    {{code::kNcclIbFabricEvent},
     "the NICs' asynchronous events of the fabric (a port back up, the subnet manager's changes, a RoCE GID table "
     "change) under the job",
     check_fabric_events},
    {{}, "logs of fewer ranks than the communicator has: inconclusive", check_coverage},
    {{code::kNcclTestsWrong, code::kNcclTestsDip},
     "nccl-tests #wrong non-zero; a size far below its neighbours",
     check_nccl_tests},
    {{code::kNcclTestsSingleRank},
     "nccl-tests tables with busbw 0 at every size: one-rank runs (built without MPI=1)",
     check_single_rank},
    {{code::kNcclTestsBelowNics},
     "a multi-host all-reduce, all-gather or reduce-scatter far below the sum of each host's NIC rates",
     check_below_nics},
    {{code::kKernelGpuXid, code::kKernelGpuResetRequired, code::kKernelGpuSlowdown, code::kNvlinkNvswitchError,
      code::kKernelPcieAer, code::kKernelLinkFlap, code::kKernelMlx5Cmd, code::kKernelHcaFirmware, code::kKernelOomKill,
      code::kKernelNicModule, code::kKernelNicHealth, code::kKernelDriverMismatch, code::kKernelGpudirectPinFailed,
      code::kContainerGpuAccessLost, code::kContainerDriverLibsMissing},
     "dmesg and journalctl -k",
     check_kernel},
    {{code::kContainerToolkitDenied},
     "the NVIDIA container toolkit refused a privileged step (`nvidia-container-cli: permission error`)",
     check_toolkit_denied},
    {{code::kContainerToolkitMissing},
     "the container engine without an NVIDIA runtime (Docker's `could not select device driver \"\" with "
     "capabilities: [[gpu]]`, containerd's `no runtime for \"nvidia\" is configured`)",
     check_toolkit_missing},
    {{code::kContainerImageNoShell},
     "a container image without the program its runtime starts (enroot's `enroot-switchroot: failed to execute: "
     "/bin/sh: No such file or directory`, runc's `exec: \"/bin/bash\": stat /bin/bash: no such file or directory`)",
     check_image_no_shell},
    {{code::kContainerImageStorageFull},
     "a container image written to a full filesystem (mksquashfs' `Write failed because No space left on device` "
     "under pyxis or enroot, Docker's `failed to register layer: ... no space left on device`, containerd's "
     "`failed to extract layer`)",
     check_image_storage_full},
    {{code::kKernelModuleBuildFailed},
     "a kernel module that did not build against the running kernel (modpost's `ERROR: modpost: GPL-incompatible "
     "module gdrdrv.ko uses GPL-only symbol`, DKMS's `Bad return status for module build on kernel`)",
     check_module_build_failed},
    {{code::kKernelModuleNotFound},
     "modprobe finding no GPU or RDMA driver module for the running kernel (`modprobe: FATAL: Module "
     "nvidia-peermem not found in directory /lib/modules/...`)",
     check_module_not_found},
    {{code::kNvlinkFabricRegistrationFailed},
     "nvidia-smi -q's Fabric section with a GPU whose NVLink fabric registration failed (`Status : Insufficient "
     "Resources` under `State : Completed`)",
     check_gpu_fabric},
    {{code::kFrameworkNcclLibraryMissing},
     "a framework that found no NCCL library (XLA's `Unable to load NCCL library`, PyTorch's `Distributed package "
     "doesn't have NCCL built in`, the loader's `libnccl.so.2: cannot open shared object file`)",
     check_nccl_library_missing},
    {{code::kNvlinkCudaMulticastUnsupported},
     "CUDA's multicast objects refused where a program needs them (TransformerEngine's `does not support comm+GEMM "
     "overlap with CUDA Multicast`, cuMulticastCreate's CUDA_ERROR_NOT_SUPPORTED)",
     check_multicast_unsupported},
    {{code::kKernelNicFirmwareMissing},
     "a NIC driver without its firmware file (the kernel's `Direct firmware load for ... failed`), ice without "
     "its DDP package",
     check_nic_firmware},
    {{code::kFabricCxiAddressMismatch},
     "a Slingshot NIC whose fabric address (AMA) does not match its switch port (the cxi driver's "
     "port_dfa_mismatch)",
     check_cxi_address},
    {{code::kKernelPciBarUnassigned},
     "PCI address space the kernel could not give a device (\"BAR 0: no space for\", \"failed to assign\", \"can't "
     "assign; no space\"): a GPU or NIC that cannot be used",
     check_pci_bars},
    {{code::kKernelHostMemoryError},
     "the host's memory failing (EDAC's UE and CE lines, APEI's memory error records, the kernel's memory failure "
     "handling)",
     check_host_memory},
    {{code::kNvlinkFmNoNvswitch, code::kNvlinkFmVersionMismatch, code::kNvlinkFmFailed, code::kNvlinkNvlsExhausted},
     "NVIDIA Fabric Manager's log or service: no NVSwitch found (NV_WARN_NOTHING_TO_DO), a version not the driver's, "
     "its service failed or not started, CUDA's \"system not yet initialized\" (802) from any program; NCCL's NVLS "
     "multicast memory refused, or used up (out of memory)",
     check_fabric_manager},
    {{code::kNvlinkLinkInactive},
     "nvidia-smi nvlink -s: links inactive on a GPU whose other links, or other GPUs' links, are up",
     check_nvlinks},
    {{code::kTopoPcieDegraded},
     "PCIe links below their device's capability: lspci -vv LnkSta against LnkCap, the kernel's \"limited by\" line",
     check_pcie_links},
    {{code::kNcclLinkWait, code::kRunHang},
     "fabscope's profiler plugin's snapshots of a running job: a link turning slow, a rank whose snapshots stop",
     check_snapshots},
    {{code::kTopoPcieAcs},
     "lspci's ACSCtl: PCIe Access Control Services redirecting peer-to-peer traffic (SrcValid+, ReqRedir+, "
     "CmpltRedir+); NVIDIA's rdma_topo check failing a NIC-GPU path's ACS bits or IOMMU groups",
     check_pcie_acs},
    {{code::kTopoIbZeroGuid, code::kTopoRoceGidEmpty, code::kTopoRoceGidSparse, code::kTopoRoceGidIndexMismatch},
     "RDMA devices with a GUID of zeros (ibv_devices, ibstat, ibv_devinfo): SR-IOV VFs without GUIDs; perftest on a "
     "RoCE port with a GID of zeros; show_gids of a port with nothing at index 0 (a pod's sparse GID table); "
     "ibv_devinfo -v's GID tables of two hosts whose index means a different kind of address",
     check_zero_guids},
    {{code::kNcclHostIdentityCollision},
     "NCCL's connections within a node (P2P, SHM) to a rank on a GPU another rank of that host holds: two nodes "
     "NCCL takes for one",
     check_host_identity},
    {{code::kTopoP2pUnsupported, code::kNcclCumemHostNeedsP2p, code::kLauncherVisibleDevicesSplit},
     "CUDA refusing peer access between two GPUs (error 217), from any program: a custom all-reduce or a P2P copy "
     "on GPUs without a P2P path; NCCL's SHM transport through cuMem host memory; ranks of a node each seeing "
     "only a GPU of their own (NCCL's processes all on device 0, or Cray MPICH's GTL failing to open a peer's CUDA "
     "IPC handle)",
     check_p2p_unsupported},
    {{code::kCountersLinkErrors, code::kCountersSaturated, code::kCountersCongestion, code::kCountersAllowanceExceeded},
     "IB port and NIC counters; AWS ENA's allowance counters",
     check_counters},
    {{code::kCountersRoceNoFlowControl},
     "RoCE that drops packets with neither PFC pauses nor ECN/CNP ever counted",
     check_roce_flow_control},
};

}  // namespace

const std::vector<Signature>& signatures() { return kSignatures; }

bool names_cuda_error(std::string_view line) { return cuda_error_of(line) != nullptr; }

bool rdma_enomem(std::string_view line) { return verbs_enomem(line); }

// PyTorch's sentences for CUDA's errors, which name no "CUDA error" (kCudaErrors' last rows),
// and the CUDA samples' "Failed to allocate device vector A (error code forward compatibility
// was attempted on non supported HW)!": cudaGetErrorString's text alone.
bool cuda_sentence(std::string_view line) {
  constexpr std::string_view kToolkit = "unsatisfied condition: cuda>";  // memmem: 'u' is common
  return contains(line, "NVIDIA driver on your system is too old") ||
         contains(line, "ProcessGroupNCCL is only supported with GPUs, no GPUs found") ||
         memmem(line.data(), line.size(), kToolkit.data(), kToolkit.size()) != nullptr ||
         (contains(line, "(error code ") && names_cuda_error(line));
}

bool has_warn_meaning(std::string_view msg) { return !warn_code(msg).empty() || fabric_event(msg) != nullptr; }

std::vector<Finding> run_signatures(const Facts& facts, std::vector<std::string>& missing) {
  std::vector<Finding> out;
  for (const Signature& s : kSignatures) s.check(facts, out, missing);
  return out;
}

}  // namespace fabscope::triage
