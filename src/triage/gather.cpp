// Triage, part one: each file taken by its content, and the facts the signatures read.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <unordered_set>
#include <utility>

#include "coll/collective.h"
#include "core/atomic_file.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "core/text.h"
#include "report/text_fields.h"
#include "topo/mapping.h"
#include "topo/readers.h"
#include "topo/topo_report.h"
#include "triage/triage.h"

namespace fabscope::triage {

namespace {

// NUL bytes, or mostly bytes that are neither printable ASCII, whitespace nor UTF-8.
bool looks_binary(std::string_view text) {
  const std::string_view head = text.substr(0, 8192);
  if (contains(head, std::string_view("\0", 1))) return true;
  size_t odd = 0;
  for (unsigned char c : head) {
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != 0x1b) ++odd;
  }
  return !head.empty() && odd * 10 > head.size();
}

// Kernel messages pasted without dmesg's timestamp or journalctl's prefix, by their
// subsystems' own tags: the NVIDIA driver, the mlx5 driver, PCIe AER, the OOM killer, the
// IOMMU (Intel's DMAR, AMD-Vi, the core's default domain).
constexpr std::string_view kKernelTags[] = {
    "NVRM: ", "mlx5_core ", "mlx4_core ", "mlx4_en ", "mlx4_ib", "pcieport ", " AER: ", "nvidia-nvswitch",
    "Out of memory: Killed process", "oom-kill:", "oom_reaper: ",
    // a memory cgroup's OOM kill without the kernel's prefix ("Memory cgroup out of memory:
    // Killed process 1234 (python)")
    "Killed process ", "available PCIe bandwidth, limited by", "DMAR: ", "AMD-Vi: ", "iommu: Default domain type",
    // NIC drivers judging their PCIe slot (ixgbe, i40e); tags that start with a letter rare
    // in logs, so that the search for each skips most lines at once
    "PCI Express bandwidth", "PCI-Express", "(Speed:", "This is not sufficient for optimal", "EDAC ",
    "[Hardware Error]", "Memory failure: ",
    // VMware ESXi's kernel log ("... Wa(180) vmkwarning: cpu12:...")
    ") vmkernel: ", ") vmkwarning: ",
    // a driver's firmware file missing
    "Direct firmware load for", "DDP package file was not found",
    // HPE Slingshot's NIC driver reporting an error class ("cxi_core 0000:c0:00.0: cxi2[hsn2]:
    // C_EC_UNCOR_NS: C_IXE error: port_dfa_mismatch (37)"), also under cxi_healthcheck's
    // "*** Warning: " before dmesg's stamp
    "C_EC_",
    // the NVIDIA driver's Xid line quoted without its "NVRM: " (a bus id masked: "Xid
    // (PCI:0000:??:00): 119 - Timeout waiting for RPC from GSP!")
    "Xid (PCI:"};

// "[ 1234.567890] ..." (dmesg), "[Sun Jan 11 09:52:01 2026] ..." (dmesg -T), "[Jan21
// 10:20] ..." and "[  +0.000844] ..." (dmesg -H, --reltime), "Mon DD
// HH:MM:SS host kernel: ..." (journalctl -k), or a line with a kernel subsystem's tag
// (kKernelTags).
bool is_kernel_line(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.size() > 3 && t[0] == '[') {
    const size_t close = t.find(']');
    if (close != std::string_view::npos && close > 1) {
      std::string_view stamp = trim(t.substr(1, close - 1));
      // dmesg -H and --reltime: "[Jan21 10:20]" on a new minute, "[  +0.000844]" between.
      if (stamp.size() >= 11 && stamp.size() <= 12 && std::isalpha(static_cast<unsigned char>(stamp[0])) &&
          (std::isdigit(static_cast<unsigned char>(stamp[3])) || stamp[3] == ' ') && stamp[stamp.size() - 3] == ':' &&
          stamp[stamp.size() - 6] == ' ') {
        return true;
      }
      if (stamp.starts_with('+')) stamp.remove_prefix(1);
      const size_t dot = stamp.find('.');
      if (dot != std::string_view::npos && dot > 0 &&
          std::all_of(stamp.begin(), stamp.begin() + static_cast<ptrdiff_t>(dot),
                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        return true;
      }
      // dmesg -T: "[Sun Jan 11 09:52:01 2026]": a weekday's letters, a year at the end, a time.
      const size_t n = stamp.size();
      return n >= 20 && n <= 32 && std::isalpha(static_cast<unsigned char>(stamp[0])) && stamp[3] == ' ' &&
             stamp[n - 5] == ' ' &&
             std::all_of(stamp.end() - 4, stamp.end(),
                         [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
             std::count(stamp.begin(), stamp.end(), ':') ==
                 2;  // another bracket: an application's log prefix ("[2026-02-05 10:00:00 TP0]")
    }
  }
  if (contains(line, " kernel: ")) return true;
  // Slurm's account of the kernel's OOM kills in a job's cgroup ("slurmstepd: error: Detected 1
  // oom-kill event(s) in StepId=5541.0. ...", older "... in step 5541.0 cgroup.", later "Detected
  // 1 oom_kill event in StepId=...") and srun's for a task killed so ("srun: error: node01: task
  // 3: Out Of Memory").
  if (const size_t d = line.find("Detected ");
      d != std::string_view::npos && (contains(line, " oom-kill event") || contains(line, " oom_kill event"))) {
    return true;
  }
  if (line.find("Out Of Memory") != std::string_view::npos && contains(line, "srun: error:")) return true;
  // printk writes at most 1 KiB a message: a longer line (a pasted command line) is not one.
  if (line.size() > 1024 + 64) return false;
  return std::any_of(std::begin(kKernelTags), std::end(kKernelTags),
                     [&](std::string_view tag) { return contains(line, tag); });
}

// The line without terminal colour and style sequences (ESC [ ... letter), as a log
// copied from a coloured terminal or CI page carries them.
std::string_view without_ansi(std::string_view line, std::string& buffer) {
  if (line.find('\x1b') == std::string_view::npos) return line;
  buffer.clear();
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      size_t j = i + 2;
      while (j < line.size() && !std::isalpha(static_cast<unsigned char>(line[j]))) ++j;
      i = j;  // the final letter too
      continue;
    }
    buffer.push_back(line[i]);
  }
  return buffer;
}

// The line with HTML's escapes undone (&lt; &gt; &amp; &quot; &#39; &apos;), as text
// copied from a web page's source or a mail archive carries them.
std::string_view without_html_escapes(std::string_view line, std::string& buffer) {
  const size_t first = line.find('&');
  if (first == std::string_view::npos || line.find(';', first) == std::string_view::npos) return line;
  static constexpr std::pair<std::string_view, char> kEscapes[] = {{"&lt;", '<'},   {"&gt;", '>'},    {"&amp;", '&'},
                                                                   {"&quot;", '"'}, {"&apos;", '\''}, {"&nbsp;", ' '}};
  buffer.assign(line.substr(0, first));
  for (size_t i = first; i < line.size(); ++i) {
    bool done = false;
    if (line[i] == '&' && i + 3 < line.size() && line[i + 1] == '#') {
      // A numeric reference to a printable ASCII character: "&#39;", "&#x27;" (Python's html.escape).
      const bool hex = line[i + 2] == 'x' || line[i + 2] == 'X';
      const size_t from = i + (hex ? 3 : 2);
      const size_t semi = line.find(';', from);
      unsigned value = 0;
      if (semi != std::string_view::npos && semi > from && semi - from <= 4 &&
          std::from_chars(line.data() + from, line.data() + semi, value, hex ? 16 : 10).ptr == line.data() + semi &&
          value >= 32 && value < 127) {
        buffer.push_back(static_cast<char>(value));
        i = semi;
        done = true;
      }
    } else if (line[i] == '&') {
      for (const auto& [escape, c] : kEscapes) {
        if (line.substr(i).starts_with(escape)) {
          buffer.push_back(c);
          i += escape.size() - 1;
          done = true;
          break;
        }
      }
    }
    if (!done) buffer.push_back(line[i]);
  }
  return buffer;
}

bool parse_u64(std::string_view s, uint64_t& out) {
  s = trim(s);
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// A sysfs path's device: "/sys/class/infiniband/mlx5_0/ports/1/counters/x" -> "mlx5_0 port 1",
// "/sys/class/net/eth0/statistics/x" -> "eth0"; "" for another path.
std::string sysfs_device(std::string_view path) {
  auto segment_after = [&](std::string_view key) -> std::string_view {
    const size_t at = path.find(key);
    if (at == std::string_view::npos) return {};
    std::string_view rest = path.substr(at + key.size());
    return rest.substr(0, rest.find('/'));
  };
  if (std::string_view dev = segment_after("/infiniband/"); !dev.empty()) {
    const std::string_view port = segment_after("/ports/");
    return port.empty() ? std::string(dev) : fmt::format("{} port {}", dev, port);
  }
  return std::string(segment_after("/net/"));
}

// One counter value on a line: "name: value", perfquery's "Name:....value", a sysfs
// listing's "/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error:0" (grep -H),
// or the table "name dev port value(+delta)".
bool counter_line(std::string_view line, std::string& device, std::string& name, uint64_t& value) {
  const std::string_view t = trim(line);
  if (t.empty() || t[0] == '#') return false;
  const size_t colon = t.starts_with('/') ? t.rfind(':') : t.find(':');  // a path may hold a bus id's colons
  if (colon != std::string_view::npos && colon > 0) {
    std::string_view key = trim(t.substr(0, colon));
    if (key.find('/') != std::string_view::npos) {  // a sysfs path: its last part names the counter
      device = sysfs_device(key);
      key = key.substr(key.rfind('/') + 1);
    }
    if (key.empty() || !std::all_of(key.begin(), key.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        })) {
      return false;
    }
    std::string_view rest = t.substr(colon + 1);
    while (!rest.empty() && (rest.front() == '.' || is_space(rest.front()))) rest.remove_prefix(1);
    // ibdiagnet's performance counters over their threshold: "link_down_counter : 3 (threshold=0)".
    if (const size_t th = rest.find(" (threshold="); th != std::string_view::npos && rest.back() == ')') {
      rest = rest.substr(0, th);
    }
    if (!parse_u64(rest, value)) return false;
    name = std::string(key);
    return true;
  }
  const auto words = split_ws(t);
  if (words.size() == 4) {
    std::string_view v = words[3];
    if (size_t paren = v.find('('); paren != std::string_view::npos) v = v.substr(0, paren);
    uint64_t port = 0;
    if (!parse_u64(words[2], port) || !parse_u64(v, value)) return false;
    name = std::string(words[0]);
    device = std::string(words[1]);
    return true;
  }
  return false;
}

// ibqueryerrors: "   GUID 0x248a0703 port 7: [LinkDownedCounter == 3] [PortRcvErrors == 12]",
// each bracket a counter of that port ("port ALL" sums the others: read as port "ALL",
// kept only for a node whose ports are not listed one by one).
std::vector<std::pair<std::string, uint64_t>> bracket_counters(std::string_view line, std::string& port) {
  std::vector<std::pair<std::string, uint64_t>> out;
  const std::string_view t = trim(line);
  if (!t.starts_with("GUID ") || t.find(" == ") == std::string_view::npos) return out;
  const size_t p = t.find(" port ");
  if (p == std::string_view::npos) return out;
  std::string_view num = t.substr(p + 6);
  num = num.substr(0, num.find(':'));
  port = std::string(num);
  size_t at = 0;
  while ((at = t.find('[', at)) != std::string_view::npos) {
    const size_t close = t.find(']', at);
    if (close == std::string_view::npos) break;
    const std::string_view inside = t.substr(at + 1, close - at - 1);
    const size_t eq = inside.find(" == ");
    uint64_t v = 0;
    std::string_view value = eq == std::string_view::npos ? std::string_view() : trim(inside.substr(eq + 4));
    value = value.substr(0, value.find(' '));  // "123456 (470.886MB)": data counters carry a readable size
    if (eq != std::string_view::npos && parse_u64(value, v)) {
      out.emplace_back(std::string(trim(inside.substr(0, eq))), v);
    }
    at = close + 1;
  }
  return out;
}

// A counter's name, as NIC and port counters are named: packets, bytes, errors, drops...
// (not ibv_devinfo's "phys_port_cnt: 1").
bool counter_like(std::string_view name) {
  std::string n;
  for (char c : name) n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (std::string_view k : {"packets", "bytes", "xmit", "rcv", "err", "discard", "drop", "pause", "cnp", "ecn", "wait",
                             "data", "pkts", "symbol", "link", "allowance"}) {
    if (n.find(k) != std::string::npos) return true;
  }
  return false;
}

// "ncclAllReduce failed: ", "ncclCommInitRank failed: ": an NCCL function's name then " failed: ".
bool horovod_nccl_call(std::string_view line) {
  if (!contains(line, " failed: ")) return false;
  for (size_t at = line.find("nccl"); at != std::string_view::npos; at = line.find("nccl", at + 4)) {
    size_t end = at + 4;
    while (end < line.size() && std::isalpha(static_cast<unsigned char>(line[end]))) ++end;
    if (end > at + 4 && std::isupper(static_cast<unsigned char>(line[at + 4])) &&
        line.substr(end).starts_with(" failed: ")) {
      return true;
    }
  }
  return false;
}

// "NCCL error" (PyTorch's "NCCL error in: ..."), "NCCL Error 2: unhandled system error" (older
// frameworks' ncclGetErrorString with the code), PyTorch 2.0-2.1's wait for rank 0's id raised as
// a RuntimeError ("[1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via
// c10d key-value store ..."): found at each "NCCL ".
bool nccl_error_words(std::string_view line) {
  for (size_t at = line.find("NCCL "); at != std::string_view::npos; at = line.find("NCCL ", at + 5)) {
    const std::string_view rest = line.substr(at + 5);
    if (rest.starts_with("error") || rest.starts_with("Error ") || rest.starts_with("communicator and retrieving")) {
      return true;
    }
  }
  return false;
}

// "Connection closed by peer [" (Gloo's pair), "Cannot apply desired operation due to shape
// mismatches" (Accelerate's debug mode): one pass over the line's 'C's for both.
bool capital_c_words(std::string_view line) {
  for (size_t at = line.find('C'); at != std::string_view::npos; at = line.find('C', at + 1)) {
    const std::string_view rest = line.substr(at);
    if (rest.starts_with("Connection closed by peer [") ||
        rest.starts_with("Cannot apply desired operation due to shape mismatches")) {
      return true;
    }
  }
  return false;
}

// A framework's NCCL error (PyTorch's c10d): "NCCL error in: ... unhandled system error",
// "ncclRemoteError: ...", the watchdog's "Watchdog caught collective operation timeout",
// torch.distributed.DistBackendError.
bool framework_error(std::string_view line) {
  return nccl_error_words(line) || contains(line, "ncclRemoteError") || contains(line, "ncclSystemError") ||
         contains(line, "ncclInternalError") || contains(line, "ncclUnhandledCudaError") ||
         contains(line, "Watchdog caught collective operation timeout") || contains(line, "DistBackendError") ||
         // PyTorch's watchdog after a timeout: "[PG 0 Rank 1] Timeout at NCCL work: 5, last
         // enqueued NCCL work: 5, last completed NCCL work: 4."
         contains(line, "last enqueued NCCL work") ||
         // UCX's verbs errors in the same jobs: "Transport retry count exceeded on mlx5_0:1/RoCE";
         // an HCA driver's own ("WARNING: mcxnex0: CQE transport retry counter exceeded").
         contains(line, "ransport retry count") ||
         // perftest's failed completion: " Failed status 12: wr_id 0 syndrom 0x81".
         (contains(line, "Failed status") && contains(line, " syndrom 0x")) ||
         // PyTorch's collective fingerprints differing; UCX's shared memory without room.
         contains(line, "Detected mismatch between collectives") ||
         // NCCL's duplicate-GPU check in other words than its WARN line's: "rank 27 and rank 19
         // both on CUDA device 53000".
         (contains(line, "CUDA device ") && contains(line, " both on CUDA device ") && contains(line, "rank ")) ||
         (contains(line, "FIFO") && contains(line, "failed to allocate receive FIFO")) ||
         // Horovod's account of an NCCL call's error, after the exception's name:
         // "UnknownError (see above for traceback): ncclAllReduce failed: invalid data type",
         // "HorovodInternalError: ncclCommInitRank failed: unhandled system error" ('E' is rarer
         // in logs than 'n').
         (line.find("Error") != std::string_view::npos &&
          (horovod_nccl_call(line) || contains(line, "failed to pass monitoredBarrier") ||
           contains(line, "Error when verifying shape tensors"))) ||
         // MindSpore unable to load its collective library (NCCL or MPI missing or too old).
         contains(line, "Loading libgpu_collective.so failed") ||
         // Gloo's pair losing its peer; Accelerate's debug mode finding shapes that differ.
         capital_c_words(line);
}

// UCX's log line ("[1696.2] [host:123:0]   ib_md.c:293  UCX  ERROR ibv_reg_mr(...) failed:
// Cannot allocate memory"): its message, for an ERROR, or for a WARN whose text has a
// meaning of its own (UCX warns of much that is no fault: unused variables, fork); empty
// for any other line.
std::string_view ucx_message(std::string_view line) {
  const size_t at = line.find("UCX ");
  if (at == std::string_view::npos) {
    // Its verbs transports' completion errors where the paste has lost the log header's "UCX
    // ERROR" ("rc_verbs_iface.c:67   send completion with error: local protection error"): the
    // source file names UCX.
    const size_t file = line.find("_iface.c:");
    const size_t what = file == std::string_view::npos ? file : line.find("completion with error: ", file);
    return what == std::string_view::npos ? std::string_view() : trim(line.substr(what));
  }
  std::string_view rest = line.substr(at + 4);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  const bool error = rest.starts_with("ERROR");
  if (!error && !rest.starts_with("WARN")) return {};
  rest = trim(rest.substr(error ? 5 : 4));
  if (rest.empty() || (!error && !has_warn_meaning(rest))) return {};
  return rest;
}

// libmunge's errors (its munge_strerror and its socket's "Failed to access ..."), on a line
// that names MUNGE: the daemon unreachable, or a credential refused.
bool munge_error(std::string_view line) {
  if (!contains(line, "munge") && !contains(line, "Munge") && !contains(line, "MUNGE")) return false;
  for (std::string_view w :
       {"Socket communication error", "Socket timeout", "Failed to access \"", "Failed to connect to \"",
        "Did you start munged", "Invalid credential", "Expired credential", "Rewound credential", "Replayed credential",
        "Unauthorized credential", "Unrecognized security realm"}) {
    if (contains(line, w)) return true;
  }
  return false;
}

// The protocol version a Slurm line names ("Invalid Protocol Version 9984 from uid=0",
// "unpack_header: protocol_version 9216 not supported"; an error only, so a line that merely
// states its version is none): 1 for a release's (its major index
// shifted by 8 bits: 17.02 is 30 << 8, 25.05 is 43 << 8), -1 for a number no release has (a
// port scanner's bytes read as a header), 0 where the line names none.
int slurm_protocol(std::string_view line) {
  for (std::string_view w : {std::string_view("Invalid Protocol Version "), std::string_view("protocol_version ")}) {
    const size_t at = line.find(w);
    if (at == std::string_view::npos || (w[0] == 'p' && !contains(line.substr(at), " not supported"))) continue;
    std::string_view digits = line.substr(at + w.size());
    digits = digits.substr(0, digits.find_first_not_of("0123456789"));
    unsigned v = 0;
    if (digits.empty() || std::from_chars(digits.data(), digits.data() + digits.size(), v).ec != std::errc()) return 0;
    return v % 256 == 0 && v >= (16u << 8) && v < (80u << 8) ? 1 : -1;
  }
  return 0;
}

// PyTorch's c10d store (the rendezvous every rank joins before NCCL starts), by its own
// wordings (torch/csrc/distributed/c10d/socket.cpp, TCPStore). Its failures: a client that
// cannot reach it ("The client socket has failed to connect to any network address of
// (HOST, PORT).", "... has timed out after 900s while trying to connect to (HOST, PORT).",
// older "connect() timed out. Original timeout was ..."), a server that cannot listen ("The
// server socket has failed to listen on any local network address.", older "RuntimeError:
// Address already in use"), a store whose clients never all came ("Timed out after 901
// seconds waiting for clients. 1/2 clients joined."). And the warnings it records on the
// way, one per address tried, which say why but are no failure alone (a host with no IPv6
// warns "errno: 97 - Address family not supported" and goes on): "The client socket has
// failed to connect to 10.0.0.9:29500 (errno: 113 - No route to host).", "... cannot be
// initialized to connect to ...", "The server socket has failed to bind to [::]:29500
// (errno: 98 - Address already in use).", "... cannot be retrieved (gai error: -2 - ...)".
bool rendezvous_line(std::string_view line) {
  const auto has = [&](std::string_view w) { return line.find(w) != std::string_view::npos; };
  if (has("socket ")) {
    return has("The client socket has failed to connect to") || has("The client socket has timed out after") ||
           has("The client socket cannot be initialized to connect to") || has("The server socket has failed to");
  }
  // PyTorch 1.x's c10d (tcputil::connect): "ValueError: host not found: Name or service not known".
  if (has("host not found: ")) {
    return has("Name or service not known") || has("Temporary failure in name resolution") ||
           has("No address associated with hostname");
  }
  // The older store-based barrier at init_process_group's end ("Timed out initializing process
  // group in store based barrier on rank: 0, for key: store_based_barrier_key:1 (world_size=2,
  // worker_count=1, timeout=0:30:00)"): the same ranks missing, counted by the barrier.
  if (has("store based barrier")) return has("Timed out initializing process group");
  return (has("waiting for clients") && has("clients joined")) ||
         (has("network addresses of (") && has("cannot be retrieved (gai error")) ||
         has("connect() timed out. Original timeout was") || has("Error: Address already in use") ||
         // The error's own tail (socket.cpp since 2.2: "... local network address. port: 29500,
         // useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use"), also
         // where the paste wrapped it onto a line of its own.
         has("name: EADDRINUSE");
}

// The NVIDIA driver not starting (nvidia-smi: "NVIDIA-SMI has failed because it couldn't
// communicate with the NVIDIA driver"; modprobe: "could not insert 'nvidia': Key was rejected
// by service"), or a GPU it could not start: "RmInitAdapter failed! (0x26:0x65:1474)", "This
// PCI I/O region assigned to your NVIDIA device is invalid", "installed in this system is
// not supported by the", "fallen off the bus and is not responding to commands" (at probe,
// with no Xid), the open module refusing a GPU ("Open nvidia.ko is only ready for use on Data
// Center GPUs."), nvidia-smi's "No devices were found" (a line of its own), the module loaded
// with no GPU started ("No NVIDIA devices probed.", "The NVIDIA probe routine was not called
// for 2 device(s).", "No NVIDIA GPU found.").
bool gpu_start_line(std::string_view line) {
  const auto has = [&](std::string_view w) { return line.find(w) != std::string_view::npos; };
  return has("couldn't communicate with the NVIDIA driver") || has("could not insert 'nvidia") ||
         has("Open nvidia.ko is only ready for use on") || has("RmInitAdapter failed") ||
         has("PCI I/O region assigned to your NVIDIA device is invalid") ||
         has("installed in this system is not supported by the") ||
         has("fallen off the bus and is not responding to commands") || trim(line) == "No devices were found" ||
         // nv.c at module load: none probed, another driver holding them, none on the bus
         has("NVRM: No NVIDIA devices probed") || has("NVIDIA probe routine was not called for") ||
         has("NVRM: No NVIDIA GPU found") || has("NVIDIA probe routine failed for") ||
         // the driver's installer (nvidia-installer, the GPU operator's driver container) refused
         // at load: "ERROR: Unable to load the kernel module 'nvidia.ko'."
         has("Unable to load the kernel module 'nvidia") ||
         // PyTorch's lazy CUDA init where libcuda finds no driver (torch/cuda/__init__.py: "Found
         // no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed
         // a driver")
         has("Found no NVIDIA driver on your system") ||
         // NVML's NVML_ERROR_DRIVER_NOT_LOADED, as its callers print it (NCCL's "nvmlInit_v2() failed:
         // Driver Not Loaded", the device plugin's, DCGM's)
         (has("Driver Not Loaded") && (has("nvml") || has("NVML"))) ||
         // libnvidia-container's: "nvidia-container-cli: initialization error: nvml error: driver not loaded"
         has("nvml error: driver not loaded") ||
         // enroot's NVIDIA hook (98-nvidia.sh) before it calls the toolkit: "[WARN] Kernel module
         // nvidia_uvm is not loaded. Make sure the NVIDIA device driver is installed and loaded"
         (has("Kernel module nvidia") && has("is not loaded"));
}

// A process killed by SIGBUS: UCX's or a crash handler's "Caught signal 7 (Bus error:
// ...)", the shell's "Bus error (core dumped)", gdb's "Thread 787 "python" received signal
// SIGBUS, Bus error.". Read as NCCL's only where the file's backtrace lines name NCCL
// (Gatherer::finish).
bool bus_error_line(std::string_view line) {
  return line.size() < 512 && (contains(line, "Caught signal 7 (Bus error") ||
                               contains(line, "Bus error (core dumped)") || contains(line, "received signal SIGBUS"));
}
// A backtrace frame in NCCL: "2 0x000000000007587d ncclGroupEnd()  ???:0", "libnccl.so.2".
bool nccl_frame(std::string_view line) {
  return line.size() < 1024 && (contains(line, "libnccl") || contains(line, " nccl") || contains(line, "(nccl"));
}

// A backtrace frame in NCCL's RAS subsystem (src/ras: rasMsgHandlePeersUpdate,
// rasConnCreate, rasNetAcceptNewSocket, rasCollReqInit, rasThreadMain...): "ras", an upper-case
// letter, a name of letters, and a call's '(' (or a full-width one) after it.
bool ras_frame(std::string_view line) {
  for (size_t at = line.find("ras"); at != std::string_view::npos; at = line.find("ras", at + 3)) {
    if (at > 0 && std::isalpha(static_cast<unsigned char>(line[at - 1])) &&
        !std::isxdigit(static_cast<unsigned char>(line[at - 1]))) {
      continue;  // inside a word ("Trash"); a hex digit is an address glued to the name
    }
    size_t end = at + 3;
    if (end >= line.size() || !std::isupper(static_cast<unsigned char>(line[end]))) continue;
    while (end < line.size() && std::isalnum(static_cast<unsigned char>(line[end]))) ++end;
    const std::string_view rest = line.substr(end);
    if (end - at >= 8 && (rest.starts_with("(") || rest.starts_with("\xef\xbc\x88") || rest.starts_with("+0x"))) {
      return true;
    }
  }
  return false;
}

// The digits at `at` of `line` up to a ']': the rank; -1 otherwise.
int rank_before_bracket(std::string_view line, size_t at) {
  int rank = -1;
  const std::string_view digits = line.substr(at);
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  return r.ec == std::errc() && rank >= 0 && r.ptr < digits.data() + digits.size() && *r.ptr == ']' ? rank : -1;
}

// PyTorch's "[rank3]:[E ProcessGroupNCCL.cpp:...]" prefix: 3; else its messages' own "[Rank
// 3]" or "[PG 0 Rank 3]"; -1 without either.
int rank_prefix(std::string_view line) {
  if (const size_t at = line.find("[rank"); at != std::string_view::npos) {
    if (int r = rank_before_bracket(line, at + 5); r >= 0) return r;
  }
  for (size_t at = line.find("Rank "); at != std::string_view::npos; at = line.find("Rank ", at + 1)) {
    if (at == 0 || (line[at - 1] != ' ' && line[at - 1] != '[')) continue;
    if (int r = rank_before_bracket(line, at + 5); r >= 0) return r;
  }
  return -1;
}

// Whether `line` names CUDA followed by an error or failure, as CUDA's errors are said:
// "CUDA error:", "cudaErrorTooManyPeers", "CUDA_ERROR_CONTAINED", "CUDA failure". Found
// at each "uda"/"UDA" (memchr skips to them), not by a pass over every byte.
bool cuda_error_word(std::string_view line) {
  const auto starts_lower = [](std::string_view text, std::string_view word) {
    if (text.size() < word.size()) return false;
    for (size_t i = 0; i < word.size(); ++i) {
      if ((text[i] | 0x20) != word[i]) return false;
    }
    return true;
  };
  for (std::string_view u : {std::string_view("uda"), std::string_view("UDA")}) {
    for (size_t at = line.find(u); at != std::string_view::npos; at = line.find(u, at + 3)) {
      std::string_view rest = line.substr(at + 3);
      if (!rest.empty() && (rest[0] == ' ' || rest[0] == '_')) rest.remove_prefix(1);
      if (starts_lower(rest, "error") || starts_lower(rest, "fail")) return true;
    }
  }
  return false;
}

}  // namespace

