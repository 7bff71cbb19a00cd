// Connection set-up of the tcp transport: address choice, job token, listening,
// connecting to lower ranks and accepting (and checking) higher ones.
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>

#include "backend/tcp/tcp_transport.h"
#include "comm/mpi_check.h"

namespace fabscope {

namespace {

std::string errno_text() { return std::strerror(errno); }

struct Ipv4Interface {
  std::string name;
  std::string address;
  bool up = false;
  bool loopback = false;
};

std::vector<Ipv4Interface> ipv4_interfaces() {
  std::vector<Ipv4Interface> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    char buf[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof(buf));
    out.push_back({i->ifa_name, buf, (i->ifa_flags & IFF_UP) != 0, (i->ifa_flags & IFF_LOOPBACK) != 0});
  }
  freeifaddrs(list);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

// A socket closed when it goes out of scope unless released.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = o.release();
    }
    return *this;
  }
  int get() const { return fd_; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_;
};

double seconds_left(std::chrono::steady_clock::time_point deadline) {
  return std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
}

Status write_exact(int fd, const void* buf, size_t len) {
  size_t sent = 0;
  while (sent < len) {
    ssize_t n = ::send(fd, static_cast<const char*>(buf) + sent, len - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd p{fd, POLLOUT, 0};
        ::poll(&p, 1, 1000);
        continue;
      }
      return Status::Runtime(errno_text());
    }
    sent += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Reads exactly `len` bytes before the deadline (the socket is non-blocking).
Status read_exact(int fd, void* buf, size_t len, std::chrono::steady_clock::time_point deadline) {
  size_t got = 0;
  while (got < len) {
    const ssize_t n = ::recv(fd, static_cast<char*>(buf) + got, len - got, 0);
    if (n > 0) {
      got += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return Status::Runtime("the peer closed the connection");
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Status::Runtime(errno_text());
    const double left = seconds_left(deadline);
    if (left <= 0) return Status::Runtime("no answer in time");
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
  }
  return Status::Ok();
}

// Connects before the deadline, retrying while the peer's listener is not up yet; a
// silently dropped connection attempt cannot block past the deadline.
Result<Fd> connect_to(const std::string& addr, uint16_t port, std::chrono::steady_clock::time_point deadline) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  inet_pton(AF_INET, addr.c_str(), &sa.sin_addr);
  std::string last = "timed out";
  while (seconds_left(deadline) > 0) {
    Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (fd.get() < 0) return Status::Runtime(fmt::format("socket() failed: {}", errno_text()));
    int rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd.get(), POLLOUT, 0};
      int pr = ::poll(&p, 1, static_cast<int>(std::max(0.0, seconds_left(deadline)) * 1000) + 1);
      int err = ETIMEDOUT;
      socklen_t len = sizeof(err);
      if (pr > 0) ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc == 0) return fd;
    last = errno_text();
    if (errno != ECONNREFUSED && errno != EINTR && errno != ETIMEDOUT) break;
    ::usleep(100000);
  }
  return Status::Runtime(fmt::format("cannot connect to {}:{}: {}", addr, port, last));
}

std::string proc_line(const char* path) {
  FILE* f = std::fopen(path, "r");
  if (!f) return "(unreadable)";
  char buf[512] = {};
  const bool got = std::fgets(buf, sizeof(buf), f) != nullptr;
  std::fclose(f);
  std::string s = got ? buf : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The congestion control of this host's new connections, as a socket reports it.
Result<std::string> socket_congestion(int fd) {
  char name[32] = {};
  socklen_t len = sizeof(name) - 1;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) != 0) return std::string("(unknown)");
  return std::string(name, ::strnlen(name, len));
}

// Whether this process may give a socket `name`: empty if so, else why not.
std::string cannot_set_congestion(int fd, const std::string& name) {
  if (::setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name.data(), static_cast<socklen_t>(name.size())) == 0) return "";
  return errno_text();
}

}  // namespace

