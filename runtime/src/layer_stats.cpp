// Per-layer MACs, cycles and DDR traffic from the instruction-to-op map of codegen.
#include "npu/runtime/layer_stats.h"

#include <algorithm>
#include <variant>

#include "npu/compiler/ir/types.h"
#include "npu/compiler/target/live_taps.h"
#include "npu/simulator/timing.h"
#include "npu/support/overloaded.h"

namespace npu::runtime {

namespace {

/// Products a conv computes: each output element sums kH * kW * (Cin / groups) of them, over the
/// taps that read the map at all (compiler::liveTaps: the NPU skips the others, which read only
/// padding). A space-to-depth moves bytes: none of the model's arithmetic.
std::uint64_t convMacs(const compiler::QuantizedGraph& graph, const compiler::QConv& conv) {
  if (conv.movesBytes) {
    return 0;
  }
  const auto& w = conv.weights.shape;
  const auto& in = graph.tensors[conv.input].shape;
  const auto& out = graph.tensors[conv.output].shape;
  const auto& p = conv.params;
  const std::int64_t rows =
      compiler::liveTaps(in[1], out[1], w[1], p.strides[0], p.dilations[0], p.pads[0]).second;
  const std::int64_t cols =
      compiler::liveTaps(in[2], out[2], w[2], p.strides[1], p.dilations[1], p.pads[1]).second;
  return static_cast<std::uint64_t>(compiler::elementCount(out)) *
         static_cast<std::uint64_t>(rows * cols * w[3]);
}

/// Each output position multiplies its live taps (one or two) for every element of the other
/// axes: the depthwise CONVs a linear resize runs as.
std::uint64_t resizeMacs(const compiler::QuantizedGraph& graph,
                         const compiler::QResizeLinear& resize) {
  const auto& out = graph.tensors[resize.output].shape;
  std::uint64_t taps = 0;
  for (const golden::LinearTap& tap : resize.params.taps) {
    taps += static_cast<std::uint64_t>(compiler::liveLinearTaps(tap));
  }
  const auto axis = static_cast<std::size_t>(resize.params.axis);
  return taps * static_cast<std::uint64_t>(compiler::elementCount(out) / out[axis]);
}

}  // namespace

std::uint64_t opMacs(const compiler::QuantizedGraph& graph, const compiler::QOp& op) {
  // One lambda per op type: a new QOp must say what it counts.
  const auto none = [](const auto&) -> std::uint64_t { return 0; };  // the vector unit's work
  return std::visit(
      Overloaded{
          [&](const compiler::QConv& conv) { return convMacs(graph, conv); },
          [&](const compiler::QMatMul& matmul) -> std::uint64_t {
            // Every output element of every head sums K products (the CONVs it runs as).
            const compiler::HeadMatMulGeometry g = compiler::matMulGeometry(graph, matmul);
            return static_cast<std::uint64_t>(g.heads * g.m * g.n) *
                   static_cast<std::uint64_t>(g.k);
          },
          [&](const compiler::QResizeLinear& resize) { return resizeMacs(graph, resize); },
          [&](const compiler::QAdd& o) { return none(o); },
          [&](const compiler::QMul& o) { return none(o); },
          [&](const compiler::QSub& o) { return none(o); },
          [&](const compiler::QMaxPool& o) { return none(o); },
          [&](const compiler::QAvgPool& o) { return none(o); },
          [&](const compiler::QGlobalAvgPool& o) { return none(o); },
          [&](const compiler::QConcat& o) { return none(o); },
          [&](const compiler::QSlice& o) { return none(o); },
          [&](const compiler::QShuffle& o) { return none(o); },
          [&](const compiler::QUpsample& o) { return none(o); },
          [&](const compiler::QLut& o) { return none(o); },
          [&](const compiler::QReduce& o) { return none(o); },
          [&](const compiler::QNorm& o) { return none(o); },
      },
      op);
}

std::uint64_t opVectorElements(const compiler::QuantizedGraph& graph, const compiler::QOp& op) {
  auto elements = [&](compiler::TensorId id) {
    return static_cast<std::uint64_t>(compiler::elementCount(graph.tensors[id].shape));
  };
  // The MAC array's work is the MAC term of the bound, not this one.
  const auto onArray = [](const auto&) -> std::uint64_t { return 0; };
  // Every output element reads its whole window.
  const auto window = [&](const auto& o) {
    return elements(o.output) * static_cast<std::uint64_t>(o.params.kernel[0] * o.params.kernel[1]);
  };
  // Every input element once (an upsample's copies are the store's addressing).
  const auto inputOnce = [&](const auto& o) { return elements(o.input); };
  // Element-wise ops and byte moves pass every output element through once.
  const auto outputOnce = [&](const auto& o) { return elements(o.output); };
  return std::visit(Overloaded{
                        [&](const compiler::QConv& o) { return onArray(o); },
                        [&](const compiler::QResizeLinear& o) { return onArray(o); },
                        [&](const compiler::QMatMul& o) { return onArray(o); },
                        [&](const compiler::QMaxPool& o) { return window(o); },
                        [&](const compiler::QAvgPool& o) { return window(o); },
                        // Three passes over every row (the rows' serial reciprocal and square
                        // root are not in this bound).
                        [&](const compiler::QNorm& o) {
                          // RMSNorm takes no row sum: two passes over each row, not three.
                          return (o.kind == compiler::QNorm::Kind::RmsNorm ? 2 : 3) *
                                 elements(o.output);
                        },
                        [&](const compiler::QGlobalAvgPool& o) { return inputOnce(o); },
                        [&](const compiler::QUpsample& o) { return inputOnce(o); },
                        [&](const compiler::QAdd& o) { return outputOnce(o); },
                        [&](const compiler::QMul& o) { return outputOnce(o); },
                        [&](const compiler::QSub& o) { return outputOnce(o); },
                        [&](const compiler::QLut& o) { return outputOnce(o); },
                        [&](const compiler::QConcat& o) { return outputOnce(o); },
                        [&](const compiler::QSlice& o) { return outputOnce(o); },
                        [&](const compiler::QShuffle& o) { return outputOnce(o); },
                        [&](const compiler::QReduce& o) { return outputOnce(o); },
                    },
                    op);
}

std::uint64_t opTensorBytes(const compiler::QuantizedGraph& graph, const compiler::QOp& op) {
  const auto outputBytes = static_cast<std::uint64_t>(
      compiler::elementCount(graph.tensors[compiler::opOutput(op)].shape));
  if (std::holds_alternative<compiler::QSlice>(op)) {
    return 2 * outputBytes;  // a slice needs to read only what it keeps
  }
  std::uint64_t bytes = 0;
  for (const compiler::TensorId id : compiler::opInputs(op)) {
    bytes += static_cast<std::uint64_t>(compiler::elementCount(graph.tensors[id].shape));
  }
  return bytes + outputBytes;
}

namespace {

/// Each op's name, kind, MACs, vector elements and array outputs; the rest still zero.
std::vector<LayerStats> opLayers(const compiler::QuantizedGraph& graph) {
  std::vector<LayerStats> layers(graph.ops.size());
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    layers[i].layer = compiler::opName(graph.ops[i]);
    layers[i].kind = compiler::opKindName(graph, graph.ops[i]);
    layers[i].macs = opMacs(graph, graph.ops[i]);
    layers[i].vectorElements = opVectorElements(graph, graph.ops[i]);
    layers[i].arrayOutputs = layers[i].macs > 0
                                 ? static_cast<std::uint64_t>(compiler::elementCount(
                                       graph.tensors[compiler::opOutput(graph.ops[i])].shape))
                                 : 0;
  }
  return layers;
}

/// The MAC array's least cycles for a layer: its MACs at the full array, or its outputs at one
/// vector of `cols` a cycle, whichever is more.
double arrayCycles(const LayerStats& layer, const isa::NpuConfig& hw) {
  const double peak = static_cast<double>(hw.macRows * hw.macCols);
  return std::max(static_cast<double>(layer.macs) / peak,
                  static_cast<double>(layer.arrayOutputs) / static_cast<double>(hw.macCols));
}

/// Counts each layer's instructions and DDR traffic; returns each layer's last end cycle.
std::vector<std::uint64_t> addInstructionTraffic(const compiler::CompiledProgram& compiled,
                                                 const isa::NpuConfig& hw,
                                                 std::span<const std::uint64_t> endCycles,
                                                 std::vector<LayerStats>& layers) {
  std::vector<std::uint64_t> layerEnd(layers.size(), 0);
  const auto& instructions = compiled.program.instructions;
  for (std::size_t k = 0; k < instructions.size(); ++k) {
    const std::int64_t op = compiled.instructionOp[k];
    if (op < 0) {
      continue;
    }
    LayerStats& layer = layers[static_cast<std::size_t>(op)];
    ++layer.instructions;
    const sim::DdrTraffic traffic = sim::ddrTraffic(instructions[k], hw);
    layer.ddrBytesRead += traffic.bytesRead;
    layer.ddrBytesWritten += traffic.bytesWritten;
    layer.ddrBurstBytes += traffic.burstBytes;
    if (k < endCycles.size()) {
      layerEnd[static_cast<std::size_t>(op)] =
          std::max(layerEnd[static_cast<std::size_t>(op)], endCycles[k]);
    }
  }
  return layerEnd;
}

/// Adds the compute unit's traced busy cycles to the layer of each instruction.
void addComputeCycles(const compiler::CompiledProgram& compiled,
                      std::span<const sim::TraceSpan> trace, std::vector<LayerStats>& layers) {
  for (const sim::TraceSpan& span : trace) {
    if (span.unit != "compute" || span.instruction >= compiled.instructionOp.size()) {
      continue;
    }
    const std::int64_t op = compiled.instructionOp[span.instruction];
    if (op >= 0) {
      layers[static_cast<std::size_t>(op)].computeCycles += span.end - span.start;
    }
  }
}

/// The bytes zero-MAC op i must move. A concat moves only the inputs its producers did not store
/// in place and no earlier member of its family copied (concat by address): each read and
/// written once.
std::uint64_t zeroMacBytes(const compiler::CompiledProgram& compiled,
                           const compiler::QuantizedGraph& graph, std::size_t i) {
  const auto* concat = std::get_if<compiler::QConcat>(&graph.ops[i]);
  if (concat == nullptr) {
    return opTensorBytes(graph, graph.ops[i]);
  }
  std::uint64_t bytes = 0;
  for (const compiler::TensorId id : concat->inputs) {
    if (concat->axis != 3 || compiler::concatCopies(graph, compiled.tensors, i, id)) {
      bytes += 2 * static_cast<std::uint64_t>(compiler::elementCount(graph.tensors[id].shape));
    }
  }
  return bytes;
}

/// Each layer's cycles (from the previous layer's end to its own), MAC utilization and roofline
/// bound.
void addCyclesAndBounds(const compiler::CompiledProgram& compiled,
                        const compiler::QuantizedGraph& graph, const isa::NpuConfig& hw,
                        std::span<const std::uint64_t> endCycles,
                        const std::vector<std::uint64_t>& layerEnd,
                        std::vector<LayerStats>& layers) {
  const double peak = static_cast<double>(hw.macRows * hw.macCols);
  std::uint64_t previousEnd = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    LayerStats& layer = layers[i];
    if (!endCycles.empty()) {
      const std::uint64_t end = std::max(layerEnd[i], previousEnd);
      layer.cycles = end - previousEnd;
      previousEnd = end;
    }
    if (layer.computeCycles > 0) {
      layer.macUtilization =
          static_cast<double>(layer.macs) / (static_cast<double>(layer.computeCycles) * peak);
    }
    // A conv's bound takes the traffic its program moves (weights and re-read halos included); a
    // zero-MAC op's the bytes any program must move, its int8 inputs and output, so constants a
    // lowering chooses to load (a global pool's all-ones weights) never loosen the bound.
    const double ddr = layer.macs > 0
                           ? static_cast<double>(layer.ddrBytesRead + layer.ddrBytesWritten)
                           : static_cast<double>(zeroMacBytes(compiled, graph, i));
    // A layer without instructions (a concat whose producers stored its inputs in place) moved
    // nothing itself: no bound to be measured against.
    layer.rooflineCycles =
        layer.instructions == 0
            ? 0.0
            : std::max(
                  {arrayCycles(layer, hw), ddr / static_cast<double>(hw.ddrBytesPerCycle),
                   static_cast<double>(layer.vectorElements) / static_cast<double>(hw.macCols)});
  }
}