// The line without what a launcher, a log collector or a web page put before it, as users
// paste them: kubectl logs --prefix ("[pod/NAME/CONTAINER] "), Open MPI's --tag-output
// ("[1,3]<stdout>:"), srun --label ("  3: "), an RFC 3339 timestamp (kubectl --timestamps,
// docker logs -t: "2026-01-02T03:04:05.678901Z "), Markdown's quote ("> "); several in any
// order. srun's label is left on ip's and rdma's own numbered lines ("1: lo: <LOOPBACK,UP>",
// "0: mlx5_0: node_type ca").
std::string_view without_wrappers(std::string_view line) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  // ip's "1: lo: <LOOPBACK,UP>" and rdma's "0: mlx5_0: node_type ca" once a label is off.
  const auto numbered_listing = [](std::string_view rest) {
    const size_t colon = rest.find(": ");
    if (colon == std::string_view::npos || colon == 0 || rest.substr(0, colon).find_first_of(" \t") != rest.npos) {
      return false;
    }
    const std::string_view after = rest.substr(colon + 2);
    return after.starts_with('<') || after.starts_with("node_type");
  };
  for (int round = 0; round < 4 && !line.empty(); ++round) {
    const std::string_view before = line;
    if (line.starts_with("[pod/")) {
      if (const size_t close = line.find("] "); close != std::string_view::npos) line.remove_prefix(close + 2);
    } else if (line.starts_with('>')) {
      line.remove_prefix(line.size() > 1 && line[1] == ' ' ? 2 : 1);
    } else if (line.size() > 20 && digit(line[0]) && digit(line[3]) && line[4] == '-' && line[7] == '-' &&
               line[10] == 'T' && line[13] == ':' && line[16] == ':') {
      const size_t space = line.find(' ');
      if (space != std::string_view::npos && space <= 36) line.remove_prefix(space + 1);
    } else {
      // Open MPI's --tag-output and srun's label, as the nccl-tests and OSU readers take them off.
      const std::string_view rest = strip_launcher_prefix(line);
      if (rest.size() != line.size() && !numbered_listing(rest)) line = rest;
    }
    if (line.size() == before.size()) break;
  }
  // Ray's log deduplication after a line it saw on other workers: " [repeated 14x across cluster]".
  std::string_view end = line;
  while (!end.empty() && (end.back() == ' ' || end.back() == '\r')) end.remove_suffix(1);
  if (!end.empty() && end.back() == ']' && end.ends_with("x across cluster]")) {
    if (const size_t at = end.rfind(" [repeated "); at != std::string_view::npos) line = end.substr(0, at);
  }
  return line;
}

std::optional<TraceFrame> nccl_trace_frame(std::string_view msg) {
  // The location is the message's first word, the arrow right after it: most messages
  // (every line of a log passes here) end the test at their first space.
  const size_t arrow = msg.find(' ');
  if (arrow == std::string_view::npos || arrow == 0 || msg.substr(arrow, 4) != " -> ") return std::nullopt;
  const std::string_view where = msg.substr(0, arrow);
  const size_t colon = where.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  uint64_t line = 0, result = 0;
  if (!parse_u64(where.substr(colon + 1), line)) return std::nullopt;
  std::string_view rest = msg.substr(arrow + 4);
  if (!parse_u64(rest.substr(0, rest.find(' ')), result) || result > 1000) return std::nullopt;
  return TraceFrame{where.substr(0, colon), static_cast<int>(result)};
}

namespace {

// The NCCL lines the signatures read (the others are counted, not kept: a log of 100 MB
// is mostly channel and ring lines).
bool kept_nccl_line(const topo::NcclLogLine& l) {
  const std::string_view m = l.msg;
  return l.level == "WARN" || m.starts_with("NCCL version") || m.starts_with("NET/") || contains(m, " via NET/") ||
         contains(m, "set by environment to") || contains(m, "nranks ") || contains(m, " nNodes ") ||
         m.starts_with("NCCL_IB_HCA set to") || contains(m, "Using network") || contains(m, "GPU Direct RDMA") ||
         m.starts_with("Bootstrap : Using") || trim(m).starts_with("+ NET[") || contains(m, "ncclMaxSharedMem") ||
         (!m.empty() && ((m.front() == 'F' && (m.starts_with("Failed to open libibverbs") ||
                                               m.starts_with("Failed to bind NVLink SHARP"))) ||
                         (m.front() == 'P' && m.starts_with("P2P is disabled between connected GPUs")))) ||
         // the network plugin loaded (2.28's words, HPC-X plugin's path); older ones start NET/
         (!m.empty() && ((m.front() == 'S' && m.starts_with("Successfully loaded external network plugin")) ||
                         (m.front() == 'P' && m.starts_with("Plugin Path : ")))) ||
         // NICs per host differing (init.cc), GPUDirect RDMA impossible (NET/IB's GIN)
         (!m.empty() && ((m.front() == 'R' && contains(m, " local Net devices (max ")) ||
                         (m.front() == 'D' && m.starts_with("Detected mixed local Net device counts")) ||
                         (m.front() == 'U' && m.starts_with("Unable to use GIN: Peermem")))) ||
         // NCCL's error trace: its source paths start in lower case, most INFO lines do not
         (!m.empty() && std::islower(static_cast<unsigned char>(m.front())) && nccl_trace_frame(m).has_value());
}

// NCCL lines topo's reader reads besides those: the GRAPH dump's PCI links.
bool topology_nccl_line(const topo::NcclLogLine& l) {
  std::string_view m = l.msg;
  while (!m.empty() && m.front() == ' ') m.remove_prefix(1);
  return m.starts_with("+ PCI[");
}

// lspci's device line: "01:00.0 VGA compatible controller: NVIDIA ...", with or without
// the domain ("0000:3b:00.0 Infiniband controller: ...").
bool lspci_device_line(std::string_view t) {
  const size_t space = t.find(' ');
  if (space == std::string_view::npos || space < 7 || space > 12) return false;
  const std::string_view id = t.substr(0, space);
  const size_t dot = id.rfind('.');
  if (dot == std::string_view::npos || dot + 2 != id.size() || id[dot + 1] < '0' || id[dot + 1] > '7') return false;
  if (std::count(id.begin(), id.end(), ':') < 1 ||
      !std::all_of(id.begin(), id.begin() + static_cast<ptrdiff_t>(dot),
                   [](char c) { return c == ':' || std::isxdigit(static_cast<unsigned char>(c)); })) {
    return false;
  }
  return t.find(": ", space) != std::string_view::npos;
}

// A PCIe generation from its GT/s per lane (2.5 is 1, 64 is 6); 0 where none.
int gen_of(double gts) {
  static constexpr double kGts[] = {2.5, 5, 8, 16, 32, 64};
  for (int g = 0; g < 6; ++g) {
    if (gts == kGts[g]) return g + 1;
  }
  return 0;
}

// "Speed 16GT/s, Width x16" (also "Speed 2.5GT/s (downgraded), Width x16 (ok)"): GT/s and
// lanes, 0 where absent.
void lspci_link_fields(std::string_view t, double& gts, int& width) {
  if (const size_t s = t.find("Speed "); s != std::string_view::npos) {
    const std::string_view v = t.substr(s + 6);
    std::from_chars(v.data(), v.data() + v.size(), gts);
  }
  if (const size_t w = t.find("Width x"); w != std::string_view::npos) {
    const std::string_view v = t.substr(w + 7);
    std::from_chars(v.data(), v.data() + v.size(), width);
  }
}

// NCCL's interface entries, "[0]bond0:192.168.1.161<0>" (IPv6 too: "[12]veth6163fba:fe80::
// b878%veth6163fba<0>"): the names, in order; empty when `t` holds anything else.
std::vector<std::string> interface_entries(std::string_view t) {
  std::vector<std::string> names;
  if (t.size() < 6 || t.front() != '[' || t.back() != '>') return names;  // most lines, at once
  for (std::string_view e : split_ws(t)) {
    const size_t close = e.find(']');
    const size_t colon = e.find(':');
    if (e.size() < 6 || e[0] != '[' || close == std::string_view::npos || close < 2 ||
        colon == std::string_view::npos || colon < close + 2 || e.back() != '>' ||
        e.rfind('<') == std::string_view::npos ||
        !std::all_of(e.begin() + 1, e.begin() + static_cast<ptrdiff_t>(close),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      return {};
    }
    names.emplace_back(e.substr(close + 1, colon - close - 1));
  }
  return names;
}

// NVIDIA Fabric Manager's lines: its service in journalctl, its own log's NVSwitch lines.
bool fabric_manager_line(std::string_view line) {
  if (line.size() > 1024) return false;  // its lines are short: not a pasted command line
  if (contains(line, "NV_WARN_NOTHING_TO_DO")) return true;
  if (contains(line, "nvlsm")) return true;  // NVLSM, the NVLink subnet manager Fabric Manager starts
  // its own account of an NVSwitch's errors: "detected NVSwitch fatal error 12028 on fid 0 on NVLink 32"
  if (contains(line, "detected NVSwitch ")) return true;
  if (!contains(line, "abric")) return false;  // one search for the three spellings below
  return contains(line, "fabricmanager") || contains(line, "Fabric Manager") || contains(line, "fabric manager");
}

// An RDMA tool saying there is no device on the host: ibstatus ("Fatal error:  device
// '*': sys files not found (/sys/class/infiniband/*/ports)"), ibv_devinfo and ibv_devices
// ("No IB devices found", "Failed to get IB devices list: ...") and DPDK's mlx drivers.
bool rdma_absent_line(std::string_view line) {
  if (line.size() > 512) return false;
  return (contains(line, "sys files not found") && contains(line, "/sys/class/infiniband")) ||
         contains(line, "No IB devices found") || contains(line, "Failed to get IB devices list") ||
         contains(line, "librdmacm: Fatal: no RDMA devices found") ||
         // DPDK's mlx4 and mlx5 drivers when libibverbs lists nothing ("net_mlx5: cannot list
         // devices, is ib_uverbs loaded?")
         contains(line, "cannot list devices, is ib_uverbs loaded");
}

// A locked-memory limit in a listing: /proc/PID/limits' "Max locked memory  65536  65536
// bytes" (the soft limit, in bytes), `ulimit -a`'s "max locked memory  (kbytes, -l) 64"
// (kbytes). UINT64_MAX for unlimited; nullopt for another line.
std::optional<uint64_t> memlock_limit(std::string_view t) {
  // libibverbs' own warning at start (rdma-core's init.c): "libibverbs: Warning: RLIMIT_MEMLOCK
  // is 65536 bytes." (its next line: "This will severely limit memory registrations.").
  if (t.starts_with("libibverbs: Warning: RLIMIT_MEMLOCK is ")) {
    const auto words = split_ws(t.substr(39));
    uint64_t value = 0;
    if (words.size() >= 2 && words[1].starts_with("bytes") && parse_u64(words[0], value)) return value;
    return std::nullopt;
  }
  const bool proc = t.starts_with("Max locked memory");
  if (!proc && !t.starts_with("max locked memory")) return std::nullopt;
  std::string_view rest = t.substr(17);
  uint64_t unit = 1;
  if (!proc) {
    const size_t close = rest.find("(kbytes, -l)");
    if (close == std::string_view::npos) return std::nullopt;
    rest = rest.substr(close + 12);
    unit = 1024;
  }
  const auto words = split_ws(rest);
  if (words.empty() || (proc && (words.size() != 3 || words[2] != "bytes"))) return std::nullopt;
  if (words[0] == "unlimited") return std::numeric_limits<uint64_t>::max();
  uint64_t value = 0;
  if (!parse_u64(words[0], value)) return std::nullopt;
  return value * unit;
}

// The characters rare in logs that Needles notes per line: the upper-case letters, '_', '('
// and '<', each its bit; -1 for the others.
constexpr int rare_bit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  return c == '_' ? 26 : c == '(' ? 27 : c == '<' ? 28 : -1;
}
// Each byte's bit (0 for the others): one table load and an or per byte.
constexpr std::array<uint32_t, 256> kRareBits = [] {
  std::array<uint32_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (const int bit = rare_bit(static_cast<char>(c)); bit >= 0) t[c] = uint32_t{1} << bit;
  }
  return t;
}();

// A GPU or RDMA driver's module named after modprobe's "Module " (nvidia, nvidia-peermem,
// nv_peer_mem, gdrdrv, mlx5_ib, ib_uverbs, rdma_ucm, efa, bnxt_re, irdma ...).
bool gpu_or_rdma_module(std::string_view line) {
  const size_t at = line.find("Module ");
  if (at == std::string_view::npos) return false;
  std::string_view m = line.substr(at + 7);
  m = m.substr(0, m.find(' '));
  constexpr std::string_view kHeads[] = {"nvidia", "nv_peer_mem", "nv-peer-mem", "gdrdrv",  "mlx4",  "mlx5",
                                         "ib_",    "rdma_",       "efa",         "bnxt_re", "irdma", "ionic_rdma"};
  return std::any_of(std::begin(kHeads), std::end(kHeads), [&](std::string_view h) { return m.starts_with(h); });
}

// A line's needle searches, for the readers of the driver's and tools' words.
struct Needles {
  explicit Needles(std::string_view l) : line(l) {}
  std::string_view line;
  // memmem: these run on every line but NCCL's INFO lines, and a needle whose first
  // character is common makes string_view::find stop at each one.
  bool has(std::string_view what) const {
    return memmem(line.data(), line.size(), what.data(), what.size()) != nullptr;
  }
  // A needle whose first character is rare in logs (an upper-case letter, '_'): find's
  // memchr for it skips most lines at once, where memmem pays its set-up on each. The line's
  // upper-case letters, '_', '(' and '<' are noted in one pass at the first call, so that a
  // needle whose first character the line lacks costs no search at all (a line meets dozens).
  bool finds(std::string_view what) const {
    if (const uint32_t bit = kRareBits[static_cast<unsigned char>(what.front())]; bit != 0) {
      if (!rare_seen) note_rare();
      if ((rare & bit) == 0) return false;
    }
    return line.find(what) != std::string_view::npos;
  }

 private:
  void note_rare() const {
    uint32_t seen = 0;
    for (char c : line) seen |= kRareBits[static_cast<unsigned char>(c)];
    rare = seen;
    rare_seen = true;
  }
  mutable uint32_t rare = 0;
  mutable bool rare_seen = false;
};

constexpr size_t kMaxKeptLines = 200000;       // distinct NCCL, kernel and counter lines kept per file
constexpr size_t kMaxOtherText = 64ull << 20;  // text of other lines kept for the whole-text readers
constexpr size_t kMaxLine = 1 << 20;           // a streamed line longer than this is cut (a file without newlines)

// One file, line by line: what it is taken as, and its facts. The whole text is never
// needed: NCCL and kernel lines become facts as they pass (a line repeated by another
// communicator is kept once), and only the other lines are kept, for the readers that
// need a whole text (nvidia-smi, RDMA tool output, nccl-tests tables), with the lines
// taken out left empty so that line numbers hold.
// The tools that ask CUDA which GPU pairs have peer access, in their own words: CUDA
// samples' simpleP2P and deviceQuery ("> Peer access from A (GPU0) -> B (GPU1) : No",
// simpleP2P's "Peer to Peer access is not available amongst GPUs in the system, waiving
// test."), p2pBandwidthLatencyTest ("Device=0 CANNOT Access Peer Device=1"), `nvidia-smi
// topo -p2p r|w|n|a|p` (a matrix of OK, NS, CNS, GNS, TNS, U) and nvbandwidth before 0.5,
// which waives a device-to-device test where no pair has access ("Waiving
// device_to_device_memcpy_read_ce."). Kept only where no pair listed has access: some pairs
// without it is the normal state of many PCIe servers (across the CPU sockets).
struct PeerTool {
  size_t yes = 0;
  std::vector<Quote> no;
  bool none = false;          // simpleP2P's own conclusion: no pair at all
  std::vector<Quote> waived;  // nvbandwidth's waived device-to-device tests
  int gpus = 0;               // GPUs nvbandwidth lists ("Device 1: ...") or its matrices' columns
  bool matrix_next = false;   // nvbandwidth: the line before titled a matrix, its columns follow

  bool seen() const { return yes > 0 || !no.empty() || none || !waived.empty(); }

  void line(std::string_view t, const std::string& path, int at) {
    if (t.size() < 3 || t.size() > 400) return;
    const bool was_matrix = matrix_next;
    matrix_next = false;
    switch (t[0]) {
      case '>':  // a Markdown quote's "> " is taken off before: the same line below
        if (t.starts_with("> Peer access from ")) peer_pair(t, path, at);
        return;
      case 'D':
        if (t.starts_with("Device=") && contains(t, " Access Peer Device=")) {
          if (contains(t, " CANNOT Access"))
            keep(no, t, path, at);
          else if (contains(t, " CAN Access"))
            ++yes;
        } else if (t.starts_with("Device ") && t.size() > 8 && t[7] >= '0' && t[7] <= '9') {
          const size_t colon = t.find(':');  // nvbandwidth: "Device 1: NVIDIA GeForce RTX 2080 Ti (00000000:02:00)"
          const auto n = colon == std::string_view::npos ? std::nullopt : parse_integer<int>(t.substr(7, colon - 7));
          if (n) gpus = std::max(gpus, *n + 1);
        }
        return;
      case 'G':
        if (t.starts_with("GPU") && t.size() > 3 && t[3] >= '0' && t[3] <= '9') p2p_row(t, path, at);
        return;
      case 'P':
        if (t.starts_with("Peer access from ")) {
          peer_pair(t, path, at);
        } else if (t.starts_with("Peer to Peer access is not available amongst GPUs")) {
          none = true;
          keep(no, t, path, at);
        }
        return;
      case 'W':
        if (t.starts_with("Waiving device_to_device_")) keep(waived, t, path, at);
        return;
      case 'm':  // nvbandwidth's matrix titles: "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)"
        matrix_next = t.starts_with("mem") && contains(t, "(row) ") && contains(t, "(column)");
        return;
      default:
        break;
    }
    // The column numbers below a matrix's title: "0 1" is two GPUs.
    if (was_matrix) {
      int cols = 0;
      for (std::string_view cell : split_ws(t)) {
        if (parse_integer<int>(cell) != cols) return;
        ++cols;
      }
      gpus = std::max(gpus, cols);
    }
  }

  void peer_pair(std::string_view t, const std::string& path, int at) {
    if (t.find(" -> ") == std::string_view::npos) return;
    if (t.ends_with(": Yes"))
      ++yes;
    else if (t.ends_with(": No"))
      keep(no, t, path, at);
  }

  // A row of `nvidia-smi topo -p2p`: "GPU0   X       NS      OK"; a row of `topo -m` has
  // other words (NV12, PIX, SYS, CPU affinity) and is not one.
  void p2p_row(std::string_view t, const std::string& path, int at) {
    size_t self = 0, ok = 0, not_ok = 0;
    bool first = true;
    for (std::string_view cell : split_ws(t)) {
      if (first) {
        first = false;
        continue;
      }
      if (cell == "X")
        ++self;
      else if (cell == "OK")
        ++ok;
      else if (cell == "NS" || cell == "CNS" || cell == "GNS" || cell == "TNS" || cell == "U")
        ++not_ok;
      else
        return;
    }
    if (self != 1 || ok + not_ok == 0) return;
    yes += ok;
    if (not_ok > 0) keep(no, t, path, at);
  }

  static void keep(std::vector<Quote>& v, std::string_view t, const std::string& path, int at) {
    if (v.size() < 64) v.push_back({path, at, std::string(t)});
  }

  // The lines that say no pair of the GPUs listed has peer access, or none.
  void take(std::vector<Quote>& out) {
    std::vector<Quote>& said = none || (yes == 0 && !no.empty()) ? no : waived;
    if (&said == &waived && (yes > 0 || !no.empty() || gpus < 2)) return;
    for (Quote& q : said) out.push_back(std::move(q));
    said.clear();
  }
};

// A cgroup v1 device list (`cat /sys/fs/cgroup/devices/devices.list` in a container: "TYPE
// MAJOR:MINOR ACCESS", as "c 195:* m") that lets the NVIDIA devices (character major 195)
// be created but not read or written: systemd re-applied the container's cgroup (a
// `daemon-reload`) and took the GPUs away. "a *:* rwm" allows every device.
struct DeviceCgroup {
  std::vector<Quote> nvidia_no_rw;
  bool nvidia_rw = false;
  bool all_allowed = false;

  void line(std::string_view t, const std::string& path, int at) {
    if (t.size() < 7 || t.size() > 24 || t[1] != ' ' || (t[0] != 'a' && t[0] != 'b' && t[0] != 'c')) return;
    const auto w = split_ws(t);
    if (w.size() != 3 || w[2].find_first_not_of("rwm") != std::string_view::npos) return;
    const bool rw = contains(w[2], "r") && contains(w[2], "w");
    if (t[0] == 'a' && w[1] == "*:*") all_allowed = all_allowed || rw;
    if (t[0] != 'c' || !w[1].starts_with("195:")) return;
    if (rw)
      nvidia_rw = true;
    else if (nvidia_no_rw.size() < 64)
      nvidia_no_rw.push_back({path, at, std::string(t)});
  }

  void take(std::vector<Quote>& out) {
    if (nvidia_rw || all_allowed) return;
    for (Quote& q : nvidia_no_rw) out.push_back(std::move(q));
    nvidia_no_rw.clear();
  }
};

// A paste that opens with an HTML tag of GitHub's Markdown (`<details>`, `<summary> mpirun ...
// </summary>`, a comment), not an XML document: its lines are read as any text's.
bool html_tag_first(std::string_view t) {
  if (t.starts_with("<!--")) return true;
  std::string_view name = t.substr(1);
  if (name.starts_with('/')) name.remove_prefix(1);
  name = name.substr(0, name.find_first_of(" \t\r\n>/"));
  static constexpr std::string_view kHtml[] = {"details", "summary", "p",   "br", "pre", "code", "b",
                                               "i",       "img",     "div", "a",  "sub", "sup",  "kbd",
                                               "table",   "ul",      "li",  "h1", "h2",  "h3",   "blockquote"};
  return std::find(std::begin(kHtml), std::end(kHtml), name) != std::end(kHtml);
}

class Gatherer {
 public:
  explicit Gatherer(std::string path) : path_(std::move(path)) {}

  // The first bytes decide binary and XML; XML is kept whole (its readers need it).
  void start(std::string_view head) {
    binary_ = looks_binary(head);
    const std::string_view t = trim(head.substr(0, 4096));
    xml_ = t.starts_with("<") && !html_tag_first(t);
    if (xml_) {
      if (contains(head.substr(0, 4096), "<topology")) hwloc_ = true;
      if (contains(head.substr(0, 4096), "<system") || contains(head.substr(0, 4096), "<graphs")) nccl_xml_ = true;
    }
  }
  bool binary() const { return binary_; }
  // Whether the text to come may hold colour sequences: its lines are cleaned of them only
  // then (one search of a whole chunk costs less than one per line).
  void expect_colours(bool may) { colours_ = may; }
  // Likewise HTML's escapes: only text with an '&' in it may hold them.
  void expect_escapes(bool may) { escapes_ = may; }

  void line(std::string_view raw, Facts* facts) {
    ++lines_;
    std::string_view line = colours_ ? without_ansi(raw, clean_) : raw;
    if (escapes_) line = without_html_escapes(line, unescaped_);
    line = without_wrappers(line);
    struct Remember {  // for the next line's interface_line: whether this one heads a list
      std::string_view& head;
      std::string_view line;
      ~Remember() {
        std::string_view t = line;  // only its end matters: no trim of its start
        while (!t.empty() && (t.back() == ' ' || t.back() == '\r' || t.back() == '\t')) t.remove_suffix(1);
        head = !t.ends_with(": Using")     ? std::string_view()
               : contains(t, "NET/Socket") ? std::string_view("NET/Socket")
               : contains(t, "Bootstrap")  ? std::string_view("Bootstrap")
                                           : std::string_view("");
      }
    } remember{list_head_, line};
    if (xml_) {
      append_other(line);
      return;
    }
    // A Markdown fence ("```", "```text", "~~~") around a paste: a blank line to the readers,
    // so that a table's reader does not take the closing one for its next row.
    if (const std::string_view t = trim(line); t.starts_with("```") || t.starts_with("~~~")) {
      other_ += '\n';
      return;
    }
    // CUDA's uncorrectable ECC error, in whatever program's line (NCCL's "Cuda failure" is a
    // WARN; NCCL's INFO lines, most of a log, never carry it): read before the line's reader.
    topo::NcclLogLine l;
    const bool nccl = topo::split_nccl_line(line, l);
    if (!nccl || l.level != "INFO") {
      cuda_ecc_line(line, facts);
      memlock_line(line, facts);
      driver_line(line, facts);
    }
    if (nccl) {
      nccl_line(line, l, facts);
      return;
    }
    // UCX's errors (Open MPI's, NCCL's UCX plugin's, Spark's): read as a framework's are,
    // by NCCL's meanings where UCX says the same.
    const std::string_view ucx = line.size() <= kShortLine ? ucx_message(line) : std::string_view();
    if (!ucx.empty()) {
      ucx_ = true;
      push_framework_fact(ucx, line, facts);
    }
    const bool framework = ucx.empty() && (framework_error(line) || last_error_line(line));
    if (framework) framework_line(line, facts);  // the line stays for the other readers
    since_framework_ = framework ? 0 : since_framework_ + 1;
    if (is_kernel_line(line)) {
      kernel_line(line, facts);
      return;
    }
    if (taken_whole(line, facts)) return;
    summary_line(trim(line));
    test_device_line(trim(line), facts);
    recognise_tables(line);
    gid_row(trim(line), facts);
    gid_index_line(trim(line), facts);
    // ibqueryerrors: "Errors for 0x248a0703 "ib-switch-1"" names the node of the ports below.
    if (line.starts_with("Errors for ")) errors_for_ = ibqueryerrors_node(line);
    // A line a reader kept (driver_line's readers, UCX's errors) was read.
    // A line kept as evidence only (quoted_line_) was read too, after CUDA's reader had it.
    bool taken = framework || kept_line_ == lines_ || cuda_error_line(line, facts) || quoted_line_ == lines_;
    if (bus_error_line(line)) {
      if (bus_errors_.size() < kMaxKeptLines) bus_errors_.push_back({path_, lines_, std::string(trim(line))});
      taken = true;
    } else if (!bus_errors_.empty() && nccl_frame(line)) {
      nccl_frames_ = true;
      taken = true;
    }
    if (!taken) taken = counter_line_taken(line, facts);
    if (!taken) not_read(not_read_, line);
    append_other(line);
  }

