// StagedDirectory: a folder appears whole on commit, nothing appears on failure, and an existing
// output is replaced only by a complete one.
#include "npu/support/staged_directory.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu {
namespace {

std::filesystem::path freshDir(const std::string& name) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("staged_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::size_t entries(const std::filesystem::path& dir) {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir),
                                                std::filesystem::directory_iterator()));
}

TEST(StagedDirectory, AppearsOnlyWhenCommitted) {
  const auto root = freshDir("commit");
  const auto target = root / "bundle";
  {
    StagedDirectory staged(target, {"a.txt", "old.txt"});
    writeTextFile(staged.path() / "a.txt", "a");
    EXPECT_FALSE(std::filesystem::exists(target));
    staged.commit();
  }
  EXPECT_EQ(readTextFile(target / "a.txt"), "a");
  EXPECT_EQ(entries(root), 1U);  // no staging folder left beside it
}

TEST(StagedDirectory, FailureLeavesNothingAndKeepsThePreviousOutput) {
  const auto root = freshDir("failure");
  const auto target = root / "bundle";
  EXPECT_THROW(
      {
        StagedDirectory staged(target, {"a.txt", "old.txt"});
        writeTextFile(staged.path() / "half.txt", "half");
        throw std::runtime_error("write failed");
      },
      std::runtime_error);
  EXPECT_EQ(entries(root), 0U);

  createDirectories(target);
  writeTextFile(target / "old.txt", "old");
  EXPECT_THROW(
      {
        StagedDirectory staged(target, {"a.txt", "old.txt"});
        writeTextFile(staged.path() / "new.txt", "new");
        throw std::runtime_error("write failed");
      },
      std::runtime_error);
  EXPECT_EQ(readTextFile(target / "old.txt"), "old");
  {
    StagedDirectory staged(target / "", {"old.txt"});  // a trailing separator names the same folder
    writeTextFile(staged.path() / "new.txt", "new");
    staged.commit();
  }
  EXPECT_FALSE(std::filesystem::exists(target / "old.txt"));
  EXPECT_EQ(readTextFile(target / "new.txt"), "new");
  EXPECT_EQ(entries(root), 1U);
}

TEST(StagedDirectory, RefusesAFileInTheWay) {
  const auto root = freshDir("file");
  writeTextFile(root / "out", "x");
  EXPECT_THROW(StagedDirectory(root / "out", {}), Error);
}

// A folder that is not an earlier output (no marker in it) is never replaced: a mistyped --out
// must not delete someone's files.
TEST(StagedDirectory, RefusesToReplaceAFolderThatIsNotAnEarlierOutput) {
  const auto root = freshDir("foreign");
  createDirectories(root / "home");
  writeTextFile(root / "home" / "thesis.tex", "precious");
  EXPECT_THROW(StagedDirectory(root / "home", {"manifest.yaml"}), Error);
  EXPECT_EQ(readTextFile(root / "home" / "thesis.tex"), "precious");
  EXPECT_EQ(entries(root), 1U);  // no staging folder either
  createDirectories(root / "empty");
  StagedDirectory staged(root / "empty", {"manifest.yaml"});  // an empty folder is fine
  staged.commit();
}

}  // namespace
}  // namespace npu
