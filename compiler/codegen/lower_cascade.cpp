// Cascade lowering of an inverted residual ([expand 1x1] -> depthwise -> project 1x1): per band of
// output rows and per block of expanded channels, the expand CONVs write the depthwise's padded
// input into the input SRAM, the depthwise writes the project's input there too (CONV out_buf),
// and the project accumulates the blocks; only the chain's input and output go through DDR
// (docs/cascade.md).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

#include "fusion_plan.h"
#include "lowering.h"
#include "npu/support/error.h"
#include "npu/support/int_math.h"

namespace npu::compiler {
namespace {

/// The project's weights as its CONVs read them: per block, [kout][block].
std::vector<std::uint8_t> projectWeights(const Cascade& c) {
  std::vector<std::uint8_t> blob;
  for (std::int64_t e0 = 0; e0 < c.expandedChannels; e0 += c.block) {
    for (std::int64_t o = 0; o < c.outputChannels; ++o) {
      for (std::int64_t i = e0; i < e0 + c.block; ++i) {
        blob.push_back(static_cast<std::uint8_t>(
            c.project->weights.data[static_cast<std::size_t>(o * c.expandedChannels + i)]));
      }
    }
  }
  return blob;
}

std::vector<std::uint8_t> rawWeights(const QConv& conv) {
  return {
      reinterpret_cast<const std::uint8_t*>(conv.weights.data.data()),
      reinterpret_cast<const std::uint8_t*>(conv.weights.data.data()) + conv.weights.data.size()};
}

/// A CONV's fields common to the three convs: output stage and rounding of `conv`.
isa::Conv convBase(const QConv& conv) {
  const auto& p = conv.params;
  isa::Conv instruction;
  instruction.in_zp = p.inputZeroPoint;
  instruction.out_zp = p.output.zeroPoint;
  instruction.clip_lo = p.output.clipLo;
  instruction.clip_hi = p.output.clipHi;
  instruction.double_round = p.output.rounding == golden::Rounding::Double ? 1 : 0;
  instruction.sh = 1;
  instruction.sw = 1;
  instruction.dh = 1;
  instruction.dw = 1;
  instruction.kh = 1;
  instruction.kw = 1;
  instruction.acc_init = 1;
  instruction.finalize = 1;
  return instruction;
}

/// Where one block's constants are in the weight and parameter SRAMs.
struct BlockConstants {
  std::int64_t expandWeights = 0, dwWeights = 0, projectWeights = 0;
  std::int64_t expandParameters = 0, dwParameters = 0, projectParameters = 0;
  std::int64_t expandLut = 0, dwLut = 0, projectLut = 0;
};

/// The constant blob of one block [e0, e0 + block): expand rows, depthwise taps, project columns
/// (weights), or expand and depthwise records (parameters).
std::vector<std::uint8_t> blockWeightBlob(const Cascade& c, std::int64_t e0) {
  std::vector<std::uint8_t> blob;
  const auto append = [&](const QConv& conv, std::int64_t first, std::int64_t count) {
    const auto* data = reinterpret_cast<const std::uint8_t*>(conv.weights.data.data());
    blob.insert(blob.end(), data + first, data + first + count);
  };
  if (c.expand != nullptr) {
    append(*c.expand, e0 * c.inputChannels, c.block * c.inputChannels);
  }
  append(*c.depthwise, e0 * c.kernel * c.kernel, c.block * c.kernel * c.kernel);
  for (std::int64_t o = 0; o < c.outputChannels; ++o) {
    append(*c.project, o * c.expandedChannels + e0, c.block);
  }
  return blob;
}

std::vector<std::uint8_t> blockParameterBlob(const Cascade& c, std::int64_t e0) {
  std::vector<std::uint8_t> blob;
  const auto records = [&](const QConv& conv) {
    std::vector<std::uint8_t> all = convParameterBlob(conv, e0, c.block);
    blob.insert(blob.end(), all.begin(),
                all.begin() + kChannelRecordBytes * c.block);  // without the LUT
  };
  if (c.expand != nullptr) {
    records(*c.expand);
  }
  records(*c.depthwise);
  return blob;
}

/// Which end of each SRAM the cascade's buffers start from: address 0 up, or (mirrored) the
/// top of the SRAM down.
struct Placement {
  bool mirrored = false;
  /// The address of `bytes` bytes placed `at` bytes from the starting end of an SRAM of
  /// `sramBytes` bytes.
  [[nodiscard]] std::int64_t operator()(std::int64_t sramBytes, std::int64_t at,
                                        std::int64_t bytes) const {
    return mirrored ? sramBytes - at - bytes : at;
  }
};

/// Every other cascade places each buffer from the top of its SRAM down, so that its first
/// loads overlap the previous cascade's last band instead of waiting for it.
/// Where the previous layer's constants still wait to be read decides it first: the weights
/// go to the end of the weight SRAM whose last reader is older (a gated project before leaves
/// its weights at the bottom), so that they load while that layer still computes.
Placement choosePlacement(LoweringContext& ctx, const Cascade& c) {
  const std::int64_t weightSpan =
      (c.streamed ? 2 * c.blockWeights(c.block) : c.blockWeights(c.expandedChannels)) +
      (c.pool != nullptr ? c.poolWeights(c.block, c.rows) : 0);
  const auto lastReader = [&](std::int64_t at) {
    // From the constant pool, which no STORE writes: only the SRAM side can conflict.
    return ctx.emitter.newestProducer(
        makeLoad(LoadSram::Weight, at, flatBlock(ctx.constants.base, weightSpan)));
  };
  const std::int64_t bottomReader = lastReader(0);
  const std::int64_t topReader = lastReader(ctx.config.weightSramBytes - weightSpan);
  const bool alternate = ctx.slots.nextCascadeMirrored();
  const bool mirrored = topReader != bottomReader ? topReader < bottomReader : alternate;
  return Placement{mirrored};
}

/// The LUT of `conv` (empty when it has none).
std::vector<std::uint8_t> lutOf(const QConv& conv) {
  std::vector<std::uint8_t> blob;
  if (conv.params.output.lut) {
    for (const std::int8_t v : *conv.params.output.lut) {
      blob.push_back(static_cast<std::uint8_t>(v));
    }
  }
  return blob;
}

/// The residual add's {a, b, out} multipliers and shifts, then its LUT.
std::vector<std::uint8_t> addParameterBlob(const QAdd& add) {
  std::vector<std::uint8_t> blob;
  const auto& q = add.params;
  for (const auto& m : {q.multiplierA, q.multiplierB, q.multiplierOut}) {
    appendInt32(blob, m.multiplier);
    appendInt32(blob, m.shift);
  }
  if (q.output.lut) {
    for (const std::int8_t v : *q.output.lut) {
      blob.push_back(static_cast<std::uint8_t>(v));
    }
  }
  return blob;
}

/// Where the chain's constants are in the weight and parameter SRAMs.
struct ConstantLayout {
  /// Loaded once: the constants of every block (block e0's at its offsets from these).
  /// Streamed: the records every block shares (the project's, and the LUTs).
  BlockConstants whole;
  /// Streamed: each block's weights and records in DDR, and the two slots they load into.
  std::vector<std::uint64_t> blockWeightAddress;
  std::vector<std::uint64_t> blockParameterAddress;
  std::array<std::int64_t, 2> weightSlot{};
  std::array<std::int64_t, 2> parameterSlot{};
  std::int64_t addParameters = 0;   ///< the residual add's records, then its LUT
  std::int64_t poolWeights = 0;     ///< the pool's all-ones depthwise kernel
  std::int64_t poolParameters = 0;  ///< the pool's records
  std::int64_t copyLut = 0;         ///< the identity LUT of the vector unit's copies
};

/// Places the chain's constants from one end of the weight and parameter SRAMs (`weightAt` and
/// `parameterAt` bytes of them placed so far), adds them to the constant pool and loads those
/// that stay for the whole cascade: every weight and parameter of the chain loaded once, or
/// (streamed) the shared records once and each block's constants per band into one of two
/// slots; then the pool's kernel and records, and the copies' LUT.
struct ConstantPlacer {
  ConstantPlacer(LoweringContext& context, const Cascade& cascade, Placement placement)
      : ctx(context),
        c(cascade),
        place(placement),
        name(cascade.depthwise->name),
        weightSram(context.config.weightSramBytes),
        parameterSram(context.config.parameterSramBytes) {}

