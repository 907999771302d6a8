// The glue between libFuzzer's LLVMFuzzerCustomMutator and a structure-aware mutator: most calls
// edit the input's structure, the rest (and every input the mutator cannot read) go to libFuzzer's
// own byte mutations. Only the libFuzzer executables (NPU_FUZZ) include this.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize);

namespace npu::fuzz {

/// False when the environment sets NPU_FUZZ_STRUCTURED=0: every call then goes to libFuzzer's
/// byte mutations, for campaigns that measure what the structure-aware mutator adds.
inline bool structuredMutationEnabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("NPU_FUZZ_STRUCTURED");
    return value == nullptr || std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

/// One libFuzzer mutation step: `mutate(bytes, seed, maxSize)` three times in four, libFuzzer's
/// byte mutations otherwise or when `mutate` returns nothing.
template <typename Mutate>
std::size_t mutateWithFallback(std::uint8_t* data, std::size_t size, std::size_t maxSize,
                               unsigned seed, Mutate&& mutate) {
  if (structuredMutationEnabled() && seed % 4 != 0) {
    const std::optional<std::vector<std::uint8_t>> out = mutate(
        std::span<const std::uint8_t>(data, size), static_cast<std::uint32_t>(seed / 4), maxSize);
    if (out && out->size() <= maxSize) {
      std::copy(out->begin(), out->end(), data);
      return out->size();
    }
  }
  return LLVMFuzzerMutate(data, size, maxSize);
}

}  // namespace npu::fuzz
