#include "comm/heartbeat.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

#include "comm/mpi_check.h"
#include "core/clock.h"
#include "core/wait_note.h"

namespace fabscope {

namespace {

constexpr uint32_t kBeatMagic = 0x46534842;  // "FSHB"
// A datagram: header, then up to kMaxListed (rank, seconds silent) entries.
struct BeatHeader {
  uint32_t magic;
  uint32_t rank;
  uint64_t nonce;
  uint32_t count;
  uint32_t text_bytes;  // a wait's text after the entries (to rank 0)
};
struct BeatEntry {
  uint32_t rank;
  float silent_s;
};
constexpr size_t kMaxListed = 160;  // keeps a datagram under 1,400 bytes
constexpr size_t kMaxWaitText = 400;

}  // namespace

Result<std::unique_ptr<Heartbeat>> Heartbeat::start(const RankContext& ctx, const std::string& address,
                                                    double period_s) {
  std::unique_ptr<Heartbeat> h(new Heartbeat());
  h->ctx_ = &ctx;
  h->period_s_ = period_s;
  // Three periods missed, and at least 1.5 s: a busy host delays a datagram, not three.
  h->silence_s_ = std::max(3 * period_s, 1.5);
  Status local;
  h->fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  if (inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1) {
    local = Status::Invalid(fmt::format("heartbeat: '{}' is not an IPv4 address", address));
  } else if (h->fd_ < 0 || ::bind(h->fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 ||
             ::pipe2(h->wake_, O_CLOEXEC) != 0) {
    local =
        Status::Runtime(fmt::format("heartbeat: cannot bind a UDP socket on {}: {}", address, std::strerror(errno)));
  }
  socklen_t len = sizeof(sa);
  if (local.ok()) ::getsockname(h->fd_, reinterpret_cast<sockaddr*>(&sa), &len);
  if (ctx.rank() == 0 && ::getrandom(&h->nonce_, sizeof(h->nonce_), 0) != static_cast<ssize_t>(sizeof(h->nonce_))) {
    local = Status::Runtime(fmt::format("heartbeat: getrandom failed: {}", std::strerror(errno)));
  }
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(local));
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Bcast(&h->nonce_, 1, MPI_UINT64_T, 0, ctx.comm())));
  uint32_t mine[2] = {sa.sin_addr.s_addr, sa.sin_port};
  std::vector<uint32_t> all(2 * static_cast<size_t>(ctx.size()));
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_MPI(MPI_Allgather(mine, 2, MPI_UINT32_T, all.data(), 2, MPI_UINT32_T, ctx.comm())));
  for (int r = 0; r < ctx.size(); ++r) {
    h->peers_.push_back({all[2 * static_cast<size_t>(r)], static_cast<uint16_t>(all[2 * static_cast<size_t>(r) + 1])});
  }
  h->start_ns_ = steady_now_ns();
  h->heard_ns_.assign(static_cast<size_t>(ctx.size()), h->start_ns_);  // silence counts from the start
  h->neighbour_heard_ns_ = h->start_ns_;
  h->waits_.resize(static_cast<size_t>(ctx.size()));
  h->history_cap_ = std::max(kWaitHistory, 16 * static_cast<size_t>(ctx.size()));
  h->thread_ = std::thread([p = h.get()] { p->run(); });
  return h;
}