Result<TcpCongestion> choose_tcp_congestion(const std::string& wanted) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return Status::Runtime(fmt::format("socket() failed: {}", errno_text()));
  auto host = socket_congestion(fd.get());
  if (!host.ok()) return host.status();
  TcpCongestion c;
  if (wanted == kTcpCongestionHost) {
    c.name = *host;
    c.why = "the host's, by --tcp-cc host";
    return c;
  }
  if (!wanted.empty()) {
    const std::string why = cannot_set_congestion(fd.get(), wanted);
    if (!why.empty()) {
      return Status::Invalid(fmt::format(
          "--tcp-cc {}: this host does not let fabscope use it ({}); available: {}; allowed without CAP_NET_ADMIN: "
          "{}; or --tcp-cc host for the host's default",
          wanted, why, proc_line("/proc/sys/net/ipv4/tcp_available_congestion_control"),
          proc_line("/proc/sys/net/ipv4/tcp_allowed_congestion_control")));
    }
    c.name = wanted;
    c.set = wanted;
    c.why = "--tcp-cc";
    return c;
  }
  // fabscope's engine measures the links, not the host's TCP tuning: cubic, the kernel's
  // own default, holds a loaded link where bbr's model of the path does not (bench/README,
  // issues 23 and 36). Where this process may not use it, the host's, saying why.
  if (*host == kTcpCongestionDefault) {
    c.name = *host;
    c.why = "fabscope's default, also the host's";
    return c;
  }
  const std::string why = cannot_set_congestion(fd.get(), kTcpCongestionDefault);
  if (why.empty()) {
    c.name = kTcpCongestionDefault;
    c.set = kTcpCongestionDefault;
    c.why = fmt::format("fabscope's default for measuring links; the host's is {}, kept by --tcp-cc host", *host);
  } else {
    c.name = *host;
    c.why = fmt::format(
        "the host's: fabscope's default {} is not available to this process ({}; available: {}, "
        "allowed without CAP_NET_ADMIN: {})",
        kTcpCongestionDefault, why, proc_line("/proc/sys/net/ipv4/tcp_available_congestion_control"),
        proc_line("/proc/sys/net/ipv4/tcp_allowed_congestion_control"));
  }
  return c;
}

namespace {

void tune(int fd, const std::string& congestion) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  // Checked once on this host (choose_tcp_congestion); the same call on a connection.
  if (!congestion.empty())
    ::setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, congestion.data(), static_cast<socklen_t>(congestion.size()));
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

}  // namespace

Result<std::string> choose_tcp_address(const TcpOptions& o, bool all_ranks_local) {
  std::vector<Ipv4Interface> ifs = ipv4_interfaces();
  auto list = [&] {
    std::string s;
    for (const auto& i : ifs) s += fmt::format("{}{} ({})", s.empty() ? "" : ", ", i.name, i.address);
    return s.empty() ? std::string("none") : s;
  };
  if (!o.address.empty()) {
    for (const auto& i : ifs) {
      if (i.address == o.address) return o.address;
    }
    return Status::Invalid(
        fmt::format("--tcp-addr {} is not an IPv4 address of this host; its addresses: {}", o.address, list()));
  }
  if (!o.interface.empty()) {
    for (const auto& i : ifs) {
      if (i.name == o.interface) {
        if (!i.up) return Status::Invalid(fmt::format("--tcp-if {} is down", o.interface));
        return i.address;
      }
    }
    return Status::Invalid(
        fmt::format("--tcp-if {} has no IPv4 address on this host; interfaces: {}", o.interface, list()));
  }
  if (all_ranks_local) return std::string("127.0.0.1");
  for (const auto& i : ifs) {
    if (i.up && !i.loopback) return i.address;
  }
  return Status::Unavailable(fmt::format("no interface that is up and not loopback; interfaces: {}", list()));
}

namespace {

using Deadline = std::chrono::steady_clock::time_point;

// A listening socket on `address` only, on a port the kernel picks (written to `bound`).
Result<Fd> listen_on(const std::string& address, sockaddr_in& bound) {
  Fd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  bound = sockaddr_in{};
  bound.sin_family = AF_INET;
  inet_pton(AF_INET, address.c_str(), &bound.sin_addr);
  if (listener.get() < 0 || ::bind(listener.get(), reinterpret_cast<sockaddr*>(&bound), sizeof(bound)) != 0 ||
      ::listen(listener.get(), SOMAXCONN) != 0) {
    return Status::Runtime(fmt::format("cannot listen on {}: {}", address, errno_text()));
  }
  socklen_t len = sizeof(bound);
  ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&bound), &len);
  return listener;
}

// The job token: random, from rank 0, spread over MPI. It never travels over TCP.
Result<TcpToken> share_token(const RankContext& ctx) {
  TcpToken token{};
  const Status made = ctx.rank() == 0 ? tcp_random(token.data(), token.size()) : Status::Ok();
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(made));
  FABSCOPE_RETURN_IF_ERROR(
      FABSCOPE_MPI(MPI_Bcast(token.data(), static_cast<int>(token.size()), MPI_BYTE, 0, ctx.comm())));
  return token;
}

