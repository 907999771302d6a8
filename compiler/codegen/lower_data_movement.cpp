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

/// What a copy reads of its NHWC input: `rows` x `cols` pixels of `channels` consecutive
/// channels, the first at byte `offset` of the tensor, rows `rowStride` and columns `colStride`
/// bytes apart in DDR.
struct SourceWindow {
  std::int64_t offset = 0;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t channels = 0;
  std::int64_t rowStride = 0;
  std::int64_t colStride = 0;
};

/// Channels [begin, begin + count) of every pixel of `input`.
SourceWindow channelWindow(const LoweringContext& ctx, TensorId input, std::int64_t begin,
                           std::int64_t count) {
  const auto& shape = ctx.graph.tensors[input].shape;
  return {begin, shape[1], shape[2], count, shape[2] * shape[3], shape[3]};
}

/// Copies `window` of `input` band by band; `place` emits the stores of one band given the
/// output SRAM address, the first window row and the row count.
void copyBands(LoweringContext& ctx, const std::string& name, TensorId input,
               const SourceWindow& window,
               const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& place) {
  const std::int64_t h = window.rows, w = window.cols, c = window.channels;
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
    const std::uint64_t bandAddress =
        ctx.tensors[input].address +
        static_cast<std::uint64_t>(window.offset + y * window.rowStride);
    if (dense) {
      ctx.loadFlat(0, inputSram, bandAddress, n * w * c);
    } else {
      isa::Load load;
      load.buf = 0;
      load.sram_addr = inputSram;
      load.ddr_addr = static_cast<std::int64_t>(bandAddress);
      load.y_size = n;
      load.x_size = w;
      load.c_bytes = c;
      load.ddr_row_stride = window.rowStride;
      load.ddr_col_stride = window.colStride;
      ctx.emit(load);
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
      copyBands(ctx, name, id, channelWindow(ctx, id, 0, c),
                [&](std::int64_t sram, std::int64_t y, std::int64_t n) {
                  isa::Store store;
                  store.sram_addr = sram;
                  store.ddr_addr =
                      static_cast<std::int64_t>(outputAddress) + y * w * out[3] + offset;
                  store.y_size = n;
                  store.x_size = w;
                  store.c_bytes = c;
                  store.ddr_row_stride = w * out[3];
                  store.ddr_col_stride = out[3];
                  ctx.emit(store);
                });
      offset += c;
    }
    return;
  }
  if (const auto* slice = std::get_if<QSlice>(&op)) {
    const std::int64_t w = out[2], c = out[3];
    const auto& in = ctx.graph.tensors[slice->input].shape;
    const std::int64_t pixel = in[3], row = in[2] * in[3];
    const SourceWindow window{slice->rowBegin * row + slice->colBegin * pixel + slice->channelBegin,
                              out[1],
                              w,
                              c,
                              slice->rowStep * row,
                              slice->colStep * pixel};
    copyBands(ctx, name, slice->input, window,
              [&](std::int64_t sram, std::int64_t y, std::int64_t n) {
                isa::Store store;
                store.sram_addr = sram;
                store.ddr_addr = static_cast<std::int64_t>(outputAddress) + y * w * c;
                store.y_size = 1;
                store.x_size = 1;
                store.c_bytes = n * w * c;
                ctx.emit(store);
              });
    return;
  }
  if (const auto* shuffle = std::get_if<QShuffle>(&op)) {
    // Group g's channels (a channel slice) go to output channels g, g + groups, ...: one byte
    // per column, columns `groups` bytes apart, one row per pixel.
    const std::int64_t w = out[2], c = out[3], perGroup = c / shuffle->groups;
    for (std::int64_t g = 0; g < shuffle->groups; ++g) {
      copyBands(ctx, name, shuffle->input,
                channelWindow(ctx, shuffle->input, g * perGroup, perGroup),
                [&](std::int64_t sram, std::int64_t y, std::int64_t n) {
                  if (n * w > isa::limits::kStoreRows) {
                    fail(ErrorKind::Unsupported,
                         "layer '{}': a band of {} pixels exceeds the {} rows of a STORE", name,
                         n * w, isa::limits::kStoreRows);
                  }
                  isa::Store store;
                  store.sram_addr = sram;
                  store.ddr_addr = static_cast<std::int64_t>(outputAddress) + y * w * c + g;
                  store.y_size = n * w;
                  store.x_size = perGroup;
                  store.c_bytes = 1;
                  store.ddr_row_stride = c;
                  store.ddr_col_stride = shuffle->groups;
                  ctx.emit(store);
                });
    }
    return;
  }
  const auto& upsample = std::get<QUpsample>(op);
  const auto& in = ctx.graph.tensors[upsample.input].shape;
  const std::int64_t w = in[2], c = in[3], fh = upsample.factorH, fw = upsample.factorW;
  const std::int64_t outW = w * fw;
  copyBands(ctx, name, upsample.input, channelWindow(ctx, upsample.input, 0, c),
            [&](std::int64_t sram, std::int64_t y, std::int64_t n) {
              for (std::int64_t dy = 0; dy < fh; ++dy) {
                for (std::int64_t dx = 0; dx < fw; ++dx) {
                  isa::Store store;
                  store.sram_addr = sram;
                  store.ddr_addr =
                      static_cast<std::int64_t>(outputAddress) + ((y * fh + dy) * outW + dx) * c;
                  store.y_size = n;
                  store.x_size = w;
                  store.c_bytes = c;
                  store.ddr_row_stride = fh * outW * c;
                  store.ddr_col_stride = fw * c;
                  ctx.emit(store);
                }
              }
            });
}

}  // namespace npu::compiler
