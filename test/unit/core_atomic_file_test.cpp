#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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

}  // namespace
}  // namespace fabscope