  // mlxlink's output (NVIDIA's MFT), field by field ("Speed                              :
  // IB-HDR"): a port's block opens at "Operational Info" (or its first State line) and takes the
  // fields below it; the command line above it ("mlxlink -d mlx5_0 -c") names the device. True
  // for the lines taken.
  bool mlxlink_line(std::string_view t) {
    if (t.size() < 4 || t.size() > 200) return false;
    if (contains(t, "mlxlink ") && contains(t, " -d ")) {  // the command: its device for the block below
      const auto w = split_ws(t.substr(t.find(" -d ") + 4));
      if (!w.empty()) mlxlink_device_ = std::string(w.front());
      return false;
    }
    if (t == "Operational Info" || t == "Operational Info:") {
      mlxlink_ = true;
      mlxlink_open_ = false;  // the next field opens a port
      return true;
    }
    if (!mlxlink_) return false;
    if (t.find_first_not_of('-') == std::string_view::npos) return true;  // a heading's underline
    // A section's title: Supported Info, Troubleshooting Info, Module Info, ..., Tool Information.
    if (t.ends_with(" Info") || t == "Tool Information") return true;
    const size_t colon = t.find(" : ");
    if (colon == std::string_view::npos) return false;
    const std::string_view key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 3));
    if (key == "State" && mlxlink_open_ && !mlxlink_ports_.empty() && !mlxlink_ports_.back().state.empty()) {
      mlxlink_open_ = false;  // a second port's fields without its heading
    }
    if (!mlxlink_open_) {
      if (mlxlink_ports_.size() >= 1024) return true;
      Facts::MlxlinkPort p;
      p.where = {path_, lines_, std::string(t)};
      p.device = mlxlink_device_;
      mlxlink_ports_.push_back(std::move(p));
      mlxlink_open_ = true;
    }
    Facts::MlxlinkPort& p = mlxlink_ports_.back();
    const Quote here{path_, lines_, std::string(t)};
    if (key == "State") {
      p.state = std::string(value);
      p.where = here;
    } else if (key == "Physical state") {
      p.physical = std::string(value);
    } else if (key == "Speed") {
      p.speed = std::string(value);
      p.speed_line = here;
    } else if (key == "Enabled Link Speed") {
      p.enabled = std::string(value);
    } else if (key == "Supported Cable Speed") {
      p.cable = std::string(value);
    } else if (key == "Recommendation") {
      p.recommendation = std::string(value);
      p.recommendation_line = here;
    } else if (key == "Effective Physical Errors") {
      p.effective_errors = parse_integer<int64_t>(value).value_or(-1);
      if (p.effective_errors > 0) p.errors_line = here;
    } else if (key == "Link Down Counter") {
      p.link_down = parse_integer<int64_t>(value).value_or(-1);
      if (p.link_down > 0 && p.errors_line.file.empty()) p.errors_line = here;
    }
    return true;
  }

  // Whether `t` may be RAS's: any line once a file has shown RAS's output, else only the
  // first characters its headings and events start with (most lines of a log stop here).
  bool ras_may_be(std::string_view t) const {
    if (ras_ || ras_block_ != RasBlock::kNone) return true;
    if (t.empty()) return false;
    switch (t[0]) {
      case 'D':  // DEAD
      case 'I':  // INCOMPLETE
      case '#':  // #0-0 (hash) MISMATCH
      case '[':  // [time] PEER_DEAD: ...
      case 'J':  // Job summary
      case 'C':  // Communicators...
      case 'G':  // Gathering data about the ..., Group     Comms ...
      case 'R':  // RAS Monitor Mode
      case 'N':  // Nodes  Processes
        return true;
      default:
        return false;
    }
  }

  // NCCL's RAS client's status output (ncclras, 2.24 on; src/ras/client_support.cc): its
  // Errors and Warnings sections' blocks, each a header line ("DEAD", "INCOMPLETE", "#0-0
  // (cf264af53edbe986) MISMATCH") and indented lines up to a blank one; and its monitor's
  // events ("[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing
  // GPU 1"). True for the lines taken.
  bool ras_line(std::string_view t, Facts* facts) {
    if (t.empty()) {
      end_ras_section();
      ras_block_ = RasBlock::kNone;
      return false;
    }
    if (t == "DEAD" || t == "INCOMPLETE") {
      end_ras_section();
      ras_block_ = t == "DEAD" ? RasBlock::kDead : RasBlock::kProcesses;
      ras_ = true;
      return true;
    }
    if (t.size() > 4 && t[0] == '#' && t[1] >= '0' && t[1] <= '9' && contains(t, ") ")) {
      const std::string_view state = t.substr(t.rfind(") ") + 2);
      const RasBlock b = state == "INCOMPLETE" ? RasBlock::kRanks
                         : state == "MISMATCH" ? RasBlock::kMismatch
                         : state == "ERROR"    ? RasBlock::kError
                                               : RasBlock::kNone;
      if (b == RasBlock::kNone) return false;
      end_ras_section();
      ras_block_ = b;
      ras_comm_ = std::string(t.substr(0, t.find(' ')));
      ras_counts_ = false;
      ras_error_.clear();
      ras_ = true;
      return true;
    }
    if (ras_block_ == RasBlock::kNone) return ras_monitor_line(t);
    // "Process 3487984 on node 172.16.64.213 managing GPU 5"; "Rank 21 -- GPU 5 managed by
    // process 3487984 on node 172.16.64.213"; "Rank 21 has launched up to operation 6649 --
    // GPU ..."; "Rank 3 reported remote process exited ... -- GPU ...".
    RasFact f;
    f.where = {path_, lines_, std::string(t)};
    f.comm = ras_comm_;
    if (t.starts_with("Process ") && contains(t, " on node ")) {
      f.process = lowered_first(t);
      f.host = ras_node(t);
      if (ras_block_ == RasBlock::kDead || ras_block_ == RasBlock::kProcesses) {
        f.what = ras_block_ == RasBlock::kDead ? "dead" : "unresponsive";
        f.comm.clear();
        keep_ras(std::move(f));
      }
      return true;
    }
    if (t.starts_with("Rank ")) return ras_rank_line(t, std::move(f), facts);
    // "The missing rank: 21" (2.24's wording, the ranks alone).
    if (ras_block_ == RasBlock::kRanks &&
        (t.starts_with("The missing rank: ") || t.starts_with("The missing ranks: "))) {
      for (std::string_view r : split(t.substr(t.find(": ") + 2), ',')) {
        if (const auto rank = parse_integer<int>(trim(r))) {
          RasFact m = f;
          m.rank = *rank;
          m.what = "missing";
          keep_ras(std::move(m));
        }
      }
      return true;
    }
    if (ras_block_ == RasBlock::kMismatch) {
      if (t.starts_with("Communicator ranks have different ")) {
        end_ras_section();
        ras_counts_ = t.ends_with(" operation counts");
        ras_coll_ = ras_counts_ ? std::string(trim(t.substr(34, t.size() - 34 - 17))) : std::string();
        return true;
      }
      if (ras_counts_ && contains(t, " ranks have launched up to operation ")) {
        end_ras_count();
        ras_value_ = parse_integer<int64_t>(t.substr(t.rfind(' ') + 1)).value_or(-1);
        ras_max_ = std::max(ras_max_, ras_value_);
        ras_count_ = std::move(f);
        ras_count_.op = ras_value_;
        ras_count_.coll = ras_coll_;
        ras_count_.unnamed = parse_integer<int>(t.substr(0, t.find(' '))).value_or(0);
        return true;
      }
      if (ras_counts_ && contains(t, " ranks have not launched any operations")) {
        end_ras_count();
        ras_value_ = 0;
        ras_count_ = std::move(f);
        ras_count_.op = 0;
        ras_count_.coll = ras_coll_;
        ras_count_.unnamed = parse_integer<int>(t.substr(0, t.find(' '))).value_or(0);
        return true;
      }
    }
    if (ras_block_ == RasBlock::kError && contains(t, " ranks reported ")) {
      ras_error_ = std::string(t.substr(t.find(" ranks reported ") + 16));
      return true;
    }
    return contains(t, " considered dead") || t.starts_with("Missing communicator data from ") ||
           contains(t, " error on ") || contains(t, " errors on ") || contains(t, "ranks have status ") ||
           t.starts_with("Encountered ") || t.starts_with("[could not find information");
  }

  // The rest of RAS's status output, once a block of it was read or its headings seen: the
  // section titles, their underlines, the summary tables' headings and rows.
  bool ras_frame_line(std::string_view t) {
    if (t == "Job summary" || t.starts_with("Communicators...") || t.starts_with("Gathering data about the") ||
        t.starts_with("RAS Monitor Mode") || t.starts_with("Group     Comms") || t.starts_with("Nodes  Processes")) {
      ras_ = true;
      return true;
    }
    if (!ras_) return false;
    if (t == "Errors" || t == "Warnings" || t == "TIMEOUT" || t.starts_with("#  in group") ||
        t.starts_with("(total)") || (t.starts_with("Encountered ") && contains(t, " communication timeout")) ||
        t.find_first_not_of('=') == std::string_view::npos) {
      return true;
    }
    // A row of the communicators' table ("0  1  4  7-8  32  32  RUNNING  INCOMPLETE") or of the
    // job's ("4  8  1  32  32"): numbers and ranges, then a status and its errors.
    const auto w = split_ws(t);
    if (w.size() < 3 || w.size() > 8) return false;
    for (std::string_view x : w) {
      if (x.find_first_not_of("0123456789-") != std::string_view::npos &&
          x.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != std::string_view::npos) {
        return false;
      }
    }
    return true;
  }

  // A rank's line of a RAS block ("Rank 21 -- GPU 5 managed by process 3487984 on node
  // 172.16.64.213", "Rank 3 has launched up to operation 6648 -- GPU ...", "Rank 3 reported
  // remote process exited ... -- GPU ..."), read by the block it is in. True where taken.
  bool ras_rank_line(std::string_view t, RasFact f, Facts* facts) {
    const auto rank = parse_integer<int>(t.substr(5, t.find_first_not_of("0123456789", 5) - 5));
    if (!rank) return false;
    f.rank = *rank;
    if (const size_t by = t.find(" -- "); by != std::string_view::npos) {
      const std::string_view who = t.substr(by + 4);
      if (who.starts_with("GPU ") && contains(who, " process ")) {
        f.process = fmt::format("process {}", who.substr(who.find(" process ") + 9));
        f.host = ras_node(who);
      }
    }
    if (ras_block_ == RasBlock::kRanks) {
      f.what = "missing";
      keep_ras(std::move(f));
    } else if (ras_block_ == RasBlock::kMismatch && ras_counts_) {
      f.op = ras_value_;
      if (const size_t up = t.find(" has launched up to operation "); up != std::string_view::npos) {
        f.op = parse_integer<int64_t>(t.substr(up + 30, t.find_first_not_of("0123456789", up + 30) - up - 30))
                   .value_or(-1);
      } else if (contains(t, " has not launched any operations")) {
        f.op = 0;
      }
      ras_max_ = std::max(ras_max_, f.op);
      f.coll = ras_coll_;
      ras_count_.unnamed = 0;  // the count's ranks are named
      ras_group_.push_back(std::move(f));
    } else if (ras_block_ == RasBlock::kError && facts && facts->nccl.size() < kMaxKeptLines) {
      std::string error = ras_error_;
      if (const size_t r = t.find(" reported "); r != std::string_view::npos) {
        error = std::string(t.substr(
            r + 10, t.find(" -- ") == std::string_view::npos ? std::string_view::npos : t.find(" -- ") - r - 10));
      }
      if (!error.empty()) {
        NcclFact n;
        n.where = f.where;
        n.host = f.host;
        n.level = "ERROR";
        n.msg = std::move(error);
        n.rank = f.rank;
        facts->nccl.push_back(std::move(n));
      }
    }
    return true;
  }

  // "Process 3487984 on node 172.16.64.213 managing GPU 5" as "process 3487984 on node ...".
  static std::string lowered_first(std::string_view t) {
    std::string s(t);
    if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
    return s;
  }
  // The node a RAS line names ("... on node 172.16.64.213 managing GPU 5"), or "".
  static std::string ras_node(std::string_view t) {
    const size_t at = t.find(" on node ");
    if (at == std::string_view::npos) return "";
    std::string_view rest = t.substr(at + 9);
    return std::string(rest.substr(0, rest.find(' ')));
  }

  // The RAS monitor's events of a process lost (src/ras/rasnet.cc, peers.cc): PEER_DEAD and
  // PEER_TIMEOUT_DEAD dead, the others unresponsive; PEER_RECOVERED takes that back.
  bool ras_monitor_line(std::string_view t) {
    if (t.size() < 12 || t[0] != '[' || t.find("] PEER_") == std::string_view::npos) return false;
    std::string_view ev = t.substr(t.find("] PEER_") + 2);
    const size_t colon = ev.find(": ");
    if (colon == std::string_view::npos) return false;
    const std::string_view name = ev.substr(0, colon), peer = trim(ev.substr(colon + 2));
    ras_ = true;
    RasFact f;
    f.where = {path_, lines_, std::string(t)};
    // "Process 1524345 on node 172.16.64.245 managing GPU 1 <details>": its first eight words;
    // or the peer's address alone.
    if (peer.starts_with("Process ")) {
      const auto w = split_ws(peer);
      std::string_view head = peer;
      if (w.size() > 8) head = peer.substr(0, static_cast<size_t>(w[7].data() + w[7].size() - peer.data()));
      f.process = lowered_first(head);
    } else {
      f.process = std::string(peer.substr(0, peer.find(' ')));
    }
    f.host = ras_node(peer);
    if (name == "PEER_RECOVERED") {
      std::erase_if(ras_facts_, [&](const RasFact& r) { return r.what == "unresponsive" && r.process == f.process; });
      return true;
    }
    if (name == "PEER_DEAD" || name == "PEER_TIMEOUT_DEAD") {
      f.what = "dead";
    } else if (name == "PEER_UNRESPONSIVE" || name == "PEER_KEEPALIVE_TIMEOUT" || name == "PEER_SEND_STUCK" ||
               name == "PEER_DISCONNECTED" || name == "PEER_INIT_TIMEOUT") {
      f.what = "unresponsive";
    } else {
      return true;  // PEER_NEW, PEER_CONNECTING, PEER_RETRY: the network forming
    }
    keep_ras(std::move(f));
    return true;
  }

  void keep_ras(RasFact f) {
    if (ras_facts_.size() < kMaxKeptLines) ras_facts_.push_back(std::move(f));
  }
  // A MISMATCH block's counts section ends: its ranks below the highest count are behind.
  void end_ras_section() {
    end_ras_count();
    std::vector<int> ahead;
    for (const RasFact& f : ras_group_) {
      if (f.op == ras_max_ && f.rank >= 0) ahead.push_back(f.rank);
    }
    for (RasFact& f : ras_unnamed_) {
      if (f.op < 0 || f.op >= ras_max_ || ahead.empty()) continue;
      f.what = "behind";
      f.ahead = ras_max_;
      f.named_ahead = ahead;
      keep_ras(std::move(f));
    }
    for (RasFact& f : ras_group_) {
      if (f.op < 0 || f.op >= ras_max_) continue;
      f.what = "behind";
      f.ahead = ras_max_;
      keep_ras(std::move(f));
    }
    ras_group_.clear();
    ras_unnamed_.clear();
    ras_max_ = ras_value_ = -1;
  }
  // A count line whose ranks RAS did not name on the lines after it ("30 ranks have launched up
  // to operation 640" then the next count): kept as a group, judged at the section's end.
  void end_ras_count() {
    if (ras_count_.unnamed > 0) ras_unnamed_.push_back(std::move(ras_count_));
    ras_count_ = RasFact{};
  }

  // The readers that take a line whole, leaving an empty line in other_ (or, for Fabric
  // Manager's lines, nothing): lspci, nvidia-smi nvlink, Fabric Manager, NCCL's interface
  // lists, RDMA tools saying there is no device, libfabric, nvidia-smi -q, GUIDs. True where
  // one took the line.
  bool taken_whole(std::string_view line, Facts* facts) {
    if (facts) {
      const std::string_view t = trim(line);
      peer_tool_.line(t, path_, lines_);
      device_cgroup_.line(t, path_, lines_);
    }
    if (const std::string_view t = trim(line);
        mlxlink_line(t) || (ras_may_be(t) && (ras_line(t, facts) || ras_frame_line(t)))) {
      other_ += '\n';
      return true;
    }
    if (lspci_line(trim(line), facts) || nvlink_line(trim(line), facts) || dcgm_diag_line(trim(line), facts) ||
        iblinkinfo_line(trim(line), facts)) {
      other_ += '\n';
      return true;
    }
    if (fm_unit_left_ > 0) {  // systemctl status of its unit: the state a few lines below the header
      --fm_unit_left_;
      if (trim(line).starts_with("Active:")) {
        fm_unit_left_ = 0;
        keep_fabric_manager_line(line, facts);
        return true;
      }
    }
    if (fabric_manager_line(line)) {
      if (contains(line, "fabricmanager.service -")) fm_unit_left_ = 4;  // "● nvidia-fabricmanager.service - ..."
      keep_fabric_manager_line(line, facts);
      return true;
    }
    if (interface_line(trim(line), facts)) {
      nccl_ = true;
      other_ += '\n';
      return true;
    }
    if (rdma_absent_line(trim(line))) {
      rdma_absent_ = true;
      if (facts && rdma_absent_lines_.size() < kMaxKeptLines) {
        rdma_absent_lines_.push_back({path_, lines_, std::string(trim(line))});
      }
      other_ += '\n';
      return true;
    }
    if (libfabric_efa_line(trim(line), facts)) {
      other_ += '\n';
      return true;
    }
    // Or no provider configuration at all (rdma-core's libibverbs/init.c: "libibverbs:
    // Warning: couldn't open config directory '/etc/libibverbs.d'.").
    if ((line.find("-specific driver found for") != std::string_view::npos &&
         contains(line, "no userspace device-specific driver found for")) ||
        (line.find("couldn't open config directory") != std::string_view::npos && contains(line, "libibverbs"))) {
      if (facts && rdma_no_provider_.size() < kMaxKeptLines) {
        rdma_no_provider_.push_back({path_, lines_, std::string(trim(line))});
      }
      other_ += '\n';
      return true;
    }
    if (line.find("couldn't load driver '") != std::string_view::npos && contains(line, "libibverbs")) {
      if (facts && rdma_driver_unloaded_.size() < kMaxKeptLines) {
        rdma_driver_unloaded_.push_back({path_, lines_, std::string(trim(line))});
      }
      other_ += '\n';
      return true;
    }
    if (gpu_memory_line(line, facts) || smi_ecc_line(line, facts) || smi_clocks_line(line, facts)) {
      other_ += '\n';
      return true;
    }
    if (smi_pcie_line(line, facts) || sysfs_link_line(trim(line), facts) || smi_table_line(trim(line), facts) ||
        sichek_link_line(trim(line), facts)) {
      other_ += '\n';
      return true;
    }
    if (zero_guid_line(trim(line), facts) || perftest_gid_line(trim(line), facts)) {
      other_ += '\n';
      return true;
    }
    return false;
  }

  // nccl-tests' device lines, by block: a line that is not a comment (a table's row, a log
  // line) ends one, so two runs pasted one after the other are two blocks.
  void test_device_line(std::string_view t, Facts* facts) {
    if (!t.starts_with("#")) {
      if (!t.empty()) ++device_block_;
    } else if (facts && test_devices_.size() < kMaxKeptLines) {
      if (auto d = nccl_tests_device_line(trim(t.substr(1)))) {
        test_devices_.push_back({{path_, lines_, std::string(t)}, std::move(*d), device_block_});
      }
    }
  }

  std::vector<std::string> kinds() const {
    std::vector<std::string> k;
    if (binary_) return k;
    if (hwloc_) k.emplace_back("hwloc-xml");
    if (nccl_xml_) k.emplace_back("nccl-xml");
    if (nccl_) k.emplace_back("nccl-log");
    if ((framework_ || cuda_error_seen_) && !nccl_) k.emplace_back("framework-log");
    if (ucx_) k.emplace_back("ucx-log");
    if (ras_) k.emplace_back("nccl-ras");
    if (mlxlink_) k.emplace_back("mlxlink");
    if (!munge_.empty() || !slurm_version_.empty() || !slurm_credential_expired_.empty() || !slurm_gres_.empty()) {
      k.emplace_back("launcher-log");
    }
    if (tests_) k.emplace_back("nccl-tests");
    if (smi_) k.emplace_back("nvidia-smi-topo");
    if (rdma_ || rdma_absent_) k.emplace_back("rdma-info");
    if (counters_) k.emplace_back("counters");
    if (kernel_) k.emplace_back("kernel-log");
    if (lspci_) k.emplace_back("lspci");
    if (fabric_manager_) k.emplace_back("fabric-manager-log");
    if (nvlink_) k.emplace_back("nvidia-smi-nvlink");
    if (smi_query_) k.emplace_back("nvidia-smi-query");
    if (smi_table_) k.emplace_back("nvidia-smi");
    if (dcgm_seen_) k.emplace_back("dcgm-diag");
    if (iblinkinfo_) k.emplace_back("iblinkinfo");
    if (ibdiags_) k.emplace_back("infiniband-diags");
    return k;
  }

  // What the line readers took from the file, by the programs that write such lines: a
  // paste of a few lines of one program (a device plugin's log, `ulimit -l`, simpleP2P)
  // that no format reader names is still listed with what was found in it.
  std::vector<std::string> line_kinds() const {
    std::vector<std::string> k;
    auto any = [](const auto&... v) { return (!v.empty() || ...); };
    if (any(toolkit_denied_, toolkit_missing_, image_no_shell_, image_storage_full_, runtime_hook_failed_,
            driver_files_in_image_, nic_driver_storage_modules_, gpu_driver_in_use_, nvml_unknown_,
            device_cgroup_.nvidia_no_rw)) {
      k.emplace_back("container-log");
    }
    if (any(driver_libs_missing_, driver_mismatch_, module_abi_, module_build_failed_, module_not_found_, nvml_denied_,
            cuda_not_ready_, gpu_lost_, gpu_start_)) {
      k.emplace_back("gpu-driver-log");
    }
    // (lspci's RDMA NICs, saquery's "No SM/SA found" and nvidia-smi -q's repairs are their tools' kinds.)
    if (any(rdma_no_provider_, rdma_driver_unloaded_, rdma_netns_, zero_guids_, gid_rows_, gid_indexes_,
            roce_gid_empty_, efa_no_device_, rdma_enomem_, pin_failed_, gpu_mr_refused_, rdma_abi_mismatch_,
            ibdiag_links_)) {
      k.emplace_back("rdma-info");
    }
    if (any(rendezvous_, shm_full_, tcp_connect_failed_, gloo_connect_failed_, gloo_loopback_, lightning_members_,
            nccl_symbol_missing_, nccl_library_missing_, multicast_unsupported_)) {
      k.emplace_back("framework-log");
    }
    if (limits_seen_) k.emplace_back("limits");
    if (!nhc_.empty() || !imex_not_ready_.empty()) k.emplace_back("health-check");
    if (interfaces_seen_) k.emplace_back("nccl-log");  // NCCL's interface list, its head line alone
    if (!test_devices_.empty() || !doubled_summaries_.empty()) k.emplace_back("nccl-tests");
    if (peer_tool_.seen()) k.emplace_back("cuda-p2p-tool");
    return k;
  }

  // The file's counters into `facts`. ibqueryerrors' "port ALL" sums a node's ports: it
  // counts only where they are not listed one by one.
  void take_counters(Facts& facts) {
    std::set<std::string> listed;
    for (const CounterFact& c : counters_pending_) {
      if (c.device.ends_with(" port ALL") || c.device == "port ALL") continue;
      if (const size_t p = c.device.rfind("port "); p != std::string::npos) listed.insert(c.device.substr(0, p));
    }
    for (CounterFact& c : counters_pending_) {
      if ((c.device.ends_with(" port ALL") || c.device == "port ALL") &&
          listed.count(c.device.substr(0, c.device.size() - 8))) {
        continue;
      }
      facts.counters.push_back(std::move(c));
    }
  }

  template <typename T>
  static void move_into(std::vector<T>& from, std::vector<T>& to) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
    from.clear();
  }
  // The facts kept line by line, into `facts`.
  void take_line_facts(Facts& facts) {
    take_device_facts(facts);
    take_program_facts(facts);
  }

  // The kernel's, the drivers' and the devices' tools' lines: GPUs, NICs, PCIe, the fabric.
  void take_device_facts(Facts& facts) {
    move_into(kernel_lines_, facts.kernel);
    move_into(pcie_links_, facts.pcie_links);
    move_into(nvlinks_, facts.nvlinks);
    move_into(acs_, facts.acs);
    move_into(dcgm_diag_, facts.dcgm_diag);
    move_into(ib_links_, facts.ib_links);
    move_into(ibdiag_links_, facts.ibdiag_links);
    move_into(zero_guids_, facts.zero_guids);
    move_into(gid_rows_, facts.gid_rows);
    move_into(gid_indexes_, facts.gid_indexes);
    move_into(repair_pending_, facts.gpu_repair_pending);
    move_into(test_devices_, facts.test_devices);
    move_into(remap_failed_, facts.gpu_remap_failed);
    move_into(gpu_fabric_failed_, facts.gpu_fabric_failed);
    move_into(cuda_ecc_, facts.cuda_ecc);
    move_into(cuda_p2p_, facts.cuda_p2p);
    move_into(framework_p2p_refused_, facts.framework_p2p_refused);
    move_into(gtl_ipc_failed_, facts.gtl_ipc_failed);
    move_into(nic_rdma_disabled_, facts.nic_rdma_disabled);
    move_into(nccl_library_links_, facts.nccl_library_links);
    move_into(nccl_symbol_missing_, facts.nccl_symbol_missing);
    move_into(nccl_library_missing_, facts.nccl_library_missing);
    move_into(imex_not_ready_, facts.imex_not_ready);
    move_into(multicast_unsupported_, facts.multicast_unsupported);
    move_into(mig_in_use_, facts.mig_in_use);
    move_into(rdma_topo_failed_, facts.rdma_topo_failed);
    peer_tool_.take(facts.peer_tool_denied);
    device_cgroup_.take(facts.gpu_cgroup_denied);
    move_into(cuda_errors_, facts.cuda_errors);
    move_into(driver_libs_missing_, facts.driver_libs_missing);
    move_into(shm_full_, facts.shm_full);
    move_into(rdma_enomem_, facts.rdma_enomem);
    move_into(toolkit_denied_, facts.toolkit_denied);
    move_into(toolkit_missing_, facts.toolkit_missing);
    move_into(image_no_shell_, facts.image_no_shell);
    move_into(image_storage_full_, facts.image_storage_full);
    move_into(module_build_failed_, facts.module_build_failed);
    move_into(module_not_found_, facts.module_not_found);
    move_into(nvml_denied_, facts.nvml_denied);
    move_into(rdma_no_provider_, facts.rdma_no_provider);
    move_into(rdma_driver_unloaded_, facts.rdma_driver_unloaded);
    move_into(rdma_nics_on_bus_, facts.rdma_nics_on_bus);
    move_into(rdma_netns_, facts.rdma_netns);
    move_into(driver_files_in_image_, facts.driver_files_in_image);
    move_into(no_sm_, facts.no_sm);
    move_into(smi_gpu_err_, facts.smi_gpu_err);
    move_into(smi_uncorrectable_, facts.smi_uncorrectable);
    move_into(smi_slowdown_, facts.smi_slowdown);
    move_into(driver_mismatch_, facts.driver_mismatch);
    move_into(cuda_not_ready_, facts.cuda_not_ready);
    move_into(pin_failed_, facts.gpudirect_pin_failed);
    move_into(gpu_mr_refused_, facts.gpu_mr_refused);
    move_into(ras_crash_frames_, facts.ras_crash_frames);
    move_into(module_abi_, facts.module_abi);
    move_into(nvml_unknown_, facts.nvml_unknown);
    move_into(tcp_connect_failed_, facts.tcp_connect_failed);
    move_into(gloo_connect_failed_, facts.gloo_connect_failed);
    move_into(gloo_loopback_, facts.gloo_loopback);
    move_into(gpu_lost_, facts.gpu_lost);
    move_into(gpu_start_, facts.gpu_start);
  }

  // The programs' lines: launchers and schedulers, MPI, containers, frameworks.
  void take_program_facts(Facts& facts) {
    move_into(munge_, facts.munge);
    if (slurm_foreign_protocol_) {  // a scanner's bytes: its "Incompatible versions" lines are not Slurm's
      std::erase_if(slurm_version_, [](const Quote& q) {
        return slurm_protocol(q.text) == 0 && !contains(q.text, "Credential data mismatch");
      });
    }
    move_into(slurm_version_, facts.slurm_version);
    move_into(slurm_credential_expired_, facts.slurm_credential_expired);
    move_into(slurm_gres_, facts.slurm_gres);
    move_into(registration_capped_, facts.rdma_registration_capped);
    move_into(nic_driver_storage_modules_, facts.nic_driver_storage_modules);
    move_into(gpu_driver_in_use_, facts.gpu_driver_in_use);
    end_ras_section();
    move_into(ras_facts_, facts.ras);
    move_into(mpi_not_cuda_aware_, facts.mpi_not_cuda_aware);
    move_into(ucc_shm_failed_, facts.ucc_shm_failed);
    move_into(roce_gid_unusable_, facts.roce_gid_unusable);
    move_into(rdma_abi_mismatch_, facts.rdma_abi_mismatch);
    move_into(pmix_client_failed_, facts.pmix_client_failed);
    // A remote shell's words are the daemons' cause only beside their box.
    if (!mpi_daemons_failed_.empty()) move_into(mpi_launch_cause_, facts.mpi_launch_cause);
    move_into(mpi_daemons_failed_, facts.mpi_daemons_failed);
    move_into(mpi_oob_unreachable_, facts.mpi_oob_unreachable);
    move_into(mpi_tcp_wrong_peer_, facts.mpi_tcp_wrong_peer);
    move_into(mpi_unpack_failed_, facts.mpi_unpack_failed);
    move_into(mpi_pml_failed_, facts.mpi_pml_add_procs_failed);
    move_into(mpi_default_prefix_, facts.default_subnet_prefix);
    facts.srun_seen = facts.srun_seen || srun_seen_;
    move_into(custom_allreduce_, facts.custom_allreduce);
    move_into(nhc_, facts.nhc);
    move_into(mlxlink_ports_, facts.mlxlink);
    move_into(expandable_segments_, facts.expandable_segments);
    // A hook failing with nvidia-container-cli's words is the toolkit readers' where they name
    // them, and the hook's otherwise (check_runtime_hook).
    move_into(runtime_hook_failed_, facts.runtime_hook_failed);
    move_into(enroot_hook_failed_, facts.enroot_hook_failed);
    move_into(container_cli_errors_, facts.container_cli_errors);
    move_into(rendezvous_, facts.rendezvous);
    move_into(lightning_members_, facts.lightning_members);
    facts.lightning_registered = lightning_registered_;
    move_into(roce_gid_empty_, facts.roce_gid_empty);
    move_into(efa_no_device_, facts.efa_no_device);
    move_into(fabric_manager_lines_, facts.fabric_manager);
    move_into(rdma_absent_lines_, facts.rdma_absent);
  }

  // The readers that need a whole text, then the file's entry.
  void finish(uint64_t bytes, Facts& facts) {
    TriageFile file;
    file.path = path_;
    file.bytes = bytes;
    file.lines = lines_;
    if (binary_) {
      file.note = "not text (binary): skipped";
      facts.files.push_back(std::move(file));
      return;
    }
    file.kinds = kinds();
    std::vector<std::string> notes, refused;
    auto has = [&](std::string_view k) {
      return std::find(file.kinds.begin(), file.kinds.end(), k) != file.kinds.end();
    };
    auto read_topology = [&](std::string_view kind, std::string_view text,
                             Status (*parse)(std::string_view, std::string_view, topo::TopologySet&)) {
      if (!has(kind)) return;
      topo::TopologySet one;
      Status s = parse(text, path_, one);
      if (!s.ok()) {  // not that kind after all, or damaged: said in the file's note
        refused.push_back(fmt::format("taken for {} but refused: {}", kind, s.message()));
        file.kinds.erase(std::find(file.kinds.begin(), file.kinds.end(), kind));
        return;
      }
      for (topo::HostTopology& h : one.hosts) topo::merge_host(facts.topology.host(h.host), h);
    };
    read_topology("hwloc-xml", other_, topo::parse_hwloc_xml);
    read_topology("nccl-xml", other_, topo::parse_nccl_xml);
    read_topology("nvidia-smi-topo", other_, topo::parse_nvidia_smi_topo);
    if (rdma_) read_topology("rdma-info", other_, topo::parse_rdma_text);  // not for a tool's "no device" alone
    // NCCL lines all of kinds topo does not read (an old log's ring lines): NCCL's all the same.
    if (!nccl_text_.empty()) read_topology("nccl-log", nccl_text_, topo::parse_nccl_log);
    if (has("nccl-tests")) {
      auto tables = parse_nccl_tests(other_, path_);
      if (tables.ok()) {
        for (NcclTestsTable& t : *tables) {
          if (t.program.empty() && programs_.size() == 1) t.program = *programs_.begin();
          facts.tables.emplace_back(path_, std::move(t));
        }
      } else {
        refused.push_back(fmt::format("taken for nccl-tests but refused: {}", tables.status().message()));
        file.kinds.erase(std::find(file.kinds.begin(), file.kinds.end(), "nccl-tests"));
      }
    }
    // A refusal matters where nothing else was made of the file (a truncated table, a
    // damaged XML); beside a kind that read, it was a wrong guess.
    if (file.kinds.empty()) notes = refused;
    for (std::string& k : line_kinds()) {
      if (!has(k)) file.kinds.push_back(std::move(k));
    }
    if (has("counters")) take_counters(facts);
    take_line_facts(facts);
    if (nccl_frames_) {  // a SIGBUS with NCCL in its backtrace: an error of NCCL's, as a framework reports one
      for (Quote& q : bus_errors_) {
        NcclFact f;
        f.level = "ERROR";
        f.msg = q.text;
        f.rank = rank_prefix(q.text);
        f.where = std::move(q);
        facts.nccl.push_back(std::move(f));
      }
      if (!bus_errors_.empty() &&
          std::find(file.kinds.begin(), file.kinds.end(), "framework-log") == file.kinds.end() &&
          std::find(file.kinds.begin(), file.kinds.end(), "nccl-log") == file.kinds.end()) {
        file.kinds.emplace_back("framework-log");
      }
    }
    for (auto& d : doubled_summaries_) facts.doubled_summaries.push_back(std::move(d));
    if (file.kinds.empty() && notes.empty()) notes.emplace_back("not recognised: no format fabscope reads");
    if (dropped_ > 0) {
      notes.push_back(
          fmt::format("{} more distinct NCCL, kernel or counter lines than the {} kept were counted, not read",
                      dropped_, kMaxKeptLines));
    }
    if (other_truncated_) {
      notes.push_back(fmt::format("only the first {} of its other lines were kept for the table readers",
                                  format_size(kMaxOtherText)));
    }
    for (size_t i = 0; i < notes.size(); ++i) file.note += (i ? "; " : "") + notes[i];
    count_not_read(file);
    facts.files.push_back(std::move(file));
  }

 private:
  // An NCCL log line: a fact when kept (warnings, errors, versions and settings), and the
  // topology lines for topo's reader; each distinct line once. Left empty in other_.
  void nccl_line(std::string_view line, const topo::NcclLogLine& l, Facts* facts) {
    nccl_ = true;
    other_ += '\n';
    if (!facts) return;
    // A job's processes all log from its first lines on (its initialisation): a file's first
    // lines are read for them, and a long log's rest costs nothing here.
    if (process_lines_ < kMaxProcessLines && l.dev >= 0 &&
        (++process_lines_, l.dev > process_dev_ || l.pid != process_pid_ || l.host != process_host_name_)) {
      process_line(line, l, *facts);
    }
    const bool kept = kept_nccl_line(l);
    if (!kept && intra_lines_ < kMaxIntraNodeLines && !l.msg.empty() &&
        (l.msg.front() == 'C' || l.msg.front() == 'R') &&
        (l.msg.starts_with("Channel ") || l.msg.starts_with("Ring "))) {
      intra_node_line(line, l, *facts);
    }
    if (!kept && !topology_nccl_line(l)) return;
    std::string key = fmt::format("{}:{}[{}]{} {}", l.host, l.pid, l.dev, l.level, trim(l.msg));
    if (seen_.count(key)) return;  // the same line again (another communicator)
    if (seen_.size() >= kMaxKeptLines) {
      ++dropped_;
      return;
    }
    seen_.insert(std::move(key));
    nccl_text_.append(line).push_back('\n');
    if (kept) {
      facts->nccl.push_back({{path_, lines_, std::string(trim(line))},
                             std::string(l.host),
                             std::string(l.pid),
                             l.dev,
                             std::string(l.level),
                             std::string(trim(l.msg))});
      const std::string_view m = trim(l.msg);
      for (std::string_view what : {"NET/Socket", "Bootstrap"}) {
        if (!m.starts_with(what) || !contains(m, " : Using")) continue;
        facts->interfaces.push_back({facts->nccl.back().where, std::string(l.host), std::string(what),
                                     interface_entries(trim(m.substr(m.find(" : Using") + 8)))});
        last_list_line_ = lines_;
      }
    }
  }

  // A connection within the node, the line's own rank sending ("6[6] -> 10[2] via P2P/IPC";
  // a "[receive]" line names the peer first): both ranks and their GPUs for the host.
  void intra_node_line(std::string_view line, const topo::NcclLogLine& l, Facts& facts) {
    const std::string_view m = l.msg;
    size_t via = m.find("via ");  // its 'v' is rare in these lines, where a space is not
    if (via == std::string_view::npos || via < 5 || m[via - 1] != ' ') return;
    const std::string_view how = m.substr(via + 4, 3);
    if ((how != "P2P" && how != "SHM") || l.host == topo::kUnnamedHost || l.pid.empty()) return;
    ++intra_lines_;
    // "... : 6[6] -> 10[2] via" or "... : 2[2] -> 3[3] [send] via"; "[receive]" names the peer first.
    size_t end = via - 1;
    if (m[end - 1] == ']' && m.substr(0, end).ends_with(" [send]")) end -= 7;
    int self = 0, self_gpu = 0, peer = 0, peer_gpu = 0;
    size_t from = m.rfind(' ', end - 1);
    if (from == std::string_view::npos || !rank_and_gpu(m.substr(from + 1, end - from - 1), peer, peer_gpu)) return;
    if (from < 4 || m.substr(from - 3, 3) != " ->") return;
    end = from - 3;
    from = m.rfind(' ', end - 1);
    if (from == std::string_view::npos || !rank_and_gpu(m.substr(from + 1, end - from - 1), self, self_gpu)) return;
    if (l.dev >= 0 && self_gpu != l.dev) return;
    // A log's channel lines are most of it: the last process's host looked up again only when
    // the process changes, and nothing allocated for a rank seen.
    if (intra_host_ == nullptr || l.pid != intra_pid_ || l.host != intra_host_name_) {
      auto at = facts.intra_node.find(l.host);
      if (at == facts.intra_node.end())
        at = facts.intra_node.emplace(std::string(l.host), Facts::IntraNodeRanks{}).first;
      intra_host_ = &at->second;
      intra_host_name_.assign(l.host);
      intra_pid_.assign(l.pid);
    }
    Facts::IntraNodeRanks& host = *intra_host_;
    if (host.mixed) return;
    if (const auto p = host.pid_rank.find(l.pid); p == host.pid_rank.end()) {
      host.pid_rank.emplace(std::string(l.pid), self);
    } else if (p->second != self) {
      host.mixed = true;
      return;
    }
    const bool new_self = !host.own.count(self), new_peer = !host.peers.count(peer);
    if (!new_self && !new_peer) return;
    const Quote q{path_, lines_, std::string(trim(line))};
    if (new_self) host.own.emplace(self, std::make_pair(self_gpu, q));
    if (new_peer) host.peers.emplace(peer, std::make_pair(peer_gpu, q));
  }
  // A process's NCCL line, where its process or a higher device than the last line's is new.
  void process_line(std::string_view line, const topo::NcclLogLine& l, Facts& facts) {
    process_pid_.assign(l.pid);
    process_host_name_.assign(l.host);
    process_dev_ = l.dev;
    if (l.pid.empty() || l.host == topo::kUnnamedHost) return;
    auto host = facts.nccl_processes.find(l.host);
    if (host == facts.nccl_processes.end())
      host = facts.nccl_processes.emplace(std::string(l.host), decltype(host->second){}).first;
    if (auto p = host->second.find(l.pid); p != host->second.end()) {
      p->second.dev = std::max(p->second.dev, l.dev);
      process_dev_ = p->second.dev;
    } else if (host->second.size() < Facts::kMaxProcessesPerHost) {
      host->second.emplace(std::string(l.pid), Facts::NcclProcess{l.dev, {path_, lines_, std::string(trim(line))}});
    }
  }
  // "10[2]": rank 10 on GPU 2.
  static bool rank_and_gpu(std::string_view t, int& rank, int& gpu) {
    const size_t lb = t.find('[');
    if (lb == std::string_view::npos || lb == 0 || t.size() < lb + 3 || t.back() != ']') return false;
    const char* end = t.data() + t.size() - 1;
    return std::from_chars(t.data(), t.data() + lb, rank).ptr == t.data() + lb &&
           std::from_chars(t.data() + lb + 1, end, gpu).ptr == end && rank >= 0 && gpu >= 0;
  }

  // Interface entries on a line of their own: the list above them broken up, or a list
  // whose head ("... NET/Socket : Using") is the line before. True for the lines taken.
  bool interface_line(std::string_view t, Facts* facts) {
    std::vector<std::string> names = interface_entries(t);
    if (names.empty()) return false;
    if (!facts) return true;
    interfaces_seen_ = true;
    if (last_list_line_ == lines_ - 1 && !facts->interfaces.empty() && facts->interfaces.back().where.file == path_) {
      auto& list = facts->interfaces.back().names;
      list.insert(list.end(), names.begin(), names.end());
    } else {
      facts->interfaces.push_back({{path_, lines_, std::string(t)}, "", std::string(list_head_), std::move(names)});
    }
    last_list_line_ = lines_;
    return true;
  }

  // PyTorch's NCCL errors: an error fact, with the rank its prefix names.
  // PyTorch's NCCL error ends with NCCL's own last warning: "Last error:" on a line of its
  // own (a rank prefix before it, "[rank0]: Last error:"), the warning's text on the next
  // line. That text is taken as the error it is, within a few lines of the error above.
  bool last_error_line(std::string_view line) {
    std::string_view t = trim(line);
    if (last_error_next_) {
      if (t.empty()) return false;
      last_error_next_ = false;
      return true;
    }
    if (since_framework_ <= 3 && t.ends_with("Last error:") && t.size() < 64) last_error_next_ = true;
    return false;
  }

  // A framework's error; where its lines were run together into one (a web page's paste),
  // the warning after "Last error:" on the same line is a second error, NCCL's own, as on a
  // line of its own.
  void framework_line(std::string_view line, Facts* facts) {
    framework_ = true;
    const std::string_view t = trim(line);
    const size_t last = t.find("Last error:");
    std::string_view after = last == std::string_view::npos ? std::string_view() : trim(t.substr(last + 11));
    after = trim(without_wrappers(after));  // " 10: socketStartConnect: ..." behind srun's label
    push_framework_fact(after.empty() ? t : trim(t.substr(0, last)), line, facts);
    if (!after.empty()) push_framework_fact(after, line, facts);
  }
  void push_framework_fact(std::string_view msg, std::string_view line, Facts* facts) {
    kept_line_ = lines_;
    if (facts && facts->nccl.size() < kMaxKeptLines) {
      NcclFact f;
      f.where = {path_, lines_, std::string(trim(line))};
      f.level = "ERROR";
      f.msg = std::string(msg);
      f.rank = rank_prefix(line);
      facts->nccl.push_back(std::move(f));
    } else if (facts) {
      ++dropped_;
    }
  }

  // nccl-tests' "# Out of bounds values : 0 OK" ends a run's output, its "# nThread 1 nGpus 8
  // ..." header starts one. Two of either with no table row between are two processes' runs
  // printed one after the other.
  void summary_line(std::string_view t) {
    run_mark(t, "# Out of bounds values", summary_line_, summary_text_);
    run_mark(t, "# nThread ", header_line_, header_text_);
    if (!t.empty() && !t.starts_with('#')) summary_line_ = header_line_ = 0;  // a table row, or anything else
  }
  void run_mark(std::string_view t, std::string_view mark, int& line, std::string& text) {
    if (!t.starts_with(mark)) return;
    if (line > 0 && doubled_summaries_.size() < 64) {
      doubled_summaries_.push_back({{path_, line, text}, {path_, lines_, std::string(t)}});
    }
    line = lines_;
    text = std::string(t);
  }

  // nvidia-smi nvlink -s: "GPU 0: NAME (UUID: GPU-...)" opens a GPU, its "Link N: 25 GB/s"
  // or "Link N: <inactive>" lines follow. True for the lines taken.
  bool nvlink_line(std::string_view t, Facts* facts) {
    if (t.starts_with("GPU ") && contains(t, "(UUID: ")) {
      int gpu = -1;
      const auto r = std::from_chars(t.data() + 4, t.data() + t.size(), gpu);
      if (r.ec != std::errc() || r.ptr >= t.data() + t.size() || *r.ptr != ':') return false;
      if (gpu <= nvlink_gpu_) ++nvlink_listing_;
      nvlink_gpu_ = gpu;
      nvlink_gpu_line_ = {path_, lines_, std::string(t)};
      return true;  // nvidia-smi -L's form too: a GPU named, read
    }
    if (nvlink_gpu_ >= 0 && contains(t, "Unable to retrieve NVLink information as all links are in")) {
      nvlink_ = true;
      if (facts && nvlinks_.size() < kMaxKeptLines) {
        NvlinkFact f;
        f.where = {path_, lines_, std::string(t)};
        f.gpu_line = nvlink_gpu_line_;
        f.listing = nvlink_listing_;
        f.gpu = nvlink_gpu_;
        f.inactive = f.all = true;
        nvlinks_.push_back(std::move(f));
      }
      return true;
    }
    if (nvlink_gpu_ < 0 || !t.starts_with("Link ")) return false;
    int link = -1;
    const auto r = std::from_chars(t.data() + 5, t.data() + t.size(), link);
    if (r.ec != std::errc() || r.ptr >= t.data() + t.size() || *r.ptr != ':') return false;
    const std::string_view rest = trim(std::string_view(r.ptr + 1, t.data() + t.size() - r.ptr - 1));
    NvlinkFact f;
    f.inactive = rest == "<inactive>";
    if (!f.inactive) {
      const auto g = std::from_chars(rest.data(), rest.data() + rest.size(), f.gbps);
      if (g.ec != std::errc() ||
          !trim(std::string_view(g.ptr, rest.data() + rest.size() - g.ptr)).starts_with("GB/s")) {
        return false;
      }
    }
    nvlink_ = true;
    if (facts && nvlinks_.size() < kMaxKeptLines) {
      f.where = {path_, lines_, std::string(t)};
      f.gpu_line = nvlink_gpu_line_;
      f.listing = nvlink_listing_;
      f.gpu = nvlink_gpu_;
      f.link = link;
      nvlinks_.push_back(std::move(f));
    }
    return true;
  }

  // libfabric's log ("libfabric:PID:TIME:efa:...:<warn> ..."): its EFA provider listing no
  // device, or fi_getinfo's -61 after EFA's lines. True for libfabric's lines (taken).
  bool libfabric_efa_line(std::string_view t, Facts* facts) {
    const bool libfabric = t.starts_with("libfabric:");
    if (libfabric && contains(t, ":efa:")) efa_seen_ = true;
    const bool empty = libfabric && contains(t, "provider efa output empty list");
    const bool enodata = efa_seen_ && t.starts_with("fi_getinfo: -61");
    if ((empty || enodata) && facts && efa_no_device_.size() < kMaxKeptLines) {
      efa_no_device_.push_back({path_, lines_, std::string(t)});
    }
    if (libfabric || enodata) rdma_absent_ = true;  // an RDMA stack's own account of its devices
    // Its warnings whose text has a meaning here (EFA's completion statuses): read as a
    // framework's errors are.
    if (libfabric && t.size() <= kShortLine && has_warn_meaning(t)) {
      const size_t warn = t.find("<warn>");
      push_framework_fact(warn == std::string_view::npos ? t : trim(t.substr(warn + 6)), t, facts);
    }
    return libfabric || enodata;
  }

  // A line no longer than this is a program's own; a longer one is a pasted command line.
  static constexpr size_t kShortLine = 1024;

  // NVML failing (its own error strings, as its callers print them).
  void nvml_line(std::string_view line, const Needles& n) {
    const bool toolkit = n.has("container-cli: ");  // libnvidia-container's own lines
    container_cli_seen_ |= toolkit;
    toolkit_line_ = toolkit;  // for container_line, on the same line after this
    // NVML's "Unknown Error" at start: in a container, the GPU device nodes taken from it
    // (NVIDIA's notice, nvidia-container-toolkit#48). NCCL's own NVML calls fail the same way
    // ("nvmlInit_v2() failed: Unknown Error", "nvmlDeviceGetHandleByIndex(0) failed: Unknown
    // Error"): NVML_ERROR_UNKNOWN's words.
    if (n.finds("Failed to initialize NVML: Unknown Error") ||
        (n.finds(") failed: Unknown Error") && contains(line, "nvml"))) {
      keep(nvml_unknown_, line);
    }
    // NVML_ERROR_NO_PERMISSION at start: the GPU device nodes there but not open to the
    // process ("Failed to initialize NVML: Insufficient Permissions").
    if (n.finds("Failed to initialize NVML: Insufficient Permissions")) keep(nvml_denied_, line);
    // The driver's NVML or CUDA library not there: NCCL's "Failed to open libnvidia-ml.so.1",
    // nvidia-smi's "couldn't find libnvidia-ml.so library in your system", go-nvml's (the
    // device plugin's, the toolkit's) "could not load NVML library" (NVML_ERROR_LIBRARY_NOT_FOUND),
    // dcgm-exporter's "Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND".
    // Also the dynamic loader's own words for either library, as Python's ImportError or a
    // program that links them gives them ("nvidia-smi: error while loading shared libraries:
    // libnvidia-ml.so.1: cannot open shared object file", "ImportError: libcuda.so.1: cannot
    // open shared object file: No such file or directory").
    if ((n.finds("-ml.so") &&  // '-' is rarer than 'l' in logs: find's memchr skips more
         (contains(line, "Failed to open libnvidia-ml.so") || contains(line, "couldn't find libnvidia-ml.so") ||
          contains(line, "libnvidia-ml.so.1: cannot open shared object"))) ||
        (cuda_named_ && contains(line, "libcuda.so.1: cannot open shared object")) ||
        (n.finds("NVML library") && (contains(line, "ould not load NVML library") ||
                                     // dcgm-exporter's: "Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND".
                                     (contains(line, "init NVML library") && contains(line, "LIBRARY_NOT_FOUND")))) ||
        // libnvidia-container on a host without the driver's libraries: "nvidia-container-cli:
        // initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object
        // file: no such file or directory".
        (toolkit && contains(line, "load library failed: libnvidia-ml.so") &&
         contains(line, "cannot open shared object")) ||
        // NCCL's cudawrap.cc (2.12 to 2.18): "Failed to find CUDA library libcuda.so
        // (NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file: ..."
        (n.finds("Failed to find CUDA library") && contains(line, "cannot open shared object"))) {
      keep(driver_libs_missing_, line);
    }
    // libnvidia-container refused a privileged step of its own (its "permission error" class:
    // "nvidia-container-cli: permission error: capability change failed: operation not
    // permitted"): SELinux enforcing, or a rootless runtime the toolkit is not set up for.
    if (toolkit && contains(line, "nvidia-container-cli: permission error")) keep(toolkit_denied_, line);
    // SELinux's own account of a denial on the way to a GPU container (setroubleshoot's "SELinux
    // is preventing /usr/bin/bash from entrypoint access on the file /usr/bin/docker": the
    // nvidia-docker wrapper's bash refused the docker binary).
    if (n.finds("SELinux is preventing") &&
        (contains(line, "docker") || contains(line, "nvidia") || contains(line, "container"))) {
      keep(toolkit_denied_, line);
    }
    // Or refused a host file it mounts into the container (its "detection error: path error:
    // ///var/run/nvidia-fabricmanager/socket: permission denied": run as a user who cannot
    // read it, as enroot and pyxis run it; libnvidia-container took that as fatal where a
    // missing file is not, until NVIDIA/libnvidia-container#304).
    if (toolkit && contains(line, "detection error: path error:") && contains(line, "ermission denied")) {
      keep(toolkit_denied_, line);
    }
    // PyTorch passing tensors between processes through /dev/shm (DataLoader workers,
    // torch.multiprocessing) without room there, in its own words (torch/csrc/DataLoader.cpp,
    // utils/data/_utils/signal_handling.py, the shared-memory allocator): "ERROR: Unexpected bus
    // error encountered in worker. This might be caused by insufficient shared memory (shm).",
    // "RuntimeError: DataLoader worker (pid 9943) is killed by signal: Bus error. It is possible
    // that dataloader's workers are out of shared memory. ...", "RuntimeError: unable to write
    // to file </torch_9931_3149260800_0>: No space left on device (28)".
    if ((n.finds("Unexpected bus error") && contains(line, "encountered in worker") &&
         contains(line, "shared memory")) ||
        (n.finds("DataLoader worker") && contains(line, "is killed by signal: Bus error")) ||
        (n.finds("No space left on device") && (contains(line, "</torch_") || contains(line, "/dev/shm/")))) {
      keep(shm_full_, line);
    }
  }

  // Pushes the line (trimmed) onto `kept` while it holds fewer than kMaxKeptLines; true if it did.
  bool keep(std::vector<Quote>& kept, std::string_view line) {
    kept_line_ = lines_;  // read, whether or not there is room to keep it
    if (kept.size() >= kMaxKeptLines) return false;
    kept.push_back({path_, lines_, std::string(trim(line))});
    return true;
  }

  // The driver's, CUDA's, the container runtime's and the launchers' own words, on every
  // line but NCCL's INFO lines (each reader: driver_state_line, launcher_line, device_line).
  void driver_line(std::string_view line, Facts* facts) {
    // Whether the line names CUDA ("cuda", "Cuda", "CUDA"): CUDA's 803 below and
    // cuda_error_line (for the same line, later) read only such lines.
    cuda_named_ = line.size() <= kShortLine &&
                  (line.find("uda") != std::string_view::npos || line.find("UDA") != std::string_view::npos);
    if (!facts) return;
    const Needles n{line};
    driver_state_line(line, n);
    // The driver's and CUDA's own short lines below; a pasted command line is not one.
    if (line.size() > kShortLine) return;
    launcher_line(line, n);
    nvml_line(line, n);
    device_line(line, n);
    program_line(line, n, facts);
    // An RDMA resource refused for lack of locked memory, in any program's words: libfabric's
    // EFA provider ("Unable to create extended CQ: Cannot allocate memory", "ibv_create_qp
    // failed. errno: 12"), a verbs program's "ibv_create_cq failed: Cannot allocate memory".
    if ((n.finds("Cannot allocate memory") && rdma_enomem(line)) ||
        (n.finds("<warn>") && contains(line, "errno: 12") && contains(line, "ibv_create_"))) {
      keep(rdma_enomem_, line);
    }
  }

  // LBNL NHC's failure line ("ERROR:  nhc:  Health check failed:  check_gpu_ecc: GPU id 3:
  // SRAM Uncorrectable ECC error count detected, (0,1)"), with the distributed runner's
  // "host | " before it. An Xid's check quotes the kernel's line, which the kernel reader
  // reads; it is not kept here.
  void nhc_line(std::string_view line) {
    const size_t at = line.find("Health check failed:");
    if (at == std::string_view::npos || nhc_.size() >= kMaxKeptLines) return;
    Facts::NhcFailure f;
    f.where = {path_, lines_, std::string(trim(line))};
    const std::string_view before = line.substr(0, at);
    if (const size_t bar = before.find(" | "); bar != std::string_view::npos)
      f.host = std::string(trim(before.substr(0, bar)));
    std::string_view words = trim(line.substr(at + 20));
    if (words.starts_with("check_")) {
      const size_t colon = words.find(':');
      f.check = std::string(words.substr(0, colon));
      words = colon == std::string_view::npos ? std::string_view() : trim(words.substr(colon + 1));
    }
    if (const size_t fc = words.rfind("FaultCode:"); fc != std::string_view::npos) words = trim(words.substr(0, fc));
    while (!words.empty() && (words.back() == '.' || words.back() == ' ')) words.remove_suffix(1);
    f.words = std::string(words);
    if (f.check == "check_gpu_xid" || contains(f.words, "NVRM: Xid")) return;  // the kernel reader's
    nhc_.push_back(std::move(f));
  }

  // CUDA without peer access, and the driver's parts at different versions.
  void driver_state_line(std::string_view line, const Needles& n) {
    if (n.has("eer ") || n.has("PeerAccess") || n.has("PEER_ACCESS")) {
      if ((contains(line, "peer access is not supported") || contains(line, "cudaErrorPeerAccessUnsupported") ||
           contains(line, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED")) &&
          keep(cuda_p2p_, line)) {
        cuda_error_seen_ = true;  // a file of only such lines is a framework's log
      }
    }
    // The module and its GSP firmware at different versions: the module refuses the image
    // ("GSP firmware image version mismatch: got version A, expected version B"), or finds
    // none for its own version ("Direct firmware load for nvidia/B/gsp_ga10x.bin failed").
    const bool mismatch = n.has(" mismatch");
    const bool gsp = (mismatch && contains(line, "GSP firmware image version mismatch")) ||
                     (line.size() <= kShortLine && n.finds("Direct firmware load for nvidia/") &&
                      contains(line, "/gsp") && contains(line, "failed"));
    // CUDA's own word for it (error 803): "system has unsupported display driver / cuda
    // driver combination".
    const bool cuda_803 =
        cuda_named_ && (contains(line, "unsupported display driver / cuda driver combination") ||
                        contains(line, "SystemDriverMismatch") || contains(line, "SYSTEM_DRIVER_MISMATCH"));
    // libnvidia-container's form of NVML's: "nvidia-container-cli: initialization error: nvml
    // error: driver/library version mismatch: unknown."
    if (gsp || cuda_803 ||
        (mismatch && (contains(line, "Driver/library version mismatch") || contains(line, "NVRM: API mismatch") ||
                      contains(line, "nvml error: driver/library version mismatch")))) {
      keep(driver_mismatch_, line);
    }
  }

  // Launchers and their transports: Open MPI's TCP, MUNGE, PMIx's components, PyTorch's
  // c10d store.
  void slurm_version_line(std::string_view line) {
    const int protocol = slurm_protocol(line);
    if (protocol < 0) {
      slurm_foreign_protocol_ = true;
    } else if (protocol > 0 || contains(line, "Credential signature check: Credential data mismatch") ||
               contains(line, "Incompatible versions of client and server code")) {
      keep(slurm_version_, line);
    }
  }

  // Slurm's GRES configuration refused (Facts::slurm_gres). The counts' lines carry "(0 < 8)",
  // a '<' few lines have; every other form names "gres" or "GRES".
  static bool slurm_gres_line(std::string_view line, const Needles& n) {
    if (line.find('<') != std::string_view::npos &&
        (contains(line, "count reported lower than configured (") || contains(line, " count too low ("))) {
      return true;
    }
    if (n.finds("GRES")) {
      return contains(line, "Invalid GRES record") || contains(line, "Invalid GRES data for") ||
             contains(line, "invalid GRES core specification") || contains(line, "Invalid GRES Links value") ||
             // AutoDetect's GPU affinity against slurm.conf's sockets ("gres/gpu GRES autodetected
             // core affinity 0-7 on node node0 doesn't match socket boundaries").
             contains(line, "doesn't match socket boundaries");
    }
    return n.finds("gres") &&
           (contains(line, "Invalid generic resource (gres) specification") ||
            contains(line, "gres.conf duplicate records for") || contains(line, "can't stat gres.conf") ||
            contains(line, "duplicate node-local AutoDetect") ||
            (contains(line, "gres.conf for ") && contains(line, "some records have \"")));
  }

  // Open MPI's launch failing (Facts::mpi_daemons_failed, mpi_oob_unreachable,
  // mpi_tcp_wrong_peer): its help boxes by their first sentence, each with the lines of the
  // box that name hosts, and the lines a remote shell printed before the daemons' box (the
  // cause it names: ssh refused, a host name not resolved, orted not on the remote PATH).
  void mpi_launch_line(std::string_view line, const Needles& n) {
    const std::string_view t = trim(line);
    if (n.finds("RTE was unable to reliably start")) {  // ORTE's (Open MPI 4) and PRRTE's (5)
      keep(mpi_daemons_failed_, line);
    } else if (n.finds("RTE does not know how to route a message")) {
      // ORTE's and PRRTE's routed layer with no path to a daemon ("ORTE does not know how to
      // route a message to the specified daemon located on the indicated node"): the daemons'
      // out-of-band TCP between the nodes does not connect.
      keep(mpi_oob_unreachable_, line);
      mpi_box_left_ = 6;
    } else if (n.finds("TCP connection") && contains(line, "unable to complete a TCP connection")) {
      keep(mpi_oob_unreachable_, line);
      mpi_box_left_ = 6;
    } else if (n.finds("_tcp_endpoint_complete_connect") && contains(line, "connect() failed with errno=")) {
      // The TCP BTL's own connect failing ("btl_tcp_endpoint.c:572:mca_btl_tcp_endpoint_complete_connect]
      // connect() failed with errno=113"): an address of the peer this host cannot reach.
      keep(mpi_oob_unreachable_, line);
    } else if (mpi_box_left_ > 0) {
      --mpi_box_left_;
      if (t.starts_with("Local host:") || t.starts_with("Remote host:")) keep(mpi_oob_unreachable_, line);
    }
    // A connection that reached another process than the one it was made for: the same
    // address on several hosts (a container bridge, a VM's NAT), or a peer's address that
    // leads elsewhere. Open MPI's BTL and OOB say "received unexpected process identifier";
    // Open MPI 4's BTL its "accepted a TCP connection ... cannot find a corresponding process
    // entry for that peer".
    if (((n.finds("_connect_ack") || n.finds("ERROR: received")) && contains(line, "unexpected process identifier")) ||
        n.finds("Open MPI accepted a TCP connection")) {
      keep(mpi_tcp_wrong_peer_, line);
    }
    // Open MPI's openib BTL finding the factory-default subnet prefix on several active ports
    // ("... but the default subnet GID prefix was detected on more than one of these ports").
    if (n.finds("GID prefix was detected") && contains(line, "default subnet GID")) keep(mpi_default_prefix_, line);
    // ORTE's daemons unable to read each other's messages ("ORTE_ERROR_LOG: Data unpack would
    // read past end of buffer in file grpcomm_direct.c", "FORCE-TERMINATE AT Data unpack ...").
    if (n.finds("Data unpack would read past end of buffer")) keep(mpi_unpack_failed_, line);
    // MPI_Init's box for its point-to-point layer unable to add the peers ("PML add procs
    // failed"), and the return code on the line after ("--> Returned "Not found" (-13) ...").
    if (n.finds("PML add procs failed")) {
      keep(mpi_pml_failed_, line);
      pml_failed_line_ = lines_;
    } else if (pml_failed_line_ > 0 && lines_ == pml_failed_line_ + 1 && t.starts_with("--> Returned")) {
      keep(mpi_pml_failed_, line);
    }
    // What the remote shell said before the daemons' box.
    const bool shell = t.starts_with("bash:") || t.starts_with("sh:") || t.starts_with("zsh:") ||
                       t.starts_with("ksh:") || t.starts_with("tcsh:") || t.starts_with("csh:");
    if ((shell && (contains(t, "orted") || contains(t, "prted"))) || n.finds("Could not resolve hostname") ||
        n.finds("Host key verification failed") || n.finds("(publickey") || n.finds("_peer_send_blocking") ||
        (n.finds("while loading shared libraries") && (contains(t, "orted") || contains(t, "prted")))) {
      keep(mpi_launch_cause_, line);
    }
  }

  void launcher_line(std::string_view line, const Needles& n) {
    // Open MPI's TCP transport failing to connect ("btl_tcp_endpoint.c:796:...] connect() to
    // 172.17.0.1 failed: Connection refused (111)"): the address it tried.
    if (n.finds("connect() to ") && (contains(line, "btl_tcp") || contains(line, "oob_tcp"))) {
      keep(tcp_connect_failed_, line);
    }
    // Gloo's (PyTorch's CPU collectives) pair that cannot connect, wrapped by the paste before
    // its address ("...SO_ERROR: Connection refused," then "        remote=[127.0.0.1]:14215"):
    // program_line kept the first line aside, and the two are read as one.
    if (gloo_wrapped_ == lines_ - 1 && trim(line).starts_with("remote=[")) {
      const std::string joined = gloo_wrapped_text_ + " " + std::string(trim(line));
      if (keep(gloo_connect_failed_, joined)) gloo_connect_failed_.back().line = gloo_wrapped_;
    }
    // MUNGE's errors, as PMIx's psec, Slurm or munge's own tools print them ("psec: munge
    // failed to create credential: Socket communication error", "Munge decode failed:
    // Expired credential"): libmunge's own wordings, on a line that names it.
    if ((n.has("unge") || n.finds("UNGE")) && munge_error(line)) keep(munge_, line);
    if (n.finds("Job credential expired")) keep(slurm_credential_expired_, line);
    if (slurm_gres_line(line, n)) keep(slurm_gres_, line);
    // srun's "Invalid generic resource (gres) specification" wrapped by the paste after
    // "Invalid generic": the two lines read as one.
    if (gres_wrapped_ == lines_ - 1 && trim(line).starts_with("resource (gres) specification")) {
      keep(slurm_gres_, gres_wrapped_text_);
      slurm_gres_.back().line = gres_wrapped_;
      keep(slurm_gres_, line);
    }
    if (n.finds("Invalid generic") && trim(line).ends_with("Invalid generic")) {
      gres_wrapped_ = lines_;
      gres_wrapped_text_ = std::string(line);
    }
    // Open MPI's registration limit (Facts::rdma_registration_capped): its sentence, then the
    // host and the two sizes of its box.
    if (n.finds("OpenFabrics subsystem is configured to only")) {
      keep(registration_capped_, line);
      registration_box_left_ = 20;
    } else if (registration_box_left_ > 0) {
      --registration_box_left_;
      const std::string_view t = trim(line);
      if (t.starts_with("Local host:") || t.starts_with("Registerable memory:") || t.starts_with("Total memory:")) {
        keep(registration_capped_, line);
      }
    }
    mpi_launch_line(line, n);
    if ((n.finds("OPAL ERROR: ") && contains(line, "x_client.c")) ||
        (n.finds("direct launched using") && contains(line, "srun")) ||
        (n.finds("SLURM's PMI support") && contains(line, "not built with"))) {
      keep(pmix_client_failed_, line);
    }
    srun_seen_ = srun_seen_ || (n.finds("srun") && (contains(line, "srun ") || contains(line, "srun:")));
    // Slurm's daemons and commands of different releases (Facts::slurm_version).
    if (n.finds("Credential data mismatch") || n.finds("Incompatible versions of client") ||
        n.finds("Protocol Version ") || n.finds("_version ")) {
      slurm_version_line(line);
    }
    // PMIx's help for a component it could not open ("Framework: psec" then "Component:
    // munge"): its MUNGE security plugin missing where the launcher asks for it.
    if (const std::string_view t = trim(line); t.starts_with("Framework:")) {
      psec_framework_ = trim(t.substr(10)) == "psec";
    } else if (psec_framework_ && t.starts_with("Component:")) {
      if (trim(t.substr(10)) == "munge") keep(munge_, t);
      psec_framework_ = false;
    }
    if ((n.has("socket ") || n.has("clients joined") || n.finds("(gai error") || n.finds("Original timeout was") ||
         n.finds("EADDRINUSE") || n.finds("Error: host not found: ") || n.finds("Timed out initializing process")) &&
        rendezvous_line(line) && keep(rendezvous_, line)) {
      framework_ = true;  // a framework's log
    }
    // Cray MPICH's GTL (its GPU transport) opening a peer rank's buffer by CUDA IPC and
    // failing with CUDA's invalid value: the ranks of the node do not see the same GPUs.
    // (Here, among the short lines' readers, whose needles share one pass over the line.)
    if (n.finds("(GTL DEBUG: ") && contains(line, "IpcOpenMemHandle") &&
        (contains(line, "CUDA_ERROR_INVALID_VALUE") || contains(line, "invalid argument")) &&
        keep(gtl_ipc_failed_, line)) {
      cuda_error_seen_ = true;
    }
    // Lightning's start of its process group, a line per process, and the line once every
    // process registered (lightning_fabric/utilities/distributed.py).
    if (n.finds("Initializing distributed: GLOBAL_RANK: ") && contains(line, ", MEMBER: ") &&
        keep(lightning_members_, line)) {
      framework_ = true;
    }
    if (n.finds("All distributed processes registered")) lightning_registered_ = true;
  }

  // The GPUs, NICs and their kernel modules: CUDA's system not ready, the NVIDIA driver not
  // starting, a GPU lost, the RDMA device plugin, the container runtime's mounts, no subnet
  // manager, modules refused, GPU memory not pinned.
  // Container engines and runtimes, and what they start (device_line's): a failed hook, no
  // NVIDIA runtime, an image without its program or without room, the NIC driver container,
  // the RDMA device plugin, driver files in the image. `nvidia`: the line names nvidia.
  void container_line(std::string_view line, const Needles& n, bool nvidia) {
    // enroot's hooks (Facts::enroot_hook_failed), its NVIDIA one's nvidia-container-cli errors
    // ("nvidia-container-cli: container error: ...", its "CLASS error: " words).
    if (n.finds("hooks.d/") && contains(line, "exited with return code")) keep(enroot_hook_failed_, line);
    if (toolkit_line_) {
      const std::string_view rest = line.substr(line.find("container-cli: ") + 15);
      const size_t error = rest.find(" error: ");
      // Kept as a hook's why, not read: the toolkit's and CUDA's readers read it after this one.
      if (error != std::string_view::npos && error < 24 && rest.substr(0, error).find(' ') == std::string_view::npos &&
          container_cli_errors_.size() < 64) {
        container_cli_errors_.push_back({path_, lines_, std::string(trim(line))});
        quoted_line_ = lines_;
      }
    }
    // An OCI runtime's failed hook (Facts::runtime_hook_failed), and its stderr on the lines after.
    if (hook_stderr_left_ > 0 && !trim(line).empty()) {
      --hook_stderr_left_;
      keep(runtime_hook_failed_, line);
    }
    if (line.find('#') != std::string_view::npos && contains(line, " hook #") &&
        (contains(line, "exit status") || contains(line, "error running"))) {
      // With nvidia-container-cli's words in it, kept without being marked read: CUDA's
      // reader reads its "requirement error" after this one.
      if (contains(line, "nvidia-container-cli")) {
        if (runtime_hook_failed_.size() < 64) runtime_hook_failed_.push_back({path_, lines_, std::string(trim(line))});
        quoted_line_ = lines_;
      } else if (keep(runtime_hook_failed_, line)) {
        framework_ = true;  // a program's log
        hook_stderr_left_ = trim(line).ends_with("stderr:") ? 2 : 0;
      }
    }
    // The container engine with no NVIDIA runtime to start a GPU container with: Docker's
    // "could not select device driver \"\" with capabilities: [[gpu]]" (--gpus, no toolkit
    // registered) and "unknown or invalid runtime name: nvidia", containerd's CRI "no runtime
    // for \"nvidia\" is configured", the kubelet's "RuntimeClass \"nvidia\" not found".
    if (((n.finds("Error response") && contains(line, "could not select device driver") && contains(line, "[[gpu")) ||
         (nvidia && (contains(line, "invalid runtime name: nvidia") ||
                     (contains(line, "no runtime for \"nvidia\"") && contains(line, "is configured")) ||
                     contains(line, "RuntimeClass \"nvidia\" not found")))) &&
        keep(toolkit_missing_, line)) {
      framework_ = true;  // a program's log
    }
    // The image without the program the runtime starts (enroot's switchroot.c, runc's exec).
    if (n.finds("/bin/") && n.has("uch file or directory") &&
        ((contains(line, "enroot-switchroot: failed to execute: ") && contains(line, "No such file or directory")) ||
         (contains(line, "exec: \"/bin/") && contains(line, ": no such file or directory") &&
          contains(line, "stat /bin/"))) &&
        keep(image_no_shell_, line)) {
      framework_ = true;  // a program's log
    }
    // An image written where there is no room: the squashfs pyxis and enroot make (mksquashfs's
    // "Write failed because No space left on device"), the layers Docker, containerd and Podman
    // unpack ("failed to register layer: ... no space left on device", "failed to extract layer
    // sha256:...: write /var/lib/containerd/...: no space left on device", "writing blob: ..."),
    // Apptainer's build ("While performing build: ... no space left on device").
    if (n.has("o space left on device") &&
        (contains(line, "Write failed because No space left on device") || contains(line, "failed to register layer") ||
         contains(line, "failed to extract layer") || contains(line, "writing blob") ||
         contains(line, "/var/lib/docker/") || contains(line, "/var/lib/containerd/") ||
         contains(line, "While performing build")) &&
        keep(image_storage_full_, line)) {
      framework_ = true;  // a program's log
    }
    // NVIDIA's MIG manager (Facts::mig_in_use): a GPU or compute instance it must destroy
    // held by a client.
    if (n.finds("In use by another client") && contains(line, "rror destroying") &&
        (contains(line, "Compute instance") || contains(line, "GPU instance"))) {
      keep(mig_in_use_, line);
    }
    // NVIDIA's GPU driver container (Facts::gpu_driver_in_use), its entrypoint's words.
    if (n.finds("Could not unload NVIDIA driver kernel modules") && contains(line, "driver is in use")) {
      keep(gpu_driver_in_use_, line);  // a container's log (line_kinds)
    }
    // The driver's installer finding a module of a driver already loaded ("ERROR: An NVIDIA kernel
    // module 'nvidia-drm' appears to already be loaded in your kernel.  This may be because it is
    // in use ..."): the same modules it cannot replace.
    if (n.finds("An NVIDIA kernel module '") && contains(line, "appears to already be loaded")) {
      keep(gpu_driver_in_use_, line);
    }
    // NVIDIA's NIC driver container (Facts::nic_driver_storage_modules), in its shell and Go
    // entrypoints' words; a pasted copy may wrap the sentence before "UNLOAD_STORAGE_MODULES".
    if (n.finds("UNLOAD_STORAGE_MODULES") && contains(line, "reload failure due to UNLOAD_STORAGE_MODULES") &&
        keep(nic_driver_storage_modules_, line)) {
      framework_ = true;  // a program's log
    }
    // k8s-rdma-shared-dev-plugin's check that the RDMA subsystem's network namespace mode is
    // shared (its ValidateRdmaSystemMode): "incorrect RDMA subsystem network namespace".
    if (n.finds("RDMA subsystem network namespace") && contains(line, "incorrect RDMA subsystem") &&
        keep(rdma_netns_, line)) {
      framework_ = true;  // a program's log
    }
    // libnvidia-container mounting the host's driver files into a container whose image
    // already has them (src/nvc_mount.c: "file creation failed: PATH: file exists"): an image
    // built with the driver inside.
    if (n.has("file creation failed: ") && contains(line, ": file exists") &&
        (contains(line, "nvidia") || contains(line, "libcuda")) && keep(driver_files_in_image_, line)) {
      framework_ = true;  // a program's log
    }
  }

  // Programs' own words for a build or setting that cannot work with GPU buffers: an MPI
  // without CUDA support asked for it, an inference framework's custom all-reduce failing in
  // CUDA IPC (and the allocator setting that makes its memory unshareable).
  void program_line(std::string_view line, const Needles& n, Facts* facts) {
    if (n.finds("Health check failed")) nhc_line(line);
    // Open MPI's shared-memory BTL refused a cross-memory-attach read of a peer ("[host:24984]
    // Read -1, expected 122880, errno = 1"): EPERM, ptrace's rule (another errno is not it).
    if (n.finds("Read -1, expected ") && trim(line).ends_with(", errno = 1")) {
      const std::string_view t = trim(line);
      push_framework_fact(t.substr(t.find("Read -1, expected ")), line, facts);
    }
    // A process crashed ("Caught signal 11 (Segmentation fault", "*** Process received signal
    // ***", gdb's SIGSEGV), then a frame of NCCL's RAS thread in its backtrace
    // ("rasMsgHandlePeersUpdate()", glued to the address in some printers).
    if (n.finds("Segmentation fault") || n.finds("SIGSEGV") || n.finds("Process received signal")) {
      crash_line_ = lines_;
    } else if (crash_line_ > 0 && lines_ - crash_line_ <= 64 && ras_frame(line)) {
      keep(ras_crash_frames_, line);
    }
    // NCCL's installs as listings name them (ls -l's links, library files, packages of rpm,
    // dpkg and pip: nccl_install), for the versions side by side.
    // DCGM's IMEX check failing ("ErrorCode:DCGM_FR_IMEX_UNHEALTHY GPU:0 PCI:0000:9d:00.0", "IMEX
    // daemon status is -3 (not READY)").
    if (n.finds("IMEX") && (contains(line, "DCGM_FR_IMEX_UNHEALTHY") || contains(line, "IMEX daemon status is"))) {
      keep(imex_not_ready_, line);
    }
    // CUDA's multicast objects (NVLink SHARP's, through NVSwitches) refused: TransformerEngine's
    // own check ("... does not support comm+GEMM overlap with CUDA Multicast. Launch app with
    // UB_SKIPMC=1 ..."), cuMulticastCreate's CUDA_ERROR_NOT_SUPPORTED.
    if (n.finds("Multicast") &&
        ((contains(line, "CUDA Multicast") && contains(line, "does not support")) ||
         (contains(line, "cuMulticast") && (contains(line, "not supported") || contains(line, "NOT_SUPPORTED"))))) {
      keep(multicast_unsupported_, line);
    }
    // And the loader refusing a program for an NCCL symbol its libnccl lacks ("undefined
    // symbol: ncclCommRegister").
    if (n.has("nccl")) {
      if (nccl_install(line)) {
        keep(nccl_library_links_, line);
      } else if (contains(line, "undefined symbol: nccl")) {
        keep(nccl_symbol_missing_, line);
      } else if (contains(line, "libnccl.so") && contains(line, "cannot open shared object")) {
        keep(nccl_library_missing_, line);  // the loader's, for NCCL itself (not libnccl-net.so)
      }
    }
    // A framework finding no NCCL: XLA's "Unable to load NCCL library. Multi-GPU collectives will
    // not work.", PyTorch's "Distributed package doesn't have NCCL built in" (a build without it).
    if (n.finds("NCCL ") && (contains(line, "Unable to load NCCL library") || contains(line, "have NCCL built in"))) {
      keep(nccl_library_missing_, line);
    }
    // Open MPI's help, and Cray MPICH's abort for GPU support asked of a program not linked with
    // its GPU transport layer ("MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL
    // library is not linked").
    if (((n.finds("CUDA support") && contains(line, "The user requested CUDA support")) ||
         (n.finds("GTL library is not linked") && contains(line, "GPU_SUPPORT_ENABLED"))) &&
        keep(mpi_not_cuda_aware_, line)) {
      framework_ = true;  // a program's log
    }
    if (n.finds("BI of ") && contains(line, "does not support the kernel ABI of")) keep(rdma_abi_mismatch_, line);
    // '_' is rarer in logs than the words' first letters: one search for it spares most lines.
    if (line.find('_') == std::string_view::npos) return;
    if (n.finds("mlx5dv_devx_") && contains(line, "Protocol not supported")) keep(rdma_abi_mismatch_, line);
    // A device's name has one ("mlx5_bond_1"), as Gloo's SO_ERROR and its variable do.
    if (n.finds("No suitable GID found on ") && keep(roce_gid_unusable_, line)) framework_ = true;
    if (n.finds("SO_ERROR: ")) {
      if (contains(line, "remote=[")) {
        keep(gloo_connect_failed_, line);
      } else {  // wrapped before its address: launcher_line joins the next line
        gloo_wrapped_ = lines_;
        gloo_wrapped_text_ = std::string(trim(line));
      }
    }
    // "Unable to resolve hostname to a (local) address. Using the loopback address as fallback.
    // Manually set the network interface with GLOO_SOCKET_IFNAME." (its last line, wrapped).
    if (n.finds("GLOO_SOCKET_IFNAME") && contains(line, "fallback")) keep(gloo_loopback_, line);
    if (n.finds("TL_SHM ERROR") && keep(ucc_shm_failed_, line)) framework_ = true;
    if (n.finds("_all_reduce") && contains(line, "custom_all_reduce") &&
        (contains(line, "Cuda error") || contains(line, "CUDA error")) && keep(custom_allreduce_, line)) {
      framework_ = true;
    }
    if (n.finds("_segments:") &&
        (contains(line, "expandable_segments:True") || contains(line, "expandable_segments:true"))) {
      keep(expandable_segments_, line);
    }
    // A program registering memory through libfabric itself, refused ("fi_mr_regattr failed for
    // GPU memory ...: Operation not supported"): read as NCCL's OFI plugin's refusal is. NCCL's
    // and libfabric's own lines are read as theirs.
    if (n.finds("fi_mr_reg") && contains(line, "fail") && !contains(line, "NCCL") && !contains(line, "libfabric:")) {
      push_framework_fact(trim(line), line, facts);
      framework_ = true;
    }
  }

  void device_line(std::string_view line, const Needles& n) {
    const std::string_view t = trim(line);
    // Accelerate's check of the GPUs' model (accelerate/state.py): "NotImplementedError: Using
    // RTX 4000 series doesn't support faster communication broadband via P2P or IB. Please set
    // `NCCL_P2P_DISABLE="1"` and `NCCL_IB_DISABLE="1" or use `accelerate launch` ...".
    if (n.finds("RTX 4000 series doesn't support") && contains(line, "P2P") && keep(framework_p2p_refused_, line)) {
      cuda_error_seen_ = true;  // a framework's error
    }
    // ibdiagnet's link checks ("-E- Link: S0c42a1/N0c42a1/P19<-->switch-004/U1/P20 - Unexpected
    // actual link speed 25", or "... link width 1x"), and a port whose rate keeps it out of
    // IPoIB's multicast group ("-W- Port ... can not join" then "    due to rate:2.5Gbps <
    // group:10Gbps"): links running below what the fabric expects of them.
    if (((!t.empty() && t.front() == '-' && t.starts_with("-E- Link: ") && contains(t, "Unexpected actual link ")) ||
         (n.finds("< group:") && contains(line, "due to rate:"))) &&
        keep(ibdiag_links_, line)) {
      rdma_ = true;
    }
    // perftest with a GPU buffer (--use_cuda): "allocated GPU buffer of a 16777216 address at
    // 0x... for type CUDA_MEM_DEVICE" (before 4.5: "allocated 16777216 bytes of GPU buffer at
    // 0x..."), then its registration refused with EFAULT ("Couldn't allocate MR with error=14"):
    // the NIC cannot pin that GPU memory.
    const char first = t.empty() ? '\0' : t.front();  // a cheap gate for the readers of line heads below
    if (first == 'a' && t.starts_with("allocated ") && contains(t, "GPU buffer")) perftest_gpu_buffer_ = true;
    if (perftest_gpu_buffer_ && n.finds("Couldn't allocate MR with error=14") && keep(gpu_mr_refused_, line)) {
      rdma_ = true;
    }
    // Broadcom's niccli reading a NIC's NVM option (`niccli -i N nvm -getoption support_rdma`):
    // "support_rdma = False", RoCE off in the NIC's firmware.
    if (first == 's' && t.starts_with("support_rdma") && contains(t, "= False")) {
      keep(nic_rdma_disabled_, line);
    }
    if (n.finds("FAIL ")) {
      if ((t.starts_with("FAIL ACS for ") && contains(t, " != ")) ||
          (t.starts_with("FAIL Kernel iommu_group for DMA ") && contains(t, " are not equal"))) {
        keep(rdma_topo_failed_, line);
      }
    }
    if ((n.finds("yet initiali") || n.finds("NotReady") || n.finds("NOT_READY")) &&
        (contains(line, "system not yet initiali") || contains(line, "cudaErrorSystemNotReady") ||
         contains(line, "CUDA_ERROR_SYSTEM_NOT_READY")) &&
        keep(cuda_not_ready_, line)) {
      cuda_error_seen_ = true;
    }
    // The NVIDIA driver not starting, or starting without its GPUs: nvidia-smi's and
    // modprobe's words, and the driver's own at probe (kernel-open/nvidia/nv-pci.c,
    // src/nvidia/arch/nvalloc/unix/src/osapi.c, osinit.c).
    const bool nvidia = n.has("nvidia");
    if ((n.finds("NVIDIA") || nvidia || n.finds("NVRM") || n.finds("No devices were found") ||
         n.finds("Driver Not Loaded")) &&
        gpu_start_line(line)) {
      keep(gpu_start_, line);
    }
    container_line(line, n, nvidia);
    // A kernel module's build failing (modpost's errors, DKMS's summary of make.log), and
    // MLNX_OFED's installer failing on its kernel package ("Error: mlnx-ofed-kernel-modules
    // installation failed!", "Failed to install mlnx-ofed-kernel-dkms DEB"), its modules built for
    // the running kernel.
    if (((n.finds("ERROR: modpost: ") &&
          (contains(line, "uses GPL-only symbol") || (contains(line, ".ko]") && contains(line, " undefined!")))) ||
         (n.finds("Bad return status for module build") && contains(line, "on kernel")) ||
         (n.finds("Building module") && contains(line, "bad exit status")) ||
         ((n.finds("Error: mlnx-ofed-kernel") || n.finds("Failed to install mlnx-ofed-kernel")) &&
          (contains(line, "installation failed") || contains(line, "Failed to install"))) ||
         // nvidia-installer without the running kernel's headers: "ERROR: Unable to find the kernel
         // source tree for the currently running kernel."
         n.finds("Unable to find the kernel source tree for the currently running kernel")) &&
        keep(module_build_failed_, line)) {
      framework_ = true;  // a program's log
    }
    // modprobe without a GPU or RDMA driver's module for the running kernel ("modprobe: FATAL:
    // Module nvidia-peermem not found in directory /lib/modules/6.8.0-1059-azure").
    if (n.finds("FATAL: Module ") && contains(line, " not found in directory /lib/modules/") &&
        gpu_or_rdma_module(line)) {
      keep(module_not_found_, line);
    }
    // infiniband-diags finding no subnet manager on a port ("sa_get_handle: No SM/SA found
    // on port :1"): nothing configured the port, or it is down.
    if (n.finds("No SM/SA found on port") && keep(no_sm_, line)) ibdiags_ = true;
    // nvidia-smi naming a GPU it cannot reach: "Unable to determine the device handle for GPU
    // 0000:91:00.0: GPU is lost. Reboot the system to recover this GPU", or with NVML's
    // "Unknown Error" (a GPU fallen off the bus: gpud's Xid 79 notes show this line).
    if (n.finds("GPU is lost") ||
        (n.finds("Unable to determine the device handle for GPU") && contains(line, ": Unknown Error"))) {
      keep(gpu_lost_, line);
    }
    // The kernel refusing a module built against another version of a module it uses
    // (kernel/module: "nvidia_peermem: disagrees about version of symbol
    // ib_register_peer_memory_client"): nvidia-peermem or nv_peer_mem against another
    // ib_core (MOFED or DOCA replaced), mlx5_ib against another mlx5_core.
    // Its other words for it: the kernel's "nv_peer_mem: Unknown symbol ib_register_peer_memory_
    // client (err -2)" and modprobe's "could not insert 'nv_peer_mem': Unknown symbol in module".
    if ((n.finds("disagrees about version of symbol") ||
         (n.finds("Unknown symbol") && (contains(line, "could not insert '") || contains(line, " (err ")))) &&
        keep(module_abi_, line)) {
      kernel_ = true;
    }
    if (n.finds("_p2p_get_pages") && contains(line, "fail") && keep(pin_failed_, line)) {
      kernel_ = true;  // a kernel module's line (gdrdrv, nvidia-peermem), with or without dmesg's stamp
    }
  }

  // A locked-memory limit: a listing's line (memlock_limit), or the value on the line after
  // a command line that ends in `ulimit -l` (kbytes, as bash and sh print it).
  void memlock_line(std::string_view line, Facts* facts) {
    const std::string_view t = trim(line);
    std::optional<uint64_t> bytes;
    if (ulimit_l_next_ && !t.empty()) {
      ulimit_l_next_ = false;
      uint64_t kb = 0;
      if (t == "unlimited")
        bytes = std::numeric_limits<uint64_t>::max();
      else if (parse_u64(t, kb))
        bytes = kb * 1024;
    } else if (const size_t at =
                   t.size() < kShortLine ? t.find("(ulimit -l) to 'unlimited' (current: ") : std::string_view::npos;
               at != std::string_view::npos) {
      // UCX's, after a verbs call refused with ENOMEM: "... failed: Cannot allocate memory :
      // Please set max locked memory (ulimit -l) to 'unlimited' (current: 8192 kbytes)".
      const auto words = split_ws(t.substr(at + 37));
      uint64_t kb = 0;
      if (words.size() >= 2 && words[1].starts_with("kbytes") && parse_u64(words[0], kb)) bytes = kb * 1024;
    } else if (t.size() < 256 && t.find("RLIMIT_MEMLOCK too small") != std::string_view::npos) {
      // Intel MPI's DAPL provider at start ("[0] DAPL startup: RLIMIT_MEMLOCK too small"): too
      // small by its own measure, the value unsaid (0 here).
      bytes = 0;
    } else if (t.size() < 256) {
      bytes = memlock_limit(t);
      ulimit_l_next_ =
          t == "ulimit -l" || t.ends_with(" ulimit -l") || t.ends_with("$ulimit -l") || t.ends_with("#ulimit -l");
    }
    if (bytes && facts && facts->memlock.size() < kMaxKeptLines) {
      limits_seen_ = true;
      facts->memlock.push_back({{path_, lines_, std::string(t)}, *bytes});
    }
  }

  // CUDA's errors that point at the machine, in a line of any program but NCCL and a
  // framework's NCCL error (those are read as NCCL's): "RuntimeError: CUDA error: invalid
  // device ordinal", "code=711(cudaErrorTooManyPeers)". True where the line is one.
  bool cuda_error_line(std::string_view line, Facts* facts) {
    if (line.size() > kShortLine) return false;
    // CUDA named, with an error or failure ("CUDA error:", "cudaError", "CUDA_ERROR_", "CUDA
    // failure"): a traceback's "torch/cuda/__init__.py" lines pass over the table.
    // Also a framework's own words for CUDA's 101 on a line that names CUDA ("[ERROR] DEVICE
    // [.../gpu/cuda_driver.cc:245] SetDevice] SetDevice for id:7 failed, ret[101], invalid device
    // ordinal.").
    // And CUDA's sentences a framework raises bare ("RuntimeError: CUDA driver version is
    // insufficient for CUDA runtime version", PyTorch's "RuntimeError: No CUDA GPUs are available").
    if (!cuda_sentence(line) && (!cuda_named_ || !cuda_error_word(line) || !names_cuda_error(line)) &&
        !(cuda_named_ &&
          (contains(line, "invalid device ordinal") || contains(line, "CUDA driver version is insufficient") ||
           contains(line, "No CUDA GPUs are available")))) {
      return false;
    }
    cuda_error_seen_ = true;  // a file of only such lines is a framework's log
    if (facts && cuda_errors_.size() < kMaxKeptLines) cuda_errors_.push_back({path_, lines_, std::string(trim(line))});
    return true;
  }

  void cuda_ecc_line(std::string_view line, Facts* facts) {
    if (!facts || cuda_ecc_.size() >= kMaxKeptLines || line.find("ECC") == std::string_view::npos) return;
    if (contains(line, "uncorrectable ECC error encountered") || contains(line, "CUDA_ERROR_ECC_UNCORRECTABLE") ||
        contains(line, "cudaErrorECCUncorrectable")) {
      cuda_ecc_.push_back({path_, lines_, std::string(trim(line))});
      cuda_error_seen_ = true;
    }
  }

  // nvidia-smi -q's GPU memory repair: under "Remapped Rows" (A100 and later) or "Retired
  // Pages" (earlier), a "Pending : Yes" waits for the GPU's reset; "Remapping Failure
  // Occurred : Yes" means its spare rows ran out. True for the lines taken.
  bool gpu_memory_line(std::string_view line, Facts* facts) {
    const std::string_view t = trim(line);
    const size_t indent = line.find_first_not_of(" \t");
    if (t == "Remapped Rows" || t == "Retired Pages" || t == "Fabric") {
      smi_query_ = true;
      smi_section_left_ = 10;
      smi_indent_ = indent;
      fabric_state_.reset();
      return true;
    }
    if (smi_section_left_ == 0) return false;
    --smi_section_left_;
    if (indent == std::string_view::npos || indent <= smi_indent_) {  // the next section
      smi_section_left_ = 0;
      return false;
    }
    const size_t colon = t.find(':');
    if (colon == std::string_view::npos) return false;
    const std::string_view key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
    const bool yes = value.starts_with("Yes");
    if (facts && yes && (key == "Pending" || key == "Pending Page Blacklist" || key == "Pending Page Retirement") &&
        repair_pending_.size() < kMaxKeptLines) {
      repair_pending_.push_back({path_, lines_, std::string(t)});
    }
    if (facts && yes && key == "Remapping Failure Occurred" && remap_failed_.size() < kMaxKeptLines) {
      remap_failed_.push_back({path_, lines_, std::string(t)});
    }
    // "Fabric": the GPU's registration with the NVLink fabric (Fabric Manager's, or a
    // multi-node NVLink domain's): "State : Completed", then "Status : Success" where it
    // registered; N/A where the GPU has no such fabric.
    if (key == "State") fabric_state_ = Quote{path_, lines_, std::string(t)};
    if (facts && key == "Status" && value != "Success" && value != "N/A" && !value.empty() && fabric_state_ &&
        gpu_fabric_failed_.size() + 2 <= kMaxKeptLines) {
      gpu_fabric_failed_.push_back(*fabric_state_);
      gpu_fabric_failed_.push_back({path_, lines_, std::string(t)});
    }
    return true;
  }

  // nvidia-smi -q's "ECC Errors": under its "Volatile" part (since the driver loaded; not
  // "Aggregate", the board's lifetime), an uncorrectable count above 0: "DRAM Uncorrectable :
  // 2", "SRAM Uncorrectable Parity : 1", or older drivers' "Double Bit" with its "Device
  // Memory" and "Total". Kept as the table's volatile count is. True for the section's lines.
  bool smi_ecc_line(std::string_view line, Facts* facts) {
    const std::string_view t = trim(line);
    const size_t indent = line.find_first_not_of(" \t");
    if (t == "ECC Errors") {
      smi_query_ = true;
      ecc_indent_ = indent;
      ecc_part_ = 1;
      return true;
    }
    if (ecc_part_ == 0) return false;
    if (indent == std::string_view::npos || indent <= ecc_indent_ || t == "...") {
      ecc_part_ = 0;
      return false;
    }
    if (t == "Volatile" || t == "Aggregate") {
      ecc_part_ = t == "Volatile" ? 2 : 1;
      ecc_double_ = false;
      return true;
    }
    if (t == "Single Bit" || t == "Double Bit") {
      ecc_double_ = t == "Double Bit";
      return true;
    }
    const size_t colon = t.find(':');
    if (colon == std::string_view::npos) return true;
    const std::string_view key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
    uint64_t n = 0;
    if (facts && ecc_part_ == 2 && (ecc_double_ || contains(key, "Uncorrectable")) && parse_u64(value, n) && n > 0 &&
        smi_uncorrectable_.size() < kMaxKeptLines) {
      smi_uncorrectable_.push_back({{path_, lines_, std::string(t)}, smi_gpu_.size() > 4 ? smi_gpu_.substr(4) : ""});
    }
    return true;
  }

  // nvidia-smi -q's "Clocks Event Reasons" (before driver 535 "Clocks Throttle Reasons"):
  // each reason "Active" or "Not Active"; the slowdowns forced on the GPU by hardware or
  // heat are kept, by the GPU of the "GPU 00000000:18:00.0" line above. The power cap,
  // idle and application clocks are how a healthy GPU runs.
  bool smi_clocks_line(std::string_view line, Facts* facts) {
    const std::string_view t = trim(line);
    if (t == "Clocks Event Reasons" || t == "Clocks Throttle Reasons") {
      smi_query_ = true;
      clocks_indent_ = line.find_first_not_of(" \t");
      clocks_open_ = true;
      return true;
    }
    if (!clocks_open_) return false;
    const size_t indent = line.find_first_not_of(" \t");
    if (indent == std::string_view::npos || indent <= clocks_indent_ || t == "...") {
      clocks_open_ = false;
      return false;
    }
    const size_t colon = t.find(':');
    if (colon == std::string_view::npos) return true;
    const std::string_view key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
    const bool slowdown = key == "HW Slowdown" || key == "HW Thermal Slowdown" || key == "HW Power Brake Slowdown" ||
                          key == "SW Thermal Slowdown";
    if (facts && slowdown && value == "Active" && smi_slowdown_.size() < kMaxKeptLines) {
      smi_slowdown_.push_back({{path_, lines_, std::string(t)}, smi_gpu_.size() > 4 ? smi_gpu_.substr(4) : ""});
    }
    return true;
  }

  // nvidia-smi -q's "GPU Link Info": "PCIe Generation" then "Link Width", each with its
  // "Max" and "Current" (newer drivers add "Device Max", "Host Max" and "Device Current",
  // which are left). The GPU is the "GPU 00000000:18:00.0" line above. True for the lines
  // taken.
  bool smi_pcie_line(std::string_view line, Facts* facts) {
    const std::string_view t = trim(line);
    const size_t indent = line.find_first_not_of(" \t");
    if (t.starts_with("GPU 0") && indent == 0 && t.size() < 24 && t.find(':') != std::string_view::npos) {
      smi_gpu_ = std::string(t);
      return false;
    }
    if (t == "GPU Link Info") {
      smi_query_ = true;
      smi_link_ = PcieLinkFact{};
      smi_link_.may_idle = true;
      smi_link_.device =
          smi_gpu_.empty() ? std::string("a GPU (its \"GPU 0000...\" line is not in the paste)") : smi_gpu_;
      smi_link_indent_ = indent;
      smi_link_key_ = 0;
      smi_link_open_ = true;
      return true;
    }
    if (!smi_link_open_) return false;
    if (indent == std::string_view::npos || indent <= smi_link_indent_ || t == "..." || t.empty()) {
      smi_link_open_ = false;  // the next section
      return false;
    }
    if (t == "PCIe Generation" || t == "Link Width") {
      smi_link_key_ = t == "Link Width" ? 2 : 1;
      return true;
    }
    const size_t colon = t.find(':');
    if (colon == std::string_view::npos || smi_link_key_ == 0) return false;
    const std::string_view key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
    if (key != "Max" && key != "Current") return key.starts_with("Device") || key.starts_with("Host");
    int n = 0;
    std::from_chars(value.data(), value.data() + value.size(), n);
    const bool max = key == "Max";
    if (smi_link_key_ == 1) {
      static constexpr double kGts[] = {0, 2.5, 5, 8, 16, 32, 64};
      const double gts = n > 0 && n < 7 ? kGts[n] : 0;
      (max ? smi_link_.cap_gts : smi_link_.sta_gts) = gts;
    } else {
      (max ? smi_link_.cap_width : smi_link_.sta_width) = n;
    }
    if (max && smi_link_key_ == 2) smi_link_.capability = {path_, lines_, std::string(t)};
    if (!max && smi_link_key_ == 2) {
      smi_link_.where = {path_, lines_,
                         fmt::format("{}: PCIe gen {}, Link Width Current: {}x (Max: {}x)", smi_link_.device,
                                     gen_of(smi_link_.sta_gts), smi_link_.sta_width, smi_link_.cap_width)};
      if (facts && pcie_links_.size() < kMaxKeptLines) pcie_links_.push_back(smi_link_);
      smi_link_open_ = false;
    }
    return true;
  }

  // iblinkinfo (infiniband-diags): a node's header ("Switch: 0x248a0703... NAME:", "CA:
  // NAME:"), then a line per port: "LID PORT[EXT] ==( WIDTH SPEED Gbps STATE/ PHYS)==> LID
  // PORT[EXT] "REMOTE" (MSG)", or "==(  Down/ Polling)==>" for a port without a link. Kept:
  // the links iblinkinfo says could run wider or faster, and links up but not Active. True
  // for its lines.
  bool iblinkinfo_line(std::string_view t, Facts* facts) {
    if ((t.starts_with("Switch: 0x") || t.starts_with("CA: ")) && t.ends_with(":")) {
      std::string_view name = t.substr(t.find(' ') + 1);
      name.remove_suffix(1);
      if (name.starts_with("0x")) name = name.substr(std::min(name.size(), name.find(' ') + 1));
      iblink_node_ = std::string(trim(name));
      return true;
    }
    if (t.find('[') == std::string_view::npos) return false;  // every port line has its "[  ]"
    const size_t open = t.find("==(");
    if (open == std::string_view::npos) return false;
    const size_t close = t.find(")==>", open);
    if (close == std::string_view::npos) return false;
    iblinkinfo_ = true;
    if (!facts || ib_links_.size() >= kMaxKeptLines) return true;
    IbLinkFact f;
    f.where = {path_, lines_, std::string(t)};
    f.node = iblink_node_;
    // "29    3[  ]", "0x0002c90300a1b2c3     12    1[  ]": the port is the number before '['.
    const std::string_view here = t.substr(0, open);
    if (const size_t bracket = here.rfind('['); bracket != std::string_view::npos) {
      const auto words = split_ws(here.substr(0, bracket));
      if (!words.empty()) f.port = std::string(words.back());
    }
    const std::string_view link = t.substr(open + 3, close - open - 3);
    const size_t slash = link.rfind('/');
    if (slash == std::string_view::npos) return true;
    f.phys = std::string(trim(link.substr(slash + 1)));
    const auto words = split_ws(link.substr(0, slash));
    if (words.empty()) return true;
    f.state = std::string(words.back());
    if (words.size() >= 3) {
      f.width = std::string(words[0]);
      f.speed = fmt::format("{}", fmt::join(words.begin() + 1, words.end() - 1, " "));
    }
    const std::string_view far = t.substr(close + 4);
    if (const size_t q = far.find('"'); q != std::string_view::npos) {
      const size_t q2 = far.find('"', q + 1);
      if (q2 != std::string_view::npos) f.remote = std::string(far.substr(q + 1, q2 - q - 1));
    }
    if (const size_t could = far.find("Could be "); could != std::string_view::npos) {
      std::string_view msg = far.substr(could);
      if (msg.ends_with(")")) msg.remove_suffix(1);
      f.could_be = std::string(trim(msg));
    }
    const bool up_not_active =
        f.phys == "LinkUp" && (f.state == "Initialize" || f.state == "Init" || f.state == "Armed");
    if ((!f.could_be.empty() && f.state == "Active") || up_not_active) ib_links_.push_back(std::move(f));
    return true;
  }

  // DCGM's diagnostic table (dcgmi diag): "| Diagnostic | Result |", section rows
  // ("+-----  Hardware  ---+---+"), then a row per test, "| GPU Memory | Pass - GPUs: 1, 2 |",
  // with per-GPU results on rows of an empty name ("|   | Fail - GPU: 0 |"), and details
  // on "| Warning | ... |", "| Error | ... |" and "| Info | ... |" rows, wrapped at the
  // column's width mid-word onto rows of an empty name. True for the table's rows.
  bool dcgm_diag_line(std::string_view t, Facts* facts) {
    const bool taken = dcgm_row(t, facts);
    dcgm_seen_ |= taken && dcgm_;
    return taken;
  }
  bool dcgm_row(std::string_view t, Facts* facts) {
    if (t.size() < 8 || (t.front() != '|' && t.front() != '+')) {
      dcgm_ = false;
      return false;
    }
    if (t.front() == '+' || t.starts_with("|-----") || t.starts_with("|=")) {  // a rule or a section
      const size_t at = t.find("-----  ");
      const bool section = at != std::string_view::npos;
      if (section) {  // "+-----  Hardware  ----------+---...": the section's name
        dcgm_ = true;
        const std::string_view rest = t.substr(at + 7);
        dcgm_section_ = std::string(trim(rest.substr(0, rest.find("  "))));
        dcgm_test_.clear();
      }
      dcgm_detail_ = -1;
      return dcgm_ || section;
    }
    const size_t bar = t.find('|', 1);
    if (bar == std::string_view::npos) return false;
    const std::string_view name = trim(t.substr(1, bar - 1));
    std::string_view cell = t.substr(bar + 1);
    if (cell.ends_with('|')) cell.remove_suffix(1);
    if (!cell.empty() && cell.front() == ' ') cell.remove_prefix(1);  // the column's padding
    while (!cell.empty() && cell.back() == ' ') cell.remove_suffix(1);
    const std::string_view value = trim(cell);
    const auto result_of = [](std::string_view v) -> std::string_view {
      for (std::string_view r : {"Pass", "Fail", "FAIL", "Warn", "Skip", "Not Run"}) {
        if (v == r || v.starts_with(std::string(r) + " - ")) return r;
      }
      return {};
    };
    const std::string_view result = result_of(value);
    if (!dcgm_) {
      if (name == "Diagnostic" && value == "Result") {
        dcgm_ = true;
        return true;
      }
      // A row grepped out alone: DCGM's own per-GPU result form.
      if (result.empty() || (!contains(value, " - All") && !contains(value, " - GPU"))) return false;
      dcgm_ = true;
    }
    if (name == "Warning" || name == "Error" || name == "Info") {
      dcgm_detail_ = -1;
      if (name == "Info" || !facts) return true;
      // A detail of the failing test above; else (the test above passed, or none since the
      // section's row) the section's own, as a deployment check's "| Error | ..." is.
      if (dcgm_diag_.empty() || dcgm_test_.empty() || dcgm_diag_.back().test != dcgm_test_ ||
          !dcgm_diag_.back().detail.empty()) {
        if (dcgm_diag_.size() >= kMaxKeptLines) return true;
        dcgm_diag_.push_back({{path_, lines_, std::string(t)},
                              dcgm_section_.empty() ? "Diagnostic" : dcgm_section_,
                              name == "Error" ? "Error" : "Warn",
                              "",
                              ""});
      }
      dcgm_diag_.back().detail = std::string(cell);
      dcgm_detail_ = static_cast<int>(dcgm_diag_.size()) - 1;
      return true;
    }
    if (name.empty() && result.empty()) {  // a detail's wrapped text
      if (dcgm_detail_ >= 0) dcgm_diag_[static_cast<size_t>(dcgm_detail_)].detail += cell;
      return true;
    }
    dcgm_detail_ = -1;
    if (!name.empty()) dcgm_test_ = std::string(name);
    if (facts && (result == "Fail" || result == "FAIL" || result == "Warn") && dcgm_diag_.size() < kMaxKeptLines) {
      const size_t dash = value.find(" - ");
      dcgm_diag_.push_back({{path_, lines_, std::string(t)},
                            dcgm_test_,
                            result == "Warn" ? "Warn" : "Fail",
                            dash == std::string_view::npos ? "" : std::string(value.substr(dash + 3)),
                            ""});
    }
    return true;
  }

  // nvidia-smi's table: a GPU's first row, "|   0  NVIDIA H100 80GB HBM3   On  |
  // 00000000:18:00.0 Off |                    0 |" (its last field the volatile
  // uncorrectable ECC count: a number, N/A, or ERR!), and the two rows below it. "ERR!"
  // in any of them is a value NVML could not read from the GPU. True for a GPU's rows.
  bool smi_table_line(std::string_view t, Facts* facts) {
    if (t.size() < 20 || t.front() != '|' || t.back() != '|') {
      smi_row_left_ = 0;
      return false;
    }
    std::vector<std::string_view> fields;
    for (size_t at = 1; at < t.size();) {
      const size_t bar = t.find('|', at);
      fields.push_back(trim(t.substr(at, bar - at)));
      at = bar + 1;
    }
    const auto bus_id = [](std::string_view f) {  // "00000000:18:00.0 Off"
      return f.size() >= 16 && f[8] == ':' && f[11] == ':' && f[14] == '.' &&
             std::all_of(f.begin(), f.begin() + 8, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    };
    const bool row = fields.size() == 3 && bus_id(fields[1]);
    if (!row && smi_row_left_ == 0) return false;
    if (row) {
      smi_row_left_ = 3;
      smi_row_gpu_ = std::string(fields[1].substr(0, 16));
      smi_table_ = true;
      const std::string_view ecc = fields[2];
      uint64_t n = 0;
      if (facts && parse_u64(ecc, n) && n > 0 && smi_uncorrectable_.size() < kMaxKeptLines) {
        smi_uncorrectable_.push_back({{path_, lines_, std::string(t)}, smi_row_gpu_});
      }
    }
    --smi_row_left_;
    if (facts && contains(t, "ERR!") && smi_gpu_err_.size() < kMaxKeptLines) {
      smi_gpu_err_.push_back({{path_, lines_, std::string(t)}, smi_row_gpu_});
    }
    return true;
  }

  // The kernel's PCI attributes as `grep . /sys/bus/pci/devices/*/*link*` prints them:
  // ".../0000:3b:00.0/max_link_width:16", ".../current_link_speed:8.0 GT/s PCIe". A device's
  // current pair against its max pair, once its four are read. True for the lines taken.
  bool sysfs_link_line(std::string_view t, Facts* facts) {
    if (!t.starts_with("/sys/") || t.find("_link_") == std::string_view::npos) return false;
    const size_t colon = t.rfind(':');
    const size_t slash = t.rfind('/', colon);
    if (colon == std::string_view::npos || slash == std::string_view::npos) return false;
    const std::string_view attr = t.substr(slash + 1, colon - slash - 1);
    const bool cur = attr.starts_with("current_link_"), max = attr.starts_with("max_link_");
    if (!cur && !max) return false;
    const bool width = attr.ends_with("width");
    if (!width && !attr.ends_with("speed")) return false;
    const std::string_view dir = t.substr(0, slash);
    const std::string device(dir.substr(dir.rfind('/') + 1));
    if (device != sysfs_link_.device) {
      sysfs_link_ = PcieLinkFact{};
      sysfs_link_.device = device;
      sysfs_link_.may_idle = true;  // what the device is, sysfs's paths do not say
      sysfs_link_seen_ = 0;
    }
    const std::string_view value = trim(t.substr(colon + 1));
    double v = 0;
    std::from_chars(value.data(), value.data() + value.size(), v);
    if (width) {
      (cur ? sysfs_link_.sta_width : sysfs_link_.cap_width) = static_cast<int>(v);
    } else {
      (cur ? sysfs_link_.sta_gts : sysfs_link_.cap_gts) = v;
    }
    (cur ? sysfs_link_.where : sysfs_link_.capability) = {path_, lines_, std::string(t)};
    sysfs_link_seen_ |= (cur ? 1 : 2) << (width ? 2 : 0);
    lspci_ = true;
    if (sysfs_link_seen_ == 15 && facts && pcie_links_.size() < kMaxKeptLines) {
      pcie_links_.push_back(sysfs_link_);
      sysfs_link_seen_ = 0;
    }
    return true;
  }

  // An RDMA device's GUID of zeros, and the device names the listings give above them:
  // ibstat's "CA 'mlx5_0'", ibv_devinfo's "hca_id:\tmlx5_0", ibv_devices' "mlx5_2 0000...".
  // True for a zero GUID's line (the other lines stay for the RDMA readers).
  bool zero_guid_line(std::string_view t, Facts* facts) {
    if (t.starts_with("CA '") && t.size() > 5) {
      rdma_device_ = std::string(t.substr(4, t.find('\'', 4) - 4));
      return false;
    }
    if (t.starts_with("hca_id:")) {
      rdma_device_ = std::string(trim(t.substr(7)));
      return false;
    }
    // The InfiniBand SR-IOV CNI refusing a VF without GUIDs (its "VF ibp192s0v10 GUID is not
    // valid", the GUID read as zeros), in a pod's events.
    if (const size_t at = t.find("GUID is not valid"); at != std::string_view::npos) {
      std::string device;
      if (const size_t vf = t.rfind("VF ", at); vf != std::string_view::npos) {
        device = std::string(trim(t.substr(vf + 3, at - vf - 3)));
      }
      if (facts && zero_guids_.size() < kMaxKeptLines) zero_guids_.push_back({{path_, lines_, std::string(t)}, device});
      return true;
    }
    std::string device;
    std::string_view value;
    if (t.starts_with("Node GUID:") || t.starts_with("Port GUID:") || t.starts_with("node_guid:")) {
      device = rdma_device_;
      value = trim(t.substr(t.find(':') + 1));
      if (value.starts_with("0x")) value.remove_prefix(2);
    } else {  // ibv_devices, below its header: "mlx5_2 0000000000000000" (a name, a 16-digit GUID)
      if (t.starts_with("device") && contains(t, "node GUID")) {
        ibv_devices_ = rdma_ = true;
        return false;
      }
      if (!ibv_devices_) return false;
      const size_t space = t.find_first_of(" \t");
      if (space == std::string_view::npos || space == 0) return false;
      value = trim(t.substr(space));
      if (value.size() != 16 || !std::all_of(value.begin(), value.end(),
                                             [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); })) {
        return false;
      }
      device = std::string(t.substr(0, space));
    }
    if (value.empty() || !std::all_of(value.begin(), value.end(), [](char c) { return c == '0' || c == ':'; })) {
      return false;
    }
    rdma_ = true;
    if (facts && zero_guids_.size() < kMaxKeptLines) zero_guids_.push_back({{path_, lines_, std::string(t)}, device});
    return true;
  }

  // sichek's check of the PCIe tree above a device (scitix/sichek): "mlx5_3 upstream link
  // 0000:16:02.0->0000:17:00.0 current 16GT/s < cap 32GT/s", a link on the device's path
  // trained below what both its ends support. True for such a line.
  bool sichek_link_line(std::string_view t, Facts* facts) {
    if (t.size() > 300) return false;
    size_t cap = t.find("< cap ");  // '<' is rare: its memchr skips most lines at once
    if (cap == std::string_view::npos || cap < 5 || t.substr(cap - 5, 5) != "GT/s ") return false;
    cap -= 5;
    const size_t cur = t.rfind(" current ", cap);
    if (cur == std::string_view::npos || t.find(" link ") > cur) return false;
    PcieLinkFact l;
    const std::string_view sta = t.substr(cur + 9, cap - cur - 9);
    const std::string_view rest = t.substr(cap + 11);
    if (std::from_chars(sta.data(), sta.data() + sta.size(), l.sta_gts).ec != std::errc() ||
        std::from_chars(rest.data(), rest.data() + rest.size(), l.cap_gts).ec != std::errc() ||
        l.sta_gts >= l.cap_gts) {
      return false;
    }
    lspci_ = true;
    if (!facts || pcie_links_.size() >= kMaxKeptLines) return true;
    l.device = std::string(t.substr(0, cur));
    l.where = {path_, lines_, std::string(t)};
    pcie_links_.push_back(std::move(l));
    return true;
  }

  // perftest's header (ib_write_bw, ib_send_bw ...): "Link type : Ethernet" for a RoCE
  // port, then each side's "GID: 00:00:...": all zeros is no RoCE GID for the port. True for
  // such a GID line.
  bool perftest_gid_line(std::string_view t, Facts* facts) {
    if (t.starts_with("Link type")) {
      const size_t colon = t.find(':');
      if (colon != std::string_view::npos) perftest_ethernet_ = trim(t.substr(colon + 1)) == "Ethernet";
      return false;
    }
    if (!perftest_ethernet_ || !t.starts_with("GID:")) return false;
    const std::string_view gid = trim(t.substr(4));
    if (gid.size() < 16 || !std::all_of(gid.begin(), gid.end(), [](char c) { return c == '0' || c == ':'; })) {
      return false;
    }
    rdma_ = true;
    if (facts && roce_gid_empty_.size() < kMaxKeptLines) roce_gid_empty_.push_back({path_, lines_, std::string(t)});
    return true;
  }

  // lspci -vv: a device's line, then its LnkCap and LnkSta (LnkCap2 and LnkSta2 are other
  // lines). A LnkSta pairs with the LnkCap above it in the same device; a device line
  // starts the next. True for the lines taken.
  bool lspci_line(std::string_view t, Facts* facts) {
    if (t.starts_with("LnkCap:")) {
      lspci_ = true;
      cap_ = PcieLinkFact{};
      cap_.capability = {path_, lines_, std::string(t)};
      cap_.device = lspci_device_;
      cap_.may_idle = contains(lspci_device_, "VGA compatible controller") || contains(lspci_device_, "3D controller");
      lspci_link_fields(t, cap_.cap_gts, cap_.cap_width);
      return true;
    }
    if (t.starts_with("LnkSta:")) {
      lspci_ = true;
      // pciutils marks a field below the device's capability "(downgraded)" (not on root and
      // downstream ports, where a narrower device below is normal), so a LnkSta grepped out
      // alone still says so.
      const size_t width_at = t.find("Width x");
      const size_t mark = t.find("(downgraded)");
      const bool marked = mark != std::string_view::npos;
      if ((cap_.capability.line > 0 || marked) && facts && pcie_links_.size() < kMaxKeptLines) {
        PcieLinkFact l = cap_;
        if (cap_.capability.line == 0) {
          l.device = lspci_device_;
          l.may_idle = contains(lspci_device_, "VGA compatible controller") || contains(lspci_device_, "3D controller");
        }
        l.where = {path_, lines_, std::string(t)};
        lspci_link_fields(t, l.sta_gts, l.sta_width);
        l.speed_downgraded = marked && (width_at == std::string_view::npos || mark < width_at);
        l.width_downgraded =
            width_at != std::string_view::npos && t.find("(downgraded)", width_at) != std::string_view::npos;
        pcie_links_.push_back(std::move(l));
      }
      cap_ = PcieLinkFact{};
      return true;
    }
    if (setpci_acs_line(t, facts)) return true;
    if (t.starts_with("ACSCtl:")) {
      lspci_ = true;
      if (facts && acs_.size() < kMaxKeptLines) {
        acs_.push_back({{path_, lines_, std::string(t)},
                        lspci_device_,
                        contains(t, "SrcValid+") || contains(t, "ReqRedir+") || contains(t, "CmpltRedir+")});
      }
      return true;
    }
    if (lspci_device_line(t)) {
      lspci_device_ = std::string(t.substr(0, 160));
      cap_ = PcieLinkFact{};
      if (facts && rdma_nics_on_bus_.size() < 64 &&
          (contains(t, "Infiniband controller") || contains(t, "Mellanox Technologies") ||
           (contains(t, "NVIDIA Corporation") && contains(t, "ConnectX")))) {
        rdma_nics_on_bus_.push_back({path_, lines_, std::string(t)});
      }
    }
    return false;
  }

  // setpci reading ports' ACS control register ("setpci -s 0000:03:00.0 ECAP_ACS+6.w", or
  // PLX switches' own offset, "setpci -s $plx f2a.w"), then the values it prints, one
  // 4-digit hex word per line: bit 0 (SrcValid), 2 (ReqRedir) or 3 (CmpltRedir) set is a
  // redirection on, as lspci's ACSCtl says. A write ("...=0000") prints nothing. True for
  // the lines taken.
  bool setpci_acs_line(std::string_view t, Facts* facts) {
    if (contains(t, "setpci")) {
      const bool acs_reg = contains(t, "ECAP_ACS+6.w") || contains(t, "ECAP_ACS+0x6.w") ||
                           contains(t, "ECAP_ACS+0x06.w") ||
                           (contains(t, "f2a.w") && (contains(t, "plx") || contains(t, "PLX")));
      setpci_acs_ = acs_reg && !contains(t, ".w=");
      if (setpci_acs_) lspci_ = true;
      return setpci_acs_;
    }
    if (!setpci_acs_) return false;
    if (t.starts_with("[sudo] password")) return true;
    unsigned value = 0;
    const bool word =
        t.size() == 4 &&
        std::all_of(t.begin(), t.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }) &&
        std::from_chars(t.data(), t.data() + 4, value, 16).ec == std::errc();
    if (!word) {
      setpci_acs_ = false;
      return false;
    }
    if (facts && acs_.size() < kMaxKeptLines) {
      acs_.push_back({{path_, lines_, std::string(t)}, "", (value & 0x0d) != 0});
    }
    return true;
  }

  // A kernel log line: quoted for the kernel signatures, left empty in other_.
  void kernel_line(std::string_view line, Facts* facts) {
    kernel_ = true;
    other_ += '\n';
    if (!facts) return;
    if (kernel_lines_.size() >= kMaxKeptLines) {
      ++dropped_;
      return;
    }
    kernel_lines_.push_back({path_, lines_, std::string(trim(line))});
  }

  // Lines that show what the file is: an nccl-tests table (and the binary a pasted command
  // line names, for tables that do not say), nvidia-smi topo, RDMA tool output, counters.
  // show_gids' rows: "mlx5_0 1 6 0000:0000:0000:0000:0000:ffff:0b00:0401 11.0.4.1 v1 net1",
  // the IPv4 column empty for a link-local GID. The line stays for topo's reader.
  void gid_row(std::string_view t, Facts* facts) {
    // Most lines leave at once: a row has a version column ("v1", "v2") among short words.
    if (!facts || gid_rows_.size() >= kMaxKeptLines || t.size() > 160 || (!contains(t, "v1") && !contains(t, "v2"))) {
      return;
    }
    const auto w = split_ws(t);
    if (w.size() < 6 || w.size() > 7 || std::count(w[3].begin(), w[3].end(), ':') != 7) return;
    GidRowFact g;
    const auto number = [](std::string_view s, int& v) {
      return std::from_chars(s.data(), s.data() + s.size(), v).ptr == s.data() + s.size() && !s.empty();
    };
    if (!number(w[1], g.port) || !number(w[2], g.index)) return;
    g.version = std::string(w.size() == 7 ? w[5] : w[4]);
    if (g.version != "v1" && g.version != "v2") return;
    if (w.size() == 7) g.ipv4 = std::string(w[4]);
    g.where = {path_, lines_, std::string(t)};
    g.device = std::string(w[0]);
    g.gid = std::string(w[3]);
    gid_rows_.push_back(std::move(g));
  }

  // ibv_devinfo -v's GID lines under a host's label ("mu01:" on a line of its own, as a loop
  // over hosts prints it): kept only under a label, so that two devices of one host are not
  // taken for two hosts. A device's name is not a host's label.
  void gid_index_line(std::string_view t, Facts* facts) {
    if (!facts || t.empty()) return;
    if (t.back() == ':' && t.size() <= 64 && t.find_first_of(" \t") == std::string_view::npos) {
      const std::string_view name = t.substr(0, t.size() - 1);
      const bool device = name.starts_with("mlx") || name.starts_with("rocep") || name.starts_with("bnxt") ||
                          name.starts_with("irdma") || name.starts_with("ibp") || name.starts_with("qedr");
      const bool word = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
      });
      if (word && !device) gid_host_ = std::string(name);
      return;
    }
    if (!t.starts_with("GID[") || gid_host_.empty() || gid_indexes_.size() >= kMaxKeptLines) return;
    const size_t close = t.find("]:");
    int index = -1;
    const std::string_view number = trim(t.substr(4, close == std::string_view::npos ? 0 : close - 4));
    if (close == std::string_view::npos ||
        std::from_chars(number.data(), number.data() + number.size(), index).ptr != number.data() + number.size()) {
      return;
    }
    std::string_view gid = trim(t.substr(close + 2));
    gid = gid.substr(0, gid.find_first_of(", \t"));
    if (std::count(gid.begin(), gid.end(), ':') != 7) return;
    gid_indexes_.push_back({{path_, lines_, std::string(t)}, gid_host_, index, std::string(gid)});
    kept_line_ = lines_;  // read: not among the file's lines not read
  }

  void recognise_tables(std::string_view line) {
    if (!tests_ && (contains(line, "# Avg bus bandwidth") || contains(line, "# nccl-tests version") ||
                    (contains(line, "size") && contains(line, "count") && contains(line, "busbw")))) {
      tests_ = true;
    }
    if (contains(line, "_perf")) {
      if (auto c = collective_named_in(line)) programs_.insert(std::string(info(*c).nccl_tests_name));
    }
    if (!smi_ && contains(line, "GPU0") &&
        (contains(line, "CPU Affinity") || contains(line, "NIC0") || contains(line, "mlx5_0") ||
         contains(line, "GPU1"))) {
      smi_ = true;
    }
    const std::string_view lead = trim(line);  // a Markdown code block indents its lines
    if (!rdma_ &&
        ((contains(line, " ==> ") && contains(line, "port ")) || lead.starts_with("hca_id:") ||
         (contains(line, "/sys/class/infiniband") && contains(line, " -> ")) ||  // ls -l, not a counter listing
         (lead.starts_with("DEV") && contains(line, "GID")))) {
      rdma_ = true;
    }
    if (!rdma_ && lead.starts_with("CA '") && lead.ends_with("'")) rdma_ = true;  // ibstat
    if (!rdma_ && lead.starts_with("Physical state: ")) rdma_ = true;  // ibstat's port, pasted without its CA
    if (!rdma_ && lead.starts_with("Infiniband device '") && lead.ends_with("status:")) rdma_ = true;  // ibstatus
    if (!rdma_ && lead.starts_with("Settings for ") && lead.ends_with(':')) rdma_ = true;              // ethtool
    if (contains(line, "NIC statistics:") || contains(line, "hw counters:") || contains(line, "# Port counters") ||
        contains(line, "# Port extended counters")) {
      counters_ = true;
    }
  }

  // "Errors for 0x248a0703 "ib-switch-1"": the quoted name, else the first word.
  static std::string ibqueryerrors_node(std::string_view line) {
    const size_t q1 = line.find('"');
    const size_t q2 = q1 == std::string_view::npos ? q1 : line.find('"', q1 + 1);
    const auto words = split_ws(line.substr(11));
    return q2 != std::string_view::npos ? std::string(line.substr(q1 + 1, q2 - q1 - 1))
           : words.empty()              ? std::string()
                                        : std::string(words[0]);
  }

  // ibqueryerrors' "[SymbolErrorCounter == 65535]" counters of a port: facts for the
  // node named above. False where the line has none.
  bool bracketed_counters(std::string_view line, Facts* facts) {
    std::string port;
    auto bracketed = bracket_counters(line, port);
    if (bracketed.empty()) return false;
    counters_ = true;
    for (auto& [name, value] : bracketed) {
      if (!facts) break;
      CounterFact c;
      c.device = fmt::format("{}{}port {}", errors_for_, errors_for_.empty() ? "" : " ", port);
      c.name = std::move(name);
      c.value = value;
      c.where = {path_, lines_, std::string(trim(line))};
      pend_counter(std::move(c));
    }
    return true;
  }

  // A counter for the file's facts, kept while there is room (counted as dropped after).
  void pend_counter(CounterFact&& c) {
    if (counters_pending_.size() >= kMaxKeptLines) {
      ++dropped_;
      return;
    }
    counters_pending_.push_back(std::move(c));
  }

  // ibcheckerrors (infiniband-diags before 1.6) over its threshold: "#warn: counter
  // SymbolErrors = 36905     (threshold 10) lid 193 port 14" (the port where it says which).
  bool checked_counter(std::string_view t, Facts* facts) {
    constexpr std::string_view kHead = "#warn: counter ";
    if (t.size() < kHead.size() || t[1] != 'w' || !t.starts_with(kHead)) return false;
    const std::string_view rest = t.substr(kHead.size());
    const size_t eq = rest.find(" = ");
    if (eq == std::string_view::npos) return false;
    std::string_view value = trim(rest.substr(eq + 3));
    value = value.substr(0, value.find_first_of(" \t("));
    CounterFact c;
    if (!parse_u64(value, c.value)) return false;
    counters_ = true;
    if (!facts) return true;
    c.name = std::string(trim(rest.substr(0, eq)));
    if (const size_t lid = rest.find(") lid "); lid != std::string_view::npos) {
      c.device = std::string(rest.substr(lid + 2));
    }
    c.where = {path_, lines_, std::string(t)};
    pend_counter(std::move(c));
    return true;
  }

  // A file's content under its name, as a shell loop (`for f in *; do echo "=== $f ===";
  // cat $f; done`) or `head`/`tail` of several files ("==> FILE <==") print counters: the
  // heading names the counter (and, as a sysfs path, its device), the next line its value.
  // True where the line is such a heading or the value under one.
  bool headed_counter(std::string_view t, Facts* facts) {
    if (!heading_path_.empty()) {
      const std::string path = std::exchange(heading_path_, {});
      CounterFact c;
      if (!t.empty() && parse_u64(t, c.value)) {
        c.name = path.substr(path.rfind('/') + 1);
        if (!counter_like(c.name)) return true;
        counters_ = true;  // a file's name and its number: the heading says what it is
        if (!facts) return true;
        c.device = sysfs_device(path);
        if (c.device.empty()) c.device = device_;
        c.where = {path_, lines_, fmt::format("{}: {}", path, t)};
        pend_counter(std::move(c));
        return true;
      }
    }
    std::string_view inner;
    if (t.starts_with("==> ") && t.ends_with(" <==")) {
      inner = t.substr(4, t.size() - 8);
    } else if (t.size() > 8 && t.starts_with("=== ") && t.ends_with(" ===")) {
      inner = t.substr(4, t.size() - 8);
    } else {
      return false;
    }
    inner = trim(inner);
    if (inner.empty() || inner.find(' ') != std::string_view::npos) return false;
    heading_path_ = std::string(inner);
    return true;
  }

  // The device a heading names ("# show_counters mlx5_0", "perfquery ...", "ethtool -S eth0").
  // A counter's line (bracketed, under a heading, listed) or a counter listing's heading.
  bool counter_line_taken(std::string_view line, Facts* facts) {
    if (bracketed_counters(line, facts) || checked_counter(trim(line), facts) || headed_counter(trim(line), facts)) {
      return true;
    }
    const bool heading = counter_heading(trim(line));
    if (!listed_counter(line, facts)) return heading;
    not_read(counter_candidates_, line);  // read only if the file turns out to be counters
    return true;
  }

  bool counter_heading(std::string_view t) {
    bool heading = false;
    for (std::string_view key : {"show_counters ", "perfquery ", "ethtool -S ", "Port counters: Lid "}) {
      if (size_t at = t.find(key); at != std::string_view::npos) {
        const auto words = split_ws(t.substr(at + key.size()));
        if (!words.empty()) device_ = std::string(words[0]);
        heading = true;
      }
    }
    return heading;
  }

  // A counter as a name and a value (ethtool -S, sysfs with grep -H, perfquery): a fact for
  // its device, or the heading's; five counter-like names make the file counters, and so does
  // one under a port's sysfs counters folder ("/sys/class/infiniband/mlx5_0/ports/1/counters/
  // link_downed:3": the path says what it is).
  bool listed_counter(std::string_view line, Facts* facts) {
    CounterFact c;
    if (!counter_line(line, c.device, c.name, c.value)) return false;
    // A sysfs path, or ibdiagnet's threshold, says what it is.
    const bool sysfs = (contains(line, "/counters/") && contains(line, "/ports/")) || contains(line, "(threshold=");
    if (counter_like(c.name) && (++counter_lines_ >= 5 || sysfs)) counters_ = true;
    if (facts) {
      if (c.device.empty()) c.device = device_;
      c.where = {path_, lines_, std::string(trim(line))};
      pend_counter(std::move(c));
    }
    return true;
  }

  // Lines no reader took, counted, the first few kept ("line N: text", cut to 120 bytes).
  struct NotRead {
    int count = 0;
    std::vector<std::pair<int, std::string>> first;
  };
  static constexpr size_t kNotReadExamples = 3;
  void not_read(NotRead& n, std::string_view line) {
    const std::string_view t = trim(line);
    if (t.empty()) return;
    ++n.count;
    if (n.first.size() < kNotReadExamples) n.first.emplace_back(lines_, std::string(t.substr(0, 120)));
  }
  // The file's entry: counted where only line readers read it (see TriageFile).
  void count_not_read(TriageFile& file) const {
    for (std::string_view whole : {"nccl-tests", "nvidia-smi-topo", "hwloc-xml", "nccl-xml"}) {
      if (std::find(file.kinds.begin(), file.kinds.end(), whole) != file.kinds.end()) return;
    }
    if (rdma_ || xml_) return;
    std::vector<std::pair<int, std::string>> first = not_read_.first;
    file.lines_not_read = not_read_.count;
    if (!counters_) {
      file.lines_not_read += counter_candidates_.count;
      first.insert(first.end(), counter_candidates_.first.begin(), counter_candidates_.first.end());
      std::sort(first.begin(), first.end());
    }
    for (size_t i = 0; i < first.size() && i < kNotReadExamples; ++i) {
      file.not_read_examples.push_back(fmt::format("line {}: {}", first[i].first, first[i].second));
    }
  }

  void append_other(std::string_view line) {
    if (other_.size() + line.size() + 1 > (xml_ ? (512ull << 20) : kMaxOtherText)) {
      other_truncated_ = true;
      other_ += '\n';
      return;
    }
    other_.append(line).push_back('\n');
  }

  std::string path_;
  bool colours_ = true;    // an ESC may be in the text to come
  std::string clean_;      // the current line without colour sequences
  std::string unescaped_;  // ... and without HTML's escapes
  bool escapes_ = true;    // an '&' may be in the text to come
  int lines_ = 0;
  bool binary_ = false, xml_ = false, hwloc_ = false, nccl_xml_ = false;
  bool nccl_ = false, framework_ = false, kernel_ = false, tests_ = false, smi_ = false, rdma_ = false,
       counters_ = false;
  int counter_lines_ = 0;
  std::string device_;
  std::string errors_for_;                // ibqueryerrors: the node whose ports follow
  std::string heading_path_;              // "=== FILE ===" or "==> FILE <==": the file the next line is
  std::set<std::string> programs_;        // nccl-tests binaries the file's other lines name
  std::unordered_set<std::string> seen_;  // NCCL lines kept, by process, device and message
  // The connections within a node are read from a file's first lines of them: a job's
  // initialisation prints them, its later communicators the same again.
  static constexpr int kMaxIntraNodeLines = 4096;
  int intra_lines_ = 0;
  Facts::IntraNodeRanks* intra_host_ = nullptr;  // the host of the last connection line read
  std::string intra_host_name_, intra_pid_;      // and its process
  std::string process_host_name_, process_pid_;  // the last NCCL line's process (process_line)
  int process_dev_ = -1;                         // and the highest device it logged
  static constexpr int kMaxProcessLines = 8192;  // NCCL lines read for the processes
  int process_lines_ = 0;
  int gloo_wrapped_ = -1;          // a Gloo error's line without its address (launcher_line)
  std::string gloo_wrapped_text_;  // and its text
  std::string nccl_text_;          // the distinct NCCL lines topo's reader reads
  std::string other_;              // the other lines (NCCL and kernel lines left empty)
  bool other_truncated_ = false;
  std::vector<Quote> kernel_lines_;
  std::vector<CounterFact> counters_pending_;  // taken when the file is counters
  void keep_fabric_manager_line(std::string_view line, Facts* facts) {
    fabric_manager_ = true;
    if (facts && fabric_manager_lines_.size() < kMaxKeptLines) {
      fabric_manager_lines_.push_back({path_, lines_, std::string(trim(line))});
    }
    other_ += '\n';
  }

  bool lspci_ = false, fabric_manager_ = false;
  bool setpci_acs_ = false;  // setpci's ACS control reads: the values follow
  bool nvlink_ = false;
  int nvlink_gpu_ = -1, nvlink_listing_ = 0;
  Quote nvlink_gpu_line_;
  std::vector<NvlinkFact> nvlinks_;
  std::vector<AcsFact> acs_;
  std::vector<ZeroGuidFact> zero_guids_;
  std::vector<GidRowFact> gid_rows_;
  std::vector<Facts::GidIndexFact> gid_indexes_;
  std::string gid_host_;      // the last host label ("cu01:") on a line of its own
  size_t clocks_indent_ = 0;  // nvidia-smi -q: the "Clocks Event Reasons" header's indent
  bool clocks_open_ = false;  // within that section
  size_t ecc_indent_ = 0;     // nvidia-smi -q: the "ECC Errors" header's indent
  int ecc_part_ = 0;          // 0 outside it, 1 in it (or its Aggregate part), 2 in its Volatile part
  bool ecc_double_ = false;   // under older drivers' "Double Bit"
  int smi_section_left_ = 0;  // nvidia-smi -q: lines left of a "Remapped Rows" or "Retired Pages" section
  std::vector<TestDeviceFact> test_devices_;
  int device_block_ = 0;
  size_t smi_indent_ = 0;  // its header's indent: its keys are deeper
  bool smi_query_ = false;
  std::string smi_gpu_;         // nvidia-smi -q: the "GPU 00000000:18:00.0" line above
  PcieLinkFact smi_link_;       // its "GPU Link Info", until its Link Width's Current
  size_t smi_link_indent_ = 0;  // that header's indent
  int smi_link_key_ = 0;        // 1 under "PCIe Generation", 2 under "Link Width"
  bool smi_link_open_ = false;
  PcieLinkFact sysfs_link_;  // the kernel's PCI link attributes of one device
  int sysfs_link_seen_ = 0;  // which of its four: bits of current/max speed, current/max width
  std::string iblink_node_;  // iblinkinfo: the node whose ports follow
  bool iblinkinfo_ = false;  // the file has its lines
  std::vector<IbLinkFact> ib_links_;
  std::vector<Quote> ibdiag_links_;  // Facts::ibdiag_links
  bool dcgm_ = false;                // inside DCGM's diagnostic table
  bool dcgm_seen_ = false;           // the file has one
  std::string dcgm_test_;            // its test of the rows below
  std::string dcgm_section_;         // and their section (Deployment, Hardware, ...)
  int dcgm_detail_ = -1;             // the fact whose detail wrapped rows continue; -1 for none
  std::vector<DcgmDiagFact> dcgm_diag_;
  bool ibdiags_ = false;   // infiniband-diags' own error lines (saquery's "No SM/SA found")
  int gres_wrapped_ = -1;  // the line that ended in srun's "Invalid generic"
  std::string gres_wrapped_text_;
  int mpi_box_left_ = 0;               // lines of Open MPI's unreachable-peer box still to read
  int registration_box_left_ = 0;      // lines of Open MPI's registration-limit box still to read
  bool psec_framework_ = false;        // PMIx's "Framework: psec" line was the one before its "Component:"
  bool smi_table_ = false;             // nvidia-smi's table: a GPU's row seen
  int smi_row_left_ = 0;               // nvidia-smi's table: rows left of the GPU above
  std::optional<Quote> fabric_state_;  // nvidia-smi -q's Fabric section: its State line
  std::string smi_row_gpu_;            // that GPU's bus id
  std::vector<Quote> repair_pending_, remap_failed_, cuda_ecc_, cuda_p2p_, framework_p2p_refused_, gtl_ipc_failed_,
      rdma_topo_failed_, nccl_library_links_, nccl_symbol_missing_, nccl_library_missing_, imex_not_ready_,
      gpu_fabric_failed_, multicast_unsupported_, nic_rdma_disabled_, mig_in_use_, cuda_errors_, driver_mismatch_,
      efa_no_device_, driver_libs_missing_, shm_full_, rdma_enomem_, toolkit_denied_, toolkit_missing_, nvml_denied_,
      image_no_shell_, image_storage_full_, module_build_failed_, module_not_found_, rdma_no_provider_,
      rdma_driver_unloaded_, rdma_nics_on_bus_, rdma_netns_, driver_files_in_image_, no_sm_;
  std::vector<SmiGpuFact> smi_gpu_err_, smi_uncorrectable_, smi_slowdown_;
  std::vector<Quote> cuda_not_ready_, pin_failed_, gpu_mr_refused_, ras_crash_frames_, gpu_lost_, roce_gid_empty_,
      module_abi_, nvml_unknown_, tcp_connect_failed_, gloo_connect_failed_, gloo_loopback_, munge_, slurm_version_,
      slurm_credential_expired_, slurm_gres_, registration_capped_, nic_driver_storage_modules_, mpi_not_cuda_aware_,
      custom_allreduce_, expandable_segments_, runtime_hook_failed_, rendezvous_, gpu_start_, gpu_driver_in_use_,
      ucc_shm_failed_, roce_gid_unusable_, rdma_abi_mismatch_, enroot_hook_failed_, container_cli_errors_,
      pmix_client_failed_, mpi_daemons_failed_, mpi_oob_unreachable_, mpi_tcp_wrong_peer_, mpi_launch_cause_,
      mpi_unpack_failed_, mpi_pml_failed_, mpi_default_prefix_, lightning_members_;
  int pml_failed_line_ = 0;              // the last "PML add procs failed" line
  bool lightning_registered_ = false;    // Lightning's "All distributed processes registered"
  bool srun_seen_ = false;               // a line of srun's: Facts::srun_seen
  bool toolkit_line_ = false;            // the line nvml_line read is libnvidia-container's
  int hook_stderr_left_ = 0;             // lines after a failed hook's "stderr:" still to keep as its words
  bool container_cli_seen_ = false;      // a line of nvidia-container-cli's ("nvidia-container-cli: ...")
  bool slurm_foreign_protocol_ = false;  // a protocol version no Slurm release has (a port scanner's)
  // The CUDA peer-access tools' answers (peer_tool_line): pairs with and without access,
  // the lines that say "no", and the GPUs nvbandwidth lists.
  PeerTool peer_tool_;
  DeviceCgroup device_cgroup_;        // a cgroup v1 device list's NVIDIA entries
  bool perftest_gpu_buffer_ = false;  // perftest allocated a GPU buffer (device_line)
  bool perftest_ethernet_ = false;    // perftest's header said "Link type : Ethernet" (RoCE)
  bool efa_seen_ = false;             // a libfabric EFA line above: its "fi_getinfo: -61" is EFA's
  bool cuda_named_ = false;           // driver_line's: the line names CUDA ("cuda", "CUDA", "Cuda")
  bool ulimit_l_next_ = false;        // the line before was a command line ending in `ulimit -l`
  bool interfaces_seen_ = false;      // an interface list's entries on lines of their own
  bool limits_seen_ = false;          // a locked-memory limit read (`ulimit -l`, a launcher's or MPI's words)
  bool ucx_ = false;                  // UCX's error lines
  // NCCL's RAS client's status (ras_line): the block the lines below belong to, and a
  // MISMATCH block's groups of ranks by the last operation they launched.
  enum class RasBlock { kNone, kDead, kProcesses, kRanks, kMismatch, kError };
  RasBlock ras_block_ = RasBlock::kNone;
  bool ras_ = false;
  std::string ras_comm_;              // "#0-0"
  bool ras_counts_ = false;           // a MISMATCH block's lines are of operation counts (not of status)
  std::string ras_coll_;              // the collective whose counts differ
  int64_t ras_value_ = -1;            // the count of the group whose rank lines follow
  std::string ras_error_;             // an ERROR block's error whose rank lines follow
  std::vector<RasFact> ras_group_;    // a counts section's ranks, each with its count in `op`
  RasFact ras_count_;                 // the last count line ("N ranks have launched up to ...")
  std::vector<RasFact> ras_unnamed_;  // count lines whose ranks RAS did not name
  int64_t ras_max_ = -1;              // the highest count the section names
  std::vector<RasFact> ras_facts_;
  std::vector<Facts::NhcFailure> nhc_;
  bool mlxlink_ = false;       // mlxlink's "Operational Info" seen
  bool mlxlink_open_ = false;  // a port's block takes the fields below
  std::string mlxlink_device_;
  std::vector<Facts::MlxlinkPort> mlxlink_ports_;
  bool cuda_error_seen_ = false;   // CUDA errors: a file of only such lines is a framework's log
  bool ibv_devices_ = false;       // ibv_devices' header seen
  std::string rdma_device_;        // the device an ibstat/ibv_devinfo listing is about ("CA 'mlx5_0'", "hca_id:")
  int fm_unit_left_ = 0;           // lines left of a Fabric Manager unit's systemctl status
  int since_framework_ = 1 << 20;  // lines since a framework's NCCL error
  bool last_error_next_ = false;   // the next non-empty line is NCCL's last error (PyTorch's)
  std::vector<Quote> fabric_manager_lines_;
  bool rdma_absent_ = false;
  std::vector<Quote> rdma_absent_lines_;
  std::vector<Quote> bus_errors_;  // SIGBUS lines, NCCL's where a backtrace frame below names it
  bool nccl_frames_ = false;
  int crash_line_ = 0;          // the last line saying a process crashed (SIGSEGV)
  NotRead not_read_;            // lines no reader took
  int kept_line_ = 0;           // the last line a reader kept (keep, push_framework_fact)
  int quoted_line_ = 0;         // the last line kept as evidence without keep(): CUDA's reader reads it still
  NotRead counter_candidates_;  // counter lines, read only where the file is counters
  std::string_view list_head_;  // the line before ended "NET/Socket : Using" ("Bootstrap : Using"): that name
  int last_list_line_ = 0;      // the last line of an interface list
  int summary_line_ = 0;        // the last "# Out of bounds values" line with only '#' lines after it
  int header_line_ = 0;         // the last nccl-tests header's line, while no table row follows it
  std::string header_text_;
  std::string summary_text_;
  std::vector<std::pair<Quote, Quote>> doubled_summaries_;
  std::string lspci_device_;  // lspci: the device whose capabilities follow
  PcieLinkFact cap_;          // lspci: its LnkCap, until its LnkSta
  std::vector<PcieLinkFact> pcie_links_;
  uint64_t dropped_ = 0;
};

}  // namespace

