#include "diag/nccl_profile.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "core/atomic_file.h"
#include "report/json_io.h"

namespace fabscope {

namespace {

constexpr int kVersion = 2;  // 2: the wall-clock time per state ("wall_ns", "peers")

int state_index(std::string_view name) {
  for (int s = 0; s < kProfileStates; ++s) {
    if (kProfileStateNames[s] == name) return s;
  }
  return -1;
}

std::string state_list() {
  std::string s;
  for (std::string_view n : kProfileStateNames) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

void check_key(const JsonIn& at, const RankProfile& p, int key, int peer) {
  if (std::none_of(p.keys.begin(), p.keys.end(), [&](const ProfileKeyEntry& k) { return k.id == key; })) {
    at.at("key").fail(fmt::format("key {} is not among the file's keys", key));
  }
  if (peer < 0 || peer >= p.nranks) {
    at.at("peer").fail(fmt::format("peer {} outside the communicator's 0..{}", peer, p.nranks - 1));
  }
}

bool parse_direction(const JsonIn& at) {
  std::string direction;
  at.field("direction", direction);
  if (direction != "send" && direction != "recv") {
    at.at("direction").fail(fmt::format("'{}'; expected send or recv", direction));
  }
  return direction == "send";
}

ProfileBinEntry parse_bin(const JsonIn& b, const RankProfile& p, int buckets) {
  ProfileBinEntry e;
  b.field("key", e.key);
  b.field("peer", e.peer);
  b.field("channel", e.channel);
  e.send = parse_direction(b);
  b.field("ops", e.ops);
  b.field("steps", e.steps);
  b.field("done_steps", e.done_steps);
  b.field("bytes", e.bytes);
  if (e.done_steps > e.steps) {
    b.at("done_steps").fail(fmt::format("{} steps done of {} started", e.done_steps, e.steps));
  }
  check_key(b, p, e.key, e.peer);
  for (const auto& [name, st] : b.at("states").members()) {
    const int s = state_index(name);
    if (s < 0) st.fail(fmt::format("unknown step state '{}'; known: {}", name, state_list()));
    st.field("ns", e.ns[s]);
    st.field("wall_ns", e.wall_ns[s]);
    st.field("max_ns", e.max_ns[s]);
    std::vector<uint64_t> hist;
    st.field("hist", hist);
    if (static_cast<int>(hist.size()) != buckets) {
      st.at("hist").fail(fmt::format("{} buckets; the file's histogram has {}", hist.size(), buckets));
    }
    if (e.ns[s] < 0 || e.max_ns[s] < 0 || e.wall_ns[s] < 0) st.fail("a negative time");
    // The union of the steps' intervals is no longer than their sum; the plugin's may be,
    // by a race (a thread held between reading the clock and counting the step).
    e.wall_ns[s] = std::min(e.wall_ns[s], e.ns[s]);
  }
  return e;
}

ProfilePeerEntry parse_peer(const JsonIn& g, const RankProfile& p) {
  ProfilePeerEntry e;
  g.field("key", e.key);
  g.field("peer", e.peer);
  e.send = parse_direction(g);
  check_key(g, p, e.key, e.peer);
  for (const auto& [name, st] : g.at("wall_ns").members()) {
    const int s = state_index(name);
    if (s < 0) st.fail(fmt::format("unknown step state '{}'; known: {}", name, state_list()));
    read(st, e.wall_ns[s]);
    if (e.wall_ns[s] < 0) st.fail("a negative time");
  }
  return e;
}

// What a collected section holds, in words.
std::string describe(const NcclProfileSection& s) {
  uint64_t dropped = 0;
  int incomplete = 0, snapshots = 0;
  std::set<std::string> comms;
  std::set<int> apis;
  for (const ProfileSource& r : s.ranks) {
    dropped += r.dropped_events;
    incomplete += r.complete || r.snapshot_seq > 0 ? 0 : 1;
    snapshots += r.snapshot_seq > 0 ? 1 : 0;
    comms.insert(r.comm);
    apis.insert(r.api);
  }
  std::string api;
  for (int a : apis) api += (api.empty() ? "v" : ", v") + std::to_string(a);
  std::string d = fmt::format("{} file{} from {} communicator{}, plugin API {}", s.ranks.size(),
                              s.ranks.size() == 1 ? "" : "s", comms.size(), comms.size() == 1 ? "" : "s", api);
  bool any_link = false, any_nic = false;
  for (const ProfilePoint& p : s.points) {
    for (const ProfileLink& l : p.links) {
      any_link = true;
      any_nic = any_nic || !l.nic.empty();
    }
  }
  if (!any_link) {
    d += "; no network transfer was profiled: every peer is reached without the network (NVLink, PCIe, shared "
         "memory), or no collective ran";
  } else if (!any_nic) {
    d += "; no NCCL log joined, so the NIC of each channel is unknown";
  }
  if (dropped > 0) d += fmt::format("; {} events dropped (the plugin's buffers were full)", dropped);
  if (incomplete > 0) d += fmt::format("; {} written at process exit, the communicator never destroyed", incomplete);
  if (snapshots > 0) {
    d += fmt::format(
        "; {} snapshot{} of a running job (the newest of each rank without a final profile: its totals "
        "so far)",
        snapshots, snapshots == 1 ? "" : "s");
  }
  return d;
}

}  // namespace

std::string collective_of_nccl_func(std::string_view func) {
  static const std::map<std::string_view, std::string_view> kNames = {
      {"AllReduce", "allreduce"}, {"AllGather", "allgather"}, {"ReduceScatter", "reducescatter"},
      {"Broadcast", "broadcast"}, {"Reduce", "reduce"},       {"AlltoAll", "alltoall"},
      {"Gather", "gather"},       {"Scatter", "scatter"},     {"SendRecv", "sendrecv"}};
  auto it = kNames.find(func);
  return it != kNames.end() ? std::string(it->second) : std::string(func);
}

uint64_t nccl_tests_size(std::string_view func, std::string_view datatype, uint64_t count, int nranks) {
  static const std::map<std::string_view, uint64_t> kSizes = {
      {"ncclInt8", 1},    {"ncclUint8", 1},    {"ncclInt32", 4},      {"ncclUint32", 4},
      {"ncclInt64", 8},   {"ncclUint64", 8},   {"ncclFloat16", 2},    {"ncclFloat32", 4},
      {"ncclFloat64", 8}, {"ncclBfloat16", 2}, {"ncclFloat8e4m3", 1}, {"ncclFloat8e5m2", 1}};
  auto it = kSizes.find(datatype);
  if (it == kSizes.end()) return 0;
  const uint64_t bytes = count * it->second;
  // NCCL's count is per rank for these two; nccl-tests' size is the whole buffer.
  if (func == "AllGather" || func == "ReduceScatter") return bytes * static_cast<uint64_t>(std::max(nranks, 1));
  return bytes;
}

Result<RankProfile> parse_rank_profile(std::string_view text, const std::string& source) {
  auto parsed = parse_json_text<Json>(text, fmt::format("'{}'", source));
  if (!parsed.ok()) return parsed.status();
  const Json doc = std::move(*parsed);
  if (!doc.is_object() || !doc.contains("format") || !doc["format"].is_string()) {
    return Status::Invalid(fmt::format(
        "'{}' is not a profile of fabscope's NCCL profiler plugin (no \"format\": \"{}\"); give the directory "
        "FABSCOPE_PROFILE_DIR pointed at, with its fabscope-profile-*.json files",
        source, kProfileFormat));
  }
  if (doc["format"].get<std::string>() != kProfileFormat) {
    return Status::Invalid(fmt::format("'{}' has format '{}', not '{}': not a profile of fabscope's NCCL plugin",
                                       source, doc["format"].get<std::string>(), kProfileFormat));
  }
  try {
    const JsonIn in(doc, "", source);
    int version = 0;
    in.field("version", version);
    if (version != kVersion) {
      in.at("version").fail(fmt::format("{}; this fabscope reads version {}{}", version, kVersion,
                                        version < kVersion ? " (an older plugin's, without the wall-clock time per "
                                                             "state: profile again with this fabscope's plugin)"
                                                           : ""));
    }
    RankProfile p;
    p.file = source;
    in.field("host", p.host);
    in.field("pid", p.pid);
    in.field("plugin_api", p.api);
    in.field("comm_id", p.comm_id);
    in.field("comm_name", p.comm_name);
    in.field("rank", p.rank);
    in.field("nranks", p.nranks);
    in.field("complete", p.complete);
    in.field("dropped_events", p.dropped_events);
    if (auto snap = in.find("snapshot")) snap->field("seq", p.snapshot_seq);
    if (p.nranks < 1) in.at("nranks").fail(fmt::format("{} ranks; a communicator has 1 or more", p.nranks));
    if (p.rank < 0 || p.rank >= p.nranks) {
      in.at("rank").fail(fmt::format("rank {} outside the communicator's 0..{}", p.rank, p.nranks - 1));
    }
    int buckets = 0;
    in.at("histogram").field("buckets", buckets);
    for (const JsonIn& k : in.at("keys").elements()) {
      ProfileKeyEntry e;
      k.field("id", e.id);
      k.field("kind", e.kind);
      k.field("func", e.func);
      k.field("datatype", e.datatype);
      k.field("count", e.count);
      k.field("algo", e.algo);
      k.field("proto", e.proto);
      k.field("peer", e.peer);
      k.field("channels", e.channels);
      k.field("calls", e.calls);
      if (e.kind != "collective" && e.kind != "p2p" && e.kind != "unknown") {
        k.at("kind").fail(fmt::format("'{}'; expected collective, p2p or unknown", e.kind));
      }
      p.keys.push_back(std::move(e));
    }
    for (const JsonIn& b : in.at("bins").elements()) p.bins.push_back(parse_bin(b, p, buckets));
    for (const JsonIn& g : in.at("peers").elements()) p.peers.push_back(parse_peer(g, p));
    return p;
  } catch (const JsonInputError& e) {
    return Status::Invalid(e.what());
  }
}

Result<std::vector<RankProfile>> read_rank_profiles(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return Status::Invalid(fmt::format("--import-profile '{}': {}", path, std::strerror(errno)));
  }
  std::vector<std::string> files;
  if (S_ISDIR(st.st_mode)) {
    DIR* d = ::opendir(path.c_str());
    if (d == nullptr) {
      return Status::Invalid(fmt::format("--import-profile '{}': {}", path, std::strerror(errno)));
    }
    // Per rank and communicator (the name's HOST-PID-cCOMM-rRANK): its final profile, or
    // while the job runs (or where it was killed) the newest of its snapshots.
    std::map<std::string, std::pair<uint64_t, std::string>> chosen;  // key -> (seq + 1, or 0 for the profile; file)
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (!name.ends_with(".json")) continue;
      if (name.starts_with(kProfilePrefix)) {
        const std::string key = name.substr(kProfilePrefix.size(), name.size() - kProfilePrefix.size() - 5);
        chosen[key] = {0, path + "/" + name};
      } else if (name.starts_with(kSnapshotPrefix)) {
        const size_t s = name.rfind("-s");
        if (s == std::string::npos || s < kSnapshotPrefix.size()) continue;
        const std::string key = name.substr(kSnapshotPrefix.size(), s - kSnapshotPrefix.size());
        const uint64_t seq = std::strtoull(name.c_str() + s + 2, nullptr, 10);
        auto [it, fresh] = chosen.try_emplace(key, seq + 1, path + "/" + name);
        if (!fresh && it->second.first != 0 && seq + 1 > it->second.first) it->second = {seq + 1, path + "/" + name};
      }
    }
    ::closedir(d);
    for (const auto& [key, pick] : chosen) files.push_back(pick.second);
    if (files.empty()) {
      return Status::Invalid(fmt::format(
          "--import-profile '{}' has no {}*.json or {}*.json files: run the job with NCCL_PROFILER_PLUGIN=<path to "
          "libnccl-profiler-fabscope.so> and FABSCOPE_PROFILE_DIR={} (the plugin writes when a communicator is "
          "destroyed, or when the process exits, and with FABSCOPE_PROFILE_INTERVAL while it runs)",
          path, kProfilePrefix, kSnapshotPrefix, path));
    }
  } else {
    files.push_back(path);
  }
  std::vector<RankProfile> out;
  for (const std::string& f : files) {
    auto text = read_file(f);
    if (!text.ok()) return text.status();
    auto p = parse_rank_profile(*text, f);
    if (!p.ok()) return p.status();
    out.push_back(std::move(*p));
  }
  return out;
}

