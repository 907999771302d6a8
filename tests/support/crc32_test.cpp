// CRC-32 against the standard check value and incremental use.
#include "npu/support/crc32.h"

#include <gtest/gtest.h>

#include <string_view>

namespace {

std::span<const std::uint8_t> bytesOf(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

TEST(Crc32, MatchesTheStandardCheckValue) {
  // The CRC-32/ISO-HDLC catalogue check value of "123456789".
  EXPECT_EQ(npu::crc32(bytesOf("123456789")), 0xCBF43926U);
  EXPECT_EQ(npu::crc32(bytesOf("")), 0U);
}

TEST(Crc32, ContinuesAcrossChunks) {
  const std::uint32_t whole = npu::crc32(bytesOf("hello, world"));
  const std::uint32_t split = npu::crc32(bytesOf(", world"), npu::crc32(bytesOf("hello")));
  EXPECT_EQ(whole, split);
}

}  // namespace
