#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/atomic_file.h"

namespace fabscope {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fabscope-atomic-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {})); }
  fs::path dir_;
};

TEST_F(AtomicFile, WritesAndReplacesWithoutLeavingTemporaries) {
  std::string path = (dir_ / "r.json").string();
  ASSERT_TRUE(write_file_atomically(path, "first").ok());
  ASSERT_TRUE(write_file_atomically(path, "second").ok());
  auto back = read_file(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "second");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, FailureLeavesThePreviousFileIntact) {
  std::string path = (dir_ / "r.json").string();
  ASSERT_TRUE(write_file_atomically(path, "good").ok());
  // A directory in the way of the rename target: the write must fail cleanly.
  fs::create_directories(dir_ / "sub" / "r.json");
  Status s = write_file_atomically((dir_ / "sub" / "r.json").string(), "new");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s.message();
  EXPECT_EQ(*read_file(path), "good");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "sub"), {}), 1);
}

TEST_F(AtomicFile, MissingDirectoryIsNamed) {
  Status s = check_writable((dir_ / "nope" / "r.json").string());
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(s.message().find("does not exist"), std::string::npos);
  EXPECT_FALSE(write_file_atomically((dir_ / "nope" / "r.json").string(), "x").ok());
}

TEST_F(AtomicFile, ReadErrorsNameThePath) {
  auto r = read_file((dir_ / "absent.json").string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("absent.json"), std::string::npos);
}

TEST_F(AtomicFile, ReadsRegularFilesOnly) {
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = read_file(fifo);  // must not wait for a writer
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("it is a FIFO"), std::string::npos) << r.status().message();
  auto z = read_file("/dev/zero");  // must not read until memory runs out
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.status().message().find("it is a character device"), std::string::npos) << z.status().message();
  auto d = read_file(dir_.string());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("is a directory"), std::string::npos);
}

TEST_F(AtomicFile, WritabilityIsCheckedForReal) {
  // /proc's permission bits say writable to root; creating a file there fails.
  Status s = check_writable("/proc/fabscope-x.json");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("creating a file in '/proc' fails"), std::string::npos) << s.message();
  EXPECT_TRUE(check_writable((dir_ / "ok.json").string()).ok());
  EXPECT_EQ(entries(), 0u);  // the probe file is gone
}

// A child writes a large file; the parent signals it once its temporary exists.
int write_and_signal(const std::string& path, int sig) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string big(size_t{400} << 20, 'x');
    std::_Exit(write_file_atomically(path, big).ok() ? 0 : 1);
  }
  const std::string prefix = std::filesystem::path(path).filename().string() + ".tmp.";
  const std::string dir = fs::path(path).parent_path().string();
  for (int i = 0; i < 20000; ++i) {  // up to 20 s
    bool found = false;
    for (const auto& e : fs::directory_iterator(dir)) {
      // A named temporary written to already (the handlers are in place before the first write).
      std::error_code ec;
      found |= e.path().filename().string().rfind(prefix, 0) == 0 && fs::file_size(e.path(), ec) > 0;
    }
    // Or the unnamed file (O_TMPFILE) the child writes into: an open descriptor in the directory.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fmt::format("/proc/{}/fd", pid), ec)) {
      std::error_code lec;
      const std::string target = fs::read_symlink(e.path(), lec).string();
      found |= target.rfind(dir + "/#", 0) == 0;
    }
    if (found) break;
    ::usleep(1000);
  }
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// What a signal may leave: the old file and no temporary (it came during the write), or
// the new file whole and no temporary (it came after the rename, before the exit).
TEST_F(AtomicFile, SignalsDuringAWriteLeaveTheOldFileAndNoTemporary) {
  const std::string path = (dir_ / "r.json").string();
  // SIGKILL too: the content goes into an unnamed file (O_TMPFILE) until it is whole, so a
  // launcher's kill leaves nothing (where the file system has O_TMPFILE, as here).
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGKILL}) {
    ASSERT_TRUE(write_file_atomically(path, "old").ok());
    const int status = write_and_signal(path, sig);
    const size_t size = read_file(path)->size();  // compared by size: the new one is 400 MiB
    EXPECT_TRUE(size == 3 || size == (size_t{400} << 20)) << "a torn file of " << size << " bytes";
    EXPECT_EQ(entries(), 1u) << "the temporary in flight was removed";
    if (WIFEXITED(status)) continue;  // finished before the signal: the new file is whole
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "ended by its own signal";
  }
}

// A writer killed with SIGKILL (it cannot catch it) leaves its temporary; the next write
// on this host removes it, since its process is gone, and leaves other hosts' recent ones.
TEST_F(AtomicFile, AWriterKilledWithSigkillLeavesATemporaryTheNextWriteRemoves) {
  const std::string path = (dir_ / "r.json").string();
  ASSERT_TRUE(write_file_atomically(path, "old").ok());
  const pid_t pid = ::fork();
  if (pid == 0) {  // dies where a writer would: its temporary created and half written
    std::string tmpl = temporary_prefix(path) + "XXXXXX";
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0 || ::write(fd, "half", 4) != 4) std::_Exit(1);
    ::raise(SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_EQ(*read_file(path), "old");
  EXPECT_EQ(entries(), 2u) << "SIGKILL cannot be caught: its temporary stays";
  // Another host's temporary, recent, stays: its writer may be alive.
  std::ofstream(dir_ / "r.json.tmp.otherhost.1.abcdef") << "x";
  ASSERT_TRUE(write_file_atomically(path, "new").ok());
  EXPECT_EQ(*read_file(path), "new");
  EXPECT_EQ(entries(), 2u);
  EXPECT_TRUE(fs::exists(dir_ / "r.json.tmp.otherhost.1.abcdef"));
  // Once old enough, anyone's is stale.
  EXPECT_EQ(remove_stale_temporaries(path, /*older_than_s=*/-1), 1);
  EXPECT_EQ(entries(), 1u);
}

}  // namespace
}  // namespace fabscope
