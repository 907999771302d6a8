// Row reductions along the last axis lowered onto existing instructions (docs/isa.md "Row
// reductions"): the row sum is a 1x1 CONV whose one output channel has all-ones weights (the MAC
// array sums in int32 with the zero point subtracted, then requant and output stage); the row
// max is a max POOL over the tensor viewed as [1, rows, C, 1], a 1 x C window per row.
#include <fmt/format.h>

#include "lowering.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

void lowerRowSum(LoweringContext& ctx, const QReduce& op, std::int64_t length) {
  QConv conv;
  conv.name = op.name;
  conv.input = op.input;
  conv.output = op.output;
  conv.weights.shape = {1, 1, 1, length};
  conv.weights.data.assign(static_cast<std::size_t>(length), 1);
  conv.params.inputZeroPoint = op.params.inputZeroPoint;
  conv.params.bias = {0};
  conv.params.multipliers = {op.params.multiplier};
  conv.params.output = op.params.output;
  lowerConv(ctx, conv);
}

void lowerRowMax(LoweringContext& ctx, const QReduce& op, std::int64_t rows, std::int64_t length) {
  if (length > isa::limits::kPoolWindowW) {
    fail(ErrorKind::Unsupported,
         "layer '{}': a row max over {} values exceeds POOL's {}-wide window", op.name, length,
         isa::limits::kPoolWindowW);
  }
  // The same bytes under another shape: a view graph of two tensors at the real placements.
  QuantizedGraph view;
  const QTensor& in = ctx.graph.tensors[op.input];
  const QTensor& out = ctx.graph.tensors[op.output];
  view.tensors = {QTensor{in.name, {1, rows, length, 1}, in.scale, in.zeroPoint},
                  QTensor{out.name, {1, rows, 1, 1}, out.scale, out.zeroPoint}};
  const std::vector<TensorPlacement> places{ctx.tensors[op.input], ctx.tensors[op.output]};
  const ShufflePlans noShuffles = planShuffles(view, ctx.config);  // the view has no ops
  LoweringContext viewCtx{ctx.config,    view,      places,     ctx.emitter,
                          ctx.constants, ctx.slots, noShuffles, ctx.op};
  golden::PoolInt8Params pool;
  pool.kernel = {1, length};
  pool.strides = {1, 1};
  lowerPool(viewCtx, QMaxPool{op.name, 0, 1, pool});
}

}  // namespace

void lowerReduce(LoweringContext& ctx, const QReduce& op) {
  const auto& shape = ctx.graph.tensors[op.input].shape;
  const std::int64_t length = shape[3];
  if (ctx.graph.tensors[op.output].shape != std::vector<std::int64_t>{1, shape[1], shape[2], 1}) {
    fail("layer '{}': a row reduction writes [1, H, W, 1]", op.name);
  }
  if (op.kind == QReduce::Kind::Sum) {
    lowerRowSum(ctx, op, length);
  } else {
    lowerRowMax(ctx, op, shape[1] * shape[2], length);
  }
}

}  // namespace npu::compiler
