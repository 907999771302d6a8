// ELTWISE lowering for add, mul and stand-alone LUTs: both operands stream through the input
// SRAM in flat chunks (NHWC tensors of one shape are contiguous; an operand or output stored in a
// concat's channels moves pixel by pixel, to or from the same dense chunk). A per-channel operand
// ([1, 1, 1, C] against [1, H, W, C]) is replicated over a strip of pixels once, by a LOAD whose
// column stride is 0, into the tail of each input half; each ELTWISE then pairs one strip's
// worth of the chunk with it, so the ELTWISE itself never broadcasts and the DDR port carries
// the per-channel operand once, not once per pixel.
#include <fmt/format.h>

#include <algorithm>

#include "lowering.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

std::int64_t elements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) {
    n *= d;
  }
  return n;
}

/// What one element-wise op asks of the ELTWISE instructions: its operands, the instruction's
/// fixed fields and the parameter record (three multipliers, then the LUT if any).
struct EltwiseJob {
  const std::string* name = nullptr;
  std::vector<TensorId> inputs;
  TensorId output = 0;
  isa::Eltwise base;
  std::vector<std::uint8_t> parameters;
};

/// The output stage's fields and LUT, for add and mul.
void setOutputStage(EltwiseJob& job, const golden::OutputStage& stage) {
  job.base.out_zp = stage.zeroPoint;
  job.base.clip_lo = stage.clipLo;
  job.base.clip_hi = stage.clipHi;
  job.base.double_round = stage.rounding == golden::Rounding::Double ? 1 : 0;
  if (stage.lut) {
    job.base.use_lut = 1;
    for (const std::int8_t v : *stage.lut) {
      job.parameters.push_back(static_cast<std::uint8_t>(v));
    }
  }
}

EltwiseJob eltwiseJob(const QAdd& add) {
  EltwiseJob job{&add.name, {add.a, add.b}, add.output, {}, {}};
  job.base.op = isa::kEltwiseAdd;
  job.base.a_zp = add.params.zeroPointA;
  job.base.b_zp = add.params.zeroPointB;
  job.base.left_shift = add.params.leftShift;
  for (const auto& m :
       {add.params.multiplierA, add.params.multiplierB, add.params.multiplierOut}) {
    appendInt32(job.parameters, m.multiplier);
    appendInt32(job.parameters, m.shift);
  }
  setOutputStage(job, add.params.output);
  return job;
}

EltwiseJob eltwiseJob(const QMul& mul) {
  EltwiseJob job{&mul.name, {mul.a, mul.b}, mul.output, {}, {}};
  job.base.op = isa::kEltwiseMul;
  job.base.a_zp = mul.params.zeroPointA;
  job.base.b_zp = mul.params.zeroPointB;
  for (int k = 0; k < 4; ++k) {
    appendInt32(job.parameters, 0);
  }
  appendInt32(job.parameters, mul.params.multiplierOut.multiplier);
  appendInt32(job.parameters, mul.params.multiplierOut.shift);
  setOutputStage(job, mul.params.output);
  return job;
}

EltwiseJob eltwiseJob(const QLut& lut) {
  EltwiseJob job{&lut.name, {lut.input}, lut.output, {}, {}};
  job.base.op = isa::kEltwiseLut;
  job.parameters.assign(24, 0);
  for (const std::int8_t v : lut.lut) {
    job.parameters.push_back(static_cast<std::uint8_t>(v));
  }
  job.base.clip_lo = -128;
  job.base.clip_hi = 127;
  return job;
}

