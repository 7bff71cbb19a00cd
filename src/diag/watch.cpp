#include "diag/watch.h"

#include <fmt/format.h>

#include <algorithm>

#include <fmt/ranges.h>

#include "core/stats.h"
#include "report/finding_codes.h"
#include "report/json_io.h"

namespace fabscope {

namespace {

constexpr std::string_view kFormat = "fabscope-nccl-profile";

std::string state_of(bool send) { return send ? "SendWait" : "RecvWait"; }

}  // namespace

Result<Snapshot> parse_snapshot(std::string_view text, const std::string& file) {
  auto parsed = parse_json_text<Json>(text, fmt::format("'{}'", file));
  if (!parsed.ok()) return parsed.status();
  const Json doc = std::move(*parsed);
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormat || !doc.contains("snapshot")) {
    return Status::Invalid(fmt::format(
        "'{}' is not a snapshot of fabscope's NCCL profiler plugin (\"format\": \"{}\" with \"snapshot\"): run the "
        "job with FABSCOPE_PROFILE_INTERVAL set",
        file, kFormat));
  }
  try {
    const JsonIn in(doc, "", file);
    Snapshot s;
    s.file = file;
    in.field("host", s.host);
    in.field("pid", s.pid);
    in.field("rank", s.rank);
    in.field("nranks", s.nranks);
    in.field("comm_id", s.comm);
    if (s.nranks < 1 || s.rank < 0 || s.rank >= s.nranks) {
      in.at("rank").fail(fmt::format("rank {} of {}: outside the communicator", s.rank, s.nranks));
    }
    const JsonIn snap = in.at("snapshot");
    snap.field("seq", s.seq);
    snap.field("interval_s", s.interval_s);
    snap.field("start_ns", s.start_ns);
    snap.field("end_ns", s.end_ns);
    if (s.seq < 1 || !(s.interval_s > 0) || s.end_ns < s.start_ns) {
      snap.fail(fmt::format("seq {}, interval {} s, {}..{} ns: not a snapshot's interval", s.seq, s.interval_s,
                            s.start_ns, s.end_ns));
    }
    for (const JsonIn& x : in.at("interval").elements()) {
      SnapshotLink l;
      std::string direction;
      x.field("peer", l.peer);
      x.field("direction", direction);
      if (direction != "send" && direction != "recv") x.at("direction").fail(fmt::format("'{}'", direction));
      l.send = direction == "send";
      x.field("bytes", l.bytes);
      x.field("steps", l.steps);
      const Json& states = x.json().at("states");
      if (auto it = states.find(state_of(l.send)); it != states.end()) {
        l.network_wait_ns = it->at("ns").get<uint64_t>();
      }
      s.links.push_back(l);
    }
    return s;
  } catch (const JsonInputError& e) {
    return Status::Invalid(e.what());
  } catch (const Json::exception& e) {
    return Status::Invalid(fmt::format("'{}': {}", file, e.what()));
  }
}

void Watch::set_channel_nics(const std::vector<ChannelNic>& channels) {
  for (const ChannelNic& c : channels) nics_[{c.host, c.pid, c.rank, c.peer, c.send}].insert(c.nic);
}

Status Watch::add(const Snapshot& s, double now_s) {
  if (!seen_.insert({s.comm, s.rank, s.seq}).second) return Status::Ok();
  Comm& c = comms_[s.comm];
  first_file_.emplace(s.comm, s.file);
  c.nranks = s.nranks;
  if (c.origin_ns == 0 || (s.seq == 1 && s.start_ns < c.origin_ns)) c.origin_ns = s.start_ns;
  RankState& r = c.ranks[s.rank];
  r.host = s.host;
  r.pid = s.pid;
  r.interval_s = s.interval_s;
  r.last_seen_s = now_s;
  r.silent = false;
  r.latest = std::max(r.latest, s.seq);
  if (s.seq > c.judged) c.pending[s.seq][s.rank] = s;
  return Status::Ok();
}

double Watch::longest_interval_s() const {
  double longest = 0;
  for (const auto& [id, c] : comms_) {
    for (const auto& [rank, r] : c.ranks) longest = std::max(longest, r.interval_s);
  }
  return longest;
}

