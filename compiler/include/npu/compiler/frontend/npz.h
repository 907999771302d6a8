// NumPy .npz archives (numpy.savez, numpy.savez_compressed): named .npy arrays in one zip file.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "npu/compiler/ir/index_eval.h"

namespace npu::compiler {

/// One array of a .npz archive: its name (the member's file name without `.npy`, the keyword
/// numpy.savez was given) and its contents.
struct NpzArray {
  std::string name;
  Tensor tensor;
};

/// Reads every array of a .npz archive in the archive's order, stored (numpy.savez) or deflated
/// (numpy.savez_compressed), ZIP64 or not; each member is parsed as parseNpy parses a .npy file.
/// Throws Error naming the file (and the array) for anything else: not a zip archive, a damaged
/// one (CRC, sizes, truncated data), a member that is not `NAME.npy`, two members of one name, an
/// unsupported compression or encryption, no arrays at all, or a member parseNpy refuses.
std::vector<NpzArray> readNpz(const std::filesystem::path& path);

/// The same from bytes already read; errors name `source`.
std::vector<NpzArray> parseNpz(std::span<const std::uint8_t> bytes, std::string_view source);

}  // namespace npu::compiler