/// Streams the job's operands through the input SRAM in chunks, one ELTWISE (or one per
/// broadcast strip) and one STORE per chunk.
void emitEltwise(LoweringContext& ctx, const EltwiseJob& job) {
  const std::string& name = *job.name;
  const std::vector<TensorId>& inputs = job.inputs;
  const TensorId output = job.output;
  const std::vector<std::int64_t>& outShape = ctx.graph.tensors[output].shape;
  const std::int64_t n = elements(outShape);
  const std::int64_t channels = outShape.back();
  std::vector<bool> perChannel;
  for (const TensorId id : inputs) {
    const std::int64_t size = elements(ctx.graph.tensors[id].shape);
    if (size != n && (size != channels || ctx.graph.tensors[id].shape.back() != channels)) {
      fail(ErrorKind::Unsupported,
           "layer '{}': element-wise operands must have the output's shape or hold one value per "
           "channel",
           name);
    }
    perChannel.push_back(size != n);
  }
  const bool broadcasts = std::find(perChannel.begin(), perChannel.end(), true) != perChannel.end();
  const isa::Eltwise& base = job.base;
  const std::vector<std::uint8_t>& parameters = job.parameters;
  const std::uint64_t parameterAddress = ctx.constants.add(name + ".params", parameters);
  const std::int64_t operands = static_cast<std::int64_t>(inputs.size());
  // The broadcast strip: whole pixels of the per-channel operand, about kStripBytes (an
  // ELTWISE's 4 cycles of drain are then a few percent of its steps), at most one LOAD's columns.
  constexpr std::int64_t kStripBytes = 2048;
  const std::int64_t stripPixels =
      broadcasts ? std::clamp<std::int64_t>(kStripBytes / channels, 1, isa::limits::kLoadColumns)
                 : 0;
  const std::int64_t strip = stripPixels * channels;
  // Streamed operands: both, or the one that is not per channel.
  const std::int64_t streamed = broadcasts ? 1 : operands;
  std::int64_t chunk = std::min({n, (ctx.slots.inputBytes() - strip) / streamed,
                                 ctx.slots.outputBytes(), isa::limits::kEltwiseCount});
  // An operand or output stored in a concat's channels (a split's slice read in place) moves as
  // runs of its channels `pixelStride` apart: chunks of whole pixels then, within one LOAD's
  // columns (a STORE's column field is as wide).
  const auto storedInConcat = [&](TensorId id) {
    return pixelStride(ctx, id) != ctx.graph.tensors[id].shape.back();
  };
  bool strided = storedInConcat(output);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    strided = strided || (!perChannel[k] && storedInConcat(inputs[k]));
  }
  if (strided) {
    chunk = std::min(chunk, isa::limits::kLoadColumns * channels);
  }
  if (broadcasts || strided) {
    chunk = chunk / channels * channels;  // whole pixels
  }
  if (chunk < 1 || static_cast<std::int64_t>(parameters.size()) > ctx.slots.parameterBytes()) {
    fail(ErrorKind::Unsupported, "layer '{}': SRAM too small for any element-wise tile", name);
  }
  // Each input half holds its own copy of the strip at its end, loaded on the half's first use.
  const std::int64_t stripOffset = ctx.slots.inputBytes() - strip;
  std::vector<std::int64_t> stripLoaded;
  bool loadParameters = false;
  const std::int64_t parameterSram = ctx.slots.parameterSlot(name, loadParameters);
  // Each step's LOADs in ready order (an operand written long ago before the one the previous
  // layer is still storing), its ELTWISEs and STORE after the next step's LOADs (TileLag).
  TileLag deferred;
  for (std::int64_t at = 0; at < n; at += chunk) {
    const std::int64_t count = std::min(chunk, n - at);
    const auto [inputSram, outputSram] = ctx.slots.nextStep();
    std::vector<std::vector<isa::Instruction>> loads;
    if (broadcasts) {
      for (std::int64_t k = 0; k < operands; ++k) {
        const auto index = static_cast<std::size_t>(k);
        const std::uint64_t address = ctx.tensors[inputs[index]].address;
        if (!perChannel[index]) {
          loads.push_back(ctx.capture(
              [&] { ctx.load(0, inputSram, tensorPixels(ctx, inputs[index], at, count)); }));
        } else if (std::find(stripLoaded.begin(), stripLoaded.end(), inputSram) ==
                   stripLoaded.end()) {
          // Every pixel of the strip reads the same C bytes: a column stride of 0.
          loads.push_back(ctx.capture([&] {
            ctx.load(0, inputSram + stripOffset,
                     {static_cast<std::int64_t>(address), 1, stripPixels, channels, 0, 0});
          }));
          stripLoaded.push_back(inputSram);
        }
      }
    } else {
      for (std::int64_t k = 0; k < operands; ++k) {
        loads.push_back(ctx.capture([&] {
          ctx.load(0, inputSram + k * count,
                   tensorPixels(ctx, inputs[static_cast<std::size_t>(k)], at, count));
        }));
      }
    }
    if (loadParameters) {
      loads.push_back(ctx.capture([&] {
        ctx.loadFlat(2, parameterSram, parameterAddress,
                     static_cast<std::int64_t>(parameters.size()));
      }));
      loadParameters = false;
    }
    ctx.emitLoadsInReadyOrder(std::move(loads));
    std::vector<isa::Instruction> step = ctx.capture([&] {
      isa::Eltwise instruction = base;
      instruction.param_addr = parameterSram;
      instruction.lut_addr = parameterSram + 24;
      if (broadcasts) {
        // One ELTWISE per strip's worth of pixels, the per-channel operand read from the strip.
        for (std::int64_t piece = 0; piece < count; piece += strip) {
          const std::int64_t streamedAt = inputSram + piece;
          const std::int64_t stripAt = inputSram + stripOffset;
          instruction.a_addr = perChannel[0] ? stripAt : streamedAt;
          instruction.b_addr = perChannel[0] ? streamedAt : stripAt;
          instruction.out_addr = outputSram + piece;
          instruction.count = std::min(strip, count - piece);
          ctx.emit(instruction);
        }
      } else {
        instruction.a_addr = inputSram;
        instruction.b_addr = operands > 1 ? inputSram + count : inputSram;
        instruction.out_addr = outputSram;
        instruction.count = count;
        ctx.emit(instruction);
      }
      ctx.store(outputSram, tensorPixels(ctx, output, at, count));
    });
    deferred.next([&ctx, step = std::move(step)] {
      for (const isa::Instruction& instruction : step) {
        ctx.emit(instruction);
      }
    });
  }
  deferred.flush();
}

}  // namespace

void lowerEltwise(LoweringContext& ctx, const QAdd& op) {
  emitEltwise(ctx, eltwiseJob(op));
}

void lowerEltwise(LoweringContext& ctx, const QMul& op) {
  emitEltwise(ctx, eltwiseJob(op));
}

void lowerEltwise(LoweringContext& ctx, const QLut& op) {
  emitEltwise(ctx, eltwiseJob(op));
}

}  // namespace npu::compiler
