// DdrImage: paged copy-on-write storage, construction from a program, .bin / $readmemh files.
#include "npu/isa/ddr_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "npu/isa/encoding.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::isa {

namespace {
constexpr std::size_t kHexWordBytes = 16;

/// One period of the fill pattern; an absent page reads as this.
const std::array<std::uint8_t, DdrImage::kPageBytes>& patternPage() {
  static const auto page = [] {
    std::array<std::uint8_t, DdrImage::kPageBytes> bytes{};
    for (std::uint64_t a = 0; a < DdrImage::kPageBytes; ++a) {
      bytes[a] = DdrImage::fillPattern(a);
    }
    return bytes;
  }();
  return page;
}
}  // namespace

DdrImage::DdrImage(std::uint64_t size)
    : m_size(size), m_pages((size + kPageBytes - 1) / kPageBytes) {}

std::uint8_t DdrImage::fillPattern(std::uint64_t address) {
  return static_cast<std::uint8_t>(0xA5U ^ (address & 0xFFU) ^ ((address >> 8) & 0xFFU));
}

std::uint8_t* DdrImage::writablePage(std::uint64_t pageIndex) {
  std::shared_ptr<Page>& page = m_pages[pageIndex];
  if (!page) {
    page = std::make_shared<Page>(patternPage());
  } else if (page.use_count() > 1) {
    page = std::make_shared<Page>(*page);
  }
  return page->data();
}

const std::uint8_t* DdrImage::readablePage(std::uint64_t pageIndex) const {
  const std::shared_ptr<Page>& page = m_pages[pageIndex];
  return page ? page->data() : patternPage().data();
}

std::uint8_t DdrImage::readByte(std::uint64_t address) const {
  return readablePage(address / kPageBytes)[address % kPageBytes];
}

void DdrImage::writeByte(std::uint64_t address, std::uint8_t value) {
  writablePage(address / kPageBytes)[address % kPageBytes] = value;
}

void DdrImage::read(std::uint64_t address, std::span<std::uint8_t> out) const {
  std::size_t done = 0;
  while (done < out.size()) {
    const std::uint64_t at = address + done;
    const std::uint64_t offset = at % kPageBytes;
    const std::size_t n = std::min<std::size_t>(out.size() - done, kPageBytes - offset);
    std::memcpy(out.data() + done, readablePage(at / kPageBytes) + offset, n);
    done += n;
  }
}

void DdrImage::write(std::uint64_t address, std::span<const std::uint8_t> in) {
  std::size_t done = 0;
  while (done < in.size()) {
    const std::uint64_t at = address + done;
    const std::uint64_t offset = at % kPageBytes;
    const std::size_t n = std::min<std::size_t>(in.size() - done, kPageBytes - offset);
    std::memcpy(writablePage(at / kPageBytes) + offset, in.data() + done, n);
    done += n;
  }
}

std::vector<std::uint8_t> DdrImage::readRange(std::uint64_t address, std::uint64_t length) const {
  std::vector<std::uint8_t> bytes(length);
  read(address, bytes);
  return bytes;
}

std::optional<std::uint64_t> DdrImage::firstDifference(const DdrImage& other) const {
  const std::uint64_t size = std::min(m_size, other.m_size);
  for (std::uint64_t page = 0; page * kPageBytes < size; ++page) {
    const std::uint8_t* a = readablePage(page);
    const std::uint8_t* b = other.readablePage(page);
    if (a == b) {
      continue;  // shared or both absent
    }
    const std::uint64_t n = std::min(kPageBytes, size - page * kPageBytes);
    if (std::memcmp(a, b, n) != 0) {
      for (std::uint64_t i = 0; i < n; ++i) {
        if (a[i] != b[i]) {
          return page * kPageBytes + i;
        }
      }
    }
  }
  if (m_size != other.m_size) {
    return size;
  }
  return std::nullopt;
}

DdrImage DdrImage::fromProgram(const Program& program) {
  DdrImage image(static_cast<std::uint64_t>(program.config.ddrBytes));
  for (const isa::DdrSegment& segment : program.segments) {
    image.write(segment.address, segment.bytes);
  }
  image.write(program.codeAddress, isa::encodeStream(program.instructions));
  return image;
}

void DdrImage::saveBin(const std::filesystem::path& path) const {
  writeBinaryFile(path, readRange(0, m_size));
}

DdrImage DdrImage::loadBin(const std::filesystem::path& path) {
  const std::vector<std::uint8_t> bytes = readBinaryFile(path);
  DdrImage image(bytes.size());
  image.write(0, bytes);
  return image;
}

void DdrImage::saveHex(const std::filesystem::path& path) const {
  std::string text;
  text.reserve((m_size / kHexWordBytes + 1) * (2 * kHexWordBytes + 1));
  static constexpr char kDigits[] = "0123456789abcdef";
  std::array<std::uint8_t, kHexWordBytes> word{};
  for (std::uint64_t at = 0; at < m_size; at += kHexWordBytes) {
    word.fill(0);
    read(at, std::span(word).first(std::min<std::uint64_t>(kHexWordBytes, m_size - at)));
    for (std::size_t i = kHexWordBytes; i-- > 0;) {
      text += kDigits[word[i] >> 4];
      text += kDigits[word[i] & 0xF];
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
        image.writeByte(address, static_cast<std::uint8_t>(value));
      }
    }
    ++word;
  }
  return image;
}

}  // namespace npu::isa
