#include "diag/link_watch.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <climits>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>

#include "core/clock.h"
#include "core/text.h"

namespace fabscope {

namespace {

namespace fs = std::filesystem;

constexpr const char* kNetCounterFiles[] = {"carrier_changes", "carrier_up_count", "carrier_down_count"};
constexpr const char* kPortCounterFiles[] = {"link_downed", "link_error_recovery", "symbol_error", "port_rcv_errors"};

// A small file's text (a sysfs attribute: one short line), trimmed, read with one
// open/read/close into `buf`. Returns 0, or the errno of open or read: ENOENT for a file
// that is not there, EINVAL from `carrier` while the interface is administratively down.
using SmallBuffer = std::array<char, 64>;
int read_small(const std::string& path, SmallBuffer& buf, std::string_view& text) {
  text = {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  size_t n = 0;
  int err = 0;
  while (n < buf.size()) {
    const ssize_t r = ::read(fd, buf.data() + n, buf.size() - n);
    if (r > 0) {
      n += static_cast<size_t>(r);
    } else if (r == 0) {
      break;
    } else if (errno != EINTR) {
      err = errno;
      break;
    }
  }
  ::close(fd);
  if (err == 0) text = trim(std::string_view(buf.data(), n));
  return err;
}

// The number `text` starts with: "4: ACTIVE" gives 4.
std::optional<uint64_t> leading_number(std::string_view text) {
  uint64_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr == text.data()) return std::nullopt;
  return v;
}

std::optional<uint64_t> read_number(const std::string& path) {
  SmallBuffer buf;
  std::string_view text;
  if (read_small(path, buf, text) != 0) return std::nullopt;
  return leading_number(text);
}

// One link's files, found once: a sample only reads them.
struct LinkFiles {
  std::string link;
  bool rdma = false;
  std::string state;                                          // interfaces: carrier; ports: state
  std::string operstate;                                      // interfaces: read where `carrier` is absent
  std::vector<std::pair<std::string, std::string>> counters;  // name, path
};

bool read_up(const LinkFiles& f) {
  SmallBuffer buf;
  std::string_view text;
  if (f.rdma) {
    if (read_small(f.state, buf, text) != 0) return false;
    return leading_number(text) == 4u;  // 4: ACTIVE
  }
  const int err = read_small(f.state, buf, text);
  if (err == 0) return text == "1";
  if (err != ENOENT) return false;  // EINVAL: administratively down
  // No carrier file (or no interface any more: then no operstate either, and down).
  if (read_small(f.operstate, buf, text) != 0) return false;
  return text == "up" || text == "unknown";
}

// The names of the directories in `dir` (symbolic links to directories included, as
// /sys/class/net has them), sorted; none where `dir` cannot be read.
std::vector<std::string> subdirectories(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_directory(type_ec)) out.push_back(it->path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<LinkFiles> list_links(const LinkSources& sources) {
  std::vector<LinkFiles> out;
  for (const std::string& iface : subdirectories(sources.net)) {
    if (iface == "lo") continue;
    const fs::path dir = fs::path(sources.net) / iface;
    LinkFiles f;
    f.link = iface;
    f.state = (dir / "carrier").string();
    f.operstate = (dir / "operstate").string();
    for (const char* name : kNetCounterFiles) f.counters.emplace_back(name, (dir / name).string());
    out.push_back(std::move(f));
  }
  for (const std::string& dev : subdirectories(sources.infiniband)) {
    const fs::path ports = fs::path(sources.infiniband) / dev / "ports";
    for (const std::string& port : subdirectories(ports)) {
      LinkFiles f;
      f.link = dev + "/" + port;
      f.rdma = true;
      f.state = (ports / port / "state").string();
      for (const char* name : kPortCounterFiles)
        f.counters.emplace_back(name, (ports / port / "counters" / name).string());
      out.push_back(std::move(f));
    }
  }
  std::sort(out.begin(), out.end(), [](const LinkFiles& a, const LinkFiles& b) { return a.link < b.link; });
  return out;
}

}  // namespace

std::vector<LinkState> read_link_states(const LinkSources& sources) {
  std::vector<LinkState> out;
  for (const LinkFiles& f : list_links(sources)) {
    LinkState s;
    s.link = f.link;
    s.rdma = f.rdma;
    s.up = read_up(f);
    for (const auto& [name, path] : f.counters) {
      if (auto v = read_number(path)) s.counters[name] = *v;
    }
    out.push_back(std::move(s));
  }
  return out;
}

struct LinkWatch::Watched {
  LinkFiles files;             // counters: those present at the start
  std::vector<uint64_t> last;  // per counter: its value at the last sample that read it
  std::vector<uint64_t> rise;  // per counter: its summed rises
  // The counter that rises once per down edge (carrier_down_count, link_downed), or
  // where a kernel before 4.16 has only carrier_changes, that one (twice per flap).
  int down_counter = -1;
  bool down_counter_counts_both = false;
  bool up = false;
  int64_t down_since_ns = 0;  // steady clock, while down
  LinkHistory history;        // but up_at_end, counter_deltas and the open down interval

  void add_edge(int64_t utc_ns, bool to_up, bool inferred) {
    if (!to_up && history.flaps < INT_MAX) ++history.flaps;
    if (history.edges.size() < kMaxEdges) {
      history.edges.push_back({utc_ns, to_up, inferred});
    } else {
      ++history.edges_dropped;
    }
  }