/// Marks layers [first, end) as one fused group with the group's cycles over its roofline bound,
/// when more than one of them has instructions.
void closeFusedGroup(const isa::NpuConfig& hw, std::size_t first, std::size_t end,
                     std::vector<LayerStats>& layers) {
  std::size_t members = 0;
  double cycles = 0, array = 0, ddr = 0, vector = 0;
  for (std::size_t i = first; i < end; ++i) {
    if (layers[i].instructions > 0) {
      ++members;
      cycles += static_cast<double>(layers[i].cycles);
      array += arrayCycles(layers[i], hw);
      ddr += static_cast<double>(layers[i].ddrBytesRead + layers[i].ddrBytesWritten);
      vector += static_cast<double>(layers[i].vectorElements);
    }
  }
  const double bound = std::max({array, ddr / static_cast<double>(hw.ddrBytesPerCycle),
                                 vector / static_cast<double>(hw.macCols)});
  for (std::size_t i = first; members > 1 && i < end; ++i) {
    if (layers[i].instructions > 0) {
      layers[i].fusedWith = static_cast<std::int64_t>(first);
      layers[i].groupRooflineRatio = bound > 0 ? cycles / bound : 0.0;
    }
  }
}

/// Fused groups: consecutive layers whose instruction ranges overlap.
void markFusedGroups(const compiler::CompiledProgram& compiled, const isa::NpuConfig& hw,
                     std::vector<LayerStats>& layers) {
  const auto& instructions = compiled.program.instructions;
  std::vector<std::size_t> firstInstruction(layers.size(), instructions.size());
  std::vector<std::size_t> lastInstruction(layers.size(), 0);
  for (std::size_t k = 0; k < instructions.size(); ++k) {
    if (const std::int64_t op = compiled.instructionOp[k]; op >= 0) {
      const auto i = static_cast<std::size_t>(op);
      firstInstruction[i] = std::min(firstInstruction[i], k);
      lastInstruction[i] = std::max(lastInstruction[i], k);
    }
  }
  std::size_t groupFirst = 0;
  std::size_t groupLast = 0;  // the group's last instruction
  bool open = false;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].instructions == 0) {
      continue;
    }
    if (open && firstInstruction[i] < groupLast) {
      groupLast = std::max(groupLast, lastInstruction[i]);
      continue;
    }
    if (open) {
      closeFusedGroup(hw, groupFirst, i, layers);
    }
    open = true;
    groupFirst = i;
    groupLast = lastInstruction[i];
  }
  if (open) {
    closeFusedGroup(hw, groupFirst, layers.size(), layers);
  }
}

}  // namespace

std::vector<LayerStats> layerStats(const compiler::CompiledProgram& compiled,
                                   const compiler::QuantizedGraph& graph, const isa::NpuConfig& hw,
                                   std::span<const std::uint64_t> endCycles,
                                   std::span<const sim::TraceSpan> trace) {
  std::vector<LayerStats> layers = opLayers(graph);
  const std::vector<std::uint64_t> layerEnd =
      addInstructionTraffic(compiled, hw, endCycles, layers);
  addComputeCycles(compiled, trace, layers);
  addCyclesAndBounds(compiled, graph, hw, endCycles, layerEnd, layers);
  markFusedGroups(compiled, hw, layers);
  return layers;
}

}  // namespace npu::runtime
