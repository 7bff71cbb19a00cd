#include "diag/watch.h"

#include <fmt/format.h>

#include <algorithm>

#include <fmt/ranges.h>

#include "core/stats.h"
#include "report/finding_codes.h"
#include "report/json_io.h"

namespace fabscope {

namespace {

std::string state_of(bool send) { return send ? "SendWait" : "RecvWait"; }

}  // namespace

Result<Snapshot> parse_snapshot(std::string_view text, const std::string& file) {
  auto parsed = parse_json_text<Json>(text, fmt::format("'{}'", file));
  if (!parsed.ok()) return parsed.status();
  const Json doc = std::move(*parsed);
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kProfileFormat || !doc.contains("snapshot")) {
    return Status::Invalid(fmt::format(
        "'{}' is not a snapshot of fabscope's NCCL profiler plugin (\"format\": \"{}\" with \"snapshot\"): run the "
        "job with FABSCOPE_PROFILE_INTERVAL set",
        file, kProfileFormat));
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
    std::map<std::pair<int, bool>, SnapshotLink> totals;
    for (const JsonIn& b : in.at("bins").elements()) {
      int peer = -1;
      std::string direction;
      uint64_t bytes = 0, steps = 0;
      b.field("peer", peer);
      b.field("direction", direction);
      b.field("bytes", bytes);
      b.field("done_steps", steps);
      if (peer < 0) continue;
      SnapshotLink& t = totals[{peer, direction == "send"}];
      t.peer = peer;
      t.send = direction == "send";
      t.bytes += bytes;
      t.steps += steps;
      const Json& states = b.json().at("states");
      if (auto it = states.find(state_of(t.send)); it != states.end())
        t.network_wait_ns += it->at("ns").get<uint64_t>();
    }
    for (auto& [key, t] : totals) s.totals.push_back(t);
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
      w.nic = nic_of(s, l.peer, true);
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
  for (const auto& [rank, s] : have) record(id, c, s, iv);
  ++intervals_;
  return iv;
}

namespace {

// `b`, the interval (or run of intervals) right after `a`, into `a`: the wait per step
// weighted by steps, the span and the figures summed, slow if either was.
void merge_point(WatchPoint& a, const WatchPoint& b) {
  const uint64_t steps = a.steps + b.steps;
  a.wait_us_per_step =
      steps == 0
          ? 0
          : (a.wait_us_per_step * static_cast<double>(a.steps) + b.wait_us_per_step * static_cast<double>(b.steps)) /
                static_cast<double>(steps);
  a.seq_last = b.seq_last;
  a.end_s = b.end_s;
  a.bytes += b.bytes;
  a.steps = steps;
  a.slow = a.slow || b.slow;
}

}  // namespace

std::string Watch::nic_of(const Snapshot& s, int peer, bool send) const {
  auto n = nics_.find({s.host, std::to_string(s.pid), s.rank, peer, send});
  return n == nics_.end() ? std::string() : fmt::format("{}", fmt::join(n->second, ","));
}

// A judged interval's figures of one rank, into its links' series: a point per interval
// (or, once the series has been thinned, merged into the last point until it holds as
// many intervals as the others), and the totals since the communicator began.
void Watch::record(const std::string& id, Comm& c, const Snapshot& s, const WatchedInterval& iv) {
  const auto series_of = [&](int peer, bool send) -> Series& {
    Series& x = c.series[{s.rank, peer, send}];
    if (x.link.rank < 0) {
      x.link.comm = id;
      x.link.rank = s.rank;
      x.link.peer = peer;
      x.link.direction = send ? "send" : "recv";
      x.link.host = s.host;
      auto p = c.ranks.find(peer);
      x.link.peer_host = p == c.ranks.end() ? "?" : p->second.host;
      x.link.nic = nic_of(s, peer, send);
    }
    return x;
  };
  const double seconds = static_cast<double>(s.end_ns - s.start_ns) / 1e9;
  for (const SnapshotLink& l : s.links) {
    if (l.peer < 0 || l.steps == 0) continue;
    Series& x = series_of(l.peer, l.send);
    WatchLink& w = x.link;
    WatchPoint p{iv.seq,
                 iv.seq,
                 iv.start_s,
                 iv.end_s,
                 static_cast<double>(l.network_wait_ns) / static_cast<double>(l.steps) / 1e3,
                 l.bytes,
                 l.steps,
                 false};
    p.slow = l.send && std::any_of(iv.links.begin(), iv.links.end(), [&](const WatchedLink& k) {
               return k.rank == s.rank && k.peer == l.peer && k.slow;
             });
    if (p.slow && !w.slow_from && c.raised.count({s.rank, l.peer})) w.slow_from = iv.seq;
    w.last_wait_us_per_step = p.wait_us_per_step;
    w.last_bytes_per_s = seconds > 0 ? static_cast<double>(l.bytes) / seconds : 0;
    if (!w.points.empty() && w.points.back().seq_last + 1 == iv.seq &&
        w.points.back().seq_last - w.points.back().seq_first + 1 < x.stride) {
      merge_point(w.points.back(), p);
    } else {
      w.points.push_back(p);
    }
    if (w.points.size() > static_cast<size_t>(o_.max_points)) {  // pairs merge: half the points, twice the span
      std::vector<WatchPoint> half;
      for (size_t i = 0; i < w.points.size(); i += 2) {
        half.push_back(w.points[i]);
        if (i + 1 < w.points.size()) merge_point(half.back(), w.points[i + 1]);
      }
      w.points = std::move(half);
      x.stride *= 2;
    }
  }
  for (const SnapshotLink& t : s.totals) {
    WatchLink& w = series_of(t.peer, t.send).link;
    w.bytes_total = t.bytes;
    w.steps_total = t.steps;
    w.network_wait_s_total = static_cast<double>(t.network_wait_ns) / 1e9;
  }
}

std::vector<std::tuple<int, std::string, int>> Watch::job_ranks() const {
  const Comm* largest = nullptr;
  for (const auto& [id, c] : comms_) {
    if (largest == nullptr || c.ranks.size() > largest->ranks.size()) largest = &c;
  }
  std::vector<std::tuple<int, std::string, int>> out;
  if (largest != nullptr) {
    for (const auto& [rank, r] : largest->ranks) out.emplace_back(rank, r.host, r.pid);
  }
  return out;
}

WatchSection Watch::section() const {
  WatchSection out;
  out.interval_s = longest_interval_s();
  out.snapshots = seen_.size();
  out.intervals = intervals_;
  out.max_points = o_.max_points;
  for (const auto& [id, c] : comms_) {
    for (const auto& [key, x] : c.series) {
      WatchLink w = x.link;
      std::vector<double> waits;
      for (const WatchPoint& p : w.points) waits.push_back(p.wait_us_per_step);
      w.median_wait_us_per_step = waits.empty() ? 0 : median(waits);
      out.links.push_back(std::move(w));
    }
  }
  // Slow links first (in the order they turned), then sends before receives, the highest
  // median wait first: the report keeps the series of the first `plotted_links` sends.
  std::stable_sort(out.links.begin(), out.links.end(), [](const WatchLink& a, const WatchLink& b) {
    if (a.slow_from.has_value() != b.slow_from.has_value()) return a.slow_from.has_value();
    if (a.slow_from && *a.slow_from != *b.slow_from) return *a.slow_from < *b.slow_from;
    if (a.direction != b.direction) return a.direction == "send";
    return a.median_wait_us_per_step > b.median_wait_us_per_step;
  });
  int plotted = 0;
  for (WatchLink& w : out.links) {
    if (w.direction == "send" && !w.points.empty() && plotted < o_.plotted_links) {
      ++plotted;
    } else {
      w.points.clear();
    }
  }
  return out;
}

}  // namespace fabscope
