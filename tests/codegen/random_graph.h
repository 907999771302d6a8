// Random small quantized graphs for codegen tests: chains and branches of every NPU op with
// random shapes, strides, dilations, paddings, groups and quantization parameters.
#pragma once

#include <cmath>
#include <random>

#include "npu/compiler/quant/quantized_graph.h"

namespace npu::compiler::testing {

class RandomGraphBuilder {
 public:
  explicit RandomGraphBuilder(std::uint64_t seed) : m_rng(seed) {}

  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(m_rng);
  }
  double real(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(m_rng);
  }

  TensorId tensor(std::int64_t h, std::int64_t w, std::int64_t c, double scale, std::int32_t zp) {
    QTensor t;
    t.name = "t" + std::to_string(m_graph.tensors.size());
    t.shape = {1, h, w, c};
    t.scale = scale;
    t.zeroPoint = zp;
    m_graph.tensors.push_back(t);
    return m_graph.tensors.size() - 1;
  }

  TensorId input(std::int64_t h, std::int64_t w, std::int64_t c) {
    const TensorId id = tensor(h, w, c, real(0.01, 0.1), static_cast<std::int32_t>(pick(-20, 20)));
    m_graph.inputs.push_back(id);
    return id;
  }

  const QTensor& at(TensorId id) const { return m_graph.tensors[id]; }

  golden::OutputStage stage(std::int32_t zp, bool relu) {
    golden::OutputStage s;
    s.zeroPoint = zp;
    s.clipLo = relu ? std::max(-128, zp) : -128;
    s.clipHi = 127;
    s.rounding = pick(0, 3) == 0 ? golden::Rounding::Double : golden::Rounding::Single;
    if (pick(0, 5) == 0) {
      golden::Lut lut{};
      for (auto& v : lut) {
        v = static_cast<std::int8_t>(pick(-128, 127));
      }
      s.lut = lut;
    }
    return s;
  }

  /// Conv with `k` outputs; kind 0 dense, 1 depthwise, 2 grouped (2 groups).
  TensorId conv(TensorId x, std::int64_t k, int kind, std::int64_t kh, std::int64_t stride,
                std::int64_t dilation, std::int64_t pad) {
    const QTensor in = at(x);
    const std::int64_t c = in.shape[3];
    QConv op;
    op.name = "conv" + std::to_string(m_graph.ops.size());
    op.input = x;
    std::int64_t groups = 1;
    if (kind == 1) {
      groups = c;
      k = c;
    } else if (kind == 2 && c % 2 == 0 && k % 2 == 0) {
      groups = 2;
    }
    const std::int64_t cg = c / groups;
    op.weights.shape = {k, kh, kh, cg};
    for (std::int64_t i = 0; i < k * kh * kh * cg; ++i) {
      op.weights.data.push_back(static_cast<std::int8_t>(pick(-127, 127)));
    }
    op.params.strides = {stride, stride};
    op.params.dilations = {dilation, dilation};
    op.params.pads = {pad, pad, pad, pad};
    op.params.groups = groups;
    op.params.inputZeroPoint = in.zeroPoint;
    std::vector<float> weightScales;
    for (std::int64_t o = 0; o < k; ++o) {
      weightScales.push_back(static_cast<float>(real(0.002, 0.02)));
      op.params.bias.push_back(static_cast<std::int32_t>(pick(-3000, 3000)));
    }
    const std::int64_t effective = (kh - 1) * dilation + 1;
    const std::int64_t oh = (in.shape[1] + 2 * pad - effective) / stride + 1;
    const std::int64_t ow = (in.shape[2] + 2 * pad - effective) / stride + 1;
    const double outScale =
        in.scale * 0.01 * std::sqrt(static_cast<double>(cg * kh * kh)) * real(0.5, 2.0);
    const TensorId out = tensor(oh, ow, k, outScale, static_cast<std::int32_t>(pick(-30, 30)));
    op.output = out;
    op.params.multipliers = golden::convMultipliers(static_cast<float>(in.scale), weightScales,
                                                    static_cast<float>(outScale));
    op.params.output = stage(at(out).zeroPoint, pick(0, 1) == 1);
    m_graph.ops.emplace_back(op);
    return out;
  }

