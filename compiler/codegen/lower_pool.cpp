// POOL lowering: max and average pools in tiles of rows x columns and channel blocks; global
// average pooling as one window over the whole plane per channel block.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <span>
#include <tuple>
#include <vector>

#include "lowering.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

struct PoolJob {
  std::string name;
  TensorId input, output;
  std::int64_t kh, kw, sh, sw;
  std::array<std::int64_t, 4> pads;
  bool average;
  std::int64_t padValue;
  /// Channels per block when the caller chose them (a global pool), else 0: emitPool's choice.
  std::int64_t channelBlock = 0;
};

/// A channel block of a pool, its tile, and whether its full-width tiles load whole padded rows.
struct PoolBlock {
  std::int64_t c0, cn;
  TileShape tile;
  bool whole;
};

/// The planes, window axes and SRAM halves of one pooling window op, and its tiling of them.
struct PoolTiling {
  PoolTiling(const LoweringContext& ctx, const PoolJob& job);
  [[nodiscard]] std::int64_t inputCols(std::int64_t cols, bool whole) const;
  [[nodiscard]] AxisSpan colSpan(std::int64_t ox, std::int64_t cols, bool whole) const;
  [[nodiscard]] std::vector<PoolBlock> planBlocks(std::int64_t cb, double& total) const;
  [[nodiscard]] std::vector<PoolBlock> chooseBlocks() const;

  const LoweringContext& ctx;
  const PoolJob& job;
  std::int64_t h, w, c, oh, ow;
  WindowAxis rowAxis, colAxis;
  /// A full-width tile loads the whole padded row (as row bands always did), a narrower one its
  /// window.
  std::int64_t fullCols;
  std::int64_t inputHalf, outputHalf, arrayCols;
  std::string capacity;
};

/// Reads the planes of `job` and the SRAM halves of `ctx`.
PoolTiling::PoolTiling(const LoweringContext& ctx, const PoolJob& job) : ctx(ctx), job(job) {
  const auto& in = ctx.graph.tensors[job.input].shape;
  const auto& out = ctx.graph.tensors[job.output].shape;
  h = in[1];
  w = in[2];
  c = in[3];
  oh = out[1];
  ow = out[2];
  rowAxis = WindowAxis{h, oh, job.sh, job.kh, job.pads[0]};
  colAxis = WindowAxis{w, ow, job.sw, job.kw, job.pads[1]};
  fullCols = w + job.pads[1] + job.pads[3];
  inputHalf = ctx.slots.inputBytes();
  outputHalf = ctx.slots.outputBytes();
  arrayCols = ctx.config.macCols;
  capacity = fmt::format("input half {} B, output half {} B", inputHalf, outputHalf);
}

/// Input columns of a tile `cols` wide (`whole`: full-width tiles load whole padded rows).
std::int64_t PoolTiling::inputCols(std::int64_t cols, bool whole) const {
  return whole && cols == ow ? fullCols : colAxis.span(cols);
}

/// The input span of output columns [ox, ox + cols) (`whole` as for inputCols).
AxisSpan PoolTiling::colSpan(std::int64_t ox, std::int64_t cols, bool whole) const {
  return whole && cols == ow ? AxisSpan{0, cols, 0, w, job.pads[1], job.pads[3]}
                             : colAxis.at(ox, cols);
}

/// The tiles of channel blocks of `cb` channels; `total` their estimated cycles.
std::vector<PoolBlock> PoolTiling::planBlocks(std::int64_t cb, double& total) const {
  std::vector<PoolBlock> blocks;
  total = 0;
  for (std::int64_t c0 = 0; c0 < c; c0 += cb) {
    const std::int64_t cn = std::min(cb, c - c0);
    const bool whole = fullCols <= kMaxTileDim && rowAxis.span(1) * fullCols * cn <= inputHalf;
    auto fits = [&](std::int64_t r, std::int64_t cols) {
      const std::int64_t inCols = inputCols(cols, whole);
      return inCols <= kMaxTileDim && rowAxis.span(r) * inCols * cn <= inputHalf &&
             r * cols * cn <= outputHalf;
    };
    auto tileCost = [&](std::int64_t r, std::int64_t cols) {
      const auto compute =
          static_cast<double>(r * cols * job.kh * job.kw * ((cn + arrayCols - 1) / arrayCols) + 4);
      const double load =
          dmaCycles(ctx.config, rowAxis.span(r), inputCols(cols, whole), cn, cn == c);
      const double store = dmaCycles(ctx.config, r, cols, cn, cn == c);
      return std::max(compute, load + store);
    };
    auto cost = [&](std::int64_t r, std::int64_t cols) {
      return planeCost(oh, ow, {r, cols}, tileCost);
    };
    const TileShape tile = chooseTile(job.name, oh, ow, fits, cost, capacity);
    total += cost(tile.rows, tile.cols);
    blocks.push_back({c0, cn, tile, whole});
  }
  return blocks;
}