Heartbeat::~Heartbeat() {
  if (thread_.joinable()) {
    const char stop = 1;
    (void)!::write(wake_[1], &stop, 1);
    thread_.join();
  }
  for (int fd : {fd_, wake_[0], wake_[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

void Heartbeat::send_beats(int64_t now_ns) {
  const int me = ctx_->rank();
  auto send_to = [&](int r, const std::vector<BeatEntry>& entries, const std::string& text = {}) {
    const size_t entry_bytes = entries.size() * sizeof(BeatEntry);
    std::vector<char> buf(sizeof(BeatHeader) + entry_bytes + text.size());
    BeatHeader hdr{kBeatMagic, static_cast<uint32_t>(me), nonce_, static_cast<uint32_t>(entries.size()),
                   static_cast<uint32_t>(text.size())};
    std::memcpy(buf.data(), &hdr, sizeof(hdr));
    if (!entries.empty()) std::memcpy(buf.data() + sizeof(hdr), entries.data(), entry_bytes);
    if (!text.empty()) std::memcpy(buf.data() + sizeof(hdr) + entry_bytes, text.data(), text.size());
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = peers_[static_cast<size_t>(r)].addr;
    to.sin_port = peers_[static_cast<size_t>(r)].port;
    // Best effort: a full socket buffer or an unreachable peer only delays its news.
    (void)::sendto(fd_, buf.data(), buf.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&to), sizeof(to));
  };
  if (me != 0) {
    send_to(0, {}, own_wait(now_ns).substr(0, kMaxWaitText));
    if (me > 1) send_to(me - 1, {});
    if (me + 1 < ctx_->size()) send_to(me + 1, {});
    return;
  }
  std::vector<BeatEntry> silent;
  std::string mine = own_wait(now_ns);
  {
    std::lock_guard<std::mutex> lock(mu_);
    heard_ns_[0] = now_ns;
    if (!mine.empty()) remember_wait(0, std::move(mine), now_ns);
    for (size_t r = 1; r < heard_ns_.size() && silent.size() < kMaxListed; ++r) {
      const double s = static_cast<double>(now_ns - heard_ns_[r]) * 1e-9;
      if (s > silence_s_) silent.push_back({static_cast<uint32_t>(r), static_cast<float>(s)});
    }
  }
  for (int r = 1; r < ctx_->size(); ++r) send_to(r, silent);
}

void Heartbeat::receive(int64_t now_ns) {
  char buf[2048];
  while (true) {
    sockaddr_in from{};
    socklen_t flen = sizeof(from);
    const ssize_t n = ::recvfrom(fd_, buf, sizeof(buf), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), &flen);
    if (n < 0) return;
    if (static_cast<size_t>(n) < sizeof(BeatHeader)) continue;
    BeatHeader hdr{};
    std::memcpy(&hdr, buf, sizeof(hdr));
    if (hdr.magic != kBeatMagic || hdr.nonce != nonce_ || hdr.rank >= peers_.size()) continue;
    const Endpoint& p = peers_[hdr.rank];
    if (from.sin_addr.s_addr != p.addr || from.sin_port != p.port) continue;  // not that rank's socket
    if (hdr.count > kMaxListed || hdr.text_bytes > kMaxWaitText ||
        static_cast<size_t>(n) != sizeof(hdr) + hdr.count * sizeof(BeatEntry) + hdr.text_bytes) {
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (ctx_->rank() == 0) {
      heard_ns_[hdr.rank] = now_ns;
      waits_[hdr.rank] = {std::string(buf + sizeof(hdr) + hdr.count * sizeof(BeatEntry), hdr.text_bytes), now_ns};
      if (!waits_[hdr.rank].text.empty()) remember_wait(static_cast<int>(hdr.rank), waits_[hdr.rank].text, now_ns);
    } else if (hdr.rank != 0) {
      neighbour_heard_ns_ = now_ns;
    } else {
      rank0_heard_ns_ = now_ns;
      rank0_silent_.clear();
      for (uint32_t i = 0; i < hdr.count; ++i) {
        BeatEntry e{};
        std::memcpy(&e, buf + sizeof(hdr) + i * sizeof(BeatEntry), sizeof(e));
        if (e.rank < peers_.size()) rank0_silent_.emplace_back(static_cast<int>(e.rank), e.silent_s);
      }
    }
  }
}

void Heartbeat::run() {
  int64_t next_ns = steady_now_ns();
  const auto period_ns = static_cast<int64_t>(period_s_ * 1e9);
  while (true) {
    int64_t now = steady_now_ns();
    const int64_t last = last_turn_ns_.exchange(now);
    if (last != 0 && static_cast<double>(now - last) * 1e-9 > silence_s_) {
      std::lock_guard<std::mutex> lock(mu_);
      paused_until_ns_ = now;
      paused_s_ = static_cast<double>(now - last) * 1e-9;
    }
    if (now >= next_ns) {
      send_beats(now);
      next_ns = now + period_ns;
    }
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    const int wait_ms = static_cast<int>(std::max<int64_t>(0, (next_ns - now) / 1000000)) + 1;
    if (::poll(fds, 2, wait_ms) > 0 && (fds[1].revents & POLLIN)) return;
    receive(steady_now_ns());
  }
}

std::vector<std::pair<int, double>> Heartbeat::silent_ranks() const {
  const int64_t now = steady_now_ns();
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<int, double>> out;
  if (ctx_->rank() == 0) {
    for (size_t r = 1; r < heard_ns_.size(); ++r) {
      const double s = static_cast<double>(now - heard_ns_[r]) * 1e-9;
      if (s > silence_s_) out.emplace_back(static_cast<int>(r), s);
    }
    return out;
  }
  const double rank0_s = static_cast<double>(now - (rank0_heard_ns_ ? rank0_heard_ns_ : start_ns_)) * 1e-9;
  if (rank0_s > silence_s_) {
    out.emplace_back(0, rank0_s);
  } else {
    out = rank0_silent_;
  }
  return out;
}

int rank0_standby(const std::vector<int>& nodes, const std::vector<int>& silent_to_rank0) {
  int fallback = -1;
  for (int r = 1; r < static_cast<int>(nodes.size()); ++r) {
    if (std::find(silent_to_rank0.begin(), silent_to_rank0.end(), r) != silent_to_rank0.end()) continue;
    if (nodes[static_cast<size_t>(r)] != nodes[0]) return r;
    if (fallback < 0) fallback = r;
  }
  return fallback;
}

std::string Heartbeat::own_wait(int64_t now_ns) const {
  // The engine renews its note every poll (100 ms) while it waits.
  const auto w = current_wait(std::max(1.0, 2 * period_s_));
  if (!w || w->peer < 0 || w->peer >= ctx_->size()) return "";
  return describe_wait(*w, fmt::format("rank {} ({})", w->peer, ctx_->ranks()[static_cast<size_t>(w->peer)].host),
                       now_ns);
}

std::vector<std::pair<int, std::string>> Heartbeat::waits() const {
  std::vector<std::pair<int, std::string>> out;
  if (ctx_->rank() != 0) return out;
  const int64_t now = steady_now_ns();
  if (std::string mine = own_wait(now); !mine.empty()) out.emplace_back(0, std::move(mine));
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t r = 1; r < waits_.size(); ++r) {
    const HeardWait& w = waits_[r];
    if (w.text.empty() || static_cast<double>(now - w.heard_ns) * 1e-9 > silence_s_) continue;
    out.emplace_back(static_cast<int>(r), w.text);
  }
  return out;
}

void Heartbeat::remember_wait(int rank, std::string text, int64_t now_ns) {
  history_.push_back({rank, std::move(text), now_ns});
  if (history_.size() > history_cap_) history_.pop_front();
}

std::vector<std::pair<int, std::string>> Heartbeat::waits_heard(int64_t from_ns, int64_t to_ns,
                                                                int64_t after_ns) const {
  std::map<int, std::string> during, after;
  std::lock_guard<std::mutex> lock(mu_);
  for (const WaitHeard& w : history_) {
    if (w.heard_ns >= from_ns && w.heard_ns <= to_ns) {
      during[w.rank] = w.text;
    } else if (w.heard_ns > to_ns && w.heard_ns <= to_ns + after_ns) {
      after.try_emplace(w.rank, w.text);
    }
  }
  for (auto& [r, text] : after) during.try_emplace(r, std::move(text));
  return {during.begin(), during.end()};
}

bool Heartbeat::writes_for_silent_rank0() const {
  if (ctx_->rank() == 0) return false;
  const int64_t now = steady_now_ns();
  std::vector<int> listed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t rank0_ns = rank0_heard_ns_ ? rank0_heard_ns_ : start_ns_;
    if (static_cast<double>(now - rank0_ns) * 1e-9 <= silence_s_) return false;  // rank 0 answers
    if (ctx_->size() > 2 && static_cast<double>(now - neighbour_heard_ns_) * 1e-9 > silence_s_) {
      return false;  // this rank hears nobody: it is the one cut off
    }
    for (const auto& [r, seconds] : rank0_silent_) listed.push_back(r);
  }
  std::vector<int> nodes;
  for (const RankInfo& r : ctx_->ranks()) nodes.push_back(r.node);
  return rank0_standby(nodes, listed) == ctx_->rank();
}

std::string Heartbeat::describe_silent() const {
  {
    // This process itself did not run (stopped, frozen): it has no news of the others;
    // the silent one is this rank.
    const int64_t now = steady_now_ns();
    const double lag_s = static_cast<double>(now - last_turn_ns_.load()) * 1e-9;
    std::lock_guard<std::mutex> lock(mu_);
    double paused_s = 0;
    if (last_turn_ns_.load() != 0 && lag_s > silence_s_) {
      paused_s = lag_s;
    } else if (paused_until_ns_ != 0 && static_cast<double>(now - paused_until_ns_) * 1e-9 < silence_s_) {
      paused_s = paused_s_;
    }
    if (paused_s > 0) {
      return fmt::format(
          "stopped progressing: this rank, {} ({}): its own process did not run for {:.1f} s (stopped or frozen), so "
          "the others waited for it",
          ctx_->rank(), ctx_->host(), paused_s);
    }
    if (ctx_->rank() != 0 && rank0_heard_ns_ == 0) return "";  // never heard rank 0: no view
  }
  auto silent = silent_ranks();
  // A rank stopped just before this watchdog fired still answers until its silence has
  // passed (on a loaded machine a survivor's last progress can come before the stop): with
  // every rank answering, look again for one silence window and a beat before saying that
  // none is silent. A stalled fabric is told that much later; a silent rank ends the wait.
  const int64_t settle_until = steady_now_ns() + static_cast<int64_t>((silence_s_ + period_s_) * 1e9);
  while (silent.empty() && steady_now_ns() < settle_until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    silent = silent_ranks();
  }
  // What the ranks that answer wait on: rank 0 knows every rank's, the others their own.
  std::string wait_text;
  if (ctx_->rank() == 0) {
    const auto all = waits();
    for (size_t i = 0; i < all.size(); ++i) {
      if (i == 8) {
        wait_text += fmt::format("; {} more ranks wait likewise", all.size() - i);
        break;
      }
      const auto& [r, text] = all[i];
      wait_text += fmt::format("; rank {} ({}) waits for {}", r, ctx_->ranks()[static_cast<size_t>(r)].host, text);
    }
    const size_t answering = static_cast<size_t>(ctx_->size()) - silent.size();
    if (!all.empty() && all.size() < answering) {
      wait_text += fmt::format(
          "; {} other answering rank{} no message of fabscope's engine open (waiting inside the "
          "backend's library, or between messages)",
          answering - all.size(), answering - all.size() == 1 ? " has" : "s have");
    }
  } else if (std::string mine = own_wait(steady_now_ns()); !mine.empty()) {
    wait_text = "; this rank waits for " + mine;
  }
  if (silent.empty()) {
    return "every rank's process still runs (all answer the heartbeat): the ranks wait on each other inside the "
           "backend or the fabric stalled" +
           wait_text;
  }
  std::string names;
  for (size_t i = 0; i < silent.size(); ++i) {
    const auto& [r, s] = silent[i];
    if (i == 8) {
      names += fmt::format(" and {} more", silent.size() - i);
      break;
    }
    names += fmt::format("{}rank {} ({}, silent {:.1f} s)", i == 0 ? "" : ", ", r,
                         ctx_->ranks()[static_cast<size_t>(r)].host, s);
  }
  return fmt::format("stopped progressing: {}; {} not answered the heartbeat: stopped, frozen, dead or cut off{}",
                     names, silent.size() == 1 ? "it has" : "they have", wait_text);
}

}  // namespace fabscope
