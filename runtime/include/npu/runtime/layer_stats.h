// Per-layer cost of a compiled NPU program: MACs, cycles, DDR traffic and the roofline bound.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "npu/compiler/codegen/codegen.h"
#include "npu/isa/npu_config.h"
#include "npu/simulator/simulate.h"

namespace npu::runtime {

struct LayerStats {
  std::string layer;
  /// The layer's kind (compiler::opKindName): an NPU op's name ("add", "sub", "maxpool", ...),
  /// or for a conv "conv", "depthwise", "grouped conv", "fc" or "space_to_depth".
  std::string kind;
  std::uint64_t instructions = 0;
  /// Useful multiply-accumulates (no padding of channels or tiles).
  std::uint64_t macs = 0;
  /// Elements the vector unit must at least handle (opVectorElements).
  std::uint64_t vectorElements = 0;
  /// Output elements the MAC array's post-processing must write, `cols` a cycle at most (one
  /// output vector a cycle, docs/timing.md): a MAC layer's output, 0 for a zero-MAC op.
  std::uint64_t arrayOutputs = 0;
  /// From the end of the previous layer's last instruction to the end of this layer's last one,
  /// so the layers' cycles add up to the program's. Units overlap across layers (a layer's
  /// loads run while the previous one computes), so this is not the layer's own time.
  std::uint64_t cycles = 0;
  /// The compute unit's busy cycles on this layer's instructions (CONV, ELTWISE, POOL, NORM): the
  /// layer's own time on the unit its MACs need, whatever overlaps it.
  std::uint64_t computeCycles = 0;
  std::uint64_t ddrBytesRead = 0;
  std::uint64_t ddrBytesWritten = 0;
  /// What the DDR port moved for those bytes in whole bursts (docs/timing.md).
  std::uint64_t ddrBurstBytes = 0;
  /// macs / (computeCycles * rows * cols): how full the array was while it worked on this
  /// layer; never above 1 (a step does at most rows * cols MACs).
  double macUtilization = 0.0;
  /// max(array cycles, DDR bytes / bytes per cycle, vectorElements / cols), the array cycles
  /// max(macs / (rows * cols), arrayOutputs / cols): no schedule can do better (the array does
  /// rows * cols MACs and writes one output vector of `cols` a cycle, and the vector unit
  /// handles `cols` elements a cycle; a 3x3 depthwise is bound by its outputs, 9 of 16 rows). DDR
  /// bytes: the program's for a conv, the op's tensors' (opTensorBytes) for a zero-MAC op.
  double rooflineCycles = 0.0;
  /// Layers whose instructions interleave (a cascade, a gated project) form a fused group: its
  /// first layer's index (-1 alone), and the group's cycles over the group's roofline bound
  /// (its members' array cycles summed, since the array runs one layer at a time, and its DDR
  /// bytes moved and vector elements), the only ratio that means anything for
  /// a member, whose own cycles are charged partly to its neighbours.
  std::int64_t fusedWith = -1;
  double groupRooflineRatio = 0.0;
};

/// Per op of `graph` (program order). `endCycles` are the timed run's per-instruction end cycles
/// (SimResult::endCycles) and `trace` its spans (SimOptions::collectTrace); empty gives cycles 0.
std::vector<LayerStats> layerStats(const compiler::CompiledProgram& compiled,
                                   const compiler::QuantizedGraph& graph, const isa::NpuConfig& hw,
                                   std::span<const std::uint64_t> endCycles,
                                   std::span<const sim::TraceSpan> trace);

/// The MACs one op performs.
std::uint64_t opMacs(const compiler::QuantizedGraph& graph, const compiler::QOp& op);

/// The elements a zero-MAC op must pass through the vector unit at least: a pool's output
/// elements times its window, a global pool's or an upsample's input elements, an element-wise
/// op's or a byte move's output elements; 0 for a conv (its MACs bound it instead).
std::uint64_t opVectorElements(const compiler::QuantizedGraph& graph, const compiler::QOp& op);

/// The int8 bytes of an op's inputs and output (a slice's output twice: it reads only what it
/// keeps): what any program for it must move through DDR.
std::uint64_t opTensorBytes(const compiler::QuantizedGraph& graph, const compiler::QOp& op);

}  // namespace npu::runtime