/// Chooses the channel blocks: row bands or pixel-sized blocks, whichever costs less.
std::vector<PoolBlock> PoolTiling::chooseBlocks() const {
  // Channel blocks whose full-width band of one output row fits (as row bands always had), or,
  // where the cost model finds it cheaper or no band fits, the widest blocks whose one output
  // pixel fits, in column tiles.
  std::int64_t bandBlock = std::min(c, kMaxTileDim);
  while (bandBlock > 1 &&
         (job.kh * fullCols * bandBlock > inputHalf || ow * bandBlock > outputHalf)) {
    bandBlock = (bandBlock + 1) / 2;
  }
  const bool bandFits = job.kh * fullCols * bandBlock <= inputHalf &&
                        ow * bandBlock <= outputHalf && fullCols <= kMaxTileDim;
  std::int64_t pixelBlock = std::min(c, kMaxTileDim);
  while (pixelBlock > 1 && (job.kh * job.kw * pixelBlock > inputHalf || pixelBlock > outputHalf)) {
    pixelBlock = (pixelBlock + 1) / 2;
  }
  if (job.channelBlock > 0) {
    pixelBlock = job.channelBlock;
  }
  double pixelCost = 0;
  std::vector<PoolBlock> blocks = planBlocks(pixelBlock, pixelCost);
  if (job.channelBlock == 0 && bandFits && bandBlock != pixelBlock) {
    double bandCost = 0;
    std::vector<PoolBlock> bands = planBlocks(bandBlock, bandCost);
    if (bandCost <= pixelCost) {
      blocks = std::move(bands);
    }
  }
  return blocks;
}

/// Emits per block and tile the padded LOAD, then (a tile later) the POOL and its STORE.
void emitPoolBlocks(LoweringContext& ctx, const PoolTiling& tiling,
                    const std::vector<PoolBlock>& blocks,
                    const golden::QuantizedMultiplier& reciprocal) {
  const PoolJob& job = tiling.job;
  const std::int64_t w = tiling.w, c = tiling.c, oh = tiling.oh, ow = tiling.ow;
  const auto inputAddress = static_cast<std::int64_t>(ctx.tensors[job.input].address);
  const auto outputAddress = static_cast<std::int64_t>(ctx.tensors[job.output].address);
  TileLag deferred;
  for (const PoolBlock& block : blocks) {
    const std::int64_t c0 = block.c0;
    const std::int64_t cn = block.cn;
    const TileShape tile = block.tile;
    for (std::int64_t oy = 0; oy < oh; oy += tile.rows) {
      const AxisSpan rows = tiling.rowAxis.at(oy, std::min(tile.rows, oh - oy));
      for (std::int64_t ox = 0; ox < ow; ox += tile.cols) {
        const AxisSpan cols = tiling.colSpan(ox, std::min(tile.cols, ow - ox), block.whole);
        std::int64_t inputSram = 0;
        std::int64_t outputSram = 0;
        // Named variables, not a structured binding: clang before 16 cannot capture one.
        std::tie(inputSram, outputSram) = ctx.slots.nextStep();
        ctx.loadTile(inputSram,
                     {inputAddress + (rows.in0 * w + cols.in0) * c + c0, rows.inCount, cols.inCount,
                      cn, w * c, c},
                     {rows.padBefore, rows.padAfter, cols.padBefore, cols.padAfter, job.padValue});
        isa::Pool pool;
        pool.op = job.average ? isa::kPoolAverage : isa::kPoolMax;
        pool.in_addr = inputSram;
        pool.out_addr = outputSram;
        pool.in_w = cols.padded();
        pool.out_h = rows.outCount;
        pool.out_w = cols.outCount;
        pool.channels = cn;
        pool.kh = job.kh;
        pool.kw = job.kw;
        pool.sh = job.sh;
        pool.sw = job.sw;
        pool.avg_mult = reciprocal.multiplier;
        pool.avg_shift = reciprocal.shift;
        const DdrBlock target{
            outputAddress + (oy * ow + ox) * c + c0, rows.outCount, cols.outCount, cn, ow * c, c};
        deferred.next([&ctx, pool, outputSram, target] {
          ctx.emit(pool);
          ctx.store(outputSram, target);
        });
      }
    }
  }
  deferred.flush();
}

