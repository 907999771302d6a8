// A compiled NPU program: the hardware it targets, its instructions, its DDR image and manifest.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "npu/isa/instruction.h"
#include "npu/isa/npu_config.h"

namespace npu::isa {

/// Bytes the program places in DDR before the run.
struct DdrSegment {
  std::uint64_t address = 0;
  std::vector<std::uint8_t> bytes;

  friend bool operator==(const DdrSegment&, const DdrSegment&) = default;
};

/// What a DDR region holds. The instruction stream's own region (Program) is implied by
/// Program::codeAddress and never listed in the manifest.
enum class RegionKind : std::uint8_t { Program, Weights, Input, Output, Scratch };

/// One manifest entry: a named DDR region, and when it holds a tensor, its shape and quantization.
struct Region {
  std::string name;
  RegionKind kind = RegionKind::Scratch;
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  /// "bytes" when the region is not a tensor; otherwise int8, uint8, int32 or float32.
  std::string dtype = "bytes";
  std::vector<std::int64_t> shape;
  double scale = 0.0;
  std::int64_t zeroPoint = 0;

  friend bool operator==(const Region&, const Region&) = default;
};

/// Instructions [first, first + count) of the stream.
struct InstructionRange {
  std::uint64_t first = 0;
  std::uint64_t count = 0;

  friend bool operator==(const InstructionRange&, const InstructionRange&) = default;
};

/// A layer of a compiled model and the instructions that carry it out. A layer's ranges are in
/// ascending order, non-empty and not touching (adjacent ranges are one range); a fused lowering
/// (a cascade) interleaves the instructions of several layers, so one layer may need several.
/// No instruction belongs to two layers; END belongs to none.
struct ProgramLayer {
  std::string name;
  std::vector<InstructionRange> ranges;

  friend bool operator==(const ProgramLayer&, const ProgramLayer&) = default;
};

/// Everything a simulator or testbench needs to run the program.
struct Program {
  NpuConfig config;
  std::uint64_t codeAddress = 0;
  std::vector<Instruction> instructions;
  std::vector<DdrSegment> segments;
  std::vector<Region> regions;
  /// Which instructions carry out which layer of the model (compiled programs); empty for
  /// assembled ones. Informational: the engines never read it.
  std::vector<ProgramLayer> layers;

  /// The DDR range the encoded instruction stream occupies.
  [[nodiscard]] Region codeRegion() const;

  friend bool operator==(const Program&, const Program&) = default;
};

/// Lower-case name of a region kind ("weights", ...).
std::string_view regionKindName(RegionKind kind);
/// Parses a region kind name; nullopt when unknown.
std::optional<RegionKind> parseRegionKind(std::string_view name);

/// Per instruction, the index into program.layers of the layer it belongs to, or -1.
std::vector<std::int64_t> instructionLayers(const Program& program);

/// Checks a program's internal consistency: legal instructions ending in one END, segments and
/// regions inside DDR and not overlapping each other or the code, layers' instruction ranges
/// inside the stream and disjoint. Throws npu::Error naming
/// `source` and the offending item.
void validateProgram(const Program& program, std::string_view source);

/// Serialises to the .npub container of docs/program-format.md (validates first).
std::vector<std::uint8_t> serializeProgram(const Program& program);

/// Parses and fully validates a .npub container; `source` names it in errors.
Program parseProgram(std::span<const std::uint8_t> bytes, std::string_view source);

/// File wrappers around serializeProgram and parseProgram.
void writeProgramFile(const std::filesystem::path& path, const Program& program);
Program readProgramFile(const std::filesystem::path& path);

}  // namespace npu::isa