// Communicators are one job where processes join them: a job's tensor-parallel groups
// share no process with each other, but each shares its processes with the job's world
// communicator. Two groups that no chain of shared processes joins are two jobs.
Status Watch::check_one_job() const {
  std::map<std::pair<std::string, int>, std::string> owner;  // (host, pid) -> a communicator holding it
  std::map<std::string, std::string> parent;                 // union-find over communicators
  for (const auto& [id, c] : comms_) parent[id] = id;
  const auto root = [&](std::string id) {
    while (parent[id] != id) id = parent[id] = parent[parent[id]];
    return id;
  };
  for (const auto& [id, c] : comms_) {
    for (const auto& [rank, r] : c.ranks) {
      auto [it, fresh] = owner.emplace(std::pair{r.host, r.pid}, id);
      if (!fresh) parent[root(id)] = root(it->second);
    }
  }
  std::map<std::string, std::string> groups;  // root -> a communicator of it
  for (const auto& [id, c] : comms_) groups.emplace(root(id), id);
  if (groups.size() < 2) return Status::Ok();
  const std::string& a = groups.begin()->second;
  const std::string& b = std::next(groups.begin())->second;
  return Status::Invalid(fmt::format(
      "'{}' (communicator {}) and '{}' (communicator {}) are snapshots of two different jobs: no process joins their "
      "communicators; watch one job's directory",
      first_file_.at(a), a, first_file_.at(b), b));
}

std::vector<WatchedInterval> Watch::judge(double now_s, std::vector<Finding>& findings, bool flush) {
  std::vector<WatchedInterval> out;
  for (auto& [id, c] : comms_) {
    find_silent(id, c, now_s, findings);
    uint64_t newest = 0;
    for (const auto& [rank, r] : c.ranks) newest = std::max(newest, r.latest);
    while (!c.pending.empty()) {
      const uint64_t seq = c.pending.begin()->first;
      const auto& have = c.pending.begin()->second;
      // Every rank of the communicator in, but those gone silent; or the interval left
      // behind by `silent_intervals` (a rank whose directory is not watched); or the end.
      bool all = true;
      for (int rank = 0; rank < c.nranks && all; ++rank) {
        auto r = c.ranks.find(rank);
        all = have.count(rank) > 0 || (r != c.ranks.end() && r->second.silent);
      }
      if (!all && !flush && newest < seq + static_cast<uint64_t>(o_.silent_intervals)) break;
      out.push_back(judge_interval(id, c, seq, findings));
      c.judged = seq;
      c.pending.erase(c.pending.begin());
    }
  }
  return out;
}

// A rank `silent_intervals` behind the newest, and as long without a file: hung or dead.
void Watch::find_silent(const std::string& id, Comm& c, double now_s, std::vector<Finding>& findings) {
  uint64_t newest = 0;
  for (const auto& [rank, r] : c.ranks) newest = std::max(newest, r.latest);
  for (auto& [rank, r] : c.ranks) {
    const double quiet_s = now_s - r.last_seen_s;
    if (r.silent || r.latest + static_cast<uint64_t>(o_.silent_intervals) > newest ||
        quiet_s < o_.silent_intervals * r.interval_s) {
      continue;
    }
    r.silent = true;
    findings.push_back(
        {std::string(code::kRunHang),
         Severity::kError,
         fmt::format("rank {} on {} (communicator {})", rank, r.host, id),
         {r.host},
         fmt::format("rank {} on {} (pid {}) has written no snapshot for {:.1f} s: its last is interval {}, the other "
                     "ranks' {}; its process is hung or dead, and the job waits on it",
                     rank, r.host, r.pid, quiet_s, r.latest, newest),
         fmt::format("look at pid {} on {} (alive? `py-spy dump`, `gdb -p`), its GPU (dmesg Xid) and its NIC; "
                     "NCCL_DEBUG=INFO's last lines of that rank say which collective it waits in",
                     r.pid, r.host),
         {{"comm", id},
          {"rank", rank},
          {"pid", r.pid},
          {"last_interval", r.latest},
          {"newest_interval", newest},
          {"quiet_s", quiet_s}}});
  }
}