/// Tiles of output rows x columns x channel blocks of one pooling window op: full-width row bands
/// where one output row fits, column tiles chosen by the cost model where it does not.
void emitPool(LoweringContext& ctx, const PoolJob& job) {
  if (!isa::limits::poolWindowFits(job.kh, job.kw, job.sh, job.sw)) {
    fail(ErrorKind::Unsupported,
         "layer '{}': pooling window above {} or stride above {} is not supported", job.name,
         isa::limits::kPoolWindowH, isa::limits::kPoolStrideH);
  }
  if (job.kw > kMaxTileDim) {
    fail(ErrorKind::Unsupported, "layer '{}': a window {} columns wide exceeds a tile's {}",
         job.name, job.kw, kMaxTileDim);
  }
  golden::QuantizedMultiplier reciprocal{};
  if (job.average) {
    reciprocal = golden::averagePoolMultiplier(job.kh, job.kw);
  }
  const PoolTiling tiling(ctx, job);
  emitPoolBlocks(ctx, tiling, tiling.chooseBlocks(), reciprocal);
}

/// How emitGlobalPoolByConv cuts a plane: channel blocks of `cb`, summed in blocks of `bh` x `bw`
/// pixels (one depthwise CONV each) of tiles of `th` x `tw(cn)` pixels.
struct GlobalSumPlan {
  std::int64_t cb = 0, bh = 0, bw = 0;
  bool fits = false;
  /// Tile width and height for a channel block of `cn` channels: as wide as the input half and a
  /// tile row allow, then as tall. A CONV's input footprint runs over whole tile rows from its
  /// block's first pixel, so one tile row more than the tile stays inside the half.
  [[nodiscard]] std::int64_t tileCols(std::int64_t w, std::int64_t cn, std::int64_t half) const {
    return std::max(bw, std::min({w, kMaxTileDim / bw * bw, half / ((bh + 1) * cn) / bw * bw}));
  }
  [[nodiscard]] std::int64_t tileRows(std::int64_t h, std::int64_t tw, std::int64_t cn,
                                      std::int64_t half) const {
    return std::max(bh, std::min(h, (half / (tw * cn) - 1) / bh * bh));
  }
};

GlobalSumPlan planGlobalSum(const LoweringContext& ctx, std::int64_t c, std::int64_t bh,
                            std::int64_t bw) {
  GlobalSumPlan plan;
  plan.bh = bh;
  plan.bw = bw;
  const std::int64_t inputHalf = ctx.slots.inputBytes();
  auto fits = [&](std::int64_t n) {
    return (plan.bh + 1) * plan.bw * n <= inputHalf && n <= ctx.slots.outputBytes() &&
           n <= ctx.slots.accumulatorEntries() &&
           plan.bh * plan.bw * n <= ctx.slots.weightBytes() && 12 * n <= ctx.slots.parameterBytes();
  };
  std::int64_t cb = std::min(c, kMaxTileDim);
  while (cb > 1 && !fits(cb)) {
    cb = (cb + 1) / 2;
  }
  plan.cb = cb;
  plan.fits = fits(cb);
  return plan;
}

/// One tile step of a LOAD -> compute -> STORE pipeline, in estimated cycles.
struct Stage {
  double load = 0, compute = 0, store = 0;
};

/// Estimated cycles of tile steps run with double buffering over one DDR port: the first LOAD,
/// then per step the larger of the port's work (this LOAD and the previous STORE) and the previous
/// step's compute, then the last compute and STORE, which nothing overlaps.
double pipelineCycles(std::span<const Stage> stages) {
  if (stages.empty()) {
    return 0;
  }
  double total = stages.front().load;
  for (std::size_t i = 1; i < stages.size(); ++i) {
    total += std::max(stages[i].load + stages[i - 1].store, stages[i - 1].compute);
  }
  return total + stages.back().compute + stages.back().store;
}

