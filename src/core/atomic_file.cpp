#include "core/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fabscope {

namespace {
std::string parent_dir(const std::string& path) {
  std::filesystem::path p(path);
  std::string dir = p.parent_path().string();
  return dir.empty() ? "." : dir;
}
}  // namespace

Status check_writable(const std::string& path) {
  if (path.empty()) return Status::Invalid("output path is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::Invalid(fmt::format("output path '{}' is a directory; give a file name", path));
  }
  std::string dir = parent_dir(path);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::Invalid(fmt::format("cannot write '{}': directory '{}' does not exist", path, dir));
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return Status::Invalid(fmt::format("cannot write '{}': directory '{}' is not writable", path, dir));
  }
  return Status::Ok();
}

Status write_file_atomically(const std::string& path, std::string_view content) {
  FABSCOPE_RETURN_IF_ERROR(check_writable(path));
  std::string tmpl = path + ".tmpXXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0)
    return Status::Runtime(fmt::format("cannot create a temporary file beside '{}': {}", path, std::strerror(errno)));
  auto fail = [&](const char* what) {
    int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    return Status::Runtime(fmt::format("cannot write '{}' ({} failed: {})", path, what, std::strerror(err)));
  };
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write");
    }
    done += static_cast<size_t>(n);
  }
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
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return Status::Invalid(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) return Status::Invalid(fmt::format("cannot read '{}': it is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Invalid(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::Invalid(fmt::format("cannot read '{}': read error", path));
  return ss.str();
}

}  // namespace fabscope
