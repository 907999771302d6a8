// POOL lowering: max and average pools in row bands and channel blocks; global average pooling
// as one window over the whole plane per channel block.
#include <fmt/format.h>

#include <algorithm>

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
};

/// Bands x channel blocks of one pooling window op; also the copy engine (1x1 max) of concat
/// and upsample, which pass their own store placement.
void emitPool(LoweringContext& ctx, const PoolJob& job) {
  const auto& in = ctx.graph.tensors[job.input].shape;
  const auto& out = ctx.graph.tensors[job.output].shape;
  const std::int64_t h = in[1], w = in[2], c = in[3], oh = out[1], ow = out[2];
  if (!isa::limits::poolWindowFits(job.kh, job.kw, job.sh, job.sw)) {
    fail(ErrorKind::Unsupported,
         "layer '{}': pooling window above {} or stride above {} is not supported", job.name,
         isa::limits::kPoolWindowH, isa::limits::kPoolStrideH);
  }
  if (!isa::limits::paddingFits(job.pads[0], job.pads[1], job.pads[2], job.pads[3])) {
    fail(ErrorKind::Unsupported, "layer '{}': padding above {} is not supported by LOAD", job.name,
         isa::limits::kPadTop);
  }
  const std::int64_t inW = w + job.pads[1] + job.pads[3];
  checkTileWidth(job.name, inW, ow);
  std::int64_t cb = std::min(c, kMaxTileDim);
  while (cb > 1 &&
         (job.kh * inW * cb > ctx.slots.inputBytes() || ow * cb > ctx.slots.outputBytes())) {
    cb = (cb + 1) / 2;
  }
  golden::QuantizedMultiplier reciprocal{};
  if (job.average) {
    reciprocal = golden::averagePoolMultiplier(job.kh, job.kw);
  }
  for (std::int64_t c0 = 0; c0 < c; c0 += cb) {
    const std::int64_t cn = std::min(cb, c - c0);
    const std::int64_t bandRows = maxRows(
        job.name, oh,
        [&](std::int64_t r) {
          return ((r - 1) * job.sh + job.kh) * inW * cn <= ctx.slots.inputBytes() &&
                 r * ow * cn <= ctx.slots.outputBytes();
        },
        fmt::format("input half {} B", ctx.slots.inputBytes()));
    for (std::int64_t oy = 0; oy < oh; oy += bandRows) {
      const RowBand band = rowBand(oy, std::min(bandRows, oh - oy), job.sh, job.kh, job.pads[0], h);
      if (band.inRows < 1) {
        fail(ErrorKind::Unsupported, "layer '{}': an output band reads only padding; not supported",
             job.name);
      }
      const auto [inputSram, outputSram] = ctx.slots.nextStep();
      ctx.load(0, inputSram,
               channelBand(ctx.tensors[job.input].address, band.inRow, band.inRows, w, c, c0, cn),
               {band.padTop, band.padBottom, job.pads[1], job.pads[3], job.padValue});
      isa::Pool pool;
      pool.op = job.average ? 1 : 0;
      pool.in_addr = inputSram;
      pool.out_addr = outputSram;
      pool.in_w = inW;
      pool.out_h = band.outRows;
      pool.out_w = ow;
      pool.channels = cn;
      pool.kh = job.kh;
      pool.kw = job.kw;
      pool.sh = job.sh;
      pool.sw = job.sw;
      pool.avg_mult = reciprocal.multiplier;
      pool.avg_shift = reciprocal.shift;
      ctx.emit(pool);
      ctx.store(outputSram, channelBand(ctx.tensors[job.output].address, band.outRow, band.outRows,
                                        ow, c, c0, cn));
    }
  }
}

}  // namespace

void lowerPool(LoweringContext& ctx, const QOp& op) {
  PoolJob job;
  job.name = opName(op);
  job.input = opInputs(op)[0];
  job.output = opOutput(op);
  if (const auto* maxPool = std::get_if<QMaxPool>(&op)) {
    job.kh = maxPool->params.kernel[0];
    job.kw = maxPool->params.kernel[1];
    job.sh = maxPool->params.strides[0];
    job.sw = maxPool->params.strides[1];
    job.pads = maxPool->params.pads;
    job.average = false;
    job.padValue = -128;
  } else if (const auto* avgPool = std::get_if<QAvgPool>(&op)) {
    job.kh = avgPool->params.kernel[0];
    job.kw = avgPool->params.kernel[1];
    job.sh = avgPool->params.strides[0];
    job.sw = avgPool->params.strides[1];
    job.pads = avgPool->params.pads;
    job.average = true;
    job.padValue = ctx.graph.tensors[job.input].zeroPoint;
  } else {
    const auto& in = ctx.graph.tensors[job.input].shape;
    job.kh = in[1];
    job.kw = in[2];
    job.sh = 1;
    job.sw = 1;
    job.pads = {0, 0, 0, 0};
    job.average = true;
    job.padValue = 0;
  }
  emitPool(ctx, job);
}

}  // namespace npu::compiler