// Every rank's listening address and port, as "a.b.c.d:port".
Result<std::vector<std::string>> share_endpoints(const RankContext& ctx, const sockaddr_in& bound) {
  struct Endpoint {
    uint32_t addr;
    uint32_t port;
  } mine{bound.sin_addr.s_addr, ntohs(bound.sin_port)};
  std::vector<Endpoint> all(static_cast<size_t>(ctx.size()));
  FABSCOPE_RETURN_IF_ERROR(
      FABSCOPE_MPI(MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all.data(), sizeof(mine), MPI_BYTE, ctx.comm())));
  std::vector<std::string> out;
  for (const Endpoint& e : all) {
    char buf[INET_ADDRSTRLEN] = {};
    in_addr a{e.addr};
    inet_ntop(AF_INET, &a, buf, sizeof(buf));
    out.push_back(fmt::format("{}:{}", buf, e.port));
  }
  return out;
}

// This rank's half of the handshake with lower rank `r` listening at `endpoint`: hello
// with a nonce; the listener must prove it knows the token before this rank proves it does.
Result<Fd> connect_as_prover(const RankContext& ctx, const TcpToken& token, int r, const std::string& endpoint,
                             Deadline deadline) {
  const size_t colon = endpoint.rfind(':');
  auto fd =
      connect_to(endpoint.substr(0, colon), static_cast<uint16_t>(std::stoi(endpoint.substr(colon + 1))), deadline);
  const std::string& peer_host = ctx.ranks()[static_cast<size_t>(r)].host;
  if (!fd.ok()) {
    return Status::Runtime(fmt::format("rank {} ({}) cannot reach rank {} ({}): {}", ctx.rank(), ctx.host(), r,
                                       peer_host, fd.status().message()));
  }
  const auto me = static_cast<uint32_t>(ctx.rank()), them = static_cast<uint32_t>(r),
             n = static_cast<uint32_t>(ctx.size());
  TcpHello hello{kTcpMagic, kTcpVersion, me, n, {}};
  Status w = tcp_random(hello.nonce.data(), hello.nonce.size());
  if (w.ok()) w = write_exact(fd->get(), &hello, sizeof(hello));
  TcpChallenge challenge{};
  if (w.ok()) w = read_exact(fd->get(), &challenge, sizeof(challenge), deadline);
  if (w.ok()) {
    const TcpMac expected = tcp_proof(token, TcpRole::kListener, hello.nonce, challenge.nonce, me, them, n);
    if (challenge.magic != kTcpMagic || challenge.rank != them || !tcp_proof_matches(expected, challenge.proof)) {
      w = Status::Runtime(fmt::format(
          "the listener at {} did not prove it knows this job's token: not rank {} of this job", endpoint, r));
    }
  }
  if (w.ok()) {
    TcpProof proof{kTcpMagic, me, tcp_proof(token, TcpRole::kConnector, hello.nonce, challenge.nonce, me, them, n)};
    w = write_exact(fd->get(), &proof, sizeof(proof));
  }
  if (!w.ok()) {
    return Status::Runtime(fmt::format("handshake of rank {} ({}) with rank {} ({}) at {} failed: {}", ctx.rank(),
                                       ctx.host(), r, peer_host, endpoint, w.message()));
  }
  return fd;
}

// Accepts the higher ranks. Every half-open connection is read at the same time, each
// with its own short deadline, so silent or hostile ones cannot hold up the real peers.
// Each goes hello -> (challenge sent) -> proof, within its own few seconds.
class Acceptor {
 public:
  Acceptor(const RankContext& ctx, const TcpToken& token, int listener, const Logger& log)
      : ctx_(ctx), token_(token), listener_(listener), log_(log), connected_(static_cast<size_t>(ctx.size()), false) {
    ::fcntl(listener_, F_SETFL, ::fcntl(listener_, F_GETFL) | O_NONBLOCK);
  }