namespace {

using PointKey = std::tuple<std::string, std::string, std::string, uint64_t, std::string, std::string>;
using LinkKey = std::tuple<int, int, bool, std::string>;

// The section's points and links as the ranks' files are added, and the NICs of the
// log's channels.
struct SectionBuilder {
  std::map<PointKey, ProfilePoint> points;
  std::map<PointKey, std::map<LinkKey, ProfileLink>> links;
  std::map<std::tuple<std::string, std::string, int, int, int, bool>, std::string> by_process;
  std::map<std::tuple<std::string, int, int, int, bool>, std::string> by_host;

  // The NIC of a channel: the same process's line first, then any of this host and rank.
  std::string nic_of(const RankProfile& p, const ProfileBinEntry& b) const {
    if (auto it = by_process.find({p.host, std::to_string(p.pid), p.rank, b.peer, b.channel, b.send});
        it != by_process.end()) {
      return it->second;
    }
    if (auto h = by_host.find({p.host, p.rank, b.peer, b.channel, b.send}); h != by_host.end()) return h->second;
    return "";
  }
  void add(const RankProfile& p, const std::string& comm);
};

// One rank's file. A link's wall-clock time per state, per key: the union across every
// channel to or from its peer (the file's "peers") when the link holds them all, and at
// most that and at most the sum of its channels' own unions when the peer's channels go
// over more than one NIC (the smaller of the two: the union of those channels alone is
// not in the file).
void SectionBuilder::add(const RankProfile& p, const std::string& comm) {
  std::map<int, const ProfileKeyEntry*> keys;
  for (const ProfileKeyEntry& k : p.keys) keys[k.id] = &k;
  std::map<std::tuple<int, int, bool>, const ProfilePeerEntry*> peers;
  for (const ProfilePeerEntry& g : p.peers) peers[{g.key, g.peer, g.send}] = &g;
  std::map<PointKey, uint64_t> calls;  // this rank's, per point (p2p keys differ by peer)
  // Per link and key: the sum of its channels' unions.
  std::map<std::tuple<PointKey, LinkKey, int, int>, std::vector<double>> channel_wall;
  for (const ProfileBinEntry& b : p.bins) {
    const ProfileKeyEntry& k = *keys.at(b.key);
    const PointKey pk{comm, k.func, k.datatype, k.count, k.algo, k.proto};
    ProfilePoint& pt = points[pk];
    if (pt.func.empty()) {
      pt.comm = comm;
      pt.func = k.func;
      pt.collective = collective_of_nccl_func(k.func);
      pt.datatype = k.datatype;
      pt.count = k.count;
      pt.size_bytes = nccl_tests_size(k.func, k.datatype, k.count, p.nranks);
      pt.algo = k.algo;
      pt.proto = k.proto;
    }
    const std::string nic = nic_of(p, b);
    const LinkKey lk{p.rank, b.peer, b.send, nic};
    ProfileLink& l = links[pk][lk];
    l.rank = p.rank;
    l.peer = b.peer;
    l.direction = b.send ? LinkDirection::kSend : LinkDirection::kRecv;
    l.nic = nic;
    ++l.channels;
    l.ops += b.ops;
    l.steps += b.steps;
    l.open_steps += b.steps - b.done_steps;
    l.bytes += b.bytes;
    std::vector<double>& w = channel_wall[{pk, lk, b.key, b.peer}];
    w.resize(kProfileStates, 0.0);
    for (int st = 0; st < kProfileStates; ++st) {
      w[st] += b.wall_ns[st];
      l.max_us[st] = std::max(l.max_us[st], b.max_ns[st] / 1e3);
    }
    calls[pk] = std::max(calls[pk], k.calls);
  }
  for (const auto& [at, w] : channel_wall) {
    const auto& [pk, lk, key, peer] = at;
    auto g = peers.find({key, peer, std::get<2>(lk)});
    ProfileLink& l = links[pk][lk];
    for (int st = 0; st < kProfileStates; ++st) {
      const double wall = g != peers.end() ? std::min(g->second->wall_ns[st], w[st]) : w[st];
      l.wait_us[st] += wall / 1e3;
    }
  }
  for (const auto& [pk, c] : calls) points[pk].calls = std::max(points[pk].calls, c);
}

}  // namespace

