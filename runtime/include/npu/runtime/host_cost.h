// The host's share of an inference, in NPU clock cycles, by a documented model (docs/timing.md,
// "Host segments"): host nodes move fp32 tensors through the same DDR and do their MACs at
// kHostMacsPerCycle; every NPU/host border moves the int8 tensor across once more.
#pragma once

#include <cstdint>

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/partition/partition.h"
#include "npu/isa/npu_config.h"

namespace npu::runtime {

/// fp32 multiply-accumulates the host does per NPU clock cycle: one 512-bit FMA unit (16 fp32
/// lanes), a generous host; the model must never make the host look cheaper than it is.
inline constexpr std::uint64_t kHostMacsPerCycle = 16;

/// One host node: every fp32 tensor it reads (weights included) and writes, over the DDR
/// bandwidth, plus its MACs at kHostMacsPerCycle.
std::uint64_t hostNodeCycles(const compiler::Graph& graph, const compiler::Node& node,
                             const isa::NpuConfig& hw);

/// Segment `s`'s borders with NPU segments: the int8 tensors it reads from them (dequantised)
/// and writes for them (quantised), one byte per element, over the DDR bandwidth. 0 for an NPU
/// segment.
std::uint64_t borderCycles(const compiler::Graph& graph, const compiler::Partition& partition,
                           std::size_t s, const isa::NpuConfig& hw);

}  // namespace npu::runtime
