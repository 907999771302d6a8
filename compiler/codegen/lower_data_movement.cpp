// Concat, slice, shuffle and nearest upsample: pure byte moves. A band of the input is loaded (a
// slice by a LOAD whose column and row strides skip the channels, columns and rows it leaves
// out: a channel slice, a Focus stem's every other pixel), copied to the output
// SRAM by a 1x1 max POOL (the identity), and placed by STORE addressing: at a channel offset with
// the concat's channel stride (a row concat: as one contiguous block), densely for a slice, or
// factorH x factorW times with widened strides for an upsample. A channel shuffle is a CONV with
// 0/1 weights where that is cheaper than placing it byte by byte.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <tuple>

#include "lowering.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

/// Channels [begin, begin + count) of every pixel of `input`.
DdrBlock channelWindow(const LoweringContext& ctx, TensorId input, std::int64_t begin,
                       std::int64_t count) {
  const auto& shape = ctx.graph.tensors[input].shape;
  return channelBand(ctx.tensors[input].address, 0, shape[1], shape[2], shape[3], begin, count);
}

/// A tile of a copy: rows [y, y + rows), columns [x, x + cols) and bytes (channels)
/// [c0, c0 + cn) of the window it copies.
struct CopyTile {
  std::int64_t y, rows, x, cols, c0, cn;
  /// Whether the tile holds whole rows of all the window's channels.
  [[nodiscard]] bool fullRows(const DdrBlock& window) const {
    return cols == window.cols && cn == window.bytes;
  }
};

/// Copies `window` (a block of an input in DDR) tile by tile: full-width row bands where a row
/// fits the SRAM halves, else tiles of columns, and blocks of channels past a tile's 4095 or the
/// halves. `place` emits the stores of one tile given its output SRAM address.
void copyTiles(LoweringContext& ctx, const DdrBlock& window,
               const std::function<void(std::int64_t, const CopyTile&)>& place) {
  const std::int64_t h = window.rows, w = window.cols, c = window.bytes;
  const std::int64_t half = std::min(ctx.slots.inputBytes(), ctx.slots.outputBytes());
  const std::int64_t cb = std::min({c, kMaxTileDim, half});
  const std::int64_t tw = std::min({w, kMaxTileDim, half / cb});
  const std::int64_t th = std::min({h, kMaxTileDim, half / (tw * cb)});
  const bool dense = window.colStride == c && window.rowStride == w * c;
  for (std::int64_t c0 = 0; c0 < c; c0 += cb) {
    for (std::int64_t y = 0; y < h; y += th) {
      for (std::int64_t x = 0; x < w; x += tw) {
        const CopyTile tile{y,  std::min(th, h - y), x, std::min(tw, w - x),
                            c0, std::min(cb, c - c0)};
        std::int64_t inputSram = 0;
        std::int64_t outputSram = 0;
        // Named variables, not a structured binding: clang before 16 cannot capture one.
        std::tie(inputSram, outputSram) = ctx.slots.nextStep();
        const std::int64_t first =
            window.address + y * window.rowStride + x * window.colStride + c0;
        if (dense && tile.fullRows(window)) {
          ctx.loadFlat(LoadSram::Input, inputSram, static_cast<std::uint64_t>(first),
                       tile.rows * w * c);
        } else {
          ctx.load(LoadSram::Input, inputSram,
                   {first, tile.rows, tile.cols, tile.cn, window.rowStride, window.colStride});
        }
        isa::Pool copy;
        copy.op = isa::kPoolMax;
        copy.in_addr = inputSram;
        copy.out_addr = outputSram;
        copy.in_w = tile.cols;
        copy.out_h = tile.rows;
        copy.out_w = tile.cols;
        copy.channels = tile.cn;
        copy.kh = copy.kw = copy.sh = copy.sw = 1;
        ctx.emit(copy);
        place(outputSram, tile);
      }
    }
  }
}

