// Data path of the tcp transport: per-connection FIFOs of posted sends and receives,
// advanced with non-blocking sendmsg/recv and poll().
#include "backend/tcp/tcp_transport.h"
#include "core/clock.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace fabscope {

namespace {
constexpr size_t kMaxIo = 8u << 20;  // bytes per connection and direction per pass, so no peer starves the others
// Linux's shortest retransmission timeout (TCP_RTO_MIN): a connection idle for less was
// not restarted, and is not asked (TCP_INFO is a system call).
constexpr int64_t kMinRtoNs = 200'000'000;
// The initial congestion window (TCP_INIT_CWND), the floor of a restart.
constexpr uint32_t kInitialWindow = 10;
}  // namespace

double slow_start_extra_round_trips(double before, double after, double segments) {
  if (!(after > 0) || !(before > after) || !(segments > 0)) return 0;
  const double ramp = std::log2(before / after);  // round trips to regrow the window
  const double moved_in_ramp = after * (std::exp2(ramp) - 1);
  if (segments >= moved_in_ramp) {
    // Ramp, then the rest at the full window; against all of it at the full window.
    return ramp - moved_in_ramp / before;
  }
  // The send ends while the window is still growing.
  return std::max(0.0, std::log2(segments / after + 1) - segments / before);
}

uint32_t restarted_window(uint32_t before, double idle_us, double rto_us) {
  const uint32_t restart = std::min(kInitialWindow, before);
  uint32_t after = before;
  if (!(rto_us > 0)) return before;
  for (double d = idle_us - rto_us; d > 0 && after > restart; d -= rto_us) after >>= 1;
  return std::max(after, restart);
}

void TcpTransport::conn_busy(bool busy) {
  const int64_t now = steady_now_ns();
  if (busy) {
    if (busy_conns_++ == 0) busy_since_ns_ = now;
    return;
  }
  if (--busy_conns_ == 0) idle_.busy_us += static_cast<double>(now - busy_since_ns_) / 1e3;
}