  /// Places `blob` at the next weight bytes and loads it (charged to op `op`).
  std::int64_t placeWeights(std::int64_t op, const std::string& what,
                            const std::vector<std::uint8_t>& blob);
  /// Places `blob` at the next parameter bytes and loads it (charged to op `op`).
  std::int64_t placeParameters(std::int64_t op, const std::string& what,
                               const std::vector<std::uint8_t>& blob);
  /// The residual add's records and LUT, when the chain has the add.
  void placeAdd();
  /// Every weight and record of the chain, loaded once.
  void placeWhole();
  /// The shared records, loaded once; each block's constants added to the pool, and their slots.
  void placeStreamed();
  /// The pool's all-ones depthwise kernel and its records (the same for every channel), beside
  /// the chain's constants for the whole cascade.
  void placePool();
  /// The identity LUT of the vector unit's copies (ELTWISE lut maps byte v to LUT[v + 128]).
  void placeCopyLut();

  LoweringContext& ctx;
  const Cascade& c;
  const Placement place;
  const std::string& name;
  const std::int64_t weightSram;
  const std::int64_t parameterSram;
  std::int64_t weightAt = 0;
  std::int64_t parameterAt = 0;
  ConstantLayout layout;
};

std::int64_t ConstantPlacer::placeWeights(std::int64_t op, const std::string& what,
                                          const std::vector<std::uint8_t>& blob) {
  ctx.op = op;
  const std::int64_t at = place(weightSram, weightAt, static_cast<std::int64_t>(blob.size()));
  if (!blob.empty()) {  // a chain without a project has no project weights
    ctx.loadFlat(LoadSram::Weight, at,
                 ctx.constants.add(fmt::format("{}.cascade.{}", name, what), blob),
                 static_cast<std::int64_t>(blob.size()));
  }
  weightAt += static_cast<std::int64_t>(blob.size());
  return at;
}

std::int64_t ConstantPlacer::placeParameters(std::int64_t op, const std::string& what,
                                             const std::vector<std::uint8_t>& blob) {
  ctx.op = op;
  const std::int64_t at = place(parameterSram, parameterAt, static_cast<std::int64_t>(blob.size()));
  if (!blob.empty()) {
    ctx.loadFlat(LoadSram::Parameter, at,
                 ctx.constants.add(fmt::format("{}.cascade.{}", name, what), blob),
                 static_cast<std::int64_t>(blob.size()));
  }
  parameterAt += static_cast<std::int64_t>(blob.size());
  return at;
}

void ConstantPlacer::placeAdd() {
  if (c.add == nullptr) {
    return;
  }
  layout.addParameters = placeParameters(c.addOp, "add_params", addParameterBlob(*c.add));
}

void ConstantPlacer::placeWhole() {
  BlockConstants& whole = layout.whole;
  whole.expandWeights =
      c.expand != nullptr ? placeWeights(c.expandOp, "expand", rawWeights(*c.expand)) : 0;
  whole.dwWeights = placeWeights(c.depthwiseOp, "depthwise", rawWeights(*c.depthwise));
  whole.projectWeights = placeWeights(c.projectOp, "project", projectWeights(c));
  const auto records = [&](std::int64_t op, const QConv& conv) {
    return placeParameters(op, conv.name + ".params",
                           convParameterBlob(conv, 0, ctx.graph.tensors[conv.output].shape[3]));
  };
  whole.expandParameters = c.expand != nullptr ? records(c.expandOp, *c.expand) : 0;
  whole.expandLut = whole.expandParameters + kChannelRecordBytes * c.expandedChannels;
  whole.dwParameters = records(c.depthwiseOp, *c.depthwise);
  whole.dwLut = whole.dwParameters + kChannelRecordBytes * c.expandedChannels;
  whole.projectParameters = c.project != nullptr ? records(c.projectOp, *c.project) : 0;
  whole.projectLut = whole.projectParameters + kChannelRecordBytes * c.outputChannels;
  placeAdd();
}

void ConstantPlacer::placeStreamed() {
  BlockConstants& whole = layout.whole;
  std::vector<std::uint8_t> shared = c.project != nullptr
                                         ? convParameterBlob(*c.project, 0, c.outputChannels)
                                         : std::vector<std::uint8_t>{};
  const std::int64_t projectLut = kChannelRecordBytes * c.outputChannels;
  const std::int64_t expandLut = static_cast<std::int64_t>(shared.size());
  if (c.expand != nullptr) {
    const std::vector<std::uint8_t> lut = lutOf(*c.expand);
    shared.insert(shared.end(), lut.begin(), lut.end());
  }
  const std::int64_t dwLut = static_cast<std::int64_t>(shared.size());
  const std::vector<std::uint8_t> lut = lutOf(*c.depthwise);
  shared.insert(shared.end(), lut.begin(), lut.end());
  whole.projectParameters = placeParameters(c.projectOp, "shared_params", shared);
  whole.projectLut = whole.projectParameters + projectLut;
  whole.expandLut = whole.projectParameters + expandLut;
  whole.dwLut = whole.projectParameters + dwLut;
  placeAdd();
  for (std::int64_t e0 = 0; e0 < c.expandedChannels; e0 += c.block) {
    layout.blockWeightAddress.push_back(
        ctx.constants.add(fmt::format("{}.cascade.weights.e{}", name, e0), blockWeightBlob(c, e0)));
    layout.blockParameterAddress.push_back(ctx.constants.add(
        fmt::format("{}.cascade.params.e{}", name, e0), blockParameterBlob(c, e0)));
  }
  for (std::size_t s = 0; s < 2; ++s) {
    layout.weightSlot[s] = place(weightSram, static_cast<std::int64_t>(s) * c.blockWeights(c.block),
                                 c.blockWeights(c.block));
    layout.parameterSlot[s] = place(
        parameterSram, parameterAt + static_cast<std::int64_t>(s) * c.blockParameters(c.block),
        c.blockParameters(c.block));
  }
}

void ConstantPlacer::placePool() {
  if (c.pool == nullptr) {
    return;
  }
  const std::int64_t onesBytes = c.poolWeights(c.block, c.rows);
  ctx.op = c.poolOp;
  layout.poolWeights =
      place(weightSram, c.streamed ? 2 * c.blockWeights(c.block) : weightAt, onesBytes);
  ctx.loadFlat(LoadSram::Weight, layout.poolWeights,
               ctx.constants.add(fmt::format("{}.cascade.pool_ones", name),
                                 std::vector<std::uint8_t>(static_cast<std::size_t>(onesBytes), 1)),
               onesBytes);
  const std::vector<std::uint8_t> records =
      globalSumRecords(c.outputHeight, c.outputWidth, c.block);
  layout.poolParameters =
      place(parameterSram, parameterAt + (c.streamed ? 2 * c.blockParameters(c.block) : 0),
            c.poolParameters(c.block));
  ctx.loadFlat(LoadSram::Parameter, layout.poolParameters,
               ctx.constants.add(fmt::format("{}.cascade.pool_params", name), records),
               c.poolParameters(c.block));
}

void ConstantPlacer::placeCopyLut() {
  if (!c.copies()) {
    return;
  }
  ctx.op = c.depthwiseOp;
  layout.copyLut = place(
      parameterSram,
      parameterAt + (c.streamed ? 2 * c.blockParameters(c.block) : 0) + c.poolParameters(c.block),
      kLutBytes);
  ctx.loadFlat(LoadSram::Parameter, layout.copyLut,
               ctx.constants.add(fmt::format("{}.cascade.copy_lut", name), identityLut()),
               kLutBytes);
}

/// Places the chain's constants (ConstantPlacer) and loads those loaded once.
ConstantLayout placeConstants(LoweringContext& ctx, const Cascade& c, Placement place) {
  ConstantPlacer placer(ctx, c, place);
  if (!c.streamed) {
    placer.placeWhole();
  } else {
    placer.placeStreamed();
  }
  placer.placePool();
  placer.placeCopyLut();
  return placer.layout;
}

/// Where the cascade's buffers are in the input and output SRAMs, and its input and result in
/// DDR.
struct BufferLayout {
  std::int64_t inputSram = 0;  ///< input SRAM bytes
  /// Input SRAM: expand-input slots, depthwise-input slots, project input, the residual's
  /// project output, the pool's depthwise-output slots.
  std::array<std::int64_t, 2> xAt{};
  std::array<std::int64_t, 2> dAt{};
  std::int64_t pAt = 0;
  std::int64_t qAt = 0;
  std::array<std::int64_t, 2> gAt{};
  /// Output SRAM: its two halves, one per band (per block without a project).
  std::int64_t half = 0;
  std::array<std::int64_t, 2> outAt{};
  std::int8_t zp = 0;  ///< the depthwise's input zero point: its padding
  std::int64_t inputAddress = 0;
  /// The chain input's pixels: its channels, or its source's when it is a slice read in place.
  std::int64_t inPixel = 0;
  TensorId result = 0;  ///< the chain's output: the add's, the project's or the depthwise's
  std::int64_t outputAddress = 0;
  /// Bytes between the result's pixels: its channels, or a concat's (stored by address).
  std::int64_t outPixel = 0;
  std::int64_t rowPitch = 0;  ///< bytes of a row of one block's depthwise input
  /// The kept halo: block e0's last halo() rows of a band, after every other input buffer.
  std::int64_t haloBytes = 0;
  /// Beside an expand CONV, a halo copy goes in pieces no longer than the CONV (an ELTWISE of n
  /// bytes takes ceil(n / cols) + 4 cycles, the CONV its steps + 4): the next CONV waits for the
  /// vector side to be free, so a longer copy would hold it up. The halo is one run of bytes.
  std::int64_t pieceBytes = 0;
  std::int64_t poolOutput = 0;   ///< the pool's output in DDR
  std::int64_t poolStaging = 0;  ///< the pool's finished block: top of [0, half)
};

BufferLayout layoutBuffers(const LoweringContext& ctx, const Cascade& c, Placement place) {
  BufferLayout b;
  // Input SRAM: expand-input slots, depthwise-input slots, project input.
  const std::int64_t xBytes = c.expand != nullptr ? std::min(c.rowsIn(c.rows), c.inputHeight) *
                                                        c.inputWidth * c.inputChannels
                                                  : 0;
  const std::int64_t dBytes = c.rowsIn(c.rows) * c.paddedW * c.block;
  const std::int64_t inputSram = ctx.config.inputSramBytes;
  b.inputSram = inputSram;
  const std::int64_t pBytes = c.project != nullptr ? c.rows * c.outputWidth * c.block : 0;
  b.xAt = {place(inputSram, 0, xBytes), place(inputSram, xBytes, xBytes)};
  b.dAt = {place(inputSram, 2 * xBytes, dBytes),
           place(inputSram, 2 * xBytes + (c.expand != nullptr ? 0 : dBytes), dBytes)};
  b.pAt = place(inputSram, 2 * xBytes + (c.expand != nullptr ? 1 : 2) * dBytes, pBytes);
  b.qAt = place(inputSram, 2 * xBytes + (c.expand != nullptr ? 1 : 2) * dBytes + pBytes,
                c.rows * c.outputWidth * c.outputChannels);
  const std::int64_t gBytes = c.pool != nullptr ? c.rows * c.outputWidth * c.block : 0;
  b.gAt = {place(inputSram, 2 * xBytes + (c.expand != nullptr ? 1 : 2) * dBytes + pBytes, gBytes),
           place(inputSram, 2 * xBytes + (c.expand != nullptr ? 1 : 2) * dBytes + pBytes + gBytes,
                 gBytes)};
  b.half = ctx.config.outputSramBytes / 2;
  b.outAt = {place.mirrored ? b.half : 0, place.mirrored ? 0 : b.half};
  b.zp = static_cast<std::int8_t>(c.depthwise->params.inputZeroPoint);
  const TensorId chainInput = c.expand != nullptr ? c.expand->input : c.depthwise->input;
  b.inputAddress = static_cast<std::int64_t>(ctx.tensors[chainInput].address);
  b.inPixel = pixelStride(ctx, chainInput);
  b.result = c.add != nullptr       ? c.add->output
             : c.project != nullptr ? c.project->output
                                    : c.depthwise->output;
  b.outputAddress = static_cast<std::int64_t>(ctx.tensors[b.result].address);
  b.outPixel = pixelStride(ctx, b.result);
  b.rowPitch = c.paddedW * c.block;
  b.haloBytes = c.keepHalo ? c.halo() * b.rowPitch : 0;
  const std::int64_t expandSteps = c.expand != nullptr
                                       ? c.inputWidth * ceilDiv(c.block, ctx.config.macCols) *
                                             ceilDiv(c.inputChannels, ctx.config.macRows)
                                       : 0;
  b.pieceBytes = std::max<std::int64_t>(ctx.config.macCols, expandSteps * ctx.config.macCols);
  b.poolOutput =
      c.pool != nullptr ? static_cast<std::int64_t>(ctx.tensors[c.pool->output].address) : 0;
  b.poolStaging = b.half - c.poolOutputBytes(c.block);
  return b;
}

/// A pooled block: the depthwise wrote block-band j into slot G[j % 2] of the input SRAM, where
/// depthwise CONVs with all-ones weights sum it into the accumulator right away; the vector
/// unit copies it to the output SRAM for its STORE beside step j + 1's depthwise (which writes
/// the other slot), so the chain's DDR traffic is the depthwise's output once.
struct PooledBlock {
  std::int64_t oy, rb, e0, g, out;  // band, block, its G slot and output SRAM half
};

/// A block's halo copy out waiting to run beside the next block's first expand CONV: D rows
/// [row0, row1) to its slot. It runs earlier where something would write those rows first (the
/// next band's padding, an expand CONV of one of them).
struct CopyOut {
  std::int64_t from, to, row0, row1;
  std::int64_t done = 0;  ///< bytes already copied
  /// The first row not wholly copied yet.
  [[nodiscard]] std::int64_t pendingFrom(std::int64_t pitch) const { return row0 + done / pitch; }
};

/// A band of output rows [oy, oy + rb) and the depthwise-input rows it reads.
struct Band {
  std::int64_t index = 0;
  std::int64_t oy = 0;
  std::int64_t rb = 0;
  std::int64_t in = 0;         ///< depthwise input rows, padding included
  std::int64_t first = 0;      ///< image row of depthwise-input row 0
  std::int64_t realBegin = 0;  ///< the image rows [realBegin, realEnd) among them
  std::int64_t realEnd = 0;
  std::int64_t x = 0;    ///< its expand-input slot
  std::int64_t out = 0;  ///< its output SRAM half
};

/// Emits the cascade's bands after its constants are placed: per band the input rows, and per
/// block the expand, depthwise and project CONVs, the kept halo's and the pooled blocks' copies
/// and the stores. Holds what passes from block to block and band to band: the step (block
/// count), the depthwise-input rows that may hold data, the pooled block and the halo copy out
/// still to run.
struct CascadeEmitter {
  CascadeEmitter(LoweringContext& context, const Cascade& cascade, Placement placement,
                 const ConstantLayout& constants, const BufferLayout& buffers)
      : ctx(context), c(cascade), place(placement), placed(constants), buf(buffers) {}