/// A slice of whole pixels taking every colStep-th one (a Focus stem's pixel phases): loaded
/// with its column stride, each pixel would be a run of its own paying a whole DDR burst for a
/// few bytes. Where the cost estimate favours it, whole row spans load densely instead (rows
/// still picked by the LOAD's row stride) and a 1x1 max POOL with column stride colStep (the
/// identity on one value) picks the pixels in SRAM. Returns false (nothing emitted) otherwise.
bool sliceByPhase(LoweringContext& ctx, const QSlice& slice, const DdrBlock& window,
                  std::int64_t outPixel) {
  const std::int64_t pixel = ctx.graph.tensors[slice.input].shape[3];
  const std::int64_t h = window.rows, w = window.cols, c = window.bytes;
  const std::int64_t span = (w - 1) * slice.colStep + 1;  // pixels of a loaded row
  const std::int64_t inputHalf = ctx.slots.inputBytes(), outputHalf = ctx.slots.outputBytes();
  if (slice.colStep < 2 || c != pixel || span > kMaxTileDim || span * pixel > inputHalf ||
      w * c > outputHalf || !isa::limits::poolWindowFits(1, 1, 1, slice.colStep) ||
      dmaCycles(ctx.config, h, 1, span * pixel, true) >= dmaCycles(ctx.config, h, w, c, false)) {
    return false;
  }
  const std::int64_t th =
      std::min({h, kMaxTileDim, inputHalf / (span * pixel), outputHalf / (w * c)});
  const auto outputAddress = static_cast<std::int64_t>(ctx.tensors[slice.output].address);
  TileLag deferred;
  for (std::int64_t y = 0; y < h; y += th) {
    const std::int64_t rows = std::min(th, h - y);
    std::int64_t inputSram = 0;
    std::int64_t outputSram = 0;
    // Named variables, not a structured binding: clang before 16 cannot capture one.
    std::tie(inputSram, outputSram) = ctx.slots.nextStep();
    ctx.load(LoadSram::Input, inputSram,
             {window.address + y * window.rowStride, rows, 1, span * pixel, window.rowStride, 0});
    isa::Pool pick;
    pick.op = isa::kPoolMax;
    pick.in_addr = inputSram;
    pick.out_addr = outputSram;
    pick.in_w = span;
    pick.out_h = rows;
    pick.out_w = w;
    pick.channels = c;
    pick.kh = pick.kw = pick.sh = 1;
    pick.sw = slice.colStep;
    const std::int64_t at = outputAddress + y * w * outPixel;
    const DdrBlock target = outPixel == c ? flatBlock(static_cast<std::uint64_t>(at), rows * w * c)
                                          : DdrBlock{at, rows, w, c, w * outPixel, outPixel};
    deferred.next([&ctx, pick, outputSram, target] {
      ctx.emit(pick);
      ctx.store(outputSram, target);
    });
  }
  deferred.flush();
  return true;
}

/// The channel shuffle as sub-pixel CONVs (`layout`, chosen by planShuffles): the input tile is
/// viewed as sub-pixels of `sub` channels, and one CONV per block of groups x sub output channels
/// reads, as its `groups` kernel taps, the sub-pixel of each group that block interleaves, with
/// 0/1 weights placing tap g's channel i at output channel i * groups + g. The taps are columns
/// of the whole pixel (dilation C / groups / sub sub-pixels, stride C / sub a pixel) or, where
/// the shuffle reads its concat's inputs where they are (`groupInputs`, loaded one after the
/// other), rows: input g is row g. Each CONV leaves room between its pixels (out_gap) for the
/// other blocks of its part, so the output SRAM holds every part (the whole output, or each of
/// the slices the shuffle writes) as dense pixels, and each part's STORE is one dense run; a
/// part that is no whole number of blocks is stored out of the tile's whole pixels instead
/// (STORE's SRAM rows C apart). Each block costs groups steps a pixel instead of the dense
/// permutation's C / R. The members hold what its tiles share, among them whether the weights
/// and parameters still have to load.
class SubPixelShuffle {
 public:
  SubPixelShuffle(LoweringContext& ctx, const QShuffle& shuffle, const ShuffleLayout& layout);
  void emit();

 private:
  [[nodiscard]] std::vector<std::uint8_t> permutationWeights() const;
  void checkDense() const;
  void emitTileLoads(std::int64_t p0, std::int64_t count, std::int64_t inputSram);
  [[nodiscard]] isa::Conv placing() const;
  void emitTileConvs(std::int64_t count, std::int64_t inputSram, std::int64_t outputSram);
  void storeTileParts(std::int64_t p0, std::int64_t count, std::int64_t outputSram);

