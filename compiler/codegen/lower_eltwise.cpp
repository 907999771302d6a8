// ELTWISE lowering for add, mul and stand-alone LUTs: both operands stream through the input
// SRAM in flat chunks (NHWC tensors of one shape are contiguous; an operand or output stored in a
// concat's channels moves pixel by pixel, to or from the same dense chunk). A per-channel operand
// ([1, 1, 1, C] against [1, H, W, C]) is replicated over a strip of pixels once, by a LOAD whose
// column stride is 0, into the tail of each input half; each ELTWISE then pairs one strip's
// worth of the chunk with it, so the ELTWISE itself never broadcasts and the DDR port carries
// the per-channel operand once, not once per pixel.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "lowering.h"
#include "npu/compiler/ir/types.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

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

}  // namespace

namespace {

/// An add's or sub's job: the two inputs' rescales, then the output's (ELTWISE `op`).
EltwiseJob rescaledJob(const std::string& name, TensorId a, TensorId b, TensorId output,
                       const golden::AddInt8Params& params, std::int64_t op) {
  EltwiseJob job{&name, {a, b}, output, {}, {}};
  job.base.op = op;
  job.base.a_zp = params.zeroPointA;
  job.base.b_zp = params.zeroPointB;
  job.base.left_shift = params.leftShift;
  for (const auto& m : {params.multiplierA, params.multiplierB, params.multiplierOut}) {
    appendInt32(job.parameters, m.multiplier);
    appendInt32(job.parameters, m.shift);
  }
  setOutputStage(job, params.output);
  return job;
}

}  // namespace

EltwiseJob eltwiseJob(const QAdd& add) {
  return rescaledJob(add.name, add.a, add.b, add.output, add.params, isa::kEltwiseAdd);
}