/// Estimated cycles of a global average pool as POOLs over the whole plane in channel blocks of
/// `cb` (one LOAD, POOL and STORE each).
double globalPoolByPoolCycles(const LoweringContext& ctx, std::int64_t h, std::int64_t w,
                              std::int64_t c, std::int64_t cb) {
  std::vector<Stage> stages;
  for (std::int64_t c0 = 0; c0 < c; c0 += cb) {
    const std::int64_t cn = std::min(cb, c - c0);
    stages.push_back(
        {dmaCycles(ctx.config, h, w, cn, cn == c),
         static_cast<double>(h * w * ((cn + ctx.config.macCols - 1) / ctx.config.macCols) + 4),
         dmaCycles(ctx.config, 1, 1, cn, true)});
  }
  return pipelineCycles(stages);
}

/// The channel block of a global pool by POOLs with the fewest estimated cycles: the most channels
/// whose plane fits the SRAM halves, or fewer (multiples of the vector width and the burst) so
/// that the blocks' loads overlap the pooling.
std::int64_t globalPoolBlock(const LoweringContext& ctx, std::int64_t h, std::int64_t w,
                             std::int64_t c, double& cycles) {
  std::int64_t cb = std::min(c, kMaxTileDim);
  while (cb > 1 && (h * w * cb > ctx.slots.inputBytes() || cb > ctx.slots.outputBytes())) {
    cb = (cb + 1) / 2;
  }
  std::int64_t best = cb;
  cycles = globalPoolByPoolCycles(ctx, h, w, c, cb);
  // Multiples of the vector width and of the DDR burst, so every block's runs stay burst-aligned.
  const std::int64_t step = std::lcm(ctx.config.macCols, ctx.config.ddrBurstBytes);
  for (std::int64_t n = step; n < cb; n += step) {
    const double estimate = globalPoolByPoolCycles(ctx, h, w, c, n);
    if (estimate < cycles) {
      cycles = estimate;
      best = n;
    }
  }
  return best;
}

/// Estimated cycles of emitGlobalPoolByConv's plan: per tile its LOAD and its depthwise CONVs
/// (each block of bh x bw pixels: ceil(cn / C) x ceil(bh * bw / R) steps), a STORE per channel
/// block, and the constants it loads (parameters per block, the all-ones weights).
double globalPoolByConvCycles(const LoweringContext& ctx, const GlobalSumPlan& plan, std::int64_t h,
                              std::int64_t w, std::int64_t c) {
  const std::int64_t rowsR = ctx.config.macRows, colsC = ctx.config.macCols;
  std::vector<Stage> stages;
  std::int64_t onesLoaded = 0;
  for (std::int64_t c0 = 0; c0 < c; c0 += plan.cb) {
    const std::int64_t cn = std::min(plan.cb, c - c0);
    // The block's requant parameters, and the all-ones weights when their size changes.
    double constants = dmaCycles(ctx.config, 1, 1, 12 * cn, true);
    if (cn != onesLoaded) {
      constants += dmaCycles(ctx.config, 1, 1, plan.bh * plan.bw * cn, true);
      onesLoaded = cn;
    }
    const std::size_t first = stages.size();
    const std::int64_t tw = plan.tileCols(w, cn, ctx.slots.inputBytes());
    const std::int64_t th = plan.tileRows(h, tw, cn, ctx.slots.inputBytes());
    for (std::int64_t y = 0; y < h; y += th) {
      const std::int64_t rows = std::min(th, h - y);
      for (std::int64_t x = 0; x < w; x += tw) {
        const std::int64_t cols = std::min(tw, w - x);
        const std::int64_t sums =
            ((rows + plan.bh - 1) / plan.bh) * ((cols + plan.bw - 1) / plan.bw);
        stages.push_back(
            {dmaCycles(ctx.config, rows, cols, cn, cn == c && cols == w),
             static_cast<double>(
                 sums *
                 (((cn + colsC - 1) / colsC) * ((plan.bh * plan.bw + rowsR - 1) / rowsR) + 4)),
             0});
      }
    }
    stages[first].load += constants;
    stages.back().store = dmaCycles(ctx.config, 1, 1, cn, true);
  }
  return pipelineCycles(stages);
}