  LoweringContext& m_ctx;
  const QShuffle& m_shuffle;
  const ShuffleLayout& m_layout;
  const QTensor& m_input;
  std::int64_t m_pixels, m_c, m_groups, m_perGroup, m_sub;
  std::int64_t m_block;  ///< output channels a CONV produces
  bool m_byRows;
  std::vector<TensorId> m_parts;
  std::int64_t m_partCount;
  std::int64_t m_part;  ///< channels of a part
  std::vector<std::uint8_t> m_weights;
  std::vector<std::uint8_t> m_parameters;
  std::uint64_t m_weightAddress = 0, m_parameterAddress = 0;
  bool m_loadWeights = false, m_loadParameters = false;
  std::int64_t m_weightSram = 0, m_parameterSram = 0;
};

/// Reads the shuffle's shape and layout.
SubPixelShuffle::SubPixelShuffle(LoweringContext& ctx, const QShuffle& shuffle,
                                 const ShuffleLayout& layout)
    : m_ctx(ctx), m_shuffle(shuffle), m_layout(layout), m_input(ctx.graph.tensors[shuffle.input]) {
  m_pixels = m_input.shape[1] * m_input.shape[2];
  m_c = m_input.shape[3];
  m_groups = shuffle.groups;
  m_perGroup = m_c / m_groups;
  m_sub = layout.sub;
  m_block = m_groups * m_sub;
  m_byRows = !layout.groupInputs.empty();
  m_parts = layout.parts.empty() ? std::vector<TensorId>{shuffle.output} : layout.parts;
  m_partCount = static_cast<std::int64_t>(m_parts.size());
  m_part = m_c / m_partCount;
}

/// Weights [block][taps][sub]: output j of a block is channel j / groups of tap j % groups.
std::vector<std::uint8_t> SubPixelShuffle::permutationWeights() const {
  const std::int64_t groups = m_groups, sub = m_sub, block = m_block;
  // Interleaved: [block][block], output j reads chunk channel (j % groups) * sub + j / groups.
  std::vector<std::uint8_t> weights(static_cast<std::size_t>(block * groups * sub), 0);
  for (std::int64_t j = 0; j < block; ++j) {
    weights[static_cast<std::size_t>(m_layout.interleaved
                                         ? j * block + (j % groups) * sub + j / groups
                                         : (j * groups + j % groups) * sub + j / groups)] = 1;
  }
  return weights;
}

/// Emits the shuffle: its constants and slots, then per tile its LOADs, CONVs and STOREs.
void SubPixelShuffle::emit() {
  m_weights = permutationWeights();
  // No bias, kUnitMultiplier: y = x - zp + zp, the byte unchanged.
  for (std::int64_t j = 0; j < m_block; ++j) {
    appendInt32(m_parameters, 0);
    appendInt32(m_parameters, kUnitMultiplier.multiplier);
    appendInt32(m_parameters, kUnitMultiplier.shift);
  }
  m_weightAddress = m_ctx.constants.add(m_shuffle.name + ".permutation", m_weights);
  m_parameterAddress = m_ctx.constants.add(m_shuffle.name + ".params", m_parameters);
  m_weightSram = m_ctx.slots.weightSlot(m_shuffle.name + "/permutation", m_loadWeights);
  m_parameterSram = m_ctx.slots.parameterSlot(m_shuffle.name, m_loadParameters);
  checkDense();
  for (std::int64_t p0 = 0; p0 < m_pixels; p0 += m_layout.tile) {
    const std::int64_t count = std::min(m_layout.tile, m_pixels - p0);
    std::int64_t inputSram = 0;
    std::int64_t outputSram = 0;
    // Named variables, not a structured binding: clang before 16 cannot capture one.
    std::tie(inputSram, outputSram) = m_ctx.slots.nextStep();
    emitTileLoads(p0, count, inputSram);
    emitTileConvs(count, inputSram, outputSram);
    storeTileParts(p0, count, outputSram);
  }
}

/// Fails unless every tensor the shuffle reads or writes is dense in DDR.
void SubPixelShuffle::checkDense() const {
  // Every tensor it reads or writes is dense in DDR (the plan never makes them views or stores
  // them into a concat; an internal error if that changes, not wrong bytes).
  std::vector<TensorId> dense = m_parts;
  if (m_byRows) {
    dense.insert(dense.end(), m_layout.groupInputs.begin(), m_layout.groupInputs.end());
  } else {
    dense.push_back(m_shuffle.input);
  }
  for (const TensorId id : dense) {
    if (m_ctx.tensors[id].storedIn >= 0) {
      fail("layer '{}': tensor '{}' is not dense in DDR (stored in another tensor)", m_shuffle.name,
           m_ctx.graph.tensors[id].name);
    }
  }
}

