#include "core/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/text.h"

namespace fabscope {

namespace {
std::string parent_dir(const std::string& path) {
  std::filesystem::path p(path);
  std::string dir = p.parent_path().string();
  return dir.empty() ? "." : dir;
}

std::string this_host() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  std::string h(host);
  for (char& c : h) {
    if (c == '/' || c == '.') c = '_';  // a file name part, split on '.' below
  }
  return h.empty() ? "host" : h;
}

// The temporary in flight, for the signal handler: the one global of this file, written
// before the handler is installed and cleared after it is removed.
char g_in_flight[4096];

extern "C" void remove_in_flight_and_reraise(int sig) {
  if (g_in_flight[0] != '\0') ::unlink(g_in_flight);  // async-signal-safe
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// While a temporary exists, SIGINT, SIGTERM and SIGHUP remove it before the process
// ends as the signal would have ended it; the handlers before are restored after.
class InFlightGuard {
 public:
  explicit InFlightGuard(const std::string& tmp) {
    if (tmp.size() >= sizeof(g_in_flight)) return;
    std::memcpy(g_in_flight, tmp.c_str(), tmp.size() + 1);
    struct sigaction sa {};
    sa.sa_handler = remove_in_flight_and_reraise;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < kSignals.size(); ++i) active_[i] = ::sigaction(kSignals[i], &sa, &old_[i]) == 0;
  }
  ~InFlightGuard() {
    for (size_t i = 0; i < kSignals.size(); ++i) {
      if (active_[i]) ::sigaction(kSignals[i], &old_[i], nullptr);
    }
    g_in_flight[0] = '\0';
  }
  InFlightGuard(const InFlightGuard&) = delete;
  InFlightGuard& operator=(const InFlightGuard&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> old_{};
  std::array<bool, 3> active_{};
};

bool process_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }
}  // namespace

std::string temporary_prefix(const std::string& path) {
  return fmt::format("{}.tmp.{}.{}.", path, this_host(), ::getpid());
}

int remove_stale_temporaries(const std::string& path, double older_than_s) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string dir = parent_dir(path);
  const std::string base = target.filename().string() + ".tmp";
  const std::string host = this_host();
  std::error_code ec;
  int removed = 0;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.compare(0, base.size(), base) != 0 || !e.is_regular_file(ec)) continue;
    const std::string rest = name.substr(base.size());
    bool stale = false;
    // This version's name: ".tmp.HOST.PID.XXXXXX". Stale when HOST is this host and PID
    // is not running (a writer killed with -9), or when it is old, whatever its host.
    const auto parts = split(rest, '.');
    const auto age = std::chrono::duration<double>(now - e.last_write_time(ec)).count();
    if (parts.size() == 4 && parts[0].empty() && parts[3].size() == 6) {
      long pid = 0;
      const auto [end, err] = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), pid);
      if (err == std::errc() && end == parts[2].data() + parts[2].size()) {
        stale = (parts[1] == host && !process_alive(pid)) || age > older_than_s;
      }
    } else if (rest.size() == 6 && rest.find('.') == std::string::npos) {
      stale = age > older_than_s;  // earlier versions' ".tmpXXXXXX": by age alone
    }
    if (stale && fs::remove(e.path(), ec)) ++removed;
  }
  return removed;
}

Status check_writable(const std::string& path) {
  if (path.empty()) return Status::Invalid("output path is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::Invalid(fmt::format("output path '{}' is a directory; give a file name", path));
  }
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return Status::Invalid(fmt::format("output path '{}' exists and is not a regular file; give a file name", path));
  }
  std::string dir = parent_dir(path);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::Invalid(fmt::format("cannot write '{}': directory '{}' does not exist", path, dir));
  }
  // For real: the file system may refuse what the permission bits allow (/proc, a
  // read-only mount, a full disk's quota), so create and remove a temporary there.
  std::string probe = temporary_prefix(path) + "XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    return Status::Invalid(
        fmt::format("cannot write '{}': creating a file in '{}' fails ({})", path, dir, std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return Status::Ok();
}

namespace {

// Writes all of `content` to `fd`; false with errno set on a failure.
bool write_all(int fd, std::string_view content) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// The content written into an unnamed file in the target's directory (O_TMPFILE), then
// given a temporary name and renamed over the target: a process killed while writing
// (SIGKILL, as a launcher ends a job) leaves nothing behind; the named temporary exists
// only between the link and the rename. nullopt where the file system has no O_TMPFILE
// (the caller falls back to mkstemp).
std::optional<Status> write_unnamed_then_rename(const std::string& path, std::string_view content) {
  const int fd = ::open(parent_dir(path).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  auto fail = [&](const char* what) {
    return Status::Runtime(fmt::format("cannot write '{}' ({} failed: {})", path, what, std::strerror(errno)));
  };
  if (!write_all(fd, content)) return fail("write");
  if (::fchmod(fd, 0644) != 0) return fail("fchmod");
  if (::fsync(fd) != 0) return fail("fsync");
  const std::string self = fmt::format("/proc/self/fd/{}", fd);
  static const char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  uint64_t r = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
               (static_cast<uint64_t>(::getpid()) << 32);
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string tmp = temporary_prefix(path);
    for (int i = 0; i < 6; ++i) {
      r = r * 6364136223846793005ULL + 1442695040888963407ULL;
      tmp += kLetters[(r >> 33) % (sizeof(kLetters) - 1)];
    }
    InFlightGuard guard(tmp);
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      if (errno == EEXIST) continue;
      return std::nullopt;  // no /proc, or the link refused: the named way instead
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      const int err = errno;
      ::unlink(tmp.c_str());
      return Status::Runtime(fmt::format("cannot write '{}' (rename failed: {})", path, std::strerror(err)));
    }
    return Status::Ok();
  }
  return std::nullopt;
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view content) {
  FABSCOPE_RETURN_IF_ERROR(check_writable(path));
  remove_stale_temporaries(path);
  if (auto done = write_unnamed_then_rename(path, content)) return *done;
  std::string tmpl = temporary_prefix(path) + "XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0)
    return Status::Runtime(fmt::format("cannot create a temporary file beside '{}': {}", path, std::strerror(errno)));
  InFlightGuard guard(tmpl);
  auto fail = [&](const char* what) {
    int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    return Status::Runtime(fmt::format("cannot write '{}' ({} failed: {})", path, what, std::strerror(err)));
  };
  if (!write_all(fd, content)) return fail("write");
  if (::fchmod(fd, 0644) != 0) return fail("fchmod");
  if (::fsync(fd) != 0) return fail("fsync");
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    return Status::Runtime(fmt::format("cannot write '{}' (close failed: {})", path, std::strerror(err)));
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    return Status::Runtime(fmt::format("cannot write '{}' (rename failed: {})", path, std::strerror(err)));
  }
  return Status::Ok();
}

Result<std::string> read_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Status::Invalid(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status::Invalid(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) return Status::Invalid(fmt::format("cannot read '{}': it is a directory", path));
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return Status::Invalid(fmt::format(
        "cannot read '{}': it is {}; fabscope reads regular files only (save the output to a file first)", path, kind));
  }
  auto too_large = [&] {
    return Status::Invalid(
        fmt::format("cannot read '{}': it is larger than {} MiB, the most fabscope reads from one file", path,
                    kMaxInputFileBytes >> 20));
  };
  if (static_cast<uint64_t>(st.st_size) > kMaxInputFileBytes) return too_large();
  // Back to blocking reads; a regular file never blocks anyway.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Invalid(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > kMaxInputFileBytes) return too_large();  // a file that grows while read
  }
  return out;
}

}  // namespace fabscope