std::vector<std::string> recognise(std::string_view text) {
  Gatherer g("");
  g.start(text.substr(0, 65536));
  if (g.binary()) return {};
  LineReader lines(text);
  std::string_view line;
  while (lines.next(line)) g.line(line, nullptr);
  return g.kinds();
}

namespace {

// A file of fabscope's NCCL profiler plugin: a snapshot of a running job is read as
// `fabscope watch` reads it (judged with the others, diag/watch.h); a final profile is
// `fabscope diagnose --import-profile`'s. False for any other text.
bool gather_profile_file(const std::string& path, std::string_view text, Facts& facts) {
  const std::string_view head = text.substr(0, 512);
  if (!trim(head).starts_with("{") || !contains(head, "\"fabscope-nccl-profile\"")) return false;
  TriageFile file;
  file.path = path;
  file.bytes = text.size();
  file.lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  if (path.ends_with(".tmp")) {
    // The plugin writes NAME.tmp, then renames it: a writer killed between the two leaves a
    // file no reader takes, whole or not (its snapshot was not yet the rank's newest).
    file.note = "a snapshot of fabscope's NCCL profiler plugin still being written (its temporary file): not read";
  } else if (text.find("\"snapshot\"") == std::string_view::npos) {
    file.note =
        "a profile of fabscope's NCCL profiler plugin, written at the job's end: judge it with `fabscope "
        "diagnose --import-profile DIR`";
  } else if (auto s = parse_snapshot(text, path); s.ok()) {
    file.kinds = {"fabscope-snapshot"};
    facts.snapshots.push_back(std::move(*s));
  } else {
    file.note = fmt::format("a damaged snapshot of fabscope's NCCL profiler plugin: {}", s.status().message());
  }
  facts.files.push_back(std::move(file));
  return true;
}

// NCCL's RAS client's JSON (ncclras -f json, NCCL 2.28.7 and later; src/ras/client_support.cc):
// its communicators' missing ranks (unresponsive, considered dead), the ranks whose
// collective counts are below the others', and the ranks whose status holds an error, as
// the text output's readers take them. False for any other text.
void read_ras_communicators(const nlohmann::json& communicators, const std::function<Quote(int64_t, int)>& quote_of,
                            Facts& facts);

bool gather_ras_json(const std::string& path, std::string_view text, Facts& facts) {
  const std::string_view head = text.substr(0, 1024);
  if (!trim(head).starts_with("{") || !contains(head, "\"nccl_version\"") || !contains(text, "\"communicators\"") ||
      !contains(text, "\"missing_ranks\"")) {
    return false;
  }
  TriageFile file;
  file.path = path;
  file.bytes = text.size();
  file.lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  const nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("communicators") || !doc["communicators"].is_array()) {
    file.note = "NCCL's RAS client's JSON, damaged: not read";
    facts.files.push_back(std::move(file));
    return true;
  }
  file.kinds = {"nccl-ras"};
  // A rank's line in the file: its "pid" (or "rank") line, for the quote.
  auto quote_of = [&](int64_t pid, int rank) {
    std::string needle = fmt::format("\"pid\": {}", pid);
    size_t at = text.find(needle);
    if (at == std::string_view::npos) {
      needle = fmt::format("\"rank\": {}", rank);
      at = text.find(needle);
    }
    if (at == std::string_view::npos) return Quote{path, 1, std::string(trim(text.substr(0, text.find('\n'))))};
    const int line =
        1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    const size_t bol = text.rfind('\n', at) == std::string_view::npos ? 0 : text.rfind('\n', at) + 1;
    return Quote{path, line, std::string(trim(text.substr(bol, text.find('\n', at) - bol)))};
  };
  // nlohmann's value() throws where a field has another type: a damaged file, said as one.
  const size_t ras_before = facts.ras.size(), nccl_before = facts.nccl.size();
  try {
    read_ras_communicators(doc["communicators"], quote_of, facts);
  } catch (const nlohmann::json::exception& e) {
    facts.ras.resize(ras_before);
    facts.nccl.resize(nccl_before);
    file.kinds.clear();
    file.note = fmt::format("NCCL's RAS client's JSON, damaged ({}): not read", e.what());
  }
  facts.files.push_back(std::move(file));
  return true;
}