/// Emits a tile's input LOADs and the constants' first LOADs, in ready order.
void SubPixelShuffle::emitTileLoads(std::int64_t p0, std::int64_t count, std::int64_t inputSram) {
  const std::int64_t groups = m_groups, perGroup = m_perGroup, sub = m_sub, block = m_block;
  std::vector<std::vector<isa::Instruction>> loads;
  if (m_layout.interleaved) {
    // Group g's chunks of `sub` channels go block bytes apart, g * sub into each.
    for (std::int64_t g = 0; g < groups; ++g) {
      const TensorId id = m_layout.groupInputs[static_cast<std::size_t>(g)];
      isa::Load load =
          makeLoad(LoadSram::Input, inputSram + g * sub,
                   {static_cast<std::int64_t>(m_ctx.tensors[id].address) + p0 * perGroup,
                    count * perGroup / sub, 1, sub, sub, sub});
      load.sram_row_stride = block;
      loads.push_back({load});
    }
  } else if (m_byRows) {
    for (std::int64_t g = 0; g < groups; ++g) {
      const TensorId id = m_layout.groupInputs[static_cast<std::size_t>(g)];
      loads.push_back(
          {makeLoad(LoadSram::Input, inputSram + g * count * perGroup,
                    flatBlock(m_ctx.tensors[id].address + static_cast<std::uint64_t>(p0 * perGroup),
                              count * perGroup))});
    }
  } else {
    loads.push_back({makeLoad(
        LoadSram::Input, inputSram,
        flatBlock(m_ctx.tensors[m_shuffle.input].address + static_cast<std::uint64_t>(p0 * m_c),
                  count * m_c))});
  }
  if (m_loadWeights) {
    loads.push_back(
        {makeLoad(LoadSram::Weight, m_weightSram,
                  flatBlock(m_weightAddress, static_cast<std::int64_t>(m_weights.size())))});
    m_loadWeights = false;
  }
  if (m_loadParameters) {
    loads.push_back(
        {makeLoad(LoadSram::Parameter, m_parameterSram,
                  flatBlock(m_parameterAddress, static_cast<std::int64_t>(m_parameters.size())))});
    m_loadParameters = false;
  }
  // An input written long ago (a ShuffleNet unit's identity half) and the permutation constants
  // load before the input the previous layer has just stored.
  m_ctx.emitLoadsInReadyOrder(std::move(loads));
}

/// A CONV that places bytes: 0/1 weights, the records of kUnitMultiplier, the zero point kept.
isa::Conv SubPixelShuffle::placing() const {
  isa::Conv conv;
  conv.wgt_addr = m_weightSram;
  conv.param_addr = m_parameterSram;
  conv.kh = conv.kw = conv.sh = conv.sw = conv.dh = conv.dw = 1;
  conv.in_zp = m_input.zeroPoint;
  conv.out_zp = m_input.zeroPoint;
  conv.clip_lo = -128;
  conv.clip_hi = 127;
  conv.acc_init = 1;
  conv.finalize = 1;
  return conv;
}

/// Emits a tile's byte-placing CONVs: one over its chunks, or one per block of output channels.
void SubPixelShuffle::emitTileConvs(std::int64_t count, std::int64_t inputSram,
                                    std::int64_t outputSram) {
  const std::int64_t c = m_c, groups = m_groups, perGroup = m_perGroup, sub = m_sub;
  const std::int64_t block = m_block, part = m_part;
  const bool byRows = m_byRows;
  const std::int64_t subPixels = (byRows ? perGroup : c) / sub;  // sub-pixels a row pixel
  if (m_layout.interleaved) {
    // One 1x1 CONV over the tile's chunks (subPixels of them a pixel), each a dense output
    // block of the shuffled pixel.
    isa::Conv conv = placing();
    conv.inp_addr = inputSram;
    conv.out_addr = outputSram;
    conv.out_h = count;
    conv.out_w = subPixels;
    conv.in_w = subPixels;
    conv.in_c = block;
    conv.out_c = block;
    m_ctx.emit(conv);
  }
  for (std::int64_t m = 0; !m_layout.interleaved && m < c / block; ++m) {
    isa::Conv conv = placing();
    conv.inp_addr = inputSram + m * sub;
    // Block m is channels [m * block, + block) of the whole pixels, or of part
    // m * block / part.
    conv.out_addr = m_layout.wholePixels
                        ? outputSram + m * block
                        : outputSram + (m * block / part) * count * part + (m * block) % part;
    conv.out_gap = (m_layout.wholePixels ? c : part) / block - 1;
    conv.out_h = 1;
    conv.out_w = count;
    conv.in_w = count * subPixels;
    conv.in_c = sub;
    conv.out_c = block;
    conv.kh = byRows ? groups : 1;
    conv.kw = byRows ? 1 : groups;
    conv.sw = subPixels;
    conv.dw = byRows ? 1 : perGroup / sub;
    m_ctx.emit(conv);
  }
}

