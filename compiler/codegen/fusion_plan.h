// Fused groups: the runs of ops codegen lowers as one (an inverted residual cascaded on chip, a
// squeeze-excitation gate fused into its project conv; docs/cascade.md), planned once, before
// the activation plan, and read by the activation plan, concat-by-address and the lowerings.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "npu/compiler/quant/quantized_graph.h"
#include "npu/isa/instruction.h"
#include "npu/isa/limits.h"
#include "npu/isa/npu_config.h"

namespace npu::compiler {

/// Bytes of one per-channel parameter record in the parameter SRAM: bias, multiplier and shift,
/// one int32 each (docs/isa.md, CONV).
inline constexpr std::int64_t kChannelRecordBytes = 12;
/// Bytes of a LUT in the parameter SRAM.
inline constexpr std::int64_t kLutBytes = 256;

/// The chain and how it is cut: `block` expanded channels per step (dividing the expanded
/// channels, so every block's tiles have the same layout) and `rows` output rows per band.
struct Cascade {
  const QConv* expand = nullptr;  ///< null: the chain starts at the depthwise
  const QConv* depthwise = nullptr;
  const QConv* project = nullptr;
  /// The residual add of the project's output and the chain's input, when it follows: run on
  /// the band in SRAM (the project's output then stays on chip too).
  const QAdd* add = nullptr;
  /// The global average pool of the depthwise's output, when it follows a chain without a
  /// project (EfficientNet's squeeze): each block of a band is summed into the accumulator from
  /// the input SRAM, where the depthwise wrote it, instead of a pass over the whole tensor.
  const QGlobalAvgPool* pool = nullptr;
  /// Rows and columns of the chain's input and of the depthwise's (unpadded) input.
  std::int64_t inputHeight = 0, inputWidth = 0;
  /// Channels of the chain's input: the expand's input, or the depthwise's without an expand.
  std::int64_t inputChannels = 0;
  /// Channels of the expand's output, the depthwise's input and output.
  std::int64_t expandedChannels = 0;
  /// The depthwise's (and the project's) output rows and columns.
  std::int64_t outputHeight = 0, outputWidth = 0;
  /// The project's output channels (0 without a project).
  std::int64_t outputChannels = 0;
  /// The depthwise's square kernel, its stride, and its padding.
  std::int64_t kernel = 0, stride = 1, padTop = 0, padLeft = 0, paddedW = 0;
  std::int64_t block = 0, rows = 0;
  /// Each block's weights and parameters are loaded per band into one of two slots, rather than
  /// all of them once (they do not fit, or the cost model found it cheaper; docs/cascade.md).
  bool streamed = false;
  /// Each block's last halo() depthwise-input rows of a band are kept in SRAM (copied out by the
  /// vector unit beside the MAC array) and copied back for the next band, whose expand CONVs
  /// then skip them: no expand row is computed twice (docs/cascade.md).
  bool keepHalo = false;
  /// Bytes of the records shared by every block: the project's, and every LUT.
  std::int64_t sharedParameters = 0;
  /// Graph op indices: reports charge each instruction to the conv it belongs to.
  std::int64_t expandOp = -1, depthwiseOp = 0, projectOp = 0, addOp = -1, poolOp = -1;

