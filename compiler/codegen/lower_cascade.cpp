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
#include "npu/support/int_math.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

/// The project's weights as its CONVs read them: per block, [kout][block].
std::vector<std::uint8_t> projectWeights(const Cascade& c) {
  std::vector<std::uint8_t> blob;
  for (std::int64_t e0 = 0; e0 < c.e; e0 += c.block) {
    for (std::int64_t o = 0; o < c.kout; ++o) {
      for (std::int64_t i = e0; i < e0 + c.block; ++i) {
        blob.push_back(static_cast<std::uint8_t>(
            c.project->weights.data[static_cast<std::size_t>(o * c.e + i)]));
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
    append(*c.expand, e0 * c.cin, c.block * c.cin);
  }
  append(*c.depthwise, e0 * c.k * c.k, c.block * c.k * c.k);
  for (std::int64_t o = 0; o < c.kout; ++o) {
    append(*c.project, o * c.e + e0, c.block);
  }
  return blob;
}

std::vector<std::uint8_t> blockParameterBlob(const Cascade& c, std::int64_t e0) {
  std::vector<std::uint8_t> blob;
  const auto records = [&](const QConv& conv) {
    std::vector<std::uint8_t> all = convParameterBlob(conv, e0, c.block);
    blob.insert(blob.end(), all.begin(), all.begin() + 12 * c.block);  // without the LUT
  };
  if (c.expand != nullptr) {
    records(*c.expand);
  }
  records(*c.depthwise);
  return blob;
}

void emitCascade(LoweringContext& ctx, const Cascade& c) {
  const std::string& name = c.depthwise->name;
  // Every other cascade places each buffer from the top of its SRAM down, so that its first
  // loads overlap the previous cascade's last band instead of waiting for it.
  // Where the previous layer's constants still wait to be read decides it first: the weights
  // go to the end of the weight SRAM whose last reader is older (a gated project before leaves
  // its weights at the bottom), so that they load while that layer still computes.
  const std::int64_t weightSpan = (c.streamed ? 2 * c.blockWeights(c.block) : c.blockWeights(c.e)) +
                                  (c.pool != nullptr ? c.poolWeights(c.block, c.rows) : 0);
  const auto lastReader = [&](std::int64_t at) {
    // From the constant pool, which no STORE writes: only the SRAM side can conflict.
    return ctx.emitter.newestProducer(makeLoad(1, at, flatBlock(ctx.constants.base, weightSpan)));
  };
  const std::int64_t bottomReader = lastReader(0);
  const std::int64_t topReader = lastReader(ctx.config.weightSramBytes - weightSpan);
  const bool alternate = ctx.slots.nextCascadeMirrored();
  const bool mirrored = topReader != bottomReader ? topReader < bottomReader : alternate;
  const auto place = [mirrored](std::int64_t sramBytes, std::int64_t at, std::int64_t bytes) {
    return mirrored ? sramBytes - at - bytes : at;
  };
  const std::int64_t weightSram = ctx.config.weightSramBytes;
  const std::int64_t parameterSram = ctx.config.parameterSramBytes;
  // Constants: every weight and parameter of the chain loaded once, or (streamed) the shared
  // records once and each block's constants per band into one of two slots.
  std::int64_t weightAt = 0;
  std::int64_t parameterAt = 0;
  auto placeWeights = [&](std::int64_t op, const std::string& what,
                          const std::vector<std::uint8_t>& blob) {
    ctx.op = op;
    const std::int64_t at = place(weightSram, weightAt, static_cast<std::int64_t>(blob.size()));
    if (!blob.empty()) {  // a chain without a project has no project weights
      ctx.loadFlat(1, at, ctx.constants.add(fmt::format("{}.cascade.{}", name, what), blob),
                   static_cast<std::int64_t>(blob.size()));
    }
    weightAt += static_cast<std::int64_t>(blob.size());
    return at;
  };
  auto placeParameters = [&](std::int64_t op, const std::string& what,
                             const std::vector<std::uint8_t>& blob) {
    ctx.op = op;
    const std::int64_t at =
        place(parameterSram, parameterAt, static_cast<std::int64_t>(blob.size()));
    if (!blob.empty()) {
      ctx.loadFlat(2, at, ctx.constants.add(fmt::format("{}.cascade.{}", name, what), blob),
                   static_cast<std::int64_t>(blob.size()));
    }
    parameterAt += static_cast<std::int64_t>(blob.size());
    return at;
  };
  const auto lutOf = [](const QConv& conv) {
    std::vector<std::uint8_t> blob;
    if (conv.params.output.lut) {
      for (const std::int8_t v : *conv.params.output.lut) {
        blob.push_back(static_cast<std::uint8_t>(v));
      }
    }
    return blob;
  };
  // The residual add's {a, b, out} multipliers and shifts, then its LUT.
  std::int64_t addParameters = 0;
  const auto placeAdd = [&] {
    if (c.add == nullptr) {
      return;
    }
    std::vector<std::uint8_t> blob;
    const auto& q = c.add->params;
    for (const auto& m : {q.multiplierA, q.multiplierB, q.multiplierOut}) {
      appendInt32(blob, m.multiplier);
      appendInt32(blob, m.shift);
    }
    if (q.output.lut) {
      for (const std::int8_t v : *q.output.lut) {
        blob.push_back(static_cast<std::uint8_t>(v));
      }
    }
    addParameters = placeParameters(c.addOp, "add_params", blob);
  };
  BlockConstants whole;
  std::vector<std::uint64_t> blockWeightAddress;
  std::vector<std::uint64_t> blockParameterAddress;
  std::array<std::int64_t, 2> weightSlot{};
  std::array<std::int64_t, 2> parameterSlot{};
  if (!c.streamed) {
    whole.expandWeights =
        c.expand != nullptr ? placeWeights(c.expandOp, "expand", rawWeights(*c.expand)) : 0;
    whole.dwWeights = placeWeights(c.depthwiseOp, "depthwise", rawWeights(*c.depthwise));
    whole.projectWeights = placeWeights(c.projectOp, "project", projectWeights(c));
    const auto records = [&](std::int64_t op, const QConv& conv) {
      return placeParameters(op, conv.name + ".params",
                             convParameterBlob(conv, 0, ctx.graph.tensors[conv.output].shape[3]));
    };
    whole.expandParameters = c.expand != nullptr ? records(c.expandOp, *c.expand) : 0;
    whole.expandLut = whole.expandParameters + 12 * c.e;
    whole.dwParameters = records(c.depthwiseOp, *c.depthwise);
    whole.dwLut = whole.dwParameters + 12 * c.e;
    whole.projectParameters = c.project != nullptr ? records(c.projectOp, *c.project) : 0;
    whole.projectLut = whole.projectParameters + 12 * c.kout;
    placeAdd();
  } else {
    std::vector<std::uint8_t> shared = c.project != nullptr
                                           ? convParameterBlob(*c.project, 0, c.kout)
                                           : std::vector<std::uint8_t>{};
    const std::int64_t projectLut = 12 * c.kout;
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
    for (std::int64_t e0 = 0; e0 < c.e; e0 += c.block) {
      blockWeightAddress.push_back(ctx.constants.add(
          fmt::format("{}.cascade.weights.e{}", name, e0), blockWeightBlob(c, e0)));
      blockParameterAddress.push_back(ctx.constants.add(
          fmt::format("{}.cascade.params.e{}", name, e0), blockParameterBlob(c, e0)));
    }
    for (std::size_t s = 0; s < 2; ++s) {
      weightSlot[s] = place(weightSram, static_cast<std::int64_t>(s) * c.blockWeights(c.block),
                            c.blockWeights(c.block));
      parameterSlot[s] = place(
          parameterSram, parameterAt + static_cast<std::int64_t>(s) * c.blockParameters(c.block),
          c.blockParameters(c.block));
    }
  }
  // The pool's all-ones depthwise kernel and its records (the same for every channel), beside
  // the chain's constants for the whole cascade.
  std::int64_t poolWeights = 0;
  std::int64_t poolParameters = 0;
  if (c.pool != nullptr) {
    const std::int64_t onesBytes = c.poolWeights(c.block, c.rows);
    ctx.op = c.poolOp;
    poolWeights = place(weightSram, c.streamed ? 2 * c.blockWeights(c.block) : weightAt, onesBytes);
    ctx.loadFlat(
        1, poolWeights,
        ctx.constants.add(fmt::format("{}.cascade.pool_ones", name),
                          std::vector<std::uint8_t>(static_cast<std::size_t>(onesBytes), 1)),
        onesBytes);
    const std::vector<std::uint8_t> records = globalSumRecords(c.oh, c.ow, c.block);
    poolParameters =
        place(parameterSram, parameterAt + (c.streamed ? 2 * c.blockParameters(c.block) : 0),
              c.poolParameters(c.block));
    ctx.loadFlat(2, poolParameters,
                 ctx.constants.add(fmt::format("{}.cascade.pool_params", name), records),
                 c.poolParameters(c.block));
  }
  // The identity LUT of the vector unit's copies (ELTWISE lut maps byte v to LUT[v + 128]).
  std::int64_t copyLut = 0;
  if (c.copies()) {
    ctx.op = c.depthwiseOp;
    copyLut = place(
        parameterSram,
        parameterAt + (c.streamed ? 2 * c.blockParameters(c.block) : 0) + c.poolParameters(c.block),
        256);
    ctx.loadFlat(2, copyLut,
                 ctx.constants.add(fmt::format("{}.cascade.copy_lut", name), identityLut()), 256);
  }
  ctx.slots.forget();
  // The constants of block [e0, e0 + block) at step `step` (loading them when streamed).
  const auto constantsOf = [&](std::int64_t step, std::int64_t e0) {
    BlockConstants k = whole;
    if (!c.streamed) {
      k.expandWeights += e0 * c.cin;
      k.dwWeights += e0 * c.k * c.k;
      k.projectWeights += e0 * c.kout;
      k.expandParameters += 12 * e0;
      k.dwParameters += 12 * e0;
      return k;
    }
    const auto s = static_cast<std::size_t>(step % 2);
    const auto index = static_cast<std::size_t>(e0 / c.block);
    ctx.op = c.depthwiseOp;
    ctx.loadFlat(1, weightSlot[s], blockWeightAddress[index], c.blockWeights(c.block));
    ctx.loadFlat(2, parameterSlot[s], blockParameterAddress[index], c.blockParameters(c.block));
    const std::int64_t expandRows = c.expand != nullptr ? c.block * c.cin : 0;
    k.expandWeights = weightSlot[s];
    k.dwWeights = weightSlot[s] + expandRows;
    k.projectWeights = k.dwWeights + c.block * c.k * c.k;
    k.expandParameters = parameterSlot[s];
    k.dwParameters = parameterSlot[s] + (c.expand != nullptr ? 12 * c.block : 0);
    return k;
  };

  // Input SRAM: expand-input slots, depthwise-input slots, project input.
  const std::int64_t xBytes =
      c.expand != nullptr ? std::min(c.rowsIn(c.rows), c.h) * c.w * c.cin : 0;
  const std::int64_t dBytes = c.rowsIn(c.rows) * c.paddedW * c.block;
  const std::int64_t inputSram = ctx.config.inputSramBytes;
  const std::int64_t pBytes = c.project != nullptr ? c.rows * c.ow * c.block : 0;
  const std::array<std::int64_t, 2> xAt{place(inputSram, 0, xBytes),
                                        place(inputSram, xBytes, xBytes)};
  const std::array<std::int64_t, 2> dAt{
      place(inputSram, 2 * xBytes, dBytes),
      place(inputSram, 2 * xBytes + (c.expand != nullptr ? 0 : dBytes), dBytes)};
  const std::int64_t pAt =
      place(inputSram, 2 * xBytes + (c.expand != nullptr ? 1 : 2) * dBytes, pBytes);
  const std::int64_t qAt =
      place(inputSram, 2 * xBytes + (c.expand != nullptr ? 1 : 2) * dBytes + pBytes,
            c.rows * c.ow * c.kout);
  const std::int64_t gBytes = c.pool != nullptr ? c.rows * c.ow * c.block : 0;
  const std::array<std::int64_t, 2> gAt{
      place(inputSram, 2 * xBytes + (c.expand != nullptr ? 1 : 2) * dBytes + pBytes, gBytes),
      place(inputSram, 2 * xBytes + (c.expand != nullptr ? 1 : 2) * dBytes + pBytes + gBytes,
            gBytes)};
  const std::int64_t half = ctx.config.outputSramBytes / 2;
  const std::array<std::int64_t, 2> outAt{mirrored ? half : 0, mirrored ? 0 : half};
  const std::int8_t zp = static_cast<std::int8_t>(c.depthwise->params.inputZeroPoint);
  const TensorId chainInput = c.expand != nullptr ? c.expand->input : c.depthwise->input;
  const auto inputAddress = static_cast<std::int64_t>(ctx.tensors[chainInput].address);
  // The chain input's pixels: its channels, or its source's when it is a slice read in place.
  const std::int64_t inPixel = pixelStride(ctx, chainInput);
  const TensorId result = c.add != nullptr       ? c.add->output
                          : c.project != nullptr ? c.project->output
                                                 : c.depthwise->output;
  const auto outputAddress = static_cast<std::int64_t>(ctx.tensors[result].address);
  // Bytes between the result's pixels: its channels, or a concat's (stored by address).
  const std::int64_t outPixel = pixelStride(ctx, result);
  const std::int64_t rowPitch = c.paddedW * c.block;
  // The kept halo: block e0's last halo() rows of a band, after every other input buffer.
  const std::int64_t haloBytes = c.keepHalo ? c.halo() * rowPitch : 0;
  const auto keptHaloAt = [&](std::int64_t e0) {
    return place(inputSram,
                 c.inputBytes(c.block, c.rows) - c.keptHaloBytes() + e0 / c.block * haloBytes,
                 haloBytes);
  };
  // The vector unit copies `count` bytes of the input SRAM beside the MAC array (a LUT pass
  // through the identity) into the input SRAM (outBuf 1) or the output SRAM (0).
  const auto copyBytes = [&](std::int64_t from, std::int64_t to, std::int64_t count,
                             std::int64_t outBuf) {
    ctx.emit(lutCopy(from, to, count, outBuf, copyLut));
  };
  const auto copyHalo = [&](std::int64_t from, std::int64_t to) {
    copyBytes(from, to, haloBytes, 1);
  };
  // Beside an expand CONV, a halo copy goes in pieces no longer than the CONV (an ELTWISE of n
  // bytes takes ceil(n / cols) + 4 cycles, the CONV its steps + 4): the next CONV waits for the
  // vector side to be free, so a longer copy would hold it up. The halo is one run of bytes.
  const std::int64_t expandSteps =
      c.expand != nullptr
          ? c.w * ceilDiv(c.block, ctx.config.macCols) * ceilDiv(c.cin, ctx.config.macRows)
          : 0;
  const std::int64_t pieceBytes =
      std::max<std::int64_t>(ctx.config.macCols, expandSteps * ctx.config.macCols);
  // With an expand the depthwise input is built in SRAM: the expand CONVs write each row's
  // interior, its padding columns are filled once, and its rows of padding (above the image or
  // below it) by each band; `written` is how many rows may hold data, not padding.
  std::int64_t written = 0;
  auto fillPadding = [&](std::int64_t row0, std::int64_t n) {
    const std::int64_t dirty = std::min(row0 + n, written) - row0;
    if (dirty > 0) {
      ctx.loadTile(dAt[0] + row0 * rowPitch, {0, 0, 0, c.block, 0, 0},
                   {dirty, 0, c.paddedW, 0, zp});
    }
  };
  ctx.op = c.depthwiseOp;
  if (c.expand != nullptr) {
    const std::int64_t rows = c.rowsIn(c.rows);
    ctx.fillColumns(dAt[0], rows, rowPitch, c.padLeft * c.block, zp);
    ctx.fillColumns(dAt[0] + (c.padLeft + c.w) * c.block, rows, rowPitch,
                    (c.paddedW - c.padLeft - c.w) * c.block, zp);
    written = rows;  // the interiors hold no padding yet
  }
  // The pool: the depthwise writes block-band j into slot G[j % 2] of the input SRAM, where
  // depthwise CONVs with all-ones weights sum it into the accumulator right away; the vector
  // unit copies it to the output SRAM for its STORE beside step j + 1's depthwise (which writes
  // the other slot), so the chain's DDR traffic is the depthwise's output once.
  struct PooledBlock {
    std::int64_t oy, rb, e0, g, out;  // band, block, its G slot and output SRAM half
  };
  std::optional<PooledBlock> uncopied;
  const auto poolOutput =
      c.pool != nullptr ? static_cast<std::int64_t>(ctx.tensors[c.pool->output].address) : 0;
  const std::int64_t poolStaging = half - c.poolOutputBytes(c.block);  // top of [0, half)
  const auto copyOut = [&](const PooledBlock& s) {
    ctx.op = c.depthwiseOp;
    copyBytes(s.g, s.out, s.rb * c.ow * c.block, 0);
    ctx.store(s.out, {outputAddress + s.oy * c.ow * outPixel + s.e0, s.rb, c.ow, c.block,
                      c.ow * outPixel, outPixel});
  };
  const auto sum = [&](const PooledBlock& s) {
    ctx.op = c.poolOp;
    const std::int64_t bh = c.poolRows(c.rows), bw = c.poolCols();
    for (std::int64_t by = 0; by < s.rb; by += bh) {
      for (std::int64_t bx = 0; bx < c.ow; bx += bw) {
        const bool last = s.oy + s.rb == c.oh && by + bh >= s.rb && bx + bw >= c.ow;
        isa::Conv add;
        add.inp_addr = s.g + (by * c.ow + bx) * c.block;
        add.wgt_addr = poolWeights;
        add.out_addr = poolStaging;
        add.acc_addr = s.e0;
        add.param_addr = poolParameters;
        add.out_h = add.out_w = 1;
        add.in_w = c.ow;
        add.in_c = add.out_c = c.block;
        add.kh = std::min(bh, s.rb - by);
        add.kw = std::min(bw, c.ow - bx);
        add.sh = add.sw = add.dh = add.dw = 1;
        add.clip_lo = -128;
        add.clip_hi = 127;
        add.depthwise = 1;
        add.acc_init = s.oy == 0 && by == 0 && bx == 0 ? 1 : 0;
        add.finalize = last ? 1 : 0;
        ctx.emit(add);
        if (last) {
          ctx.store(poolStaging, flatBlock(static_cast<std::uint64_t>(poolOutput + s.e0), c.block));
        }
      }
    }
  };
  // A block's halo copy out waiting for the next block's first expand CONV: {from D, to its slot}.
  // A block's halo copy out waiting to run beside the next block's first expand CONV: D rows
  // [row0, row1) to its slot. It runs earlier where something would write those rows first (the
  // next band's padding, an expand CONV of one of them).
  struct CopyOut {
    std::int64_t from, to, row0, row1;
    std::int64_t done = 0;  ///< bytes already copied
    /// The first row not wholly copied yet.
    [[nodiscard]] std::int64_t pendingFrom(std::int64_t pitch) const { return row0 + done / pitch; }
  };
  std::optional<CopyOut> deferredCopyOut;
  // Copies the next piece of the deferred copy out (rows from row0 on), or all of it.
  const auto copyOutPiece = [&](bool all) {
    CopyOut& out = *deferredCopyOut;
    const std::int64_t left = (out.row1 - out.row0) * rowPitch - out.done;
    const std::int64_t bytes = all ? left : std::min(pieceBytes, left);
    ctx.op = c.depthwiseOp;
    copyBytes(out.from + out.done, out.to + out.done, bytes, 1);
    out.done += bytes;
    if (bytes == left) {
      deferredCopyOut.reset();
    }
  };
  const auto flushCopyOut = [&] {
    if (deferredCopyOut) {
      copyOutPiece(true);
    }
  };
  std::int64_t step = 0;
  // The stores before the cascade: compute waits for them after its first project CONV (they
  // have long ended by then), so that a later layer's LOAD of their data (a ShuffleNet shuffle's
  // other branch) need not wait for a SYNC behind the whole cascade.
  const std::int64_t storesBefore = ctx.emitter.newestOf(isa::Unit::Store);
  const std::int64_t firstOp = c.expand != nullptr ? c.expandOp : c.depthwiseOp;
  const bool slackBefore =
      firstOp < 1 || leavesPortSlack(ctx.graph.ops[static_cast<std::size_t>(firstOp - 1)]);
  for (std::int64_t band = 0, oy = 0; oy < c.oh; ++band, oy += c.rows) {
    const std::int64_t rb = std::min(c.rows, c.oh - oy);
    const std::int64_t in = c.rowsIn(rb);
    const std::int64_t first = oy * c.stride - c.padTop;  // image row of depthwise-input row 0
    const std::int64_t realBegin = std::max<std::int64_t>(0, first);
    const std::int64_t realEnd = std::min(c.h, first + in);
    const std::int64_t x = xAt[static_cast<std::size_t>(band % 2)];
    // The band's first block's streamed constants load before its input rows and padding: the
    // padding waits for the block before's depthwise to have read its buffer, and behind it
    // they would also wait for that block's STORE, which then holds the DDR port.
    // In the first band only where the layer before leaves the port slack (leavesPortSlack).
    std::optional<BlockConstants> firstConstants;
    if (c.streamed && (band > 0 || slackBefore)) {
      firstConstants = constantsOf(step, 0);
    }
    if (c.expand != nullptr) {
      ctx.op = c.expandOp;
      if (inPixel == c.cin) {
        ctx.loadFlat(0, x, static_cast<std::uint64_t>(inputAddress + realBegin * c.w * c.cin),
                     (realEnd - realBegin) * c.w * c.cin);
      } else {
        ctx.load(0, x,
                 {inputAddress + realBegin * c.w * inPixel, realEnd - realBegin, c.w, c.cin,
                  c.w * inPixel, inPixel});
      }
      // The band's padding rows: after a pending copy out of any of them.
      const auto overlapsCopyOut = [&](std::int64_t row0, std::int64_t n) {
        return deferredCopyOut && n > 0 && row0 < deferredCopyOut->row1 &&
               deferredCopyOut->pendingFrom(rowPitch) < row0 + n;
      };
      if (overlapsCopyOut(0, realBegin - first) ||
          overlapsCopyOut(realEnd - first, first + in - realEnd)) {
        flushCopyOut();
      }
      ctx.op = c.depthwiseOp;
      fillPadding(0, realBegin - first);
      fillPadding(realEnd - first, first + in - realEnd);
    }
    const std::int64_t out = outAt[static_cast<std::size_t>(band % 2)];
    for (std::int64_t e0 = 0; e0 < c.e; e0 += c.block, ++step) {
      const bool lastBlock = e0 + c.block == c.e;
      const BlockConstants k = e0 == 0 && firstConstants ? *firstConstants : constantsOf(step, e0);
      std::int64_t d = dAt[0];
      if (c.expand != nullptr) {
        // After the first band the block's first halo() rows are the previous band's last ones.
        // The vector unit's copies go between the expand CONVs, each beside the CONV before it:
        // a copy out deferred from the block before (it reads rows this block's first CONV does
        // not write), then this block's copy in (rows no expand CONV of this band writes).
        std::int64_t copyInLeft = c.keepHalo && band > 0 ? haloBytes : 0;  // bytes to copy in
        const auto copyBeside = [&] {
          ctx.op = c.depthwiseOp;
          if (deferredCopyOut) {
            copyOutPiece(false);
          } else if (copyInLeft > 0) {
            const std::int64_t done = haloBytes - copyInLeft;
            const std::int64_t bytes = std::min(pieceBytes, copyInLeft);
            copyBytes(keptHaloAt(e0) + done, d + done, bytes, 1);
            copyInLeft -= bytes;
          }
          ctx.op = c.expandOp;
        };
        ctx.op = c.expandOp;
        for (std::int64_t y = c.keepHalo && band > 0 ? std::max(realBegin, first + c.halo())
                                                     : realBegin;
             y < realEnd; ++y) {
          isa::Conv expand = convBase(*c.expand);
          expand.inp_addr = x + (y - realBegin) * c.w * c.cin;
          expand.wgt_addr = k.expandWeights;
          expand.param_addr = k.expandParameters;
          expand.lut_addr = k.expandLut;
          expand.use_lut = c.expand->params.output.lut ? 1 : 0;
          expand.out_addr = d + (y - first) * rowPitch + c.padLeft * c.block;
          expand.out_buf = 1;
          expand.out_h = 1;
          expand.out_w = c.w;
          expand.in_w = c.w;
          expand.in_c = c.cin;
          expand.out_c = c.block;
          if (deferredCopyOut && y - first >= deferredCopyOut->pendingFrom(rowPitch) &&
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
        written = std::max(written, realEnd - first);
      } else {
        ctx.op = c.depthwiseOp;
        d = dAt[static_cast<std::size_t>(step % 2)];
        ctx.loadTile(
            d,
            {inputAddress + realBegin * c.w * inPixel + e0, realEnd - realBegin, c.w, c.block,
             c.w * inPixel, inPixel},
            {realBegin - first, first + in - realEnd, c.padLeft, c.paddedW - c.padLeft - c.w, zp});
      }
      ctx.op = c.depthwiseOp;
      isa::Conv dw = convBase(*c.depthwise);
      dw.inp_addr = d;
      dw.wgt_addr = k.dwWeights;
      dw.param_addr = k.dwParameters;
      dw.lut_addr = k.dwLut;
      dw.use_lut = c.depthwise->params.output.lut ? 1 : 0;
      // Into the project's input; without a project, into the output SRAM for a store of the
      // block's channels.
      const std::int64_t blockOut = outAt[static_cast<std::size_t>(step % 2)];
      const std::int64_t g = gAt[static_cast<std::size_t>(step % 2)];
      dw.out_addr = c.project != nullptr ? pAt : c.pool != nullptr ? g : blockOut;
      dw.out_buf = c.project != nullptr || c.pool != nullptr ? 1 : 0;
      dw.out_h = rb;
      dw.out_w = c.ow;
      dw.in_w = c.paddedW;
      dw.in_c = c.block;
      dw.out_c = c.block;
      dw.kh = c.k;
      dw.kw = c.k;
      dw.sh = c.stride;
      dw.sw = c.stride;
      dw.depthwise = 1;
      ctx.emit(dw);
      // The pooled block before this one goes to the output SRAM beside this depthwise (which
      // writes the other slot); this block's halo follows it, beside the depthwise where the
      // vector unit is free, else beside the next block's first expand CONV.
      if (c.pool != nullptr && uncopied) {
        copyOut(*uncopied);
      }
      if (c.keepHalo && oy + rb < c.oh) {
        const CopyOut halo{d + (in - c.halo()) * rowPitch, keptHaloAt(e0), in - c.halo(), in};
        if (c.pool != nullptr) {
          deferredCopyOut = halo;
        } else {
          copyHalo(halo.from, halo.to);
        }
      }
      if (c.project == nullptr) {
        if (c.pool == nullptr) {
          ctx.store(blockOut, {outputAddress + oy * c.ow * outPixel + e0, rb, c.ow, c.block,
                               c.ow * outPixel, outPixel});
          continue;
        }
        uncopied = PooledBlock{oy, rb, e0, g, blockOut};
        sum(*uncopied);
        continue;
      }

      ctx.op = c.projectOp;
      isa::Conv project = convBase(*c.project);
      project.inp_addr = pAt;
      project.wgt_addr = k.projectWeights;
      project.param_addr = k.projectParameters;
      project.lut_addr = k.projectLut;
      project.out_addr = c.add != nullptr ? qAt : out;
      project.out_buf = c.add != nullptr ? 1 : 0;
      project.acc_addr = 0;
      project.acc_init = e0 == 0 ? 1 : 0;
      project.finalize = lastBlock ? 1 : 0;
      project.use_lut = c.project->params.output.lut && lastBlock ? 1 : 0;
      project.out_h = rb;
      project.out_w = c.ow;
      project.in_w = c.ow;
      project.in_c = c.block;
      project.out_c = c.kout;
      ctx.emit(project);
      ctx.emitter.settleStores(storesBefore, ctx.op);
    }
    if (c.add != nullptr) {
      // The residual: the project's band (on chip) plus the chain input's rows of the band,
      // which the band's expand input holds (stride 1: output row y is input row y).
      ctx.op = c.addOp;
      const auto& q = c.add->params;
      isa::Eltwise add;
      add.op = isa::kEltwiseAdd;
      const bool projectIsA = c.add->a == c.project->output;
      const std::int64_t residual = x + (oy - realBegin) * c.w * c.cin;
      add.a_addr = projectIsA ? qAt : residual;
      add.b_addr = projectIsA ? residual : qAt;
      add.out_addr = out;
      add.param_addr = addParameters;
      add.lut_addr = addParameters + 24;
      add.count = rb * c.ow * c.kout;
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
    if (c.project != nullptr) {
      ctx.store(out, tensorRows(ctx, result, oy, rb));
    }
  }
  // The pool's last block, which no later depthwise hides.
  if (uncopied) {
    copyOut(*uncopied);
  }
}

}  // namespace

void lowerCascade(LoweringContext& ctx, const Cascade& cascade) {
  emitCascade(ctx, cascade);
}

}  // namespace npu::compiler
