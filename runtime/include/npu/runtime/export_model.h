// The bring-up bundles of a compiled model for one input (`npu export`, the Python module's
// Model.export): one bundle per NPU segment, each checked on the timed simulator first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "npu/compiler/driver/compiled_model.h"
#include "npu/compiler/interp/interpreter.h"

namespace npu::runtime {

/// One written bundle: its folder (relative to the export folder; empty for a model with one NPU
/// segment), the segment it holds, its instruction count and expected cycles.
struct ExportedSegment {
  std::filesystem::path folder;
  std::size_t npuSegment = 0;
  std::size_t instructions = 0;
  std::uint64_t cycles = 0;
};

/// Writes into `dir` the bundle of every NPU segment of `model` running `input` (`segment<i>/`
/// when there are several; runtime::writeBundle). Each segment runs on the timed simulator and
/// its final DDR must equal golden's first: a fault or difference throws a verification Error.
/// A model with no NPU segment throws Unsupported naming `modelName`. Callers wanting the folder
/// whole or not at all pass a StagedDirectory's path.
std::vector<ExportedSegment> exportModel(const compiler::CompiledModel& model,
                                         const compiler::TensorMap& input,
                                         const std::filesystem::path& dir,
                                         std::string_view modelName);

}  // namespace npu::runtime