/// Emits a tile's STOREs, one a part.
void SubPixelShuffle::storeTileParts(std::int64_t p0, std::int64_t count, std::int64_t outputSram) {
  const std::int64_t c = m_c, part = m_part;
  // One STORE a part: a dense block, or its channels of the whole pixels (SRAM rows C apart).
  for (std::int64_t k = 0; k < m_partCount; ++k) {
    const TensorId id = m_parts[static_cast<std::size_t>(k)];
    const auto at = m_ctx.tensors[id].address + static_cast<std::uint64_t>(p0 * part);
    if (m_layout.wholePixels) {
      m_ctx.store(outputSram + k * part,
                  {static_cast<std::int64_t>(at), count, 1, part, part, part}, c);
    } else {
      m_ctx.store(outputSram + k * count * part, flatBlock(at, count * part));
    }
  }
}

/// Lowers the channel shuffle as sub-pixel CONVs (SubPixelShuffle).
void shuffleBySubPixels(LoweringContext& ctx, const QShuffle& shuffle,
                        const ShuffleLayout& layout) {
  SubPixelShuffle(ctx, shuffle, layout).emit();
}

/// The channel shuffle as a 1x1 CONV on the MAC array whose weights are the permutation (1 where
/// output channel i * groups + g reads input channel g * C / groups + i, else 0), with no bias
/// and a requant multiplier of exactly 1 (2^30 at shift 1): acc = x - zp and y = acc + zp, so the
/// bytes pass unchanged under single and double rounding alike. Whole pixels load and store as
/// dense runs; the byte-interleaving STOREs of the other way pay a DDR burst for every byte.
/// Returns false (nothing emitted) where that costs more than the byte stores.
bool shuffleByConv(LoweringContext& ctx, const QShuffle& shuffle) {
  const QTensor& input = ctx.graph.tensors[shuffle.input];
  const auto& shape = input.shape;
  const std::int64_t c = shape[3];
  const std::int64_t perGroup = c / shuffle.groups;
  const std::int64_t steps = ((c + ctx.config.macRows - 1) / ctx.config.macRows) *
                             ((c + ctx.config.macCols - 1) / ctx.config.macCols);
  const std::int64_t beatsPerByte = ctx.config.ddrBurstBytes / ctx.config.ddrBytesPerCycle;
  if (steps >= c * beatsPerByte || c * c > ctx.slots.weightBytes()) {
    return false;
  }
  QConv conv;
  conv.name = shuffle.name;
  conv.input = shuffle.input;
  conv.output = shuffle.output;
  conv.weights = golden::makeInt8Tensor({c, 1, 1, c}, 0);
  for (std::int64_t g = 0; g < shuffle.groups; ++g) {
    for (std::int64_t i = 0; i < perGroup; ++i) {
      conv.weights.data[static_cast<std::size_t>((i * shuffle.groups + g) * c + g * perGroup + i)] =
          1;
    }
  }
  conv.params = bytePlacingParams(c, input.zeroPoint);
  lowerConv(ctx, conv);
  return true;
}

/// Throws unsupported unless every input shares the output's scale and zero point: the NPU
/// moves these bytes without arithmetic.
void checkSharedQuantization(const LoweringContext& ctx, const std::string& name,
                             const std::vector<TensorId>& inputs, TensorId output) {
  for (const TensorId id : inputs) {
    const QTensor& tensor = ctx.graph.tensors[id];
    if (tensor.zeroPoint != ctx.graph.tensors[output].zeroPoint ||
        tensor.scale != ctx.graph.tensors[output].scale) {
      fail(ErrorKind::Unsupported,
           "layer '{}': input '{}' does not share the output's scale and zero point (the NPU "
           "moves bytes without arithmetic here)",
           name, tensor.name);
    }
  }
}