void read_ras_communicators(const nlohmann::json& communicators, const std::function<Quote(int64_t, int)>& quote_of,
                            Facts& facts) {
  auto process_of = [](const nlohmann::json& r) {
    return fmt::format("process {} on node {} managing GPU {}", r.value("pid", 0), r.value("host", std::string("?")),
                       r.value("cuda_dev", -1));
  };
  static constexpr std::string_view kResults[] = {"",
                                                  "unhandled cuda error",
                                                  "unhandled system error",
                                                  "internal error",
                                                  "invalid argument",
                                                  "invalid usage",
                                                  "remote process exited or there was a network error"};
  for (const nlohmann::json& comm : communicators) {
    if (!comm.is_object()) continue;
    const std::string name = comm.value("hash", std::string());
    for (const nlohmann::json& m : comm.value("missing_ranks", nlohmann::json::array())) {
      if (!m.is_object()) continue;
      RasFact f;
      const nlohmann::json status = m.value("status", nlohmann::json::object());
      f.what = status.value("considered_dead", false) ? "dead"
               : status.value("unresponsive", false)  ? "unresponsive"
                                                      : "missing";
      f.rank = m.value("rank", -1);
      f.process = process_of(m);
      f.host = m.value("host", std::string());
      f.comm = name;
      f.where = quote_of(m.value("pid", int64_t{-1}), f.rank);
      facts.ras.push_back(std::move(f));
    }
    const nlohmann::json ranks = comm.value("ranks", nlohmann::json::array());
    // Per collective, the ranks below the highest count.
    std::map<std::string, int64_t> highest;
    for (const nlohmann::json& r : ranks) {
      const nlohmann::json counts = r.value("collective_counts", nlohmann::json::object());
      for (const auto& [coll, n] : counts.items()) {
        if (n.is_number_integer()) highest[coll] = std::max(highest[coll], n.get<int64_t>());
      }
    }
    for (const nlohmann::json& r : ranks) {
      if (!r.is_object()) continue;
      const nlohmann::json counts = r.value("collective_counts", nlohmann::json::object());
      for (const auto& [coll, n] : counts.items()) {
        if (!n.is_number_integer() || n.get<int64_t>() >= highest[coll]) continue;
        RasFact f;
        f.what = "behind";
        f.rank = r.value("rank", -1);
        f.process = process_of(r);
        f.host = r.value("host", std::string());
        f.comm = name;
        f.op = n.get<int64_t>();
        f.ahead = highest[coll];
        f.coll = coll;
        f.where = quote_of(r.value("pid", int64_t{-1}), f.rank);
        facts.ras.push_back(std::move(f));
        break;  // one collective says it
      }
      const nlohmann::json status = r.value("status", nlohmann::json::object());
      for (const char* key : {"async_error", "init_state"}) {
        const int e = status.value(key, 0);
        if (e <= 0 || e >= static_cast<int>(std::size(kResults))) continue;  // success, in progress
        NcclFact n;
        n.where = quote_of(r.value("pid", int64_t{-1}), r.value("rank", -1));
        n.host = r.value("host", std::string());
        n.level = "ERROR";
        n.msg = std::string(kResults[static_cast<size_t>(e)]);
        n.rank = r.value("rank", -1);
        facts.nccl.push_back(std::move(n));
      }
    }
  }
}

}  // namespace

