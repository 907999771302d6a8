// Concat, slice, shuffle and nearest upsample: pure byte moves. A band of the input is loaded (a
// slice by a LOAD whose column and row strides skip the channels, columns and rows it leaves
// out: a channel slice, a Focus stem's every other pixel), copied to the output
// SRAM by a 1x1 max POOL (the identity), and placed by STORE addressing: at a channel offset with
// the concat's channel stride, densely for a slice, or factorH x factorW times with widened
// strides for an upsample.
#include <fmt/format.h>

#include <algorithm>

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

/// Copies `window` (a block of an input in DDR) band by band; `place` emits the stores of one
/// band given the output SRAM address, the first window row and the row count.
void copyBands(LoweringContext& ctx, const std::string& name, const DdrBlock& window,
               const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& place) {
  const std::int64_t h = window.rows, w = window.cols, c = window.bytes;
  checkTileWidth(name, w, w);
  if (c > kMaxTileDim) {
    fail(ErrorKind::Unsupported, "layer '{}': {} channels exceed the {} a copy tile can hold", name,
         c, kMaxTileDim);
  }
  const std::int64_t rows = maxRows(
      name, h,
      [&](std::int64_t r) {
        return r * w * c <= ctx.slots.inputBytes() && r * w * c <= ctx.slots.outputBytes();
      },
      fmt::format("one {}x{} row of {} channels", 1, w, c));
  const bool dense = window.colStride == c && window.rowStride == w * c;
  for (std::int64_t y = 0; y < h; y += rows) {
    const std::int64_t n = std::min(rows, h - y);
    const auto [inputSram, outputSram] = ctx.slots.nextStep();
    DdrBlock band = window;
    band.address = window.address + y * window.rowStride;
    band.rows = n;
    if (dense) {
      ctx.loadFlat(0, inputSram, static_cast<std::uint64_t>(band.address), n * w * c);
    } else {
      ctx.load(0, inputSram, band);
    }
    isa::Pool copy;
    copy.op = 0;
    copy.in_addr = inputSram;
    copy.out_addr = outputSram;
    copy.in_w = w;
    copy.out_h = n;
    copy.out_w = w;
    copy.channels = c;
    copy.kh = copy.kw = copy.sh = copy.sw = 1;
    ctx.emit(copy);
    place(outputSram, y, n);
  }
}

}  // namespace

void lowerDataMovement(LoweringContext& ctx, const QOp& op) {
  const std::string& name = opName(op);
  const TensorId output = opOutput(op);
  const auto& out = ctx.graph.tensors[output].shape;
  const std::uint64_t outputAddress = ctx.tensors[output].address;
  for (const TensorId id : opInputs(op)) {
    const QTensor& tensor = ctx.graph.tensors[id];
    if (tensor.zeroPoint != ctx.graph.tensors[output].zeroPoint ||
        tensor.scale != ctx.graph.tensors[output].scale) {
      fail(ErrorKind::Unsupported,
           "layer '{}': input '{}' does not share the output's scale and zero point (the NPU "
           "moves bytes without arithmetic here)",
           name, tensor.name);
    }
  }
  if (const auto* concat = std::get_if<QConcat>(&op)) {
    std::int64_t offset = 0;
    for (const TensorId id : concat->inputs) {
      const auto& in = ctx.graph.tensors[id].shape;
      const std::int64_t w = in[2], c = in[3];
      copyBands(ctx, name, channelWindow(ctx, id, 0, c),
                [&](std::int64_t sram, std::int64_t y, std::int64_t n) {
                  ctx.store(sram, channelBand(outputAddress, y, n, w, out[3], offset, c));
                });
      offset += c;
    }
    return;
  }
  if (const auto* slice = std::get_if<QSlice>(&op)) {
    const std::int64_t w = out[2], c = out[3];
    const auto& in = ctx.graph.tensors[slice->input].shape;
    const std::int64_t pixel = in[3], row = in[2] * in[3];
    const DdrBlock window{static_cast<std::int64_t>(ctx.tensors[slice->input].address) +
                              slice->rowBegin * row + slice->colBegin * pixel + slice->channelBegin,
                          out[1],
                          w,
                          c,
                          slice->rowStep * row,
                          slice->colStep * pixel};
    copyBands(ctx, name, window, [&](std::int64_t sram, std::int64_t y, std::int64_t n) {
      ctx.store(sram, flatBlock(outputAddress + static_cast<std::uint64_t>(y * w * c), n * w * c));
    });
    return;
  }
  if (const auto* shuffle = std::get_if<QShuffle>(&op)) {
    // Group g's channels (a channel slice) go to output channels g, g + groups, ...: one byte
    // per column, columns `groups` bytes apart, one row per pixel.
    const std::int64_t w = out[2], c = out[3], perGroup = c / shuffle->groups;
    for (std::int64_t g = 0; g < shuffle->groups; ++g) {
      copyBands(ctx, name, channelWindow(ctx, shuffle->input, g * perGroup, perGroup),
                [&](std::int64_t sram, std::int64_t y, std::int64_t n) {
                  if (n * w > isa::limits::kStoreRows) {
                    fail(ErrorKind::Unsupported,
                         "layer '{}': a band of {} pixels exceeds the {} rows of a STORE", name,
                         n * w, isa::limits::kStoreRows);
                  }
                  ctx.store(sram, {static_cast<std::int64_t>(outputAddress) + y * w * c + g, n * w,
                                   perGroup, 1, c, shuffle->groups});
                });
    }
    return;
  }
  const auto& upsample = std::get<QUpsample>(op);
  const auto& in = ctx.graph.tensors[upsample.input].shape;
  const std::int64_t w = in[2], c = in[3], fh = upsample.factorH, fw = upsample.factorW;
  const std::int64_t outW = w * fw;
  copyBands(ctx, name, channelWindow(ctx, upsample.input, 0, c),
            [&](std::int64_t sram, std::int64_t y, std::int64_t n) {
              for (std::int64_t dy = 0; dy < fh; ++dy) {
                for (std::int64_t dx = 0; dx < fw; ++dx) {
                  ctx.store(sram, {static_cast<std::int64_t>(outputAddress) +
                                       ((y * fh + dy) * outW + dx) * c,
                                   n, w, c, fh * outW * c, fw * c});
                }
              }
            });
}

}  // namespace npu::compiler
