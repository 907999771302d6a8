// The codegen tests' one check: a quantized graph compiled for a config, run on both simulator
// engines with the hazard checker on, and the whole final DDR compared with golden.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "npu/compiler/codegen/codegen.h"
#include "npu/isa/npu_config.h"
#include "npu/runtime/verify.h"
#include "npu/simulator/simulate.h"
#include "random_graph.h"

namespace npu::compiler::testing {

/// Gives conv output `id` the scale and zero point of `like` (a concat or shuffle moves bytes
/// unchanged, so its inputs share them), its output stage following the zero point.
inline void shareQuantization(RandomGraphBuilder& b, TensorId id, TensorId like) {
  QuantizedGraph& graph = b.graph();
  graph.tensors[id].scale = graph.tensors[like].scale;
  graph.tensors[id].zeroPoint = graph.tensors[like].zeroPoint;
  for (QOp& op : graph.ops) {
    if (auto* conv = std::get_if<QConv>(&op); conv != nullptr && conv->output == id) {
      conv->params.output = b.stage(graph.tensors[like].zeroPoint, false);
    }
  }
}

/// A preset from configs/.
inline isa::NpuConfig config(const std::string& name) {
  return isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs" / (name + ".yaml"));
}

/// Compiles, runs in both modes and verifies; returns the timed cycle count.
inline std::uint64_t compileRunVerify(RandomGraphBuilder& builder, const isa::NpuConfig& hw,
                                      const std::string& what) {
  const std::vector<golden::Int8Tensor> inputs = builder.randomInputs();
  const QuantizedGraph& graph = builder.graph();
  const CompiledProgram compiled = generateProgram(graph, hw, inputs);
  const auto values = runQuantizedGraphGolden(graph, inputs);
  const isa::DdrImage expected = runtime::expectedDdr(compiled, graph, values);
  std::uint64_t cycles = 0;
  for (const sim::SimMode mode : {sim::SimMode::Functional, sim::SimMode::Timed}) {
    sim::SimOptions options;
    options.mode = mode;
    const sim::SimResult result = sim::simulate(compiled.program, options);
    EXPECT_FALSE(result.fault) << what << ": " << result.fault->what();
    if (result.fault) {
      return 0;
    }
    const auto mismatch = runtime::verifyDdr(compiled, graph, expected, result.ddr);
    EXPECT_FALSE(mismatch) << what << ": " << mismatch->message;
    cycles = result.stats.totalCycles;
  }
  return cycles;
}

/// Instructions the program charges to op `index` of its graph.
inline std::size_t instructionsOf(const CompiledProgram& compiled, std::size_t index) {
  return static_cast<std::size_t>(std::count(compiled.instructionOp.begin(),
                                             compiled.instructionOp.end(),
                                             static_cast<std::int64_t>(index)));
}

}  // namespace npu::compiler::testing
