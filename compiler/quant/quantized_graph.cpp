// QuantizedGraph accessors and its golden execution.
#include "npu/compiler/quant/quantized_graph.h"

#include <fmt/format.h>

#include "npu/support/error.h"
#include "npu/support/overloaded.h"

namespace npu::compiler {

const std::string& opName(const QOp& op) {
  return std::visit([](const auto& typed) -> const std::string& { return typed.name; }, op);
}

std::vector<TensorId> opInputs(const QOp& op) {
  return std::visit(
      [](const auto& typed) -> std::vector<TensorId> {
        using T = std::decay_t<decltype(typed)>;
        if constexpr (std::is_same_v<T, QConcat>) {
          return typed.inputs;
        } else if constexpr (requires { typed.a; }) {
          return {typed.a, typed.b};
        } else {
          return {typed.input};
        }
      },
      op);
}

std::int64_t liveLinearTaps(const golden::LinearTap& tap) {
  return tap.i0 == tap.i1 || tap.w0 == 0 || tap.w1 == 0 ? 1 : 2;
}

golden::Conv2dInt8Params bytePlacingParams(std::int64_t channels, std::int32_t zeroPoint) {
  golden::Conv2dInt8Params params;
  params.inputZeroPoint = zeroPoint;
  params.bias.assign(static_cast<std::size_t>(channels), 0);
  params.multipliers.assign(static_cast<std::size_t>(channels), kUnitMultiplier);
  params.output.zeroPoint = zeroPoint;
  return params;
}

namespace {

/// How many NPU_OP rows name type T.
template <typename T>
constexpr int npuOpRowsOf() {
  int rows = 0;
#define NPU_OP(Op, name, Type, Family, anchor) rows += std::is_same_v<T, Type> ? 1 : 0;
#include "npu/compiler/target/npu_ops.def"
#undef NPU_OP
  return rows;
}

/// The first NPU_OP row naming type T.
template <typename T>
constexpr NpuOp firstNpuOpOf() {
#define NPU_OP(Op, name, Type, Family, anchor) \
  if constexpr (std::is_same_v<T, Type>) {     \
    return NpuOp::Op;                          \
  }
#include "npu/compiler/target/npu_ops.def"
#undef NPU_OP
  return NpuOp{};
}

// A type of several rows says which one by its kind.
NpuOp npuOpOfKind(const QReduce& op) {
  return op.kind == QReduce::Kind::Max ? NpuOp::ReduceMax : NpuOp::ReduceSum;
}

NpuOp npuOpOfKind(const QNorm& op) {
  switch (op.kind) {
    case QNorm::Kind::Softmax:
      return NpuOp::Softmax;
    case QNorm::Kind::LayerNorm:
      return NpuOp::LayerNorm;
    case QNorm::Kind::RmsNorm:
      return NpuOp::RmsNorm;
  }
  fail(ErrorKind::Internal, "layer '{}': a NORM of no known kind", op.name);
}

/// What kind of conv: a byte-placing one, depthwise, an FC (1x1 over a single pixel), grouped.
std::string convKindName(const QuantizedGraph& graph, const QConv& conv) {
  if (conv.movesBytes) {
    return "space_to_depth";
  }
  const auto& in = graph.tensors[conv.input].shape;
  if (conv.params.groups > 1 && conv.params.groups == in[3] && conv.weights.shape[3] == 1) {
    return "depthwise";
  }
  if (in[1] == 1 && in[2] == 1 && conv.weights.shape[1] == 1 && conv.weights.shape[2] == 1) {
    return "fc";
  }
  return conv.params.groups > 1 ? "grouped conv" : "conv";
}

}  // namespace

NpuOp npuOpOf(const QOp& op) {
  return std::visit(
      [](const auto& typed) {
        using T = std::decay_t<decltype(typed)>;
        static_assert(npuOpRowsOf<T>() > 0, "a QOp type without an NPU_OP row (npu_ops.def)");
        if constexpr (npuOpRowsOf<T>() == 1) {
          return firstNpuOpOf<T>();
        } else {
          return npuOpOfKind(typed);  // a type of several rows needs an npuOpOfKind overload
        }
      },
      op);
}

std::string opKindName(const QuantizedGraph& graph, const QOp& op) {
  if (const auto* conv = std::get_if<QConv>(&op)) {
    return convKindName(graph, *conv);
  }
  return std::string(npuOpName(npuOpOf(op)));
}

TensorId opOutput(const QOp& op) {
  return std::visit([](const auto& typed) { return typed.output; }, op);
}

namespace {

/// A QConcat on the golden values: along channels, or along rows with each input read as the
/// whole output rows its bytes hold (an input [1, H, W, C] of a reshape to [1, H x W, 1, C], or
/// the copy of an alias: [1, H, W, 1] as [1, 1, 1, H x W]).
golden::Int8Tensor concatenate(const QuantizedGraph& graph, const QConcat& concat,
                               const std::vector<golden::Int8Tensor>& values) {
  if (concat.axis != 1 && concat.axis != 3) {
    fail("concat axis {} is neither rows (1) nor channels (3)", concat.axis);
  }
  const std::vector<std::int64_t>& out = graph.tensors[concat.output].shape;
  std::vector<golden::Int8Tensor> rows;
  for (const TensorId id : concat.inputs) {
    const golden::Int8Tensor& x = values[id];
    if (concat.axis == 1) {
      const auto row = static_cast<std::size_t>(out[2] * out[3]);
      if (x.shape.size() != 4 || x.data.size() % row != 0) {
        fail("input '{}' does not hold whole rows of {} x {} bytes", graph.tensors[id].name, out[2],
             out[3]);
      }
      rows.push_back(golden::reshapeInt8(
          x, std::vector<std::int64_t>{1, static_cast<std::int64_t>(x.data.size() / row), out[2],
                                       out[3]}));
    } else {
      rows.push_back(x);
    }
  }
  std::vector<std::reference_wrapper<const golden::Int8Tensor>> parts(rows.begin(), rows.end());
  return golden::concatInt8(parts, concat.axis);
}

}  // namespace

GoldenGraphRunner::GoldenGraphRunner(const QuantizedGraph& graph)
    : m_graph(&graph), m_convs(graph.ops.size()) {
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    const auto* conv = std::get_if<QConv>(&graph.ops[i]);
    if (conv == nullptr || conv->input >= graph.tensors.size()) {
      continue;
    }
    try {
      m_convs[i].emplace(graph.tensors[conv->input].shape, conv->weights, conv->params);
    } catch (const Error&) {
      // Left to run(), which reports it with the op's name.
    }
  }
}

