// The whole compiler as one list (compile.cpp): front-end passes, partition, capacity check,
// calibration, realization in int8, first-layer im2col and codegen, with verification and
// `--dump-after` between the stages. Every tool that compiles a model (npu run/compile/export,
// quant-report, bench, the accuracy study) calls it; none writes the flow out again.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "npu/compiler/driver/compiled_model.h"
#include "npu/compiler/passes/pipeline.h"
#include "npu/compiler/quant/calibration_table.h"
#include "npu/compiler/quant/quant_config.h"
#include "npu/isa/npu_config.h"

namespace npu::compiler {

/// The calibration samples for a graph after the front-end passes (its inputs named and shaped
/// as they will be fed).
using CalibrationSamples = std::function<std::vector<TensorMap>(const Graph&)>;

struct CompileOptions {
  /// The target. Without one the flow ends after quantization (no capacity check, no programs),
  /// as quant-report and accuracy studies want it.
  std::optional<isa::NpuConfig> hw;
  QuantConfig quant;
  CalibrationSamples calibrationSamples;
  /// Activation parameters given by name (`--calib-table`): they replace calibration for the
  /// tensors they name (calibrateWithTable). A QDQ model's own parameters are added by
  /// compileModel; entries here win over them.
  std::optional<CalibrationTable> calibrationTable;
  /// verifyEach checks the result of every stage (always on in debug builds); dumpAfter names
  /// front-end passes or the stages of backEndStages() ("all": every one of them).
  PipelineOptions stages;
};

/// A stage after the front-end passes: its name for --dump-after and what it produces.
struct Stage {
  std::string_view name;
  std::string_view summary;
};

/// partition, quantize, codegen, in order.
std::span<const Stage> backEndStages();

/// Compiles an imported fp32 graph: the whole flow. Throws npu::Error naming the stage, node,
/// segment or layer when a step fails, and for an unknown stage name in dumpAfter.
CompiledModel compileModel(Graph graph, const CompileOptions& options);

/// The flow from partitioning on, for a graph that has been through the front-end passes and
/// samples already drawn for it (accuracy studies that quantize one graph many ways).
CompiledModel compileOptimizedGraph(Graph graph, std::vector<TensorMap> samples,
                                    const CompileOptions& options);

}  // namespace npu::compiler