/// Along rows, each input is one contiguous block of the output: its bytes copied in order
/// from the end of the one before (an input may hold whole output rows under another H x W, or
/// be an alias's bytes its producer stored in place: planAliasCopiesInPlace).
void concatRows(LoweringContext& ctx, const QConcat& concat) {
  const std::string& name = concat.name;
  const auto& out = ctx.graph.tensors[concat.output].shape;
  const std::uint64_t outputAddress = ctx.tensors[concat.output].address;
  std::int64_t offset = 0;
  for (const TensorId id : concat.inputs) {
    const auto& in = ctx.graph.tensors[id].shape;
    if (!concatCopies(ctx.graph, ctx.tensors, static_cast<std::size_t>(ctx.op), id) ||
        ctx.tensors[concat.output].storedIn == static_cast<std::int64_t>(id)) {
      offset += in[1] * in[2] * in[3];  // stored in place by its producer, or read in place
      continue;
    }
    const DdrBlock window = channelWindow(ctx, id, 0, in[3]);
    const std::int64_t at = static_cast<std::int64_t>(outputAddress) + offset;
    copyTiles(ctx, window, [&](std::int64_t sram, const CopyTile& t) {
      const std::int64_t first = at + (t.y * in[2] + t.x) * in[3] + t.c0;
      if (t.fullRows(window)) {
        ctx.store(sram, flatBlock(static_cast<std::uint64_t>(first), t.rows * in[2] * in[3]));
      } else {
        ctx.store(sram, {first, t.rows, t.cols, t.cn, in[2] * in[3], in[3]});
      }
    });
    offset += in[1] * in[2] * in[3];
  }
  if (offset != out[1] * out[2] * out[3]) {
    fail("layer '{}': the inputs hold {} bytes, the output {}", name, offset,
         out[1] * out[2] * out[3]);
  }
}

}  // namespace

void lowerConcat(LoweringContext& ctx, const QConcat& concat) {
  const TensorId output = concat.output;
  checkSharedQuantization(ctx, concat.name, concat.inputs, output);
  if (concat.axis == 1) {
    concatRows(ctx, concat);
    return;
  }
  if (ctx.shuffles.unassembled[output]) {
    return;  // a concat its shuffle reads as its inputs: never assembled
  }
  const auto& out = ctx.graph.tensors[output].shape;
  const std::uint64_t outputAddress = ctx.tensors[output].address;
  // A member of a concat family writes into its root's first channels (pixels of the root's
  // width); an input is there already when its producer stored it (concat by address) or an
  // earlier member of the family copied it.
  const std::int64_t pixel = pixelStride(ctx, output);
  std::int64_t offset = 0;
  for (const TensorId id : concat.inputs) {
    const std::int64_t c = ctx.graph.tensors[id].shape[3];
    if (!concatCopies(ctx.graph, ctx.tensors, static_cast<std::size_t>(ctx.op), id)) {
      offset += c;  // stored in place (concat by address), or copied by an earlier member
      continue;
    }
    copyTiles(ctx, channelWindow(ctx, id, 0, c), [&](std::int64_t sram, const CopyTile& t) {
      ctx.store(sram, {static_cast<std::int64_t>(outputAddress) + (t.y * out[2] + t.x) * pixel +
                           offset + t.c0,
                       t.rows, t.cols, t.cn, out[2] * pixel, pixel});
    });
    offset += c;
  }
}

