// Data path of the tcp transport: per-connection FIFOs of posted sends and receives,
// advanced with non-blocking sendmsg/recv and poll().
#include "backend/tcp/tcp_transport.h"
#include "core/clock.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

namespace fabscope {

namespace {
constexpr size_t kMaxIo = 8u << 20;  // bytes per connection and direction per pass, so no peer starves the others
}

Result<uint64_t> TcpTransport::post_send(int peer, const void* buf, size_t bytes) {
  if (peer < 0 || peer >= size_ || peer == rank_) {
    return Status::Invalid(fmt::format("tcp: rank {} cannot send to rank {}", rank_, peer));
  }
  const uint64_t id = next_id_++;
  conns_[peer].sends.push_back({id, static_cast<const char*>(buf), bytes, {kTcpMagic, 0, bytes}, 0, steady_now_ns()});
  return id;
}

Result<uint64_t> TcpTransport::post_recv(int peer, void* buf, size_t bytes) {
  if (peer < 0 || peer >= size_ || peer == rank_) {
    return Status::Invalid(fmt::format("tcp: rank {} cannot receive from rank {}", rank_, peer));
  }
  const uint64_t id = next_id_++;
  conns_[peer].recvs.push_back({id, static_cast<char*>(buf), bytes, {}, 0, steady_now_ns()});
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
    ssize_t sent = ::sendmsg(c.fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return Status::Ok();
      return Status::Runtime(fmt::format("tcp: sending to {} failed: {}", describe_peer(peer), std::strerror(errno)));
    }
    op.done += static_cast<size_t>(sent);
    moved += static_cast<size_t>(sent);
    if (op.done < total) continue;
    done.push_back({op.id, peer, op.bytes, true, op.posted_ns, steady_now_ns()});
    c.sends.pop_front();
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
  std::vector<pollfd> fds;
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

}  // namespace fabscope
