// Codegen: a quantized graph -> an NPU program (instructions, DDR image, manifest) plus where
// every tensor lives, so a runtime can feed inputs, read outputs and verify every intermediate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/compiler/quant/quantized_graph.h"
#include "npu/isa/npu_config.h"
#include "npu/isa/program.h"
#include "npu/support/error.h"

namespace npu::compiler {

/// One tensor's home in DDR (NHWC int8; dense, or at a channel offset of a concat's output).
struct TensorPlacement {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  /// Kept in SRAM by a cascade (docs/cascade.md), or a concat or shuffle output that a channel
  /// shuffle assembles only in SRAM (docs/main-job.md, "Channel shuffle"): the program never
  /// writes it to DDR, so its DDR space holds no expected value.
  bool onChip = false;
  /// Its bytes live in this other tensor (a tensor id; docs/main-job.md, "Concat by address" and
  /// "Slice by address"): a concat's input its producer stored into the concat's output, or a
  /// slice read in place in its source. `address` is its first byte there, pixels `pixelStride`
  /// bytes apart (that tensor's channels), and it has no DDR space of its own. -1: a tensor of
  /// its own.
  std::int64_t storedIn = -1;
  std::int64_t pixelStride = 0;

  /// Whether DDR holds this tensor densely at `address` (an expected value of its own there).
  [[nodiscard]] bool ownsDdr() const { return !onChip && storedIn < 0; }
};

/// What generateProgram throws when one op cannot be lowered onto the target (a layer no tile of
/// which fits its SRAMs, or past a codegen limit): kind Unsupported, with the index of the op in
/// the graph, so that the compiler driver can run that layer on the host instead.
class OpUnsupported : public Error {
 public:
  OpUnsupported(std::size_t op, const std::string& message)
      : Error(message, ErrorKind::Unsupported), m_op(op) {}
  /// Index of the op in QuantizedGraph::ops.
  [[nodiscard]] std::size_t op() const { return m_op; }

 private:
  std::size_t m_op;
};

/// What codegen produces.
struct CompiledProgram {
  isa::Program program;
  /// Per tensor of the graph.
  std::vector<TensorPlacement> tensors;
  /// Per instruction: the index of the graph op it belongs to (-1 for END).
  std::vector<std::int64_t> instructionOp;
};

/// Lowers every op onto tiles that fit the SRAMs of `config`, double-buffered, with tokens
/// derived from the instructions' footprints. Graph inputs are placed as DDR init segments with
/// `inputData` (one per graph input). Throws OpUnsupported naming the layer and the limit when an
/// op cannot be lowered (SRAM too small for one output pixel of it), npu::Error when the DDR plan
/// does not fit.
CompiledProgram generateProgram(const QuantizedGraph& graph, const isa::NpuConfig& config,
                                const std::vector<golden::Int8Tensor>& inputData);

/// Whether the channel concat at op `concatOp` copies its input `input` (docs/main-job.md,
/// "Concat by address"): not when the input's producer stored it in place, nor when an earlier
/// member of the concat's family (a view of the same root) copied it already.
bool concatCopies(const QuantizedGraph& graph, const std::vector<TensorPlacement>& tensors,
                  std::size_t concatOp, TensorId input);

/// Replaces the DDR init segments of the graph inputs with `inputData` (one per graph input, in
/// order), so one compiled program runs on many inputs. Throws npu::Error for a wrong count or
/// size.
void setProgramInputs(CompiledProgram& compiled, const QuantizedGraph& graph,
                      const std::vector<golden::Int8Tensor>& inputData);

}  // namespace npu::compiler