void lowerSlice(LoweringContext& ctx, const QSlice& slice) {
  const TensorId output = slice.output;
  checkSharedQuantization(ctx, slice.name, {slice.input}, output);
  if (ctx.shuffles.writtenBy[output] >= 0) {
    return;  // a slice its shuffle wrote
  }
  const auto& out = ctx.graph.tensors[output].shape;
  const std::uint64_t outputAddress = ctx.tensors[output].address;
  if (ctx.tensors[output].storedIn == static_cast<std::int64_t>(slice.input)) {
    return;  // read in place by its conv (slice by address): nothing to move
  }
  const TensorPlacement& from = ctx.tensors[slice.input];
  const TensorPlacement& to = ctx.tensors[output];
  if (to.storedIn >= 0 && to.storedIn == from.storedIn &&
      to.address == from.address + static_cast<std::uint64_t>(slice.channelBegin)) {
    return;  // its source was stored into the same concat (a split stored into a concat)
  }
  const std::int64_t w = out[2], c = out[3];
  const auto& in = ctx.graph.tensors[slice.input].shape;
  const std::int64_t pixel = in[3], row = in[2] * in[3];
  const DdrBlock window{static_cast<std::int64_t>(ctx.tensors[slice.input].address) +
                            slice.rowBegin * row + slice.colBegin * pixel + slice.channelBegin,
                        out[1],
                        w,
                        c,
                        slice.rowStep * row,
                        slice.colStep * pixel};
  // Dense, or into a concat's output at a channel offset (stored by address).
  const std::int64_t outPixel = pixelStride(ctx, output);
  if (sliceByPhase(ctx, slice, window, outPixel)) {
    return;
  }
  copyTiles(ctx, window, [&](std::int64_t sram, const CopyTile& t) {
    const auto at = static_cast<std::int64_t>(outputAddress) + (t.y * w + t.x) * outPixel + t.c0;
    if (t.fullRows(window) && outPixel == c) {
      ctx.store(sram, flatBlock(static_cast<std::uint64_t>(at), t.rows * w * c));
    } else {
      ctx.store(sram, {at, t.rows, t.cols, t.cn, w * outPixel, outPixel});
    }
  });
}

void lowerShuffle(LoweringContext& ctx, const QShuffle& shuffle) {
  const TensorId output = shuffle.output;
  checkSharedQuantization(ctx, shuffle.name, {shuffle.input}, output);
  const auto& out = ctx.graph.tensors[output].shape;
  const std::uint64_t outputAddress = ctx.tensors[output].address;
  if (const std::optional<ShuffleLayout>& layout =
          ctx.shuffles.byOp[static_cast<std::size_t>(ctx.op)]) {
    shuffleBySubPixels(ctx, shuffle, *layout);
    return;
  }
  if (shuffleByConv(ctx, shuffle)) {
    return;
  }
  // Group g's channels (a channel slice) go to output channels g, g + groups, ...: one byte
  // per column, columns `groups` bytes apart, one row per pixel.
  const std::int64_t w = out[2], c = out[3], perGroup = c / shuffle.groups;
  for (std::int64_t g = 0; g < shuffle.groups; ++g) {
    const DdrBlock window = channelWindow(ctx, shuffle.input, g * perGroup, perGroup);
    copyTiles(ctx, window, [&](std::int64_t sram, const CopyTile& t) {
      // Channel i of group g goes to output channel i * groups + g.
      const auto at = static_cast<std::int64_t>(outputAddress) + g + t.c0 * shuffle.groups;
      if (t.cols == w && t.rows * w <= isa::limits::kStoreRows) {
        ctx.store(sram, {at + t.y * w * c, t.rows * w, t.cn, 1, c, shuffle.groups});
        return;
      }
      for (std::int64_t r = 0; r < t.rows; ++r) {
        ctx.store(sram + r * t.cols * t.cn,
                  {at + ((t.y + r) * w + t.x) * c, t.cols, t.cn, 1, c, shuffle.groups});
      }
    });
  }
}

void lowerUpsample(LoweringContext& ctx, const QUpsample& upsample) {
  const TensorId output = upsample.output;
  checkSharedQuantization(ctx, upsample.name, {upsample.input}, output);
  const std::uint64_t outputAddress = ctx.tensors[output].address;
  const auto& in = ctx.graph.tensors[upsample.input].shape;
  const std::int64_t w = in[2], c = in[3], fh = upsample.factorH, fw = upsample.factorW;
  const std::int64_t outW = w * fw;
  copyTiles(ctx, channelWindow(ctx, upsample.input, 0, c),
            [&](std::int64_t sram, const CopyTile& t) {
              for (std::int64_t dy = 0; dy < fh; ++dy) {
                for (std::int64_t dx = 0; dx < fw; ++dx) {
                  ctx.store(sram, {static_cast<std::int64_t>(outputAddress) +
                                       ((t.y * fh + dy) * outW + t.x * fw + dx) * c + t.c0,
                                   t.rows, t.cols, t.cn, fh * outW * c, fw * c});
                }
              }
            });
}

}  // namespace npu::compiler
