// NORM lowering (softmax, LayerNorm and RMSNorm over channels): an NHWC tensor is H*W contiguous
// rows of C bytes, so each tile is a flat run of whole rows in the input SRAM, one NORM over them,
// and a flat store; the parameters (softmax's exp table or LayerNorm's and RMSNorm's epsilon term
// and per-channel records, one for all channels when they are equal) are loaded once.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <tuple>

#include "lowering.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

/// Whether every position of a LayerNorm has the same output affine (then NORM reads one record).
bool sharedRecord(const QNorm& op) {
  const auto& p = op.layerNorm.positions;
  return op.kind != QNorm::Kind::Softmax && !p.empty() &&
         std::all_of(p.begin(), p.end(), [&](const golden::LayerNormPosition& q) {
           return q.multiplier == p[0].multiplier && q.shift == p[0].shift && q.bias == p[0].bias;
         });
}

std::vector<std::uint8_t> normParameterBlob(const QNorm& op) {
  std::vector<std::uint8_t> blob;
  if (op.kind == QNorm::Kind::Softmax) {
    for (const std::uint16_t entry : op.softmax.expTable) {
      blob.push_back(static_cast<std::uint8_t>(entry & 0xFFU));
      blob.push_back(static_cast<std::uint8_t>(entry >> 8U));
    }
    return blob;
  }
  blob.resize(8);
  std::memcpy(blob.data(), &op.layerNorm.epsilonTerm, 8);  // little-endian host, as appendInt32
  const std::size_t records = sharedRecord(op) ? 1 : op.layerNorm.positions.size();
  for (std::size_t j = 0; j < records; ++j) {
    const golden::LayerNormPosition& position = op.layerNorm.positions[j];
    appendInt32(blob, position.multiplier);
    appendInt32(blob, position.shift);
    appendInt32(blob, position.bias);
  }
  return blob;
}

}  // namespace

void lowerNorm(LoweringContext& ctx, const QNorm& op) {
  const std::vector<std::int64_t>& shape = ctx.graph.tensors[op.input].shape;
  if (shape.size() != 4 || ctx.graph.tensors[op.output].shape != shape) {
    fail("layer '{}': a NORM reads and writes one [1, H, W, C] shape", op.name);
  }
  const std::int64_t length = shape[3];
  const std::int64_t rows = shape[0] * shape[1] * shape[2];
  if (length > isa::limits::kNormLength) {
    fail(ErrorKind::Unsupported, "layer '{}': rows of {} values exceed NORM's {}", op.name, length,
         isa::limits::kNormLength);
  }
  const std::vector<std::uint8_t> parameters = normParameterBlob(op);
  const std::int64_t rowsPerTile =
      std::min({rows, ctx.slots.inputBytes() / length, ctx.slots.outputBytes() / length,
                isa::limits::kNormRows});
  if (rowsPerTile < 1) {
    fail(ErrorKind::Unsupported, "layer '{}': SRAM too small for one row of {} values", op.name,
         length);
  }
  if (static_cast<std::int64_t>(parameters.size()) > ctx.slots.parameterBytes()) {
    fail(ErrorKind::Unsupported,
         "layer '{}': parameter SRAM too small for the {} bytes of a {}-value row's records",
         op.name, parameters.size(), length);
  }
  const std::uint64_t parameterAddress = ctx.constants.add(op.name + ".params", parameters);
  bool loadParameters = false;
  const std::int64_t parameterSram = ctx.slots.parameterSlot(op.name, loadParameters);
  isa::Norm base;
  base.op = op.kind == QNorm::Kind::Softmax     ? isa::kNormSoftmax
            : op.kind == QNorm::Kind::LayerNorm ? isa::kNormLayerNorm
                                                : isa::kNormRmsNorm;
  base.length = length;
  base.param_addr = parameterSram;
  base.one_record = sharedRecord(op) ? 1 : 0;
  if (op.kind == QNorm::Kind::Softmax) {
    base.out_zp = op.softmax.outputZeroPoint;
    base.clip_lo = op.softmax.clipLo;
    base.clip_hi = op.softmax.clipHi;
  } else {
    base.in_zp = op.layerNorm.inputZeroPoint;
    base.out_zp = op.layerNorm.outputZeroPoint;
    base.clip_lo = op.layerNorm.clipLo;
    base.clip_hi = op.layerNorm.clipHi;
  }
  const std::uint64_t inAddress = ctx.tensors[op.input].address;
  const std::uint64_t outAddress = ctx.tensors[op.output].address;
  for (std::int64_t row = 0; row < rows; row += rowsPerTile) {
    const std::int64_t count = std::min(rowsPerTile, rows - row);
    const auto offset = static_cast<std::uint64_t>(row * length);
    std::int64_t inputSram = 0;
    std::int64_t outputSram = 0;
    // Named variables, not a structured binding: clang before 16 cannot capture one.
    std::tie(inputSram, outputSram) = ctx.slots.nextStep();
    ctx.loadFlat(LoadSram::Input, inputSram, inAddress + offset, count * length);
    if (loadParameters) {
      ctx.loadFlat(LoadSram::Parameter, parameterSram, parameterAddress,
                   static_cast<std::int64_t>(parameters.size()));
      loadParameters = false;
    }
    isa::Norm instruction = base;
    instruction.in_addr = inputSram;
    instruction.out_addr = outputSram;
    instruction.rows = count;
    ctx.emit(instruction);
    ctx.store(outputSram, flatBlock(outAddress + offset, count * length));
  }
}

}  // namespace npu::compiler