/// The cheapest plan of emitGlobalPoolByConv by the estimate: blocks of k x k pixels (clamped to
/// the plane and CONV's 15 taps), smaller ones costing fewer all-ones weight bytes to load and
/// more CONVs, at most kMaxSumBlocks CONVs a channel block; `fits` false when none fits.
GlobalSumPlan bestGlobalSum(const LoweringContext& ctx, std::int64_t h, std::int64_t w,
                            std::int64_t c, double& cycles) {
  constexpr std::int64_t kMaxSumBlocks = 256;
  GlobalSumPlan best;
  const std::int64_t largest = std::max(isa::limits::kConvKernelH, isa::limits::kConvKernelW);
  for (std::int64_t k = largest; k >= 1; --k) {
    const std::int64_t bh = std::min({h, k, isa::limits::kConvKernelH});
    const std::int64_t bw = std::min({w, k, isa::limits::kConvKernelW});
    const bool largestBlock = k == largest;
    if (!largestBlock && ((h + bh - 1) / bh) * ((w + bw - 1) / bw) > kMaxSumBlocks) {
      break;
    }
    const GlobalSumPlan plan = planGlobalSum(ctx, c, bh, bw);
    if (!plan.fits) {
      continue;
    }
    const double estimate = globalPoolByConvCycles(ctx, plan, h, w, c);
    if (!best.fits || estimate < cycles) {
      best = plan;
      cycles = estimate;
    }
  }
  if (!best.fits) {  // none fits: the largest block, for the caller's error message
    best = planGlobalSum(ctx, c, std::min(h, isa::limits::kConvKernelH),
                         std::min(w, isa::limits::kConvKernelW));
  }
  return best;
}

/// A global average pool by the MAC array (a plane above the 255-pixel window, wider than a tile,
/// or larger than the input half, or where the cost model finds it cheaper than POOLs, whose
/// channel blocks narrow to fit a whole plane): depthwise CONVs with all-ones weights each sum one
/// block of at most 15 x 15 pixels of a loaded tile into the same accumulator entries (acc_init on
/// the plane's first block, finalize on its last), requantized by the pool's reciprocal with
/// single rounding and no zero point: the sum of the raw bytes and the rounding the golden pool
/// uses.
void emitGlobalPoolByConv(LoweringContext& ctx, const PoolJob& job, const GlobalSumPlan& plan) {
  const auto& in = ctx.graph.tensors[job.input].shape;
  const std::int64_t h = in[1], w = in[2], c = in[3];
  const std::int64_t bh = plan.bh, bw = plan.bw, cb = plan.cb;
  const std::int64_t inputHalf = ctx.slots.inputBytes();
  if (!plan.fits) {
    fail(ErrorKind::Unsupported, "layer '{}': SRAM too small for one {}x{} block of the pool",
         job.name, bh, bw);
  }
  const std::uint64_t onesAddress = ctx.constants.add(
      job.name + ".ones", std::vector<std::uint8_t>(static_cast<std::size_t>(cb * bh * bw), 1));
  const auto inputAddress = static_cast<std::int64_t>(ctx.tensors[job.input].address);
  const auto outputAddress = static_cast<std::int64_t>(ctx.tensors[job.output].address);
  TileLag deferred;
  for (std::int64_t c0 = 0; c0 < c; c0 += cb) {
    const std::int64_t cn = std::min(cb, c - c0);
    const std::vector<std::uint8_t> parameters = globalSumRecords(h, w, cn);
    const std::uint64_t parameterAddress =
        ctx.constants.add(fmt::format("{}.params.c{}", job.name, c0), parameters);
    bool loadParameters = false;
    const std::int64_t parameterSram =
        ctx.slots.parameterSlot(fmt::format("{}/p{}", job.name, c0), loadParameters);
    bool loadWeights = false;
    const std::int64_t weightSram =
        ctx.slots.weightSlot(fmt::format("{}/ones{}", job.name, cn), loadWeights);
    const std::int64_t tw = plan.tileCols(w, cn, inputHalf);
    const std::int64_t th = plan.tileRows(h, tw, cn, inputHalf);
    const std::int64_t blocksTotal = ((h + bh - 1) / bh) * ((w + bw - 1) / bw);
    std::int64_t block = 0;
    for (std::int64_t y = 0; y < h; y += th) {
      const std::int64_t rows = std::min(th, h - y);
      for (std::int64_t x = 0; x < w; x += tw) {
        const std::int64_t cols = std::min(tw, w - x);
        std::int64_t inputSram = 0;
        std::int64_t outputSram = 0;
        // Named variables, not a structured binding: clang before 16 cannot capture one.
        std::tie(inputSram, outputSram) = ctx.slots.nextStep();
        ctx.load(LoadSram::Input, inputSram,
                 {inputAddress + (y * w + x) * c + c0, rows, cols, cn, w * c, c});
        if (loadWeights) {
          ctx.loadFlat(LoadSram::Weight, weightSram, onesAddress, cn * bh * bw);
          loadWeights = false;
        }
        if (loadParameters) {
          ctx.loadFlat(LoadSram::Parameter, parameterSram, parameterAddress,
                       static_cast<std::int64_t>(parameters.size()));
          loadParameters = false;
        }
        std::vector<isa::Conv> sums;
        for (std::int64_t by = 0; by < rows; by += bh) {
          for (std::int64_t bx = 0; bx < cols; bx += bw) {
            isa::Conv sum;
            sum.inp_addr = inputSram + (by * cols + bx) * cn;
            sum.wgt_addr = weightSram;
            sum.out_addr = outputSram;
            sum.param_addr = parameterSram;
            sum.out_h = sum.out_w = 1;
            sum.in_w = cols;
            sum.in_c = sum.out_c = cn;
            sum.kh = std::min(bh, rows - by);
            sum.kw = std::min(bw, cols - bx);
            sum.sh = sum.sw = sum.dh = sum.dw = 1;
            sum.clip_lo = -128;
            sum.clip_hi = 127;
            sum.depthwise = 1;
            sum.acc_init = block == 0 ? 1 : 0;
            sum.finalize = block + 1 == blocksTotal ? 1 : 0;
            sums.push_back(sum);
            ++block;
          }
        }
        // The channel block's last tile stores its sums.
        const bool last = block == blocksTotal;
        const DdrBlock target = flatBlock(static_cast<std::uint64_t>(outputAddress + c0), cn);
        deferred.next([&ctx, sums = std::move(sums), last, outputSram, target] {
          for (const isa::Conv& sum : sums) {
            ctx.emit(sum);
          }
          if (last) {
            ctx.store(outputSram, target);
          }
        });
      }
    }
  }
  deferred.flush();
}

