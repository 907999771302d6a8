// The bring-up bundle (DESIGN 6b): everything a testbench or first silicon needs to run one
// compiled program and check the result without this toolchain.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "npu/compiler/codegen/codegen.h"
#include "npu/isa/ddr_image.h"
#include "npu/isa/program.h"

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

/// A loaded bundle: the manifest's fields, each already checked against the program and the
/// files they describe.
struct Bundle {
  std::string hardware;  // config name
  std::string hardwareFile;
  std::string programFile;
  std::uint64_t codeAddress = 0;
  std::uint64_t instructions = 0;
  std::uint64_t expectedCycles = 0;
  std::vector<BundleRegion> regions;
  std::vector<std::string> layerDumps;
  /// The program file, parsed (its own CRC and validation passed).
  isa::Program program;
};

/// The bundle format this toolchain writes and reads: manifest `format:` value.
inline constexpr std::string_view kBundleFormat = "npu-bundle-2";

/// Writes into `dir`: manifest.yaml, hw.yaml, program.npub, per region `<name>.init.{bin,hex}` and
/// `<name>.expected.{bin,hex}`, and per layer the golden value of its output in `layers/`, every
/// file with its CRC-32 in the manifest. `expected` is the DDR the run must end with; `cycles` the
/// expected cycle count. Callers that want the folder whole or not at all write into a
/// StagedDirectory (npu export does).
void writeBundle(const std::filesystem::path& dir, const compiler::CompiledProgram& compiled,
                 const compiler::QuantizedGraph& graph,
                 const std::vector<golden::Int8Tensor>& values, const isa::DdrImage& expected,
                 std::uint64_t cycles);

/// Reads a bundle and checks everything a lab loads its board from: the CRC-32 and size of every
/// file the manifest names (paths must stay inside the bundle), each .hex against its .bin, and
/// every manifest field against the program and its embedded hardware config (hardware name,
/// hardware file, code address, instruction count, DDR fill, the regions and their initial
/// images). Throws npu::Error naming the file and the field on the first disagreement.
Bundle readBundle(const std::filesystem::path& dir);

/// Compares the DDR and cycle count a run ended with (`engine` names it in messages: "the RTL",
/// "the timed simulator") against the bundle's expected region images and expected cycles;
/// throws a verification npu::Error naming the region, address and bytes, or the cycle counts.
void checkRunAgainstBundle(const std::filesystem::path& dir, const Bundle& bundle,
                           const isa::DdrImage& ddr, std::uint64_t cycles, std::string_view engine);

}  // namespace npu::runtime