HeadMatMulGeometry matMulGeometry(const QuantizedGraph& graph, const QMatMul& op) {
  const auto& a = graph.tensors.at(op.a).shape;
  const auto& b = graph.tensors.at(op.b).shape;
  const auto& y = graph.tensors.at(op.output).shape;
  const auto elements = [](const std::vector<std::int64_t>& shape) {
    return golden::elementCount(shape);
  };
  if (op.geometry) {
    const HeadMatMulGeometry& g = *op.geometry;
    if (g.bRowsAreN != (op.params.layoutB == golden::MatMulLayout::NK)) {
      fail("layer '{}': the matmul's geometry and its b layout disagree", op.name);
    }
    checkHeadMatMulGeometry(g, elements(a), elements(b), elements(y));
    return g;
  }
  if (a.size() != 4 || b.size() != 4 || y.size() != 4) {
    fail("layer '{}': a matmul without a geometry needs [1, heads, rows, cols] tensors", op.name);
  }
  HeadMatMulGeometry g;
  g.heads = a[1];
  g.m = a[2];
  g.k = a[3];
  g.n = y[3];
  g.bRowsAreN = op.params.layoutB == golden::MatMulLayout::NK;
  const std::int64_t bRows = g.bRowsAreN ? g.n : g.k;
  const std::int64_t bCols = g.bRowsAreN ? g.k : g.n;
  if (b[1] != g.heads || b[2] != bRows || b[3] != bCols || y[1] != g.heads || y[2] != g.m) {
    fail("layer '{}': matmul shapes do not agree (a [{}, {}, {}], b [{}, {}, {}], y [{}, {}, {}])",
         op.name, a[1], a[2], a[3], b[1], b[2], b[3], y[1], y[2], y[3]);
  }
  g.a = MatrixView{0, g.m * g.k, g.k};
  g.b = MatrixView{0, bRows * bCols, bCols};
  g.y = MatrixView{0, g.m * g.n, g.n};
  return g;
}

namespace {

/// A matmul on the golden kernel: each head's matrices gathered from their views into planes,
/// the result scattered into the output's views.
golden::Int8Tensor runMatMul(const QuantizedGraph& graph, const QMatMul& op,
                             const golden::Int8Tensor& a, const golden::Int8Tensor& b) {
  if (!op.geometry) {
    return golden::matMulInt8(a, b, op.params);
  }
  const HeadMatMulGeometry g = matMulGeometry(graph, op);
  const std::int64_t bRows = g.bRowsAreN ? g.n : g.k;
  const std::int64_t bCols = g.bRowsAreN ? g.k : g.n;
  golden::Int8Tensor aPlanes{{1, g.heads, g.m, g.k},
                             gatherPlanes<std::int8_t>(a.data, g.a, g.heads, g.m, g.k)};
  golden::Int8Tensor bPlanes{{1, g.heads, bRows, bCols},
                             gatherPlanes<std::int8_t>(b.data, g.b, g.heads, bRows, bCols)};
  const golden::Int8Tensor planes = golden::matMulInt8(aPlanes, bPlanes, op.params);
  golden::Int8Tensor y;
  y.shape = graph.tensors[op.output].shape;
  y.data.assign(static_cast<std::size_t>(golden::elementCount(y.shape)), 0);
  scatterPlanes<std::int8_t>(planes.data, g.y, g.heads, g.m, g.n, y.data);
  return y;
}

}  // namespace