/// A max or average pool's window, strides and padding.
template <typename Pool>
PoolJob windowedPoolJob(const Pool& op, bool average, std::int32_t padValue) {
  PoolJob job;
  job.name = op.name;
  job.input = op.input;
  job.output = op.output;
  job.kh = op.params.kernel[0];
  job.kw = op.params.kernel[1];
  job.sh = op.params.strides[0];
  job.sw = op.params.strides[1];
  job.pads = op.params.pads;
  job.average = average;
  job.padValue = padValue;
  return job;
}

}  // namespace

void lowerPool(LoweringContext& ctx, const QMaxPool& op) {
  emitPool(ctx, windowedPoolJob(op, false, -128));
}

void lowerPool(LoweringContext& ctx, const QAvgPool& op) {
  emitPool(ctx, windowedPoolJob(op, true, ctx.graph.tensors[op.input].zeroPoint));
}

void lowerPool(LoweringContext& ctx, const QGlobalAvgPool& op) {
  PoolJob job;
  job.name = op.name;
  job.input = op.input;
  job.output = op.output;
  const auto& in = ctx.graph.tensors[job.input].shape;
  job.kh = in[1];
  job.kw = in[2];
  job.sh = 1;
  job.sw = 1;
  job.pads = {0, 0, 0, 0};
  job.average = true;
  job.padValue = 0;
  const bool poolFits = isa::limits::poolWindowFits(job.kh, job.kw, 1, 1) &&
                        job.kw <= kMaxTileDim && job.kh * job.kw <= ctx.slots.inputBytes();
  // A plane of many pixels leaves POOL few channels a block (strided, burst-wasting loads of
  // a few bytes a pixel, a vector unit mostly idle): summing whole-pixel tiles on the MAC array
  // is then the cheaper plan, within the roofline bound.
  double sumCycles = 0;
  const GlobalSumPlan sum = bestGlobalSum(ctx, job.kh, job.kw, in[3], sumCycles);
  if (!poolFits) {
    emitGlobalPoolByConv(ctx, job, sum);
    return;
  }
  double poolCycles = 0;
  job.channelBlock = globalPoolBlock(ctx, job.kh, job.kw, in[3], poolCycles);
  if (sum.fits && sumCycles < poolCycles) {
    emitGlobalPoolByConv(ctx, job, sum);
    return;
  }
  emitPool(ctx, job);
}

}  // namespace npu::compiler
