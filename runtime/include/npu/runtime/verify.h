// Verification of an NPU run: the whole final DDR against the golden expectation.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/codegen/codegen.h"
#include "npu/isa/ddr_image.h"

namespace npu::runtime {

/// The DDR the program must leave behind: its initial image with every op's golden output
/// written at the op's tensor placement, in program order (so reused space holds the last
/// tensor written there). `values` are all tensors from runQuantizedGraphGolden.
isa::DdrImage expectedDdr(const compiler::CompiledProgram& compiled,
                          const compiler::QuantizedGraph& graph,
                          const std::vector<golden::Int8Tensor>& values);

/// The first differing byte, located.
struct Mismatch {
  std::uint64_t address = 0;
  std::uint8_t expected = 0;
  std::uint8_t actual = 0;
  /// The tensor and layer whose value belongs there ("" outside every tensor).
  std::string tensor;
  std::string layer;
  std::array<std::int64_t, 4> nhwc{};
  /// The instruction that last wrote the byte (-1: none did).
  std::int64_t instruction = -1;
  /// One line saying all of the above.
  std::string message;
};

/// Compares the whole DDR; nullopt when identical.
std::optional<Mismatch> verifyDdr(const compiler::CompiledProgram& compiled,
                                  const compiler::QuantizedGraph& graph,
                                  const isa::DdrImage& expected, const isa::DdrImage& actual);

}  // namespace npu::runtime