  /// Depthwise input rows (padding included) of a band of `r` output rows.
  [[nodiscard]] std::int64_t rowsIn(std::int64_t r) const { return (r - 1) * stride + kernel; }
  /// Depthwise input rows two consecutive bands share.
  [[nodiscard]] std::int64_t halo() const { return kernel - stride; }
  /// Whether the identity LUT of the vector unit's copies is loaded (kept halos, pooled blocks).
  [[nodiscard]] bool copies() const { return keepHalo || pool != nullptr; }
  /// Whether the halo can be kept: an expand builds the depthwise input, and bands overlap.
  [[nodiscard]] bool haloKeepable() const { return expand != nullptr && kernel > stride; }
  /// Input SRAM bytes of the kept halo rows of every block.
  [[nodiscard]] std::int64_t keptHaloBytes() const {
    return keepHalo ? expandedChannels * halo() * paddedW : 0;
  }
  /// Weight bytes of one block: its expand rows, depthwise taps and project columns.
  [[nodiscard]] std::int64_t blockWeights(std::int64_t b) const {
    return b * ((expand != nullptr ? inputChannels : 0) + kernel * kernel + outputChannels);
  }
  /// Parameter bytes of one block: its expand and depthwise records.
  [[nodiscard]] std::int64_t blockParameters(std::int64_t b) const {
    return kChannelRecordBytes * b * (expand != nullptr ? 2 : 1);
  }
  /// Input SRAM bytes: two expand-input slots, the depthwise input (two slots when it is
  /// loaded from DDR), the project input, the residual's project output, the pool's two
  /// depthwise-output slots, the kept halo.
  [[nodiscard]] std::int64_t inputBytes(std::int64_t b, std::int64_t r) const {
    const std::int64_t x =
        expand != nullptr ? 2 * std::min(rowsIn(r), inputHeight) * inputWidth * inputChannels : 0;
    const std::int64_t d = (expand != nullptr ? 1 : 2) * rowsIn(r) * paddedW * b;
    return x + d + (project != nullptr ? r * outputWidth * b : 0) +
           (add != nullptr ? r * outputWidth * outputChannels : 0) +
           (pool != nullptr ? 2 * r * outputWidth * b : 0) + keptHaloBytes();
  }
  /// The pool's sum CONVs: blocks of at most poolRows x poolCols pixels of a band of `r` rows.
  [[nodiscard]] std::int64_t poolRows(std::int64_t r) const {
    return std::min(r, isa::limits::kConvKernelH);
  }
  [[nodiscard]] std::int64_t poolCols() const {
    return std::min(outputWidth, isa::limits::kConvKernelW);
  }
  /// Weight bytes of the pool's all-ones depthwise kernel for blocks of `b` channels.
  [[nodiscard]] std::int64_t poolWeights(std::int64_t b, std::int64_t r) const {
    return pool != nullptr ? b * poolRows(r) * poolCols() : 0;
  }
  /// Parameter bytes of the pool's records (the same for every channel: one block's worth).
  [[nodiscard]] std::int64_t poolParameters(std::int64_t b) const {
    return pool != nullptr ? kChannelRecordBytes * b : 0;
  }
  /// Output SRAM bytes kept at the top of each half for the pool's finished block.
  [[nodiscard]] std::int64_t poolOutputBytes(std::int64_t b) const {
    return pool != nullptr ? (b + 63) / 64 * 64 : 0;
  }
  /// Output SRAM bytes of one store: a band of the project's output, or (no project) of one
  /// block of the depthwise's.
  [[nodiscard]] std::int64_t storeBytes(std::int64_t b, std::int64_t r) const {
    return project != nullptr ? r * outputWidth * outputChannels : r * outputWidth * b;
  }
};

/// The chain [expand 1x1] -> depthwise [-> project 1x1] [-> residual add | global average pool]
/// starting at op `first`, cut to fit the SRAMs of `config`, when cascading it is estimated to
/// beat lowering its convs one by one (cascade_plan.cpp).
std::optional<Cascade> planCascade(const QuantizedGraph& graph, const isa::NpuConfig& config,
                                   std::size_t first);

/// mul(input, gate) -> project 1x1 [-> add(project, residual)], and how it is cut: `block`
/// channels of the input per step (dividing them), `rows` rows per band.
struct GatedProject {
  const QMul* mul = nullptr;
  const QConv* project = nullptr;
  const QAdd* add = nullptr;
  /// The multiply's operands: `input` [1, height, width, channels] (the depthwise's output, x in
  /// docs/cascade.md) and the per-channel `gate` [1, 1, 1, channels]; the add's other operand.
  TensorId input = 0, gate = 0, residual = 0;
  std::int64_t mulOp = 0, projectOp = 0, addOp = -1;
  std::int64_t height = 0, width = 0, channels = 0;
  std::int64_t outputChannels = 0;  ///< the project's
  std::int64_t block = 0, rows = 0;
  bool streamed = false;  ///< the project's weights per block into two slots, every band

  /// Input SRAM bytes: three x slots (a block's x loads while the project two blocks back
  /// runs: the multiply that last read its slot pushes no token, the project after it does),
  /// the gate replicated over a band's pixels for every channel, two gated-block slots (a
  /// block's multiply runs beside the previous block's project), and (with an add) two residual
  /// bands and two project bands (a band's add runs beside the next band's first project).
  [[nodiscard]] std::int64_t inputBytes(std::int64_t b, std::int64_t r) const {
    return 5 * r * width * b + r * width * channels +
           (add != nullptr ? 4 * r * width * outputChannels : 0);
  }
};

/// The gate multiply at op `first` and the project 1x1 after it (and a residual add after that),
/// cut to fit the SRAMs, when fusing them beats lowering them one by one
/// (gated_project_plan.cpp).
std::optional<GatedProject> planGatedProject(const QuantizedGraph& graph,
                                             const isa::NpuConfig& config, std::size_t first);

/// The vector unit's copies that replicate a gate of `block` bytes at input SRAM `at` over
/// `pixels` pixels, doubling what is there each time (through the identity LUT at `lut`).
std::vector<isa::Eltwise> gateCopies(std::int64_t at, std::int64_t pixels, std::int64_t block,
                                     std::int64_t lut);

/// An op lowered on its own (dispatched on its QOp type).
struct SingleOp {};

/// How a group of consecutive ops is lowered.
using GroupForm = std::variant<SingleOp, Cascade, GatedProject>;

/// Ops [first, last] of the graph, lowered as one.
struct FusedGroup {
  std::size_t first = 0;
  std::size_t last = 0;
  GroupForm form;
};

/// Every op of the graph in exactly one group, in op order.
struct FusionPlan {
  std::vector<FusedGroup> groups;
  /// Per op: the index of its group.
  std::vector<std::size_t> groupOf;

  /// The last op of the group holding op `op`: a fused lowering interleaves its ops band by
  /// band, so every tensor its ops read lives until then.
  [[nodiscard]] std::size_t groupEnd(std::size_t op) const { return groups[groupOf[op]].last; }
  /// Whether op `op` is lowered together with others.
  [[nodiscard]] bool fused(std::size_t op) const {
    return groups[groupOf[op]].last > groups[groupOf[op]].first;
  }
};

/// Plans every op of `graph`: a cascade where one starts and pays off, else a gated project,
/// else the op alone.
FusionPlan planFusion(const QuantizedGraph& graph, const isa::NpuConfig& config);

/// The tensors a fused group keeps in SRAM (never written to DDR): its intermediates.
std::vector<TensorId> onChipTensors(const FusedGroup& group);

}  // namespace npu::compiler
