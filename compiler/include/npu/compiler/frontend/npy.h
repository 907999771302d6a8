// NumPy .npy files: the weight format of YAML graph specs.
#pragma once

#include <filesystem>
#include <span>
#include <string_view>

#include "npu/compiler/ir/index_eval.h"

namespace npu::compiler {

/// Reads a C-ordered .npy array of dtype <f4, <f8 (narrowed to f32), <i8 or <i4. Throws Error
/// naming the file on anything else.
Tensor readNpy(const std::filesystem::path& path);

/// The same from bytes already read; errors name `source`.
Tensor parseNpy(std::span<const std::uint8_t> bytes, std::string_view source);

/// Writes `tensor` (f32, i64, i32 or i8) as a version 1.0 .npy file.
void writeNpy(const std::filesystem::path& path, const Tensor& tensor);

}  // namespace npu::compiler
