// DdrImage: fill pattern, program placement, .bin and .hex round trips.
#include "npu/isa/ddr_image.h"

#include <gtest/gtest.h>

#include "npu/isa/assembly.h"
#include "npu/isa/encoding.h"
#include "npu/isa/npu_config.h"
#include "npu/support/file_io.h"

namespace npu::isa {
namespace {

TEST(DdrImage, UntouchedBytesHoldThePattern) {
  const DdrImage image(70000);
  EXPECT_EQ(image.readByte(0), 0xA5);
  EXPECT_EQ(image.readByte(0x1234), static_cast<std::uint8_t>(0xA5 ^ 0x34 ^ 0x12));
  EXPECT_EQ(DdrImage::fillPattern(0xFFFF), static_cast<std::uint8_t>(0xA5));
}

TEST(DdrImage, ProgramPlacesSegmentsAndCode) {
  const Program program =
      assemble(".hw npu-s\n.code 0x100\n.data 0x1000 0a0b0c\nSYNC unit=1\nEND\n", "test.s", "");
  const DdrImage image = DdrImage::fromProgram(program);
  EXPECT_EQ(image.size(), 67108864U);
  EXPECT_EQ(image.readByte(0x1000), 0x0A);
  EXPECT_EQ(image.readByte(0x1002), 0x0C);
  EXPECT_EQ(image.readByte(0x1003), DdrImage::fillPattern(0x1003));
  const auto word = encode(Sync{.unit = 1});
  const auto placed = image.readRange(0x100, word.size());
  EXPECT_TRUE(std::equal(word.begin(), word.end(), placed.begin()));
}

TEST(DdrImage, BinAndHexRoundTrip) {
  DdrImage image(1000);
  for (std::size_t i = 0; i < image.size(); i += 7) {
    image.writeByte(i, static_cast<std::uint8_t>(i * 13));
  }
  const auto dir = std::filesystem::temp_directory_path();
  image.saveBin(dir / "npu_ddr_test.bin");
  image.saveHex(dir / "npu_ddr_test.hex");
  EXPECT_TRUE(DdrImage::loadBin(dir / "npu_ddr_test.bin") == image);
  EXPECT_TRUE(DdrImage::loadHex(dir / "npu_ddr_test.hex", 1000) == image);
  // $readmemh words: the lowest address is the least significant byte.
  DdrImage small(16);
  for (std::size_t i = 0; i < 16; ++i) {
    small.writeByte(i, static_cast<std::uint8_t>(i));
  }
  small.saveHex(dir / "npu_ddr_small.hex");
  EXPECT_EQ(readTextFile(dir / "npu_ddr_small.hex"), "0f0e0d0c0b0a09080706050403020100\n");
}

}  // namespace
}  // namespace npu::isa