  /// Emits every band, then the pool's last block.
  void run();

  /// The constants of block [e0, e0 + block) at the current step (loading them when streamed).
  BlockConstants constantsOf(std::int64_t e0);
  /// Where block e0's kept halo rows are in the input SRAM.
  [[nodiscard]] std::int64_t keptHaloAt(std::int64_t e0) const;
  /// The vector unit copies `count` bytes of the input SRAM beside the MAC array (a LUT pass
  /// through the identity) into the input SRAM (outBuf 1) or the output SRAM (0).
  void copyBytes(std::int64_t from, std::int64_t to, std::int64_t count, std::int64_t outBuf);
  void copyHalo(std::int64_t from, std::int64_t to);
  /// Fills rows [row0, row0 + n) of the depthwise input with padding where they may hold data.
  void fillPadding(std::int64_t row0, std::int64_t n);
  /// With an expand: the depthwise input's padding columns, filled once.
  void fillPaddingColumns();
  /// A pooled block's copy to the output SRAM and its STORE.
  void copyOut(const PooledBlock& s);
  /// A pooled block's sums into the accumulator (and, on the last band, the pool's STORE).
  void sum(const PooledBlock& s);
  /// Copies the next piece of the deferred copy out (rows from row0 on), or all of it.
  void copyOutPiece(bool all);
  void flushCopyOut();
  /// The rows of band `index`, output rows from `oy`.
  [[nodiscard]] Band bandAt(std::int64_t index, std::int64_t oy) const;
  /// One band: its input, its blocks, the residual add and the store.
  void emitBand(const Band& band);
  /// The band's expand input rows and its rows of padding.
  void loadBandInput(const Band& band);
  /// One block of a band: its expand or depthwise input, depthwise, copies, project or store.
  void emitBlock(const Band& band, std::int64_t e0,
                 const std::optional<BlockConstants>& firstConstants);
  /// The block's expand CONVs into the depthwise input at `d`, with the halo copies beside them.
  void emitExpand(const Band& band, std::int64_t e0, const BlockConstants& k, std::int64_t d);
  /// The block's depthwise CONV from `d` into the project's input, the pool's slot `g` or the
  /// output SRAM at `blockOut`.
  void emitDepthwise(const Band& band, const BlockConstants& k, std::int64_t d, std::int64_t g,
                     std::int64_t blockOut);
  void emitProject(const Band& band, std::int64_t e0, const BlockConstants& k);
  /// The residual: the project's band (on chip) plus the chain input's rows of the band, which
  /// the band's expand input holds (stride 1: output row y is input row y).
  void emitResidualAdd(const Band& band);

