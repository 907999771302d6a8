// Private to the front ends: a read-only memory map of a whole file (a large model without a copy).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

namespace npu::compiler {

/// Maps a file read-only for its lifetime; throws Error naming the path when it cannot.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::uint8_t> bytes() const { return {m_data, m_size}; }

 private:
  const std::uint8_t* m_data = nullptr;
  std::size_t m_size = 0;
};

}  // namespace npu::compiler