  // `pairs` flaps the samples missed, each a pair of edges away from the state `from` and
  // back, at the sample's time. Counted without a loop per pair: a counter can jump far.
  void add_missed(int64_t utc_ns, bool from, uint64_t pairs) {
    if (pairs == 0) return;
    const uint64_t downs = pairs;  // one down edge per pair, whichever way round
    history.flaps = static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(history.flaps) + downs, INT_MAX));
    const uint64_t all = pairs > UINT64_MAX / 2 ? UINT64_MAX : 2 * pairs;
    const uint64_t kept = std::min<uint64_t>(all, kMaxEdges - history.edges.size());
    for (uint64_t i = 0; i < kept; ++i) history.edges.push_back({utc_ns, i % 2 == 0 ? !from : from, true});
    history.edges_dropped += all - kept;
  }

  void sample(int64_t utc_ns, int64_t steady_ns) {
    const bool was = up;
    const bool now_up = read_up(files);
    uint64_t down_rise = 0;
    for (size_t i = 0; i < files.counters.size(); ++i) {
      const std::optional<uint64_t> v = read_number(files.counters[i].second);
      if (!v) continue;                                     // the link went away: keep the last value
      const uint64_t d = *v >= last[i] ? *v - last[i] : 0;  // a step back is a reset
      rise[i] += d;
      last[i] = *v;
      if (static_cast<int>(i) == down_counter) down_rise = d;
    }
    // Flaps between the samples: the down counter's rise less the down edge seen (with
    // carrier_changes, half its rise less the edge seen). They happened before the edge
    // seen, so their pairs go from the previous state and back.
    uint64_t missed = 0;
    if (down_counter_counts_both) {
      const uint64_t seen = was != now_up ? 1 : 0;
      missed = down_rise > seen ? (down_rise - seen) / 2 : 0;
    } else {
      const uint64_t seen = was && !now_up ? 1 : 0;
      missed = down_rise > seen ? down_rise - seen : 0;
    }
    add_missed(utc_ns, was, missed);
    if (now_up == was) return;
    add_edge(utc_ns, now_up, false);
    if (now_up) {
      history.downtime_s += static_cast<double>(steady_ns - down_since_ns) * 1e-9;
    } else {
      down_since_ns = steady_ns;
    }
    up = now_up;
  }
};

LinkWatch::LinkWatch(LinkSources sources, double period_s) : period_s_(std::max(period_s, 1e-3)) {
  const int64_t start_ns = steady_now_ns();
  for (LinkFiles& f : list_links(sources)) {
    Watched w;
    std::vector<std::pair<std::string, std::string>> candidates = std::move(f.counters);
    w.files = std::move(f);
    w.files.counters.clear();
    w.history.link = w.files.link;
    w.history.rdma = w.files.rdma;
    w.up = read_up(w.files);
    w.history.up_at_start = w.up;
    w.down_since_ns = start_ns;
    // Only the counters present at the start: a delta needs both ends.
    for (auto& [name, path] : candidates) {
      const std::optional<uint64_t> v = read_number(path);
      if (!v) continue;
      if (name == "carrier_down_count" || name == "link_downed") {
        w.down_counter = static_cast<int>(w.last.size());
        w.down_counter_counts_both = false;
      } else if (name == "carrier_changes" && w.down_counter < 0) {
        w.down_counter = static_cast<int>(w.last.size());
        w.down_counter_counts_both = true;
      }
      w.files.counters.emplace_back(std::move(name), std::move(path));
      w.last.push_back(*v);
      w.rise.push_back(0);
    }
    links_.push_back(std::move(w));
  }
  last_sample_ns_ = start_ns;
  thread_ = std::thread(&LinkWatch::run, this);
}

LinkWatch::~LinkWatch() { stop(); }

void LinkWatch::run() {
  std::unique_lock lock(mu_);
  const std::chrono::duration<double> period(period_s_);
  // The wait gives the lock up; stop() sets stopping_ under it and wakes the wait at once.
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) sample_locked();
}

void LinkWatch::sample_locked() {
  // One time for every link of the sample: the edges it sees are at the same moment.
  const int64_t utc_ns = system_now_ns();
  const int64_t steady_ns = steady_now_ns();
  for (Watched& w : links_) w.sample(utc_ns, steady_ns);
  last_sample_ns_ = steady_ns;
}

void LinkWatch::sample_now() {
  std::lock_guard lock(mu_);
  if (!stopped_) sample_locked();
}

void LinkWatch::stop() {
  std::call_once(stop_once_, [this] {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    std::lock_guard lock(mu_);
    sample_locked();
    stopped_ = true;
  });
}

std::vector<LinkHistory> LinkWatch::histories() const {
  std::lock_guard lock(mu_);
  std::vector<LinkHistory> out;
  out.reserve(links_.size());
  for (const Watched& w : links_) {
    LinkHistory h = w.history;
    h.up_at_end = w.up;
    if (!w.up) h.downtime_s += static_cast<double>(last_sample_ns_ - w.down_since_ns) * 1e-9;
    for (size_t i = 0; i < w.files.counters.size(); ++i) h.counter_deltas[w.files.counters[i].first] = w.rise[i];
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace fabscope