  // Until every higher rank proved itself (its socket in fds[rank]) or `deadline`.
  Status run(Deadline deadline, double timeout_s, const std::string& my_endpoint, std::vector<int>& fds) {
    int expected = ctx_.size() - 1 - ctx_.rank();
    while (expected > 0) {
      const double left = seconds_left(deadline);
      if (left <= 0) return missing(timeout_s, my_endpoint);
      std::vector<pollfd> polled;
      polled.push_back({listener_, static_cast<short>(half_open_.size() < kMaxHalfOpen ? POLLIN : 0), 0});
      for (const HalfOpen& h : half_open_) polled.push_back({h.fd.get(), POLLIN, 0});
      ::poll(polled.data(), polled.size(), static_cast<int>(std::min(left, 0.2) * 1000) + 1);
      const auto now = std::chrono::steady_clock::now();
      accept_new(now);
      for (size_t i = 0; i < half_open_.size();) {
        HalfOpen& h = half_open_[i];
        bool done = false;
        const std::string why = advance(h, now, done);
        if (done) {
          connected_[h.hello.rank] = true;
          fds[h.hello.rank] = h.fd.release();
          --expected;
        } else if (!why.empty()) {
          log_.warn("refused a connection from {}: {}", h.who, why);
        } else {
          ++i;
          continue;
        }
        half_open_.erase(half_open_.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    return Status::Ok();
  }

 private:
  struct HalfOpen {
    Fd fd;
    std::string who;
    TcpHello hello{};
    TcpProof proof{};
    TcpNonce nonce{};
    bool challenged = false;
    size_t got = 0;
    Deadline deadline;
  };
  static constexpr size_t kMaxHalfOpen = 256;
  static constexpr std::chrono::seconds kHelloTime{5};

  Status missing(double timeout_s, const std::string& my_endpoint) const {
    std::string ranks;
    for (int r = ctx_.rank() + 1; r < ctx_.size(); ++r) {
      if (!connected_[static_cast<size_t>(r)]) {
        ranks += fmt::format("{}{} ({})", ranks.empty() ? "" : ", ", r, ctx_.ranks()[static_cast<size_t>(r)].host);
      }
    }
    return Status::Runtime(fmt::format(
        "rank {} ({}) waited {:g} s for ranks {} to connect to {}: is that address reachable from their hosts? "
        "(choose another with --tcp-if or --tcp-addr)",
        ctx_.rank(), ctx_.host(), timeout_s, ranks, my_endpoint));
  }

  void accept_new(Deadline now) {
    while (half_open_.size() < kMaxHalfOpen) {
      sockaddr_in from{};
      socklen_t flen = sizeof(from);
      int fd = ::accept4(listener_, reinterpret_cast<sockaddr*>(&from), &flen, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) break;
      char who[INET_ADDRSTRLEN] = {};
      inet_ntop(AF_INET, &from.sin_addr, who, sizeof(who));
      half_open_.push_back(
          {Fd(fd), fmt::format("{}:{}", who, ntohs(from.sin_port)), {}, {}, {}, false, 0, now + kHelloTime});
    }
  }

  // Reads what `h` sent and answers its hello; `done` once its proof checks. Returns why
  // it is refused, or "" while it may still complete.
  std::string advance(HalfOpen& h, Deadline now, bool& done) {
    char* into = h.challenged ? reinterpret_cast<char*>(&h.proof) : reinterpret_cast<char*>(&h.hello);
    const size_t want = h.challenged ? sizeof(h.proof) : sizeof(h.hello);
    ssize_t n = ::recv(h.fd.get(), into + h.got, want - h.got, 0);
    if (n > 0) h.got += static_cast<size_t>(n);
    if (n == 0) return h.challenged ? "closed before its proof" : "closed before its hello";
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return errno_text();
    const auto me = static_cast<uint32_t>(ctx_.rank()), size = static_cast<uint32_t>(ctx_.size());
    if (!h.challenged && h.got == sizeof(h.hello)) {
      std::string why = check_hello(h.hello, ctx_.rank(), ctx_.size(), connected_);
      if (!why.empty()) return why;
      // Answer with this rank's nonce and proof.
      Status st = tcp_random(h.nonce.data(), h.nonce.size());
      TcpChallenge c{kTcpMagic, me, h.nonce,
                     tcp_proof(token_, TcpRole::kListener, h.hello.nonce, h.nonce, h.hello.rank, me, size)};
      if (st.ok()) st = write_exact(h.fd.get(), &c, sizeof(c));
      h.challenged = true;
      h.got = 0;
      return st.ok() ? "" : st.message();
    }
    if (h.challenged && h.got == sizeof(h.proof)) {
      const TcpMac want_proof = tcp_proof(token_, TcpRole::kConnector, h.hello.nonce, h.nonce, h.hello.rank, me, size);
      if (h.proof.magic != kTcpMagic || h.proof.rank != h.hello.rank || !tcp_proof_matches(want_proof, h.proof.proof)) {
        return "wrong proof of the job token";
      }
      if (connected_[h.hello.rank]) return fmt::format("rank {} is already connected", h.hello.rank);
      done = true;
      return "";
    }
    if (now >= h.deadline) {
      return fmt::format("no complete {} within {} s", h.challenged ? "proof" : "hello", kHelloTime.count());
    }
    return "";
  }

  const RankContext& ctx_;
  const TcpToken& token_;
  int listener_;
  const Logger& log_;
  std::vector<bool> connected_;
  std::vector<HalfOpen> half_open_;
};

}  // namespace

Result<std::unique_ptr<TcpTransport>> TcpTransport::create(const RankContext& ctx, const TcpOptions& o,
                                                           const Logger& log) {
  std::unique_ptr<TcpTransport> t(new TcpTransport());
  t->rank_ = ctx.rank();
  t->size_ = ctx.size();
  t->conns_.resize(static_cast<size_t>(ctx.size()));
  const Deadline deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(o.setup_timeout_s));

  // One node as MPI's shared-memory split sees it, not by host name: nodes cloned with
  // one name must not settle on loopback.
  auto addr = choose_tcp_address(o, ctx.all_on_one_node());
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(addr.ok() ? Status::Ok() : addr.status()));
  t->local_address_ = *addr;
  auto cc = choose_tcp_congestion(o.congestion);
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(cc.ok() ? Status::Ok() : cc.status()));
  t->congestion_ = *cc;
  // The kernel's restart of an idle connection's window (RFC 2861): on, a connection idle
  // for a retransmission timeout starts slow again. All-to-all's rounds leave each
  // connection idle for most of an iteration, so the report says which it was.
  const std::string idle = proc_line("/proc/sys/net/ipv4/tcp_slow_start_after_idle");
  t->idle_restart_ = idle == "0" ? "off" : idle == "1" ? "on" : "unknown";
  // bbr has its own cong_control, which the kernel's restart leaves alone.
  t->idle_.watched = t->idle_restart_ == "on" && t->congestion_.name.rfind("bbr", 0) != 0;

  sockaddr_in bound{};
  auto listener = listen_on(t->local_address_, bound);
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(listener.ok() ? Status::Ok() : listener.status()));
  if (o.on_listening) o.on_listening(t->local_address_, ntohs(bound.sin_port));
  auto token = share_token(ctx);
  if (!token.ok()) return token.status();
  auto endpoints = share_endpoints(ctx, bound);
  if (!endpoints.ok()) return endpoints.status();
  for (int r = 0; r < ctx.size(); ++r) t->conns_[r].addr = (*endpoints)[static_cast<size_t>(r)];

  // Connect to every lower rank (the listener's backlog accepts before accept() runs),
  // then accept every higher one, checking its hello.
  std::vector<int> fds(static_cast<size_t>(ctx.size()), -1);
  Status local;
  for (int r = 0; r < ctx.rank() && local.ok(); ++r) {
    auto fd = connect_as_prover(ctx, *token, r, t->conns_[r].addr, deadline);
    if (fd.ok()) {
      fds[static_cast<size_t>(r)] = fd->release();
    } else {
      local = fd.status();
    }
  }
  if (local.ok()) {
    Acceptor acceptor(ctx, *token, listener->get(), log);
    local = acceptor.run(deadline, o.setup_timeout_s, t->conns_[static_cast<size_t>(ctx.rank())].addr, fds);
  }
  for (int r = 0; r < ctx.size(); ++r) t->conns_[r].fd = fds[static_cast<size_t>(r)];  // the destructor closes them
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(local));
  for (Conn& c : t->conns_) {
    if (c.fd >= 0) tune(c.fd, t->congestion_.set);
  }
  FABSCOPE_RETURN_IF_ERROR(ctx.barrier());
  log.info("tcp transport on {}, {} connections", t->local_address_, ctx.size() - 1);
  return t;
}

TcpTransport::~TcpTransport() {
  for (Conn& c : conns_) {
    if (c.fd >= 0) ::close(c.fd);
  }
}

std::string TcpTransport::describe_peer(int peer) const {
  if (peer < 0 || peer >= size_) return fmt::format("rank {} (not in this job)", peer);
  return fmt::format("tcp {} (rank {})", conns_[peer].addr, peer);
}

}  // namespace fabscope