  LoweringContext& ctx;
  const Cascade& c;
  const Placement place;
  const ConstantLayout& placed;
  const BufferLayout& buf;
  /// With an expand the depthwise input is built in SRAM: the expand CONVs write each row's
  /// interior, its padding columns are filled once, and its rows of padding (above the image
  /// or below it) by each band; `written` is how many rows may hold data, not padding.
  std::int64_t written = 0;
  std::optional<PooledBlock> uncopied;
  std::optional<CopyOut> deferredCopyOut;
  std::int64_t step = 0;
  /// The stores before the cascade: compute waits for them after its first project CONV (they
  /// have long ended by then), so that a later layer's LOAD of their data (a ShuffleNet
  /// shuffle's other branch) need not wait for a SYNC behind the whole cascade.
  std::int64_t storesBefore = 0;
  /// Whether the layer before leaves the DDR port slack (leavesPortSlack).
  bool slackBefore = false;
};

BlockConstants CascadeEmitter::constantsOf(std::int64_t e0) {
  BlockConstants k = placed.whole;
  if (!c.streamed) {
    k.expandWeights += e0 * c.inputChannels;
    k.dwWeights += e0 * c.kernel * c.kernel;
    k.projectWeights += e0 * c.outputChannels;
    k.expandParameters += kChannelRecordBytes * e0;
    k.dwParameters += kChannelRecordBytes * e0;
    return k;
  }
  const auto s = static_cast<std::size_t>(step % 2);
  const auto index = static_cast<std::size_t>(e0 / c.block);
  ctx.op = c.depthwiseOp;
  ctx.loadFlat(LoadSram::Weight, placed.weightSlot[s], placed.blockWeightAddress[index],
               c.blockWeights(c.block));
  ctx.loadFlat(LoadSram::Parameter, placed.parameterSlot[s], placed.blockParameterAddress[index],
               c.blockParameters(c.block));
  const std::int64_t expandRows = c.expand != nullptr ? c.block * c.inputChannels : 0;
  k.expandWeights = placed.weightSlot[s];
  k.dwWeights = placed.weightSlot[s] + expandRows;
  k.projectWeights = k.dwWeights + c.block * c.kernel * c.kernel;
  k.expandParameters = placed.parameterSlot[s];
  k.dwParameters =
      placed.parameterSlot[s] + (c.expand != nullptr ? kChannelRecordBytes * c.block : 0);
  return k;
}

std::int64_t CascadeEmitter::keptHaloAt(std::int64_t e0) const {
  return place(buf.inputSram,
               c.inputBytes(c.block, c.rows) - c.keptHaloBytes() + e0 / c.block * buf.haloBytes,
               buf.haloBytes);
}

void CascadeEmitter::copyBytes(std::int64_t from, std::int64_t to, std::int64_t count,
                               std::int64_t outBuf) {
  ctx.emit(lutCopy(from, to, count, outBuf, placed.copyLut));
}

void CascadeEmitter::copyHalo(std::int64_t from, std::int64_t to) {
  copyBytes(from, to, buf.haloBytes, 1);
}

void CascadeEmitter::fillPadding(std::int64_t row0, std::int64_t n) {
  const std::int64_t dirty = std::min(row0 + n, written) - row0;
  if (dirty > 0) {
    ctx.loadTile(buf.dAt[0] + row0 * buf.rowPitch, {0, 0, 0, c.block, 0, 0},
                 {dirty, 0, c.paddedW, 0, buf.zp});
  }
}

void CascadeEmitter::fillPaddingColumns() {
  const std::int64_t rows = c.rowsIn(c.rows);
  ctx.fillColumns(buf.dAt[0], rows, buf.rowPitch, c.padLeft * c.block, buf.zp);
  ctx.fillColumns(buf.dAt[0] + (c.padLeft + c.inputWidth) * c.block, rows, buf.rowPitch,
                  (c.paddedW - c.padLeft - c.inputWidth) * c.block, buf.zp);
  written = rows;  // the interiors hold no padding yet
}

void CascadeEmitter::copyOut(const PooledBlock& s) {
  ctx.op = c.depthwiseOp;
  copyBytes(s.g, s.out, s.rb * c.outputWidth * c.block, 0);
  ctx.store(s.out, {buf.outputAddress + s.oy * c.outputWidth * buf.outPixel + s.e0, s.rb,
                    c.outputWidth, c.block, c.outputWidth * buf.outPixel, buf.outPixel});
}

void CascadeEmitter::sum(const PooledBlock& s) {
  ctx.op = c.poolOp;
  const std::int64_t bh = c.poolRows(c.rows), bw = c.poolCols();
  for (std::int64_t by = 0; by < s.rb; by += bh) {
    for (std::int64_t bx = 0; bx < c.outputWidth; bx += bw) {
      const bool last =
          s.oy + s.rb == c.outputHeight && by + bh >= s.rb && bx + bw >= c.outputWidth;
      isa::Conv add;
      add.inp_addr = s.g + (by * c.outputWidth + bx) * c.block;
      add.wgt_addr = placed.poolWeights;
      add.out_addr = buf.poolStaging;
      add.acc_addr = s.e0;
      add.param_addr = placed.poolParameters;
      add.out_h = add.out_w = 1;
      add.in_w = c.outputWidth;
      add.in_c = add.out_c = c.block;
      add.kh = std::min(bh, s.rb - by);
      add.kw = std::min(bw, c.outputWidth - bx);
      add.sh = add.sw = add.dh = add.dw = 1;
      add.clip_lo = -128;
      add.clip_hi = 127;
      add.depthwise = 1;
      add.acc_init = s.oy == 0 && by == 0 && bx == 0 ? 1 : 0;
      add.finalize = last ? 1 : 0;
      ctx.emit(add);
      if (last) {
        ctx.store(buf.poolStaging,
                  flatBlock(static_cast<std::uint64_t>(buf.poolOutput + s.e0), c.block));
      }
    }
  }
}

void CascadeEmitter::copyOutPiece(bool all) {
  CopyOut& out = *deferredCopyOut;
  const std::int64_t left = (out.row1 - out.row0) * buf.rowPitch - out.done;
  const std::int64_t bytes = all ? left : std::min(buf.pieceBytes, left);
  ctx.op = c.depthwiseOp;
  copyBytes(out.from + out.done, out.to + out.done, bytes, 1);
  out.done += bytes;
  if (bytes == left) {
    deferredCopyOut.reset();
  }
}

void CascadeEmitter::flushCopyOut() {
  if (deferredCopyOut) {
    copyOutPiece(true);
  }
}

Band CascadeEmitter::bandAt(std::int64_t index, std::int64_t oy) const {
  Band band;
  band.index = index;
  band.oy = oy;
  band.rb = std::min(c.rows, c.outputHeight - oy);
  band.in = c.rowsIn(band.rb);
  band.first = oy * c.stride - c.padTop;
  band.realBegin = std::max<std::int64_t>(0, band.first);
  band.realEnd = std::min(c.inputHeight, band.first + band.in);
  band.x = buf.xAt[static_cast<std::size_t>(index % 2)];
  band.out = buf.outAt[static_cast<std::size_t>(index % 2)];
  return band;
}

void CascadeEmitter::loadBandInput(const Band& band) {
  const std::int64_t first = band.first, in = band.in;
  const std::int64_t realBegin = band.realBegin, realEnd = band.realEnd;
  ctx.op = c.expandOp;
  if (buf.inPixel == c.inputChannels) {
    ctx.loadFlat(
        LoadSram::Input, band.x,
        static_cast<std::uint64_t>(buf.inputAddress + realBegin * c.inputWidth * c.inputChannels),
        (realEnd - realBegin) * c.inputWidth * c.inputChannels);
  } else {
    ctx.load(LoadSram::Input, band.x,
             {buf.inputAddress + realBegin * c.inputWidth * buf.inPixel, realEnd - realBegin,
              c.inputWidth, c.inputChannels, c.inputWidth * buf.inPixel, buf.inPixel});
  }
  // The band's padding rows: after a pending copy out of any of them.
  const auto overlapsCopyOut = [&](std::int64_t row0, std::int64_t n) {
    return deferredCopyOut && n > 0 && row0 < deferredCopyOut->row1 &&
           deferredCopyOut->pendingFrom(buf.rowPitch) < row0 + n;
  };
  if (overlapsCopyOut(0, realBegin - first) ||
      overlapsCopyOut(realEnd - first, first + in - realEnd)) {
    flushCopyOut();
  }
  ctx.op = c.depthwiseOp;
  fillPadding(0, realBegin - first);
  fillPadding(realEnd - first, first + in - realEnd);
}

void CascadeEmitter::emitBand(const Band& band) {
  // The band's first block's streamed constants load before its input rows and padding: the
  // padding waits for the block before's depthwise to have read its buffer, and behind it
  // they would also wait for that block's STORE, which then holds the DDR port.
  // In the first band only where the layer before leaves the port slack (leavesPortSlack).
  std::optional<BlockConstants> firstConstants;
  if (c.streamed && (band.index > 0 || slackBefore)) {
    firstConstants = constantsOf(0);
  }
  if (c.expand != nullptr) {
    loadBandInput(band);
  }
  for (std::int64_t e0 = 0; e0 < c.expandedChannels; e0 += c.block, ++step) {
    emitBlock(band, e0, firstConstants);
  }
  if (c.add != nullptr) {
    emitResidualAdd(band);
  }
  if (c.project != nullptr) {
    ctx.store(band.out, tensorRows(ctx, buf.result, band.oy, band.rb));
  }
}

void CascadeEmitter::emitBlock(const Band& band, std::int64_t e0,
                               const std::optional<BlockConstants>& firstConstants) {
  const BlockConstants k = e0 == 0 && firstConstants ? *firstConstants : constantsOf(e0);
  std::int64_t d = buf.dAt[0];
  if (c.expand != nullptr) {
    emitExpand(band, e0, k, d);
  } else {
    ctx.op = c.depthwiseOp;
    d = buf.dAt[static_cast<std::size_t>(step % 2)];
    ctx.loadTile(d,
                 {buf.inputAddress + band.realBegin * c.inputWidth * buf.inPixel + e0,
                  band.realEnd - band.realBegin, c.inputWidth, c.block, c.inputWidth * buf.inPixel,
                  buf.inPixel},
                 {band.realBegin - band.first, band.first + band.in - band.realEnd, c.padLeft,
                  c.paddedW - c.padLeft - c.inputWidth, buf.zp});
  }
  // Into the project's input; without a project, into the output SRAM for a store of the
  // block's channels.
  const std::int64_t blockOut = buf.outAt[static_cast<std::size_t>(step % 2)];
  const std::int64_t g = buf.gAt[static_cast<std::size_t>(step % 2)];
  emitDepthwise(band, k, d, g, blockOut);
  // The pooled block before this one goes to the output SRAM beside this depthwise (which
  // writes the other slot); this block's halo follows it, beside the depthwise where the
  // vector unit is free, else beside the next block's first expand CONV.
  if (c.pool != nullptr && uncopied) {
    copyOut(*uncopied);
  }
  if (c.keepHalo && band.oy + band.rb < c.outputHeight) {
    const CopyOut halo{d + (band.in - c.halo()) * buf.rowPitch, keptHaloAt(e0), band.in - c.halo(),
                       band.in};
    if (c.pool != nullptr) {
      deferredCopyOut = halo;
    } else {
      copyHalo(halo.from, halo.to);
    }
  }
  if (c.project == nullptr) {
    if (c.pool == nullptr) {
      ctx.store(blockOut, {buf.outputAddress + band.oy * c.outputWidth * buf.outPixel + e0, band.rb,
                           c.outputWidth, c.block, c.outputWidth * buf.outPixel, buf.outPixel});
      return;
    }
    uncopied = PooledBlock{band.oy, band.rb, e0, g, blockOut};
    sum(*uncopied);
    return;
  }
  emitProject(band, e0, k);
}

void CascadeEmitter::emitExpand(const Band& band, std::int64_t e0, const BlockConstants& k,
                                std::int64_t d) {
  const std::int64_t first = band.first;
  // After the first band the block's first halo() rows are the previous band's last ones.
  // The vector unit's copies go between the expand CONVs, each beside the CONV before it:
  // a copy out deferred from the block before (it reads rows this block's first CONV does
  // not write), then this block's copy in (rows no expand CONV of this band writes).
  std::int64_t copyInLeft = c.keepHalo && band.index > 0 ? buf.haloBytes : 0;  // bytes to copy in
  const auto copyBeside = [&] {
    ctx.op = c.depthwiseOp;
    if (deferredCopyOut) {
      copyOutPiece(false);
    } else if (copyInLeft > 0) {
      const std::int64_t done = buf.haloBytes - copyInLeft;
      const std::int64_t bytes = std::min(buf.pieceBytes, copyInLeft);
      copyBytes(keptHaloAt(e0) + done, d + done, bytes, 1);
      copyInLeft -= bytes;
    }
    ctx.op = c.expandOp;
  };
  ctx.op = c.expandOp;
  for (std::int64_t y = c.keepHalo && band.index > 0 ? std::max(band.realBegin, first + c.halo())
                                                     : band.realBegin;
       y < band.realEnd; ++y) {
    isa::Conv expand = convBase(*c.expand);
    expand.inp_addr = band.x + (y - band.realBegin) * c.inputWidth * c.inputChannels;
    expand.wgt_addr = k.expandWeights;
    expand.param_addr = k.expandParameters;
    expand.lut_addr = k.expandLut;
    expand.use_lut = c.expand->params.output.lut ? 1 : 0;
    expand.out_addr = d + (y - first) * buf.rowPitch + c.padLeft * c.block;
    expand.out_buf = 1;
    expand.out_h = 1;
    expand.out_w = c.inputWidth;
    expand.in_w = c.inputWidth;
    expand.in_c = c.inputChannels;
    expand.out_c = c.block;
    if (deferredCopyOut && y - first >= deferredCopyOut->pendingFrom(buf.rowPitch) &&
        y - first < deferredCopyOut->row1) {
      flushCopyOut();  // this CONV writes a row it still has to copy
    }
    ctx.op = c.expandOp;
    ctx.emit(expand);
    copyBeside();
  }
  while (deferredCopyOut || copyInLeft > 0) {  // fewer expand CONVs than pieces: before
                                               // the depthwise
    copyBeside();
  }
  written = std::max(written, band.realEnd - first);
}

void CascadeEmitter::emitDepthwise(const Band& band, const BlockConstants& k, std::int64_t d,
                                   std::int64_t g, std::int64_t blockOut) {
  ctx.op = c.depthwiseOp;
  isa::Conv dw = convBase(*c.depthwise);
  dw.inp_addr = d;
  dw.wgt_addr = k.dwWeights;
  dw.param_addr = k.dwParameters;
  dw.lut_addr = k.dwLut;
  dw.use_lut = c.depthwise->params.output.lut ? 1 : 0;
  dw.out_addr = c.project != nullptr ? buf.pAt : c.pool != nullptr ? g : blockOut;
  dw.out_buf = c.project != nullptr || c.pool != nullptr ? 1 : 0;
  dw.out_h = band.rb;
  dw.out_w = c.outputWidth;
  dw.in_w = c.paddedW;
  dw.in_c = c.block;
  dw.out_c = c.block;
  dw.kh = c.kernel;
  dw.kw = c.kernel;
  dw.sh = c.stride;
  dw.sw = c.stride;
  dw.depthwise = 1;
  ctx.emit(dw);
}

void CascadeEmitter::emitProject(const Band& band, std::int64_t e0, const BlockConstants& k) {
  const bool lastBlock = e0 + c.block == c.expandedChannels;
  ctx.op = c.projectOp;
  isa::Conv project = convBase(*c.project);
  project.inp_addr = buf.pAt;
  project.wgt_addr = k.projectWeights;
  project.param_addr = k.projectParameters;
  project.lut_addr = k.projectLut;
  project.out_addr = c.add != nullptr ? buf.qAt : band.out;
  project.out_buf = c.add != nullptr ? 1 : 0;
  project.acc_addr = 0;
  project.acc_init = e0 == 0 ? 1 : 0;
  project.finalize = lastBlock ? 1 : 0;
  project.use_lut = c.project->params.output.lut && lastBlock ? 1 : 0;
  project.out_h = band.rb;
  project.out_w = c.outputWidth;
  project.in_w = c.outputWidth;
  project.in_c = c.block;
  project.out_c = c.outputChannels;
  ctx.emit(project);
  ctx.emitter.settleStores(storesBefore, ctx.op);
}

void CascadeEmitter::emitResidualAdd(const Band& band) {
  ctx.op = c.addOp;
  const auto& q = c.add->params;
  isa::Eltwise add;
  add.op = isa::kEltwiseAdd;
  const bool projectIsA = c.add->a == c.project->output;
  const std::int64_t residual =
      band.x + (band.oy - band.realBegin) * c.inputWidth * c.inputChannels;
  add.a_addr = projectIsA ? buf.qAt : residual;
  add.b_addr = projectIsA ? residual : buf.qAt;
  add.out_addr = band.out;
  add.param_addr = placed.addParameters;
  add.lut_addr = placed.addParameters + 24;
  add.count = band.rb * c.outputWidth * c.outputChannels;
  add.a_zp = q.zeroPointA;
  add.b_zp = q.zeroPointB;
  add.left_shift = q.leftShift;
  add.out_zp = q.output.zeroPoint;
  add.clip_lo = q.output.clipLo;
  add.clip_hi = q.output.clipHi;
  add.use_lut = q.output.lut ? 1 : 0;
  add.double_round = q.output.rounding == golden::Rounding::Double ? 1 : 0;
  ctx.emit(add);
}

void CascadeEmitter::run() {
  ctx.op = c.depthwiseOp;
  if (c.expand != nullptr) {
    fillPaddingColumns();
  }
  storesBefore = ctx.emitter.newestOf(isa::Unit::Store);
  const std::int64_t firstOp = c.expand != nullptr ? c.expandOp : c.depthwiseOp;
  slackBefore =
      firstOp < 1 || leavesPortSlack(ctx.graph.ops[static_cast<std::size_t>(firstOp - 1)]);
  for (std::int64_t band = 0, oy = 0; oy < c.outputHeight; ++band, oy += c.rows) {
    emitBand(bandAt(band, oy));
  }
  // The pool's last block, which no later depthwise hides.
  if (uncopied) {
    copyOut(*uncopied);
  }
}

void emitCascade(LoweringContext& ctx, const Cascade& c) {
  const Placement place = choosePlacement(ctx, c);
  const ConstantLayout constants = placeConstants(ctx, c, place);
  ctx.slots.forget();
  const BufferLayout buffers = layoutBuffers(ctx, c, place);
  CascadeEmitter(ctx, c, place, constants, buffers).run();
}

}  // namespace

void lowerCascade(LoweringContext& ctx, const Cascade& cascade) {
  emitCascade(ctx, cascade);
}

}  // namespace npu::compiler