WatchedInterval Watch::judge_interval(const std::string& id, Comm& c, uint64_t seq, std::vector<Finding>& findings) {
  const std::map<int, Snapshot>& have = c.pending.at(seq);
  WatchedInterval iv;
  iv.comm = id;
  iv.seq = seq;
  iv.ranks = static_cast<int>(have.size());
  const Snapshot& any = have.begin()->second;
  iv.start_s = static_cast<double>(any.start_ns - std::min(any.start_ns, c.origin_ns)) / 1e9;
  iv.end_s = static_cast<double>(any.end_ns - std::min(any.end_ns, c.origin_ns)) / 1e9;
  std::vector<double> waits;
  for (const auto& [rank, s] : have) {
    for (const SnapshotLink& l : s.links) {
      if (!l.send || l.steps == 0) continue;
      WatchedLink w;
      w.rank = rank;
      w.peer = l.peer;
      w.src_host = s.host;
      auto peer = c.ranks.find(l.peer);
      w.dst_host = peer == c.ranks.end() ? "?" : peer->second.host;
      if (auto n = nics_.find({s.host, std::to_string(s.pid), rank, l.peer, true}); n != nics_.end()) {
        w.nic = fmt::format("{}", fmt::join(n->second, ","));
      }
      w.wait_us_per_step = static_cast<double>(l.network_wait_ns) / static_cast<double>(l.steps) / 1e3;
      waits.push_back(w.wait_us_per_step);
      iv.links.push_back(w);
    }
  }
  const double med = waits.empty() ? 0 : median(waits);
  for (WatchedLink& w : iv.links) {
    w.median_us = med;
    std::vector<double>& past = c.past[{w.rank, w.peer}];
    if (!past.empty()) w.past_us = median(past);
    const bool over_median =
        waits.size() >= 2 && w.wait_us_per_step >= o_.slow_factor * med && w.wait_us_per_step - med >= o_.min_excess_us;
    const bool over_past = !w.past_us || w.wait_us_per_step >= o_.slow_factor * *w.past_us;
    w.slow = over_median && over_past;
    // A slow link stays slow against its own past once that past is slow too: the turn is
    // raised once, and a link that stays slow is shown as slow against the median.
    if (over_median && c.raised.count({w.rank, w.peer})) w.slow = true;
    past.push_back(w.wait_us_per_step);
    if (past.size() > static_cast<size_t>(o_.past_intervals)) past.erase(past.begin());
    if (!w.slow || !c.raised.insert({w.rank, w.peer}).second) continue;
    findings.push_back(
        {std::string(code::kNcclLinkWait),
         Severity::kError,
         fmt::format("link {} -> {} ({} -> {}){}", w.rank, w.peer, w.src_host, w.dst_host,
                     w.nic.empty() ? "" : " over " + w.nic),
         {w.src_host, w.dst_host},
         fmt::format("from interval {} ({:.1f}-{:.1f} s), rank {}'s sends to rank {} wait {:.0f} us per step on the "
                     "network, {:.1f}x the median link's {:.0f} us{}",
                     seq, iv.start_s, iv.end_s, w.rank, w.peer, w.wait_us_per_step, w.wait_us_per_step / med, med,
                     w.past_us ? fmt::format(" and {:.1f}x its own last intervals' {:.0f} us",
                                             w.wait_us_per_step / *w.past_us, *w.past_us)
                               : std::string()),
         fmt::format("the link from {} to {} turned slow: {} and switch port's counters and errors, and the "
                     "cable; drain the two hosts if it stays slow",
                     w.src_host, w.dst_host, w.nic.empty() ? "its NIC's (--nccl-log names it)" : w.nic + "'s"),
         {{"comm", id},
          {"interval", seq},
          {"src_rank", w.rank},
          {"dst_rank", w.peer},
          {"nic", w.nic},
          {"wait_us_per_step", w.wait_us_per_step},
          {"median_us_per_step", med},
          {"past_us_per_step", w.past_us ? Json(*w.past_us) : Json(nullptr)}}});
  }
  std::sort(iv.links.begin(), iv.links.end(),
            [](const WatchedLink& a, const WatchedLink& b) { return a.wait_us_per_step > b.wait_us_per_step; });
  return iv;
}

}  // namespace fabscope
