// The bring-up bundle (DESIGN 6b): everything a testbench or first silicon needs to run one
// compiled program and check the result without this toolchain.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "npu/compiler/codegen/codegen.h"
#include "npu/isa/ddr_image.h"

namespace npu::runtime {

/// One region of the bundle as the manifest lists it.
struct BundleRegion {
  std::string name;
  std::string kind;  // program, weights, input, output, scratch
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  std::string initFile;  // initial contents (.bin; a .hex sits next to it)
  std::uint32_t initCrc32 = 0;
  std::string expectedFile;  // contents after the run (.bin; .hex next to it)
  std::uint32_t expectedCrc32 = 0;
};

/// A loaded bundle.
struct Bundle {
  std::string hardware;  // config name
  std::string programFile;
  std::uint64_t expectedCycles = 0;
  std::vector<BundleRegion> regions;
  std::vector<std::string> layerDumps;
};

/// Writes into `dir`: manifest.yaml, hw.yaml, program.npub, per region `<name>.init.{bin,hex}` and
/// `<name>.expected.{bin,hex}` with CRC-32s, and per layer the golden value of its output in
/// `layers/`. `expected` is the DDR the run must end with; `cycles` the expected cycle count.
void writeBundle(const std::filesystem::path& dir, const compiler::CompiledProgram& compiled,
                 const compiler::QuantizedGraph& graph,
                 const std::vector<golden::Int8Tensor>& values, const isa::DdrImage& expected,
                 std::uint64_t cycles);

/// Reads a bundle's manifest and re-checks the CRC-32 of every file it names; throws npu::Error
/// naming the file on any mismatch or missing file.
Bundle readBundle(const std::filesystem::path& dir);

}  // namespace npu::runtime