NcclProfileSection build_profile_section(const std::vector<RankProfile>& profiles,
                                         const std::vector<ChannelNic>& channels, const std::string& why) {
  NcclProfileSection s;
  if (profiles.empty()) {
    s.status = ProfileStatus::kNoData;
    s.detail = why.empty() ? fmt::format("no profile was written; the plugin implements {}", kProfilerVersions) : why;
    return s;
  }
  s.status = ProfileStatus::kCollected;
  SectionBuilder sb;
  for (const ChannelNic& c : channels) {
    sb.by_process.emplace(std::make_tuple(c.host, c.pid, c.rank, c.peer, c.channel, c.send), c.nic);
    sb.by_host.emplace(std::make_tuple(c.host, c.rank, c.peer, c.channel, c.send), c.nic);
  }
  for (const RankProfile& p : profiles) {
    const std::string comm = p.comm_name.empty() ? p.comm_id : fmt::format("{} ({})", p.comm_name, p.comm_id);
    s.ranks.push_back({comm, p.rank, p.host, p.pid, p.api, p.file, p.complete, p.dropped_events, p.snapshot_seq});
    sb.add(p, comm);
  }
  for (auto& [pk, pt] : sb.points) {
    for (auto& [lk, l] : sb.links[pk]) pt.links.push_back(std::move(l));
    s.points.push_back(std::move(pt));
  }
  std::stable_sort(s.points.begin(), s.points.end(), [](const ProfilePoint& a, const ProfilePoint& b) {
    return std::tie(a.comm, a.collective, a.size_bytes, a.count) <
           std::tie(b.comm, b.collective, b.size_bytes, b.count);
  });
  std::sort(s.ranks.begin(), s.ranks.end(), [](const ProfileSource& a, const ProfileSource& b) {
    return std::tie(a.comm, a.rank, a.file) < std::tie(b.comm, b.rank, b.file);
  });
  s.detail = describe(s);
  return s;
}