void TcpTransport::note_idle_restart(Conn& c, size_t bytes) {
  tcp_info info{};
  socklen_t len = sizeof(info);
  if (::getsockopt(c.fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return;
  // The kernel restarts when nothing is in flight and no data went out for longer than
  // the connection's retransmission timeout (tcp_slow_start_after_idle_check), halving
  // the window for each timeout of idle down to the initial window (tcp_cwnd_restart).
  // The window it leaves is computed here as the kernel does: read after the send it
  // may already have regrown (on loopback the ACKs come back within the call).
  const double idle_us = static_cast<double>(info.tcpi_last_data_sent) * 1e3, rto_us = info.tcpi_rto;
  if (info.tcpi_unacked != 0 || !(idle_us > rto_us) || rto_us <= 0) return;
  ++idle_.idle_sends;
  const uint32_t before = info.tcpi_snd_cwnd;
  const uint32_t after = restarted_window(before, idle_us, rto_us);
  if (after >= before) return;
  ++idle_.restarts;
  idle_.cwnd_before += before;
  idle_.cwnd_after += after;
  const double segments = static_cast<double>(sizeof(TcpHeader) + bytes) / std::max<double>(info.tcpi_snd_mss, 1);
  idle_.cost_us += slow_start_extra_round_trips(before, after, segments) * info.tcpi_rtt;
}

std::optional<TcpIdleRestarts> TcpTransport::tcp_idle_restarts() const {
  TcpIdleRestarts r = idle_;
  if (busy_conns_ > 0) r.busy_us += static_cast<double>(steady_now_ns() - busy_since_ns_) / 1e3;
  return r;
}

Result<uint64_t> TcpTransport::post_send(int peer, const void* buf, size_t bytes) {
  if (peer < 0 || peer >= size_ || peer == rank_) {
    return Status::Invalid(fmt::format("tcp: rank {} cannot send to rank {}", rank_, peer));
  }
  const uint64_t id = next_id_++;
  Conn& c = conns_[peer];
  if (c.sends.empty() && c.recvs.empty()) conn_busy(true);
  c.sends.push_back({id, static_cast<const char*>(buf), bytes, {kTcpMagic, 0, bytes}, 0, steady_now_ns()});
  return id;
}

Result<uint64_t> TcpTransport::post_recv(int peer, void* buf, size_t bytes) {
  if (peer < 0 || peer >= size_ || peer == rank_) {
    return Status::Invalid(fmt::format("tcp: rank {} cannot receive from rank {}", rank_, peer));
  }
  const uint64_t id = next_id_++;
  Conn& c = conns_[peer];
  if (c.sends.empty() && c.recvs.empty()) conn_busy(true);
  c.recvs.push_back({id, static_cast<char*>(buf), bytes, {}, 0, steady_now_ns()});
  return id;
}

Status TcpTransport::progress_send(int peer, Conn& c, std::vector<Completion>& done) {
  size_t moved = 0;
  while (!c.sends.empty() && moved < kMaxIo) {
    SendOp& op = c.sends.front();
    const size_t total = sizeof(TcpHeader) + op.bytes;
    iovec iov[2];
    int n = 0;
    if (op.done < sizeof(TcpHeader)) {
      iov[n++] = {reinterpret_cast<char*>(&op.header) + op.done, sizeof(TcpHeader) - op.done};
      if (op.bytes > 0) iov[n++] = {const_cast<char*>(op.buf), std::min(op.bytes, kMaxIo)};
    } else {
      size_t off = op.done - sizeof(TcpHeader);
      iov[n++] = {const_cast<char*>(op.buf) + off, std::min(op.bytes - off, kMaxIo)};
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(n);
    // The first bytes after an idle gap: what the kernel's idle restart does to them.
    if (idle_.watched && op.done == 0 && steady_now_ns() - c.last_sent_ns > kMinRtoNs) note_idle_restart(c, op.bytes);
    ssize_t sent = ::sendmsg(c.fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return Status::Ok();
      return Status::Runtime(fmt::format("tcp: sending to {} failed: {}", describe_peer(peer), std::strerror(errno)));
    }
    if (sent > 0) c.last_sent_ns = steady_now_ns();
    op.done += static_cast<size_t>(sent);
    moved += static_cast<size_t>(sent);
    if (op.done < total) continue;
    done.push_back({op.id, peer, op.bytes, true, op.posted_ns, steady_now_ns()});
    c.sends.pop_front();
    if (c.sends.empty() && c.recvs.empty()) conn_busy(false);
  }
  return Status::Ok();
}

Status TcpTransport::progress_recv(int peer, Conn& c, std::vector<Completion>& done) {
  size_t moved = 0;
  while (!c.recvs.empty() && moved < kMaxIo) {
    RecvOp& op = c.recvs.front();
    char* dst;
    size_t want;
    if (op.done < sizeof(TcpHeader)) {
      dst = reinterpret_cast<char*>(&op.header) + op.done;
      want = sizeof(TcpHeader) - op.done;
    } else {
      size_t off = op.done - sizeof(TcpHeader);
      dst = op.buf + off;
      want = std::min(op.bytes - off, kMaxIo);
    }
    if (want > 0) {
      ssize_t got = ::recv(c.fd, dst, want, MSG_DONTWAIT);
      if (got == 0) {
        return Status::Runtime(fmt::format("tcp: {} closed the connection while rank {} expected {} bytes from it",
                                           describe_peer(peer), rank_, op.bytes));
      }
      if (got < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return Status::Ok();
        return Status::Runtime(
            fmt::format("tcp: receiving from {} failed: {}", describe_peer(peer), std::strerror(errno)));
      }
      op.done += static_cast<size_t>(got);
      moved += static_cast<size_t>(got);
      if (op.done == sizeof(TcpHeader)) {
        // The header is checked before any payload lands in the user's buffer.
        if (op.header.magic != kTcpMagic || op.header.flags != 0) {
          return Status::Runtime(fmt::format("tcp: {} sent a malformed message header", describe_peer(peer)));
        }
        if (op.header.bytes != op.bytes) {
          return Status::Runtime(fmt::format("tcp: {} sent a {}-byte message where rank {} expected {} bytes",
                                             describe_peer(peer), op.header.bytes, rank_, op.bytes));
        }
      }
    }
    if (op.done < sizeof(TcpHeader) + op.bytes) continue;
    done.push_back({op.id, peer, op.bytes, false, op.posted_ns, steady_now_ns()});
    c.recvs.pop_front();
    if (c.sends.empty() && c.recvs.empty()) conn_busy(false);
  }
  return Status::Ok();
}

Status TcpTransport::progress_all(std::vector<Completion>& done) {
  for (int p = 0; p < size_; ++p) {
    Conn& c = conns_[p];
    if (c.fd < 0) continue;
    if (!c.sends.empty()) FABSCOPE_RETURN_IF_ERROR(progress_send(p, c, done));
    if (!c.recvs.empty()) FABSCOPE_RETURN_IF_ERROR(progress_recv(p, c, done));
  }
  return Status::Ok();
}

Status TcpTransport::poll(std::vector<Completion>& done, int timeout_ms) {
  const size_t before = done.size();
  FABSCOPE_RETURN_IF_ERROR(progress_all(done));
  if (done.size() > before) return Status::Ok();
  std::vector<pollfd>& fds = pollfds_;  // kept between calls: no allocation per poll
  fds.clear();
  for (const Conn& c : conns_) {
    if (c.fd < 0 || (c.sends.empty() && c.recvs.empty())) continue;
    short events = 0;
    if (!c.sends.empty()) events |= POLLOUT;
    if (!c.recvs.empty()) events |= POLLIN;
    fds.push_back({c.fd, events, 0});
  }
  if (fds.empty()) return Status::Ok();
  int rc = ::poll(fds.data(), fds.size(), timeout_ms);
  if (rc < 0 && errno != EINTR) return Status::Runtime(fmt::format("tcp: poll failed: {}", std::strerror(errno)));
  return progress_all(done);
}

namespace {
// What is left of a message (header, then payload) after `done` bytes, as iovecs.
msghdr rest_of_message(iovec (&iov)[2], TcpHeader& header, void* buf, size_t bytes, size_t done) {
  int n = 0;
  if (done < sizeof(header)) iov[n++] = {reinterpret_cast<char*>(&header) + done, sizeof(header) - done};
  const size_t off = done < sizeof(header) ? 0 : done - sizeof(header);
  if (bytes > off) iov[n++] = {static_cast<char*>(buf) + off, bytes - off};
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = static_cast<size_t>(n);
  return msg;
}
}  // namespace

// One whole message on a blocking socket: header and payload in one sendmsg where the
// socket takes them (a signal or a full buffer may split it).
Status TcpTransport::send_whole(int peer, const void* buf, size_t bytes) {
  TcpHeader header{kTcpMagic, 0, bytes};
  const size_t total = sizeof(header) + bytes;
  size_t done = 0;
  while (done < total) {
    iovec iov[2];
    msghdr msg = rest_of_message(iov, header, const_cast<void*>(buf), bytes, done);
    const ssize_t sent = ::sendmsg(conns_[peer].fd, &msg, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      return Status::Runtime(fmt::format("tcp: sending to {} failed: {}", describe_peer(peer), std::strerror(errno)));
    }
    done += static_cast<size_t>(sent);
  }
  return Status::Ok();
}

// One whole message: header and payload in one recvmsg (MSG_WAITALL). The payload lands
// in fabscope's own receive buffer before the header is checked; a wrong header is an
// error all the same.
Status TcpTransport::recv_whole(int peer, void* buf, size_t bytes) {
  TcpHeader header{};
  const size_t total = sizeof(header) + bytes;
  size_t done = 0;
  while (done < total) {
    iovec iov[2];
    msghdr msg = rest_of_message(iov, header, buf, bytes, done);
    const ssize_t got = ::recvmsg(conns_[peer].fd, &msg, MSG_WAITALL);
    if (got == 0) {
      return Status::Runtime(fmt::format("tcp: {} closed the connection while rank {} expected {} bytes from it",
                                         describe_peer(peer), rank_, bytes));
    }
    if (got < 0) {
      if (errno == EINTR) continue;
      return Status::Runtime(
          fmt::format("tcp: receiving from {} failed: {}", describe_peer(peer), std::strerror(errno)));
    }
    done += static_cast<size_t>(got);
  }
  if (header.magic != kTcpMagic || header.flags != 0) {
    return Status::Runtime(fmt::format("tcp: {} sent a malformed message header", describe_peer(peer)));
  }
  if (header.bytes != bytes) {
    return Status::Runtime(fmt::format("tcp: {} sent a {}-byte message where rank {} expected {} bytes",
                                       describe_peer(peer), header.bytes, rank_, bytes));
  }
  return Status::Ok();
}

Status TcpTransport::ping_pong(int peer, bool initiator, const void* send, void* recv, size_t bytes, int count,
                               int64_t* stamps, bool ticks, Watchdog& wd) {
  if (peer < 0 || peer >= size_ || peer == rank_ || conns_[peer].fd < 0) {
    return Status::Invalid(fmt::format("tcp: rank {} cannot exchange with rank {}", rank_, peer));
  }
  Conn& c = conns_[peer];
  if (!c.sends.empty() || !c.recvs.empty()) {
    return Status::Runtime(
        fmt::format("tcp: a latency loop with {} started with messages in flight", describe_peer(peer)));
  }
  // Blocking for the loop, non-blocking again after it (whatever happens in between). A
  // peer that stops answering leaves this rank in recvmsg, where the watchdog ends it.
  const int flags = ::fcntl(c.fd, F_GETFL);
  if (flags < 0 || ::fcntl(c.fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
    return Status::Runtime(
        fmt::format("tcp: cannot make the connection to {} blocking: {}", describe_peer(peer), std::strerror(errno)));
  }
  struct Restore {
    int fd, flags;
    ~Restore() { ::fcntl(fd, F_SETFL, flags); }
  } restore{c.fd, flags};
  if (stamps) stamps[0] = stamp_now(ticks);
  for (int i = 0; i < count; ++i) {
    if (initiator) {
      FABSCOPE_RETURN_IF_ERROR(send_whole(peer, send, bytes));
      FABSCOPE_RETURN_IF_ERROR(recv_whole(peer, recv, bytes));
      if (stamps) stamps[i + 1] = stamp_now(ticks);
    } else {
      FABSCOPE_RETURN_IF_ERROR(recv_whole(peer, recv, bytes));
      FABSCOPE_RETURN_IF_ERROR(send_whole(peer, send, bytes));
    }
    wd.beat();
  }
  return Status::Ok();
}

}  // namespace fabscope
