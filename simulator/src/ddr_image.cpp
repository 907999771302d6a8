// DdrImage: construction from a program, and .bin / $readmemh .hex files.
#include "npu/simulator/ddr_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "npu/isa/encoding.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::sim {

namespace {
constexpr std::size_t kHexWordBytes = 16;
}

DdrImage::DdrImage(std::uint64_t size) : m_bytes(size) {
  for (std::uint64_t a = 0; a < size; ++a) {
    m_bytes[a] = fillPattern(a);
  }
}

std::uint8_t DdrImage::fillPattern(std::uint64_t address) {
  return static_cast<std::uint8_t>(0xA5U ^ (address & 0xFFU) ^ ((address >> 8) & 0xFFU));
}

DdrImage DdrImage::fromProgram(const isa::Program& program) {
  DdrImage image(static_cast<std::uint64_t>(program.config.ddrBytes));
  for (const isa::DdrSegment& segment : program.segments) {
    std::copy(segment.bytes.begin(), segment.bytes.end(),
              image.m_bytes.begin() + static_cast<std::ptrdiff_t>(segment.address));
  }
  const std::vector<std::uint8_t> code = isa::encodeStream(program.instructions);
  std::copy(code.begin(), code.end(),
            image.m_bytes.begin() + static_cast<std::ptrdiff_t>(program.codeAddress));
  return image;
}

void DdrImage::saveBin(const std::filesystem::path& path) const {
  writeBinaryFile(path, m_bytes);
}

DdrImage DdrImage::loadBin(const std::filesystem::path& path) {
  std::vector<std::uint8_t> bytes = readBinaryFile(path);
  DdrImage image(0);
  image.m_bytes = std::move(bytes);
  return image;
}

void DdrImage::saveHex(const std::filesystem::path& path) const {
  std::string text;
  text.reserve((m_bytes.size() / kHexWordBytes + 1) * (2 * kHexWordBytes + 1));
  static constexpr char kDigits[] = "0123456789abcdef";
  for (std::size_t at = 0; at < m_bytes.size(); at += kHexWordBytes) {
    for (std::size_t i = kHexWordBytes; i-- > 0;) {
      const std::uint8_t byte = at + i < m_bytes.size() ? m_bytes[at + i] : 0;
      text += kDigits[byte >> 4];
      text += kDigits[byte & 0xF];
    }
    text += '\n';
  }
  writeTextFile(path, text);
}

DdrImage DdrImage::loadHex(const std::filesystem::path& path, std::uint64_t size) {
  const std::string text = readTextFile(path);
  DdrImage image(size);
  std::uint64_t word = 0;
  std::size_t line = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view digits(text.data() + start, end - start);
    ++line;
    start = end + 1;
    if (digits.empty()) {
      continue;
    }
    if (digits.size() != 2 * kHexWordBytes) {
      fail("{}:{}: expected {} hex digits per line", path.string(), line, 2 * kHexWordBytes);
    }
    for (std::size_t i = 0; i < kHexWordBytes; ++i) {
      unsigned value = 0;
      const char* first = digits.data() + 2 * (kHexWordBytes - 1 - i);
      const auto [ptr, ec] = std::from_chars(first, first + 2, value, 16);
      if (ec != std::errc() || ptr != first + 2) {
        fail("{}:{}: not a hex word", path.string(), line);
      }
      const std::uint64_t address = word * kHexWordBytes + i;
      if (address < size) {
        image.m_bytes[address] = static_cast<std::uint8_t>(value);
      }
    }
    ++word;
  }
  return image;
}

}  // namespace npu::sim