NcclProfileSection merge_profile_sections(const std::vector<NcclProfileSection>& parts) {
  if (parts.empty()) return build_profile_section({}, {});
  NcclProfileSection out;
  out.status = ProfileStatus::kCollected;
  std::vector<size_t> missing;
  std::map<std::tuple<std::string, std::string, std::string, uint64_t, std::string, std::string>, size_t> index;
  for (size_t i = 0; i < parts.size(); ++i) {
    const NcclProfileSection& part = parts[i];
    if (part.status != ProfileStatus::kCollected) {
      missing.push_back(i);
      continue;
    }
    out.ranks.insert(out.ranks.end(), part.ranks.begin(), part.ranks.end());
    for (const ProfilePoint& p : part.points) {
      auto [it, added] = index.try_emplace({p.comm, p.func, p.datatype, p.count, p.algo, p.proto}, out.points.size());
      if (added) {
        out.points.push_back(p);
        continue;
      }
      ProfilePoint& q = out.points[it->second];
      q.calls = std::max(q.calls, p.calls);
      q.links.insert(q.links.end(), p.links.begin(), p.links.end());
    }
  }
  if (out.ranks.empty()) return parts.front();
  std::stable_sort(out.points.begin(), out.points.end(), [](const ProfilePoint& a, const ProfilePoint& b) {
    return std::tie(a.comm, a.collective, a.size_bytes, a.count) <
           std::tie(b.comm, b.collective, b.size_bytes, b.count);
  });
  for (ProfilePoint& p : out.points) {
    std::stable_sort(p.links.begin(), p.links.end(), [](const ProfileLink& a, const ProfileLink& b) {
      return std::tie(a.rank, a.peer, a.direction, a.nic) < std::tie(b.rank, b.peer, b.direction, b.nic);
    });
  }
  out.detail = describe(out);
  if (!missing.empty()) {
    std::string which;
    for (size_t i = 0; i < missing.size() && i < 8; ++i)
      which += (which.empty() ? "" : ", ") + std::to_string(missing[i]);
    if (missing.size() > 8) which += ", ...";
    out.detail += fmt::format("; {} of {} ranks have no profile (rank {}: {})", missing.size(), parts.size(), which,
                              parts[missing.front()].detail);
  }
  return out;
}

}  // namespace fabscope
