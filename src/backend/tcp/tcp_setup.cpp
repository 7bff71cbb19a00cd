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

Result<std::unique_ptr<TcpTransport>> TcpTransport::create(const RankContext& ctx, const TcpOptions& o,
                                                           const Logger& log) {
  std::unique_ptr<TcpTransport> t(new TcpTransport());
  t->rank_ = ctx.rank();
  t->size_ = ctx.size();
  t->conns_.resize(static_cast<size_t>(ctx.size()));
  const auto deadline =
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

  // Listen on the chosen address only, on a port the kernel picks.
  Fd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  Status local;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  inet_pton(AF_INET, t->local_address_.c_str(), &sa.sin_addr);
  if (listener.get() < 0 || ::bind(listener.get(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 ||
      ::listen(listener.get(), SOMAXCONN) != 0) {
    local = Status::Runtime(fmt::format("cannot listen on {}: {}", t->local_address_, errno_text()));
  }
  socklen_t len = sizeof(sa);
  if (local.ok()) ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&sa), &len);
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(local));
  if (o.on_listening) o.on_listening(t->local_address_, ntohs(sa.sin_port));

  // The job token: random, from rank 0, spread over MPI. It never travels over TCP.
  TcpToken token{};
  if (ctx.rank() == 0) local = tcp_random(token.data(), token.size());
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(local));
  FABSCOPE_RETURN_IF_ERROR(
      FABSCOPE_MPI(MPI_Bcast(token.data(), static_cast<int>(token.size()), MPI_BYTE, 0, ctx.comm())));

  // Every rank's address and port.
  struct Endpoint {
    uint32_t addr;
    uint32_t port;
  } mine{sa.sin_addr.s_addr, ntohs(sa.sin_port)};
  std::vector<Endpoint> all(static_cast<size_t>(ctx.size()));
  FABSCOPE_RETURN_IF_ERROR(
      FABSCOPE_MPI(MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all.data(), sizeof(mine), MPI_BYTE, ctx.comm())));
  for (int r = 0; r < ctx.size(); ++r) {
    char buf[INET_ADDRSTRLEN] = {};
    in_addr a{all[r].addr};
    inet_ntop(AF_INET, &a, buf, sizeof(buf));
    t->conns_[r].addr = fmt::format("{}:{}", buf, all[r].port);
  }

  // Connect to every lower rank (the listener's backlog accepts before accept() runs),
  // then accept every higher one, checking its hello.
  for (int r = 0; r < ctx.rank() && local.ok(); ++r) {
    char buf[INET_ADDRSTRLEN] = {};
    in_addr a{all[r].addr};
    inet_ntop(AF_INET, &a, buf, sizeof(buf));
    auto fd = connect_to(buf, static_cast<uint16_t>(all[r].port), deadline);
    if (!fd.ok()) {
      local = Status::Runtime(fmt::format("rank {} ({}) cannot reach rank {} ({}): {}", ctx.rank(), ctx.host(), r,
                                          ctx.ranks()[static_cast<size_t>(r)].host, fd.status().message()));
      break;
    }
    // Hello with a nonce; the listener must prove it knows the token before this rank
    // proves it does.
    TcpHello hello{kTcpMagic, kTcpVersion, static_cast<uint32_t>(ctx.rank()), static_cast<uint32_t>(ctx.size()), {}};
    Status w = tcp_random(hello.nonce.data(), hello.nonce.size());
    if (w.ok()) w = write_exact(fd->get(), &hello, sizeof(hello));
    TcpChallenge challenge{};
    if (w.ok()) w = read_exact(fd->get(), &challenge, sizeof(challenge), deadline);
    if (w.ok()) {
      const TcpMac expected =
          tcp_proof(token, TcpRole::kListener, hello.nonce, challenge.nonce, static_cast<uint32_t>(ctx.rank()),
                    static_cast<uint32_t>(r), static_cast<uint32_t>(ctx.size()));
      if (challenge.magic != kTcpMagic || challenge.rank != static_cast<uint32_t>(r) ||
          !tcp_proof_matches(expected, challenge.proof)) {
        w =
            Status::Runtime(fmt::format("the listener at {} did not prove it knows this job's token: not rank {} of "
                                        "this job",
                                        t->conns_[r].addr, r));
      }
    }
    if (w.ok()) {
      TcpProof proof{
          kTcpMagic, static_cast<uint32_t>(ctx.rank()),
          tcp_proof(token, TcpRole::kConnector, hello.nonce, challenge.nonce, static_cast<uint32_t>(ctx.rank()),
                    static_cast<uint32_t>(r), static_cast<uint32_t>(ctx.size()))};
      w = write_exact(fd->get(), &proof, sizeof(proof));
    }
    if (!w.ok()) {
      local = Status::Runtime(fmt::format("handshake of rank {} ({}) with rank {} ({}) at {} failed: {}", ctx.rank(),
                                          ctx.host(), r, ctx.ranks()[static_cast<size_t>(r)].host, t->conns_[r].addr,
                                          w.message()));
      break;
    }
    t->conns_[r].fd = fd->release();
  }
  // Accept the higher ranks. Every half-open connection is read at the same time, each
  // with its own short deadline, so silent or hostile ones cannot hold up the real peers.
  std::vector<bool> connected(static_cast<size_t>(ctx.size()), false);
  // Each goes hello -> (challenge sent) -> proof, within its own few seconds.
  struct HalfOpen {
    Fd fd;
    std::string who;
    TcpHello hello{};
    TcpProof proof{};
    TcpNonce nonce{};
    bool challenged = false;
    size_t got = 0;
    std::chrono::steady_clock::time_point deadline;
  };
  std::vector<HalfOpen> half_open;
  constexpr size_t kMaxHalfOpen = 256;
  const auto hello_time = std::chrono::seconds(5);
  ::fcntl(listener.get(), F_SETFL, ::fcntl(listener.get(), F_GETFL) | O_NONBLOCK);
  int expected = ctx.size() - 1 - ctx.rank();
  while (local.ok() && expected > 0) {
    double left = seconds_left(deadline);
    if (left <= 0) {
      std::string missing;
      for (int r = ctx.rank() + 1; r < ctx.size(); ++r) {
        if (!connected[static_cast<size_t>(r)]) {
          missing += fmt::format("{}{} ({})", missing.empty() ? "" : ", ", r, ctx.ranks()[static_cast<size_t>(r)].host);
        }
      }
      local = Status::Runtime(fmt::format(
          "rank {} ({}) waited {:g} s for ranks {} to connect to {}: is that address reachable from their hosts? "
          "(choose another with --tcp-if or --tcp-addr)",
          ctx.rank(), ctx.host(), o.setup_timeout_s, missing, t->conns_[static_cast<size_t>(ctx.rank())].addr));
      break;
    }
    std::vector<pollfd> fds;
    fds.push_back({listener.get(), static_cast<short>(half_open.size() < kMaxHalfOpen ? POLLIN : 0), 0});
    for (const HalfOpen& h : half_open) fds.push_back({h.fd.get(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), static_cast<int>(std::min(left, 0.2) * 1000) + 1);
    const auto now = std::chrono::steady_clock::now();
    while (half_open.size() < kMaxHalfOpen) {
      sockaddr_in from{};
      socklen_t flen = sizeof(from);
      int fd = ::accept4(listener.get(), reinterpret_cast<sockaddr*>(&from), &flen, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) break;
      char who[INET_ADDRSTRLEN] = {};
      inet_ntop(AF_INET, &from.sin_addr, who, sizeof(who));
      half_open.push_back(
          {Fd(fd), fmt::format("{}:{}", who, ntohs(from.sin_port)), {}, {}, {}, false, 0, now + hello_time});
    }
    for (size_t i = 0; i < half_open.size();) {
      HalfOpen& h = half_open[i];
      std::string why;
      bool done = false;
      char* into = h.challenged ? reinterpret_cast<char*>(&h.proof) : reinterpret_cast<char*>(&h.hello);
      const size_t want = h.challenged ? sizeof(h.proof) : sizeof(h.hello);
      ssize_t n = ::recv(h.fd.get(), into + h.got, want - h.got, 0);
      if (n > 0) h.got += static_cast<size_t>(n);
      if (n == 0) {
        why = h.challenged ? "closed before its proof" : "closed before its hello";
      } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        why = errno_text();
      } else if (!h.challenged && h.got == sizeof(h.hello)) {
        why = check_hello(h.hello, ctx.rank(), ctx.size(), connected);
        if (why.empty()) {  // answer with this rank's nonce and proof
          Status st = tcp_random(h.nonce.data(), h.nonce.size());
          TcpChallenge c{kTcpMagic, static_cast<uint32_t>(ctx.rank()), h.nonce,
                         tcp_proof(token, TcpRole::kListener, h.hello.nonce, h.nonce, h.hello.rank,
                                   static_cast<uint32_t>(ctx.rank()), static_cast<uint32_t>(ctx.size()))};
          if (st.ok()) st = write_exact(h.fd.get(), &c, sizeof(c));
          if (!st.ok()) why = st.message();
          h.challenged = true;
          h.got = 0;
        }
      } else if (h.challenged && h.got == sizeof(h.proof)) {
        const TcpMac want_proof = tcp_proof(token, TcpRole::kConnector, h.hello.nonce, h.nonce, h.hello.rank,
                                            static_cast<uint32_t>(ctx.rank()), static_cast<uint32_t>(ctx.size()));
        if (h.proof.magic != kTcpMagic || h.proof.rank != h.hello.rank ||
            !tcp_proof_matches(want_proof, h.proof.proof)) {
          why = "wrong proof of the job token";
        } else if (connected[h.hello.rank]) {
          why = fmt::format("rank {} is already connected", h.hello.rank);
        } else {
          done = true;
        }
      } else if (now >= h.deadline) {
        why = fmt::format("no complete {} within {} s", h.challenged ? "proof" : "hello", hello_time.count());
      }
      if (done) {
        connected[h.hello.rank] = true;
        t->conns_[h.hello.rank].fd = h.fd.release();
        --expected;
      } else if (!why.empty()) {
        log.warn("refused a connection from {}: {}", h.who, why);
      } else {
        ++i;
        continue;
      }
      half_open.erase(half_open.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
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