EltwiseJob eltwiseJob(const QSub& sub) {
  return rescaledJob(sub.name, sub.a, sub.b, sub.output, sub.params, isa::kEltwiseSub);
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

namespace {

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

/// How an element-wise op streams its operands through the input SRAM: chunks of `chunk`
/// elements of the `n` of the output; a per-channel operand replicated over a strip of
/// `stripPixels` pixels (`strip` bytes) at `stripOffset` in each input half.
struct EltwiseTiling {
  std::int64_t n = 0;
  std::int64_t channels = 0;
  /// Per operand: whether it holds one value per channel (else it has the output's shape).
  std::vector<bool> perChannel;
  bool broadcasts = false;
  std::int64_t operands = 0;
  std::int64_t stripPixels = 0;
  std::int64_t strip = 0;
  std::int64_t chunk = 0;
  std::int64_t stripOffset = 0;
};

/// The output's size and, per operand, whether it is per channel; fails on any other shape.
EltwiseTiling eltwiseOperands(const LoweringContext& ctx, const EltwiseJob& job) {
  EltwiseTiling t;
  const std::vector<std::int64_t>& outShape = ctx.graph.tensors[job.output].shape;
  t.n = elementCount(outShape);
  t.channels = outShape.back();
  for (const TensorId id : job.inputs) {
    const std::int64_t size = elementCount(ctx.graph.tensors[id].shape);
    if (size != t.n && (size != t.channels || ctx.graph.tensors[id].shape.back() != t.channels)) {
      fail(ErrorKind::Unsupported,
           "layer '{}': element-wise operands must have the output's shape or hold one value per "
           "channel",
           *job.name);
    }
    t.perChannel.push_back(size != t.n);
  }
  t.broadcasts = std::find(t.perChannel.begin(), t.perChannel.end(), true) != t.perChannel.end();
  t.operands = static_cast<std::int64_t>(job.inputs.size());
  return t;
}

/// The strip and the chunk of `t` (whose operands are known); fails when no chunk fits.
void chooseChunk(const LoweringContext& ctx, const EltwiseJob& job, EltwiseTiling& t) {
  const std::int64_t channels = t.channels;
  // The broadcast strip: whole pixels of the per-channel operand, about kStripBytes (an
  // ELTWISE's 4 cycles of drain are then a few percent of its steps), at most one LOAD's columns.
  constexpr std::int64_t kStripBytes = 2048;
  t.stripPixels =
      t.broadcasts ? std::clamp<std::int64_t>(kStripBytes / channels, 1, isa::limits::kLoadColumns)
                   : 0;
  t.strip = t.stripPixels * channels;
  // Streamed operands: both, or the one that is not per channel.
  const std::int64_t streamed = t.broadcasts ? 1 : t.operands;
  std::int64_t chunk = std::min({t.n, (ctx.slots.inputBytes() - t.strip) / streamed,
                                 ctx.slots.outputBytes(), isa::limits::kEltwiseCount});
  // An operand or output stored in a concat's channels (a split's slice read in place) moves as
  // runs of its channels `pixelStride` apart: chunks of whole pixels then, within one LOAD's
  // columns (a STORE's column field is as wide).
  const auto storedInConcat = [&](TensorId id) {
    return pixelStride(ctx, id) != ctx.graph.tensors[id].shape.back();
  };
  bool strided = storedInConcat(job.output);
  for (std::size_t k = 0; k < job.inputs.size(); ++k) {
    strided = strided || (!t.perChannel[k] && storedInConcat(job.inputs[k]));
  }
  if (strided) {
    chunk = std::min(chunk, isa::limits::kLoadColumns * channels);
  }
  if (t.broadcasts || strided) {
    chunk = chunk / channels * channels;  // whole pixels
  }
  if (chunk < 1 || static_cast<std::int64_t>(job.parameters.size()) > ctx.slots.parameterBytes()) {
    fail(ErrorKind::Unsupported, "layer '{}': SRAM too small for any element-wise tile", *job.name);
  }
  t.chunk = chunk;
  // Each input half holds its own copy of the strip at its end, loaded on the half's first use.
  t.stripOffset = ctx.slots.inputBytes() - t.strip;
}

/// The chunks of one element-wise op: each one's LOADs, and its ELTWISEs and STORE.
class EltwiseSteps {
 public:
  /// Takes the parameter slot (the parameters at `parameterAddress` in DDR).
  EltwiseSteps(LoweringContext& ctx, const EltwiseJob& job, const EltwiseTiling& tiling,
               std::uint64_t parameterAddress)
      : m_ctx(ctx), m_job(job), m_tiling(tiling), m_parameterAddress(parameterAddress) {
    m_parameterSram = ctx.slots.parameterSlot(*job.name, m_loadParameters);
  }

  /// The LOADs of elements [at, at + count) into the input half at `inputSram`, one group per
  /// operand (the strip only on the half's first use), then the parameters on the first step.
  std::vector<std::vector<isa::Instruction>> loads(std::int64_t at, std::int64_t count,
                                                   std::int64_t inputSram);
  /// Their ELTWISEs (one per strip's worth when broadcasting) and the STORE from `outputSram`.
  std::vector<isa::Instruction> compute(std::int64_t at, std::int64_t count, std::int64_t inputSram,
                                        std::int64_t outputSram);

 private:
  LoweringContext& m_ctx;
  const EltwiseJob& m_job;
  const EltwiseTiling& m_tiling;
  const std::uint64_t m_parameterAddress;
  /// The input halves whose strip is loaded.
  std::vector<std::int64_t> m_stripLoaded;
  bool m_loadParameters = false;
  std::int64_t m_parameterSram = 0;
};

std::vector<std::vector<isa::Instruction>> EltwiseSteps::loads(std::int64_t at, std::int64_t count,
                                                               std::int64_t inputSram) {
  LoweringContext& ctx = m_ctx;
  const std::vector<TensorId>& inputs = m_job.inputs;
  const EltwiseTiling& t = m_tiling;
  std::vector<std::vector<isa::Instruction>> groups;
  if (t.broadcasts) {
    for (std::int64_t k = 0; k < t.operands; ++k) {
      const auto index = static_cast<std::size_t>(k);
      const std::uint64_t address = ctx.tensors[inputs[index]].address;
      if (!t.perChannel[index]) {
        groups.push_back(ctx.capture([&] {
          ctx.load(LoadSram::Input, inputSram, tensorPixels(ctx, inputs[index], at, count));
        }));
      } else if (std::find(m_stripLoaded.begin(), m_stripLoaded.end(), inputSram) ==
                 m_stripLoaded.end()) {
        // Every pixel of the strip reads the same C bytes: a column stride of 0.
        groups.push_back(ctx.capture([&] {
          ctx.load(LoadSram::Input, inputSram + t.stripOffset,
                   {static_cast<std::int64_t>(address), 1, t.stripPixels, t.channels, 0, 0});
        }));
        m_stripLoaded.push_back(inputSram);
      }
    }
  } else {
    for (std::int64_t k = 0; k < t.operands; ++k) {
      groups.push_back(ctx.capture([&] {
        ctx.load(LoadSram::Input, inputSram + k * count,
                 tensorPixels(ctx, inputs[static_cast<std::size_t>(k)], at, count));
      }));
    }
  }
  if (m_loadParameters) {
    groups.push_back(ctx.capture([&] {
      ctx.loadFlat(LoadSram::Parameter, m_parameterSram, m_parameterAddress,
                   static_cast<std::int64_t>(m_job.parameters.size()));
    }));
    m_loadParameters = false;
  }
  return groups;
}

std::vector<isa::Instruction> EltwiseSteps::compute(std::int64_t at, std::int64_t count,
                                                    std::int64_t inputSram,
                                                    std::int64_t outputSram) {
  LoweringContext& ctx = m_ctx;
  const EltwiseTiling& t = m_tiling;
  return ctx.capture([&] {
    isa::Eltwise instruction = m_job.base;
    instruction.param_addr = m_parameterSram;
    instruction.lut_addr = m_parameterSram + 24;
    if (t.broadcasts) {
      // One ELTWISE per strip's worth of pixels, the per-channel operand read from the strip.
      for (std::int64_t piece = 0; piece < count; piece += t.strip) {
        const std::int64_t streamedAt = inputSram + piece;
        const std::int64_t stripAt = inputSram + t.stripOffset;
        instruction.a_addr = t.perChannel[0] ? stripAt : streamedAt;
        instruction.b_addr = t.perChannel[0] ? streamedAt : stripAt;
        instruction.out_addr = outputSram + piece;
        instruction.count = std::min(t.strip, count - piece);
        ctx.emit(instruction);
      }
    } else {
      instruction.a_addr = inputSram;
      instruction.b_addr = t.operands > 1 ? inputSram + count : inputSram;
      instruction.out_addr = outputSram;
      instruction.count = count;
      ctx.emit(instruction);
    }
    ctx.store(outputSram, tensorPixels(ctx, m_job.output, at, count));
  });
}

/// Streams the job's operands through the input SRAM in chunks, one ELTWISE (or one per
/// broadcast strip) and one STORE per chunk.
void emitEltwise(LoweringContext& ctx, const EltwiseJob& job) {
  EltwiseTiling tiling = eltwiseOperands(ctx, job);
  const std::uint64_t parameterAddress = ctx.constants.add(*job.name + ".params", job.parameters);
  chooseChunk(ctx, job, tiling);
  EltwiseSteps steps(ctx, job, tiling, parameterAddress);
  // Each step's LOADs in ready order (an operand written long ago before the one the previous
  // layer is still storing), its ELTWISEs and STORE after the next step's LOADs (TileLag).
  TileLag deferred;
  for (std::int64_t at = 0; at < tiling.n; at += tiling.chunk) {
    const std::int64_t count = std::min(tiling.chunk, tiling.n - at);
    std::int64_t inputSram = 0;
    std::int64_t outputSram = 0;
    // Named variables, not a structured binding: clang before 16 cannot capture one.
    std::tie(inputSram, outputSram) = ctx.slots.nextStep();
    ctx.emitLoadsInReadyOrder(steps.loads(at, count, inputSram));
    std::vector<isa::Instruction> step = steps.compute(at, count, inputSram, outputSram);
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

void lowerEltwise(LoweringContext& ctx, const QSub& op) {
  emitEltwise(ctx, eltwiseJob(op));
}

void lowerEltwise(LoweringContext& ctx, const QMul& op) {
  emitEltwise(ctx, eltwiseJob(op));
}

void lowerEltwise(LoweringContext& ctx, const QLut& op) {
  emitEltwise(ctx, eltwiseJob(op));
}

}  // namespace npu::compiler
