// File helpers: round trip, and errors that name the path.
#include "npu/support/file_io.h"

#include <gtest/gtest.h>

#include "npu/support/error.h"

namespace {

TEST(FileIo, WritesAndReadsBack) {
  const auto path = std::filesystem::temp_directory_path() / "npu_file_io_test.bin";
  const std::vector<std::uint8_t> bytes = {0, 1, 2, 255};
  npu::writeBinaryFile(path, bytes);
  EXPECT_EQ(npu::readBinaryFile(path), bytes);
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  std::filesystem::remove(path);
}

TEST(FileIo, SpecialFilesAreWrittenInPlaceNeverReplaced) {
  const auto dir = std::filesystem::temp_directory_path() / "npu_file_io_special";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // A symlink stays a symlink; its target gets the bytes.
  const auto target = dir / "target.txt";
  const auto link = dir / "link.txt";
  npu::writeTextFile(target, "old contents");
  std::filesystem::create_symlink(target, link);
  npu::writeTextFile(link, "new");  // shorter: nothing of the old may remain
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(npu::readTextFile(target), "new");
  // A character device is written, not replaced by a regular file.
  npu::writeTextFile("/dev/null", "discarded");
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  std::filesystem::remove_all(dir);
}

TEST(FileIo, AFullDeviceIsAnError) {
  if (!std::filesystem::exists("/dev/full")) {
    GTEST_SKIP() << "no /dev/full";
  }
  try {
    npu::writeTextFile("/dev/full", "stats");
    FAIL() << "expected an error";
  } catch (const npu::Error& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/full: write failed: No space left on device");
  }
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
}

TEST(FileIo, MissingFileNamesThePath) {
  try {
    npu::readTextFile("/nonexistent/npu/file.txt");
    FAIL() << "expected an error";
  } catch (const npu::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/npu/file.txt: cannot open for reading: No such file or directory");
  }
}

TEST(FileIo, DirectoryIsRejected) {
  EXPECT_THROW(npu::readBinaryFile("/tmp"), npu::Error);
}

}  // namespace