void gather(const std::string& path, std::string_view text, Facts& facts) {
  if (gather_profile_file(path, text, facts)) return;
  if (gather_ras_json(path, text, facts)) return;
  Gatherer g(path);
  g.start(text.substr(0, 65536));
  if (!g.binary()) {
    g.expect_colours(text.find('\x1b') != std::string_view::npos);
    g.expect_escapes(text.find('&') != std::string_view::npos);
    LineReader lines(text);
    std::string_view line;
    while (lines.next(line)) g.line(line, &facts);
  }
  g.finish(text.size(), facts);
}

Status gather_file(const std::string& path, Facts& facts, Progress* progress, const StreamLimits& limits) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec || !fs::is_regular_file(path, ec) || size <= limits.stream_above) {
    auto text = read_file(path);  // small, or not a regular file: read_file says what it is
    if (!text.ok()) return text.status();
    gather(path, *text, facts);
    return Status::Ok();
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) return Status::Invalid(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  Gatherer g(path);
  std::vector<char> chunk(std::max<size_t>(limits.chunk, 1));
  std::string carry;  // a line cut by the chunk's end
  uint64_t done = 0;
  bool first = true;
  bool colours_before = false, escapes_before = false;
  while (true) {
    const size_t got = std::fread(chunk.data(), 1, chunk.size(), f.get());
    if (got == 0) break;
    std::string_view data(chunk.data(), got);
    if (first) {
      g.start(data.substr(0, 65536));
      first = false;
      if (g.binary()) break;
    }
    // A line cut at the chunk's end is read with the next chunk: colours in either count.
    const bool colours = data.find('\x1b') != std::string_view::npos;
    const bool escapes = data.find('&') != std::string_view::npos;
    g.expect_colours(colours || colours_before);
    g.expect_escapes(escapes || escapes_before);
    colours_before = colours;
    escapes_before = escapes;
    done += got;
    if (progress)
      progress->update(fmt::format("fabscope triage: {}  {:.0f} of {:.0f} MiB", path,
                                   static_cast<double>(done) / (1 << 20), static_cast<double>(size) / (1 << 20)));
    size_t pos = 0;
    while (pos < data.size()) {
      const size_t nl = data.find('\n', pos);
      std::string_view line;
      if (carry.empty() && nl != std::string_view::npos) {
        line = data.substr(pos, nl - pos);  // the usual case: the whole line in this chunk
      } else {
        // A line cut by the chunk's end. Memory stays bounded on a file without newlines:
        // the line keeps its first kMaxLine bytes.
        const size_t end = nl == std::string_view::npos ? data.size() : nl;
        carry.append(data.substr(pos, std::min(end - pos, kMaxLine - std::min(kMaxLine, carry.size()))));
        if (nl == std::string_view::npos) break;
        line = carry;
      }
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      g.line(line, &facts);
      carry.clear();
      pos = nl + 1;
    }
  }
  if (std::ferror(f.get())) return Status::Invalid(fmt::format("cannot read '{}': read error", path));
  if (!carry.empty()) g.line(carry, &facts);
  g.finish(size, facts);
  return Status::Ok();
}