  TensorId add(TensorId a, TensorId b) {
    QAdd op;
    op.name = "add" + std::to_string(m_graph.ops.size());
    op.a = a;
    op.b = b;
    const QTensor& ta = at(a);
    const TensorId out = tensor(ta.shape[1], ta.shape[2], ta.shape[3], ta.scale * real(1.0, 2.0),
                                static_cast<std::int32_t>(pick(-10, 10)));
    op.output = out;
    op.params = golden::makeAddParams({static_cast<float>(at(a).scale), at(a).zeroPoint},
                                      {static_cast<float>(at(b).scale), at(b).zeroPoint},
                                      {static_cast<float>(at(out).scale), at(out).zeroPoint});
    op.params.output = stage(at(out).zeroPoint, pick(0, 1) == 1);
    m_graph.ops.emplace_back(op);
    return out;
  }

  TensorId mul(TensorId a, TensorId b) {
    QMul op;
    op.name = "mul" + std::to_string(m_graph.ops.size());
    op.a = a;
    op.b = b;
    const QTensor& ta = at(a);
    const TensorId out =
        tensor(ta.shape[1], ta.shape[2], ta.shape[3], ta.scale * at(b).scale * real(20.0, 60.0),
               static_cast<std::int32_t>(pick(-10, 10)));
    op.output = out;
    op.params = golden::makeMulParams({static_cast<float>(at(a).scale), at(a).zeroPoint},
                                      {static_cast<float>(at(b).scale), at(b).zeroPoint},
                                      {static_cast<float>(at(out).scale), at(out).zeroPoint});
    op.params.output = stage(at(out).zeroPoint, false);
    m_graph.ops.emplace_back(op);
    return out;
  }

  TensorId pool(TensorId x, bool average, std::int64_t k, std::int64_t stride, std::int64_t pad) {
    const QTensor in = at(x);
    golden::PoolInt8Params p;
    p.kernel = {k, k};
    p.strides = {stride, stride};
    p.pads = {pad, pad, pad, pad};
    const std::int64_t oh = (in.shape[1] + 2 * pad - k) / stride + 1;
    const std::int64_t ow = (in.shape[2] + 2 * pad - k) / stride + 1;
    const TensorId out = tensor(oh, ow, in.shape[3], in.scale, in.zeroPoint);
    if (average) {
      m_graph.ops.emplace_back(QAvgPool{"avgpool" + std::to_string(m_graph.ops.size()), x, out, p});
    } else {
      m_graph.ops.emplace_back(QMaxPool{"maxpool" + std::to_string(m_graph.ops.size()), x, out, p});
    }
    return out;
  }

  TensorId globalPool(TensorId x) {
    const QTensor in = at(x);
    const TensorId out = tensor(1, 1, in.shape[3], in.scale, in.zeroPoint);
    m_graph.ops.emplace_back(QGlobalAvgPool{"gap" + std::to_string(m_graph.ops.size()), x, out});
    return out;
  }

  /// Concat of `parts`, which must already share scale and zero point.
  TensorId concat(const std::vector<TensorId>& parts) {
    std::int64_t c = 0;
    for (const TensorId p : parts) {
      c += at(p).shape[3];
    }
    const QTensor first = at(parts[0]);
    const TensorId out = tensor(first.shape[1], first.shape[2], c, first.scale, first.zeroPoint);
    m_graph.ops.emplace_back(QConcat{"concat" + std::to_string(m_graph.ops.size()), parts, out});
    return out;
  }

  /// Channels [begin, begin + count) of `x` (a channel slice; shared scale and zero point).
  TensorId slice(TensorId x, std::int64_t begin, std::int64_t count) {
    const QTensor in = at(x);
    const TensorId out = tensor(in.shape[1], in.shape[2], count, in.scale, in.zeroPoint);
    QSlice op;
    op.name = "slice" + std::to_string(m_graph.ops.size());
    op.input = x;
    op.output = out;
    op.channelBegin = begin;
    m_graph.ops.emplace_back(op);
    return out;
  }