std::vector<golden::Int8Tensor> runQuantizedGraphGolden(
    const QuantizedGraph& graph, const std::vector<golden::Int8Tensor>& inputs) {
  return GoldenGraphRunner(graph).run(inputs);
}

std::vector<golden::Int8Tensor> GoldenGraphRunner::run(
    const std::vector<golden::Int8Tensor>& inputs) const {
  const QuantizedGraph& graph = *m_graph;
  if (inputs.size() != graph.inputs.size()) {
    fail("quantized graph has {} inputs, {} given", graph.inputs.size(), inputs.size());
  }
  std::vector<golden::Int8Tensor> values(graph.tensors.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    values[graph.inputs[i]] = inputs[i];
  }
  for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
    if (graph.tensors[t].data) {
      values[t] = golden::Int8Tensor{graph.tensors[t].shape, *graph.tensors[t].data};
    }
  }
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    const QOp& op = graph.ops[i];
    try {
      const TensorId out = opOutput(op);
      // One lambda per op type: an op without its golden kernel does not compile.
      values[out] = std::visit(
          Overloaded{
              [&](const QConv& conv) {
                const golden::Int8Tensor& x = values[conv.input];
                return m_convs[i] && m_convs[i]->inputShape() == x.shape
                           ? m_convs[i]->run(x)
                           : golden::conv2dInt8(x, conv.weights, conv.params);
              },
              [&](const QAdd& add) {
                return golden::addInt8(values[add.a], values[add.b], add.params);
              },
              [&](const QSub& sub) {
                return golden::subInt8(values[sub.a], values[sub.b], sub.params);
              },
              [&](const QMul& mul) {
                return golden::mulInt8(values[mul.a], values[mul.b], mul.params);
              },
              [&](const QMaxPool& pool) {
                return golden::maxPoolInt8(values[pool.input], pool.params);
              },
              [&](const QAvgPool& pool) {
                return golden::averagePoolInt8(values[pool.input], pool.params,
                                               graph.tensors[pool.input].zeroPoint);
              },
              [&](const QGlobalAvgPool& pool) {
                return golden::globalAveragePoolInt8(values[pool.input]);
              },
              [&](const QConcat& concat) { return concatenate(graph, concat, values); },
              [&](const QSlice& slice) {
                const auto& shape = graph.tensors[out].shape;  // NHWC
                golden::Int8Tensor rows = golden::sliceInt8(values[slice.input], 1, slice.rowBegin,
                                                            shape[1], slice.rowStep);
                golden::Int8Tensor cols =
                    golden::sliceInt8(rows, 2, slice.colBegin, shape[2], slice.colStep);
                return golden::sliceInt8(cols, 3, slice.channelBegin, shape[3]);
              },
              [&](const QShuffle& shuffle) {
                return golden::shuffleChannelsInt8(values[shuffle.input], shuffle.groups);
              },
              [&](const QUpsample& upsample) {
                return golden::upsampleNearestInt8(values[upsample.input], upsample.factorH,
                                                   upsample.factorW);
              },
              [&](const QLut& lut) { return golden::applyLut(values[lut.input], lut.lut); },
              [&](const QMatMul& matmul) {
                return runMatMul(graph, matmul, values[matmul.a], values[matmul.b]);
              },
              [&](const QResizeLinear& resize) {
                return golden::resizeLinearAxisInt8(values[resize.input], resize.params);
              },
              [&](const QReduce& reduce) {
                return reduce.kind == QReduce::Kind::Max
                           ? golden::reduceMaxLastAxisInt8(values[reduce.input])
                           : golden::reduceSumLastAxisInt8(values[reduce.input], reduce.params);
              },
              [&](const QNorm& norm) {
                switch (norm.kind) {
                  case QNorm::Kind::Softmax:
                    return golden::softmaxRowsInt8(values[norm.input], norm.softmax);
                  case QNorm::Kind::LayerNorm:
                    return golden::layerNormRowsInt8(values[norm.input], norm.layerNorm);
                  case QNorm::Kind::RmsNorm:
                    return golden::rmsNormRowsInt8(values[norm.input], norm.layerNorm);
                }
                fail(ErrorKind::Internal, "layer '{}': a NORM of no known kind", norm.name);
              },
          },
          op);
    } catch (const Error& e) {
      fail("layer '{}': {}", opName(op), e.what());
    }
  }
  return values;
}

}  // namespace npu::compiler