Result<std::vector<std::string>> list_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    const auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      return Status::Invalid(fmt::format("'{}': no such file or directory; give the ticket's files or directories", p));
    }
    if (fs::is_directory(st)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code e2;
        if (it->is_regular_file(e2) && !it->is_symlink(e2)) found.push_back(it->path().string());
      }
      if (ec) return Status::Invalid(fmt::format("'{}': cannot list the directory: {}", p, ec.message()));
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(p);
    }
  }
  return out;
}

Status triage_paths(const std::vector<std::string>& paths, Report& report) {
  auto files = list_files(paths);
  if (!files.ok()) return files.status();
  Facts facts;
  Progress progress(Progress::wanted());
  for (const std::string& f : *files) {
    if (Status s = gather_file(f, facts, &progress); !s.ok()) {
      TriageFile skipped;
      skipped.path = f;
      skipped.note = s.message();
      facts.files.push_back(std::move(skipped));
    }
  }
  progress.clear();
  judge(std::move(facts), report);
  return Status::Ok();
}

void judge(Facts facts, Report& report) {
  std::vector<std::string> missing;
  if (std::none_of(facts.files.begin(), facts.files.end(), [](const TriageFile& f) { return !f.kinds.empty(); })) {
    missing.emplace_back("no file in a format fabscope reads: nothing to judge by");
  }
  report.findings = run_signatures(facts, missing);
  // The topology the files describe, analysed as `fabscope topo` would, except that a port
  // not up is a warning unless the files show it unused (on a ticket, the likeliest cause).
  if (!facts.topology.hosts.empty()) {
    topo::AnalysisOptions triage_analysis;
    triage_analysis.down_ports_warn = true;
    auto analyses = topo::analyze_topology(facts.topology, triage_analysis, report.findings);
    if (analyses.ok()) {
      report.topology = topo::topology_section(facts.topology, *analyses);
      for (std::string& m : topo::missing_inputs(facts.topology, *analyses)) missing.push_back(std::move(m));
    }
  }
  // The answer first: errors, then warnings, each in the table's order.
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  TriageSection section;
  section.files = std::move(facts.files);
  if (!report.findings.empty()) {
    section.answer_code = report.findings.front().code;
    section.answer_subject = report.findings.front().subject;
  }
  report.triage = std::move(section);
  report.verdict.missing = std::move(missing);
}

}  // namespace fabscope::triage