  /// The channel shuffle of `x` in `groups` groups (shared scale and zero point).
  TensorId shuffle(TensorId x, std::int64_t groups) {
    const QTensor in = at(x);
    const TensorId out = tensor(in.shape[1], in.shape[2], in.shape[3], in.scale, in.zeroPoint);
    m_graph.ops.emplace_back(
        QShuffle{"shuffle" + std::to_string(m_graph.ops.size()), x, out, groups});
    return out;
  }

  TensorId upsample(TensorId x, std::int64_t fh, std::int64_t fw) {
    const QTensor in = at(x);
    const TensorId out =
        tensor(in.shape[1] * fh, in.shape[2] * fw, in.shape[3], in.scale, in.zeroPoint);
    m_graph.ops.emplace_back(
        QUpsample{"upsample" + std::to_string(m_graph.ops.size()), x, out, fh, fw});
    return out;
  }

  /// Linear resize of `x` along `axis` (1 rows, 2 columns) to `length` positions under
  /// `transform`, into a tensor of its own scale and zero point.
  TensorId resizeLinear(TensorId x, std::int64_t axis, std::int64_t length,
                        golden::CoordinateTransform transform) {
    const QTensor in = at(x);
    std::vector<std::int64_t> shape = in.shape;
    shape[static_cast<std::size_t>(axis)] = length;
    const TensorId out = tensor(shape[1], shape[2], shape[3], in.scale * real(0.8, 1.3),
                                static_cast<std::int32_t>(pick(-20, 20)));
    QResizeLinear op;
    op.name = "resize" + std::to_string(m_graph.ops.size());
    op.input = x;
    op.output = out;
    op.params.axis = axis;
    const std::int64_t from = in.shape[static_cast<std::size_t>(axis)];
    op.params.taps = golden::linearResizeTaps(
        from, length, static_cast<float>(length) / static_cast<float>(from), transform);
    op.params.inputZeroPoint = in.zeroPoint;
    op.params.multiplier =
        golden::quantizeMultiplier(in.scale / (golden::kLinearWeightOne * at(out).scale));
    op.params.output = stage(at(out).zeroPoint, pick(0, 3) == 0);
    m_graph.ops.emplace_back(op);
    return out;
  }

  TensorId lut(TensorId x) {
    const QTensor in = at(x);
    const TensorId out = tensor(in.shape[1], in.shape[2], in.shape[3], in.scale, in.zeroPoint);
    QLut op;
    op.name = "lut" + std::to_string(m_graph.ops.size());
    op.input = x;
    op.output = out;
    for (auto& v : op.lut) {
      v = static_cast<std::int8_t>(pick(-128, 127));
    }
    m_graph.ops.emplace_back(op);
    return out;
  }

  /// Retags a tensor's quantization (for concat inputs that the quantizer would align).
  void align(TensorId id, const QTensor& like) {
    m_graph.tensors[id].scale = like.scale;
    m_graph.tensors[id].zeroPoint = like.zeroPoint;
  }

  QuantizedGraph& graph() { return m_graph; }

  std::vector<golden::Int8Tensor> randomInputs() {
    std::vector<golden::Int8Tensor> inputs;
    for (const TensorId id : m_graph.inputs) {
      golden::Int8Tensor t;
      t.shape = at(id).shape;
      std::int64_t n = 1;
      for (const auto d : t.shape) {
        n *= d;
      }
      for (std::int64_t i = 0; i < n; ++i) {
        t.data.push_back(static_cast<std::int8_t>(pick(-128, 127)));
      }
      inputs.push_back(t);
    }
    return inputs;
  }

 private:
  std::mt19937_64 m_rng;
  QuantizedGraph m_graph;
};

}  // namespace npu::compiler::testing
