// NCCL's profiler plugin's files (libnccl-profiler-fabscope.so, src/nccl_profiler) read
// back: one file per rank and communicator, checked field by field, then joined with
// NCCL's log (the "Channel c : r -> p [send] via NET/IB/k" lines: which NIC carries which
// channel) into the report's nccl_profile section: per collective and size, each rank's
// wall-clock wait per peer, direction and NIC, per step state (the union of the intervals
// of the steps and channels in that state, never more than the calls took). The join is an inference: NCCL does
// not say which NIC a proxy step used, the log says which NIC its channel was set up on.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "report/report.h"

namespace fabscope {

// The "format" of the plugin's files and snapshots (its own kFormat, profiler_api.h).
inline constexpr std::string_view kProfileFormat = "fabscope-nccl-profile";
// The plugin's file names: fabscope-profile-HOST-PID-cCOMMID-rRANK.json.
inline constexpr std::string_view kProfilePrefix = "fabscope-profile-";
// Its snapshots while the job runs: fabscope-snapshot-HOST-PID-cCOMMID-rRANK-sSEQ.json.
inline constexpr std::string_view kSnapshotPrefix = "fabscope-snapshot-";
// The profiler API versions the plugin implements, and the NCCL releases that load them.
inline constexpr std::string_view kProfilerVersions = "profiler API v4 (NCCL 2.27) and v5 (NCCL 2.28 and later)";

struct ProfileKeyEntry {
  int id = 0;
  std::string kind;  // collective | p2p | unknown
  std::string func, datatype, algo, proto;
  uint64_t count = 0;
  int peer = -1;
  int channels = 0;
  uint64_t calls = 0;
};
struct ProfileBinEntry {
  int key = 0;
  int peer = 0;
  int channel = 0;
  bool send = false;
  uint64_t ops = 0, steps = 0, done_steps = 0, bytes = 0;
  std::vector<double> ns = std::vector<double>(kProfileStates, 0.0);       // summed over the steps
  std::vector<double> wall_ns = std::vector<double>(kProfileStates, 0.0);  // the union of the steps' intervals
  std::vector<double> max_ns = std::vector<double>(kProfileStates, 0.0);
};
// Every channel of one key to or from one peer: the union of their steps' intervals.
struct ProfilePeerEntry {
  int key = 0;
  int peer = 0;
  bool send = false;
  std::vector<double> wall_ns = std::vector<double>(kProfileStates, 0.0);
};
// One file as the plugin wrote it.
struct RankProfile {
  std::string file;
  std::string host;
  int pid = 0;
  int api = 0;
  std::string comm_id;
  std::string comm_name;
  int rank = 0;
  int nranks = 0;
  bool complete = true;
  uint64_t dropped_events = 0;
  uint64_t snapshot_seq = 0;  // a snapshot (fabscope-snapshot-*.json): its interval; 0 for the final profile
  std::vector<ProfileKeyEntry> keys;
  std::vector<ProfileBinEntry> bins;
  std::vector<ProfilePeerEntry> peers;
};

// The NIC of one channel of one rank towards one peer, from NCCL's log.
struct ChannelNic {
  std::string host;
  std::string pid;
  int rank = 0;
  int peer = 0;
  int channel = 0;
  bool send = false;
  std::string nic;  // the device name ("mlx5_1"), or "NET/IB/1" when the log lacks its list
};

// A plugin file's text; `source` names it in errors (a foreign or damaged file is an
// error that says what it is and what was expected).
Result<RankProfile> parse_rank_profile(std::string_view text, const std::string& source);
// Every fabscope-profile-*.json in `path` (a directory), and for a rank and communicator
// without one the newest of its fabscope-snapshot-*.json; or `path` itself (a file).
// No such file, an unreadable or malformed one: an error naming it.
Result<std::vector<RankProfile>> read_rank_profiles(const std::string& path);
// The section from the files and the log's channels (either may be empty: without
// files its status is "no profiler data", with `why` as its detail).
NcclProfileSection build_profile_section(const std::vector<RankProfile>& profiles,
                                         const std::vector<ChannelNic>& channels, const std::string& why = "");

// Each rank's section (build_profile_section of its own files) as one: the points of the
// same communicator, collective, size, algorithm and protocol merged. Ranks without data
// are named in the detail; none with data: the first part's "no profiler data".
NcclProfileSection merge_profile_sections(const std::vector<NcclProfileSection>& parts);

// NCCL's name of a collective as fabscope's ("AllReduce" -> "allreduce"), and nccl-tests'
// size of a call of `count` elements of `datatype` over `nranks` ranks (0: unknown type).
std::string collective_of_nccl_func(std::string_view func);
uint64_t nccl_tests_size(std::string_view func, std::string_view datatype, uint64_t count, int nranks);

}  // namespace fabscope
