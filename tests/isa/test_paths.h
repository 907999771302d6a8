// Paths into the source tree for tests that read committed files.
#pragma once

#include <filesystem>

namespace npu::testing {

inline std::filesystem::path sourcePath(const std::filesystem::path& relative) {
  return std::filesystem::path(NPU_SOURCE_DIR) / relative;
}

}  // namespace npu::testing
