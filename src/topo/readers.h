// Readers: each turns one kind of input into the topology model. A reader adds what
// its input says to the set (creating the host it names, or the one unnamed host) and
// never throws; a malformed input is Status::Invalid("FILE:LINE[:COL]: what is wrong"),
// and an unreadable file names the file and the system's reason.
//
// The parse_* functions take the text itself (for tests and fuzzing); the read_*
// functions read the file and call them. topology_readers() lists the file readers
// `fabscope topo` offers, one entry each with its option: a new input format is its
// parse_* function in its own file plus one entry there.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/atomic_file.h"
#include "core/status.h"
#include "diag/nccl_profile.h"
#include "topo/model.h"

namespace fabscope::topo {

// A file reader of `fabscope topo`: the option that takes its files and its parser.
struct TopologyReader {
  std::string_view option;  // "--nccl-topo"
  std::string_view help;
  Status (*parse)(std::string_view text, std::string_view source, TopologySet& set);
  // Non-empty: a directory given to the option stands for its files with this
  // extension, in name order ("--nccl-log DIR", as sweep --nccl-debug-dir leaves it).
  std::string_view directory_files;
};
// In the order their files are read (later sources add to what earlier ones said).
std::span<const TopologyReader> topology_readers();
// Reads `path` (a file, or a directory as the reader allows) into `set`.
Status read_topology_input(const TopologyReader& reader, const std::string& path, TopologySet& set);

// A shell prompt that names its host: "[user@host dir]$ ...", "user@host:~$ ..." (the
// "$" followed by a space or ending the line). Empty when the line is not one. Pasted
// terminal sessions switch hosts at each.
std::string prompt_host(std::string_view line);

// lstopo's XML (hwloc 1.x "v1" and 2.x formats), checked by our XML parser, then loaded
// through hwloc itself.
Status parse_hwloc_xml(std::string_view text, std::string_view source, TopologySet& set);
Status read_hwloc_xml(const std::string& path, TopologySet& set);
// This machine, through hwloc (PCI tree, NUMA nodes, GPUs, NICs) and sysfs (RDMA ports).
Status read_hwloc_live(const std::string& host, TopologySet& set);
// RDMA ports and their network interfaces under `sysfs_root` ("/sys" live; a copied
// tree in tests): class/infiniband/*/ports/*/{state,rate,link_layer,gid_attrs/ndevs}.
Status read_sysfs_rdma(const std::string& sysfs_root, HostTopology& host);

// NCCL's topology XML (NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE, root <system>) or graph
// XML (NCCL_GRAPH_DUMP_FILE / NCCL_GRAPH_FILE, root <graphs>).
Status parse_nccl_xml(std::string_view text, std::string_view source, TopologySet& set);
Status read_nccl_xml(const std::string& path, TopologySet& set);

// `nvidia-smi topo -m` / `-mp` output, old (mlx5_N columns) and new (NICn + legend)
// formats, tab- or space-separated, tolerant of columns merged by lost whitespace.
Status parse_nvidia_smi_topo(std::string_view text, std::string_view source, TopologySet& set);
Status read_nvidia_smi_topo(const std::string& path, TopologySet& set);

// NCCL_DEBUG=INFO output of any number of ranks and hosts (interleaved lines, shell
// prompts and other programs' output in between are skipped).
Status parse_nccl_log(std::string_view text, std::string_view source, TopologySet& set);
Status read_nccl_log(const std::string& path, TopologySet& set);
// One NCCL_DEBUG line, "HOST:PID:TID [DEV] NCCL INFO|WARN message", found anywhere in
// `line` (launcher prefixes such as " 0: " or "[1,3]<stdout>:" and prompts glued
// before the host are skipped: the host is the last word before the first ':'). A line
// pasted without that prefix ("NCCL INFO NET/IB : No device found.", as tickets quote
// them) is one too: its host is kUnnamedHost, its pid "" and its device -1.
struct NcclLogLine {
  std::string_view host;
  std::string_view pid;
  int dev = -1;            // [DEV]; -1 when not a number
  std::string_view level;  // "INFO" or "WARN"
  std::string_view msg;    // what follows the level
};
bool split_nccl_line(std::string_view line, NcclLogLine& out);
inline constexpr std::string_view kUnnamedHost = "unnamed-host";

// The kinds of NCCL line parse_nccl_log reads, in the order it tries them, each with
// the number of lines of `text` it took as that kind (for tests: which kinds real logs
// have).
std::vector<std::pair<std::string_view, int>> count_nccl_log_lines(std::string_view text);
// The NIC of every network channel an NCCL INFO log (NET subsystem) set up: its
// "Channel c : r[d] -> p[e] [send|receive] via NET/IB/k" lines, with the NET/IB list of
// the same process naming k. For diag/nccl_profile.h's join.
Result<std::vector<ChannelNic>> nccl_log_channels(std::string_view text, std::string_view source);
// --nccl-log PATH: the file itself, or every *.log in the directory, sorted (none, for an
// empty directory: a live reader waits for them); an error if the directory cannot be listed.
Result<std::vector<std::string>> nccl_log_files(const std::string& path);
// --nccl-log PATH: the file, or every *.log in the directory, as (path, text).
Result<std::vector<std::pair<std::string, std::string>>> read_nccl_log_paths(const std::string& path);

// Output of RDMA tools as pasted in a terminal session: ibdev2netdev, `ip -br a`,
// ibv_devinfo, show_gids, and `ls -l /sys/class/infiniband` (device -> PCI path);
// shell prompts "[user@host ~]$" switch the host.
Status parse_rdma_text(std::string_view text, std::string_view source, TopologySet& set);
Status read_rdma_text(const std::string& path, TopologySet& set);

// A shell environment file (KEY=VALUE lines, `export` allowed, quotes stripped,
// comments and template lines ignored): the NCCL_* variables it sets.
Status parse_nccl_env(std::string_view text, std::string_view source, std::map<std::string, std::string>& env);
Status read_nccl_env(const std::string& path, std::map<std::string, std::string>& env);

}  // namespace fabscope::topo
