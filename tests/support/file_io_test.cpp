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
