// First-layer im2col at the input border (see input_im2col.h).
#include "npu/compiler/codegen/input_im2col.h"

#include <algorithm>

#include "npu/support/error.h"

namespace npu::compiler {

namespace {

std::int64_t outputSize(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d,
                        std::int64_t before, std::int64_t after) {
  return (in + before + after - d * (k - 1) - 1) / s + 1;
}

/// How many ops read tensor `id`.
std::size_t readers(const QuantizedGraph& graph, TensorId id) {
  std::size_t n = 0;
  for (const QOp& op : graph.ops) {
    const std::vector<TensorId> in = opInputs(op);
    n += static_cast<std::size_t>(std::count(in.begin(), in.end(), id));
  }
  n += static_cast<std::size_t>(std::count(graph.outputs.begin(), graph.outputs.end(), id));
  return n;
}

}  // namespace

std::vector<std::optional<InputIm2col>> im2colGraphInputs(QuantizedGraph& graph) {
  std::vector<std::optional<InputIm2col>> result(graph.inputs.size());
  for (std::size_t i = 0; i < graph.inputs.size(); ++i) {
    const TensorId input = graph.inputs[i];
    if (readers(graph, input) != 1) {
      continue;
    }
    for (QOp& op : graph.ops) {
      auto* conv = std::get_if<QConv>(&op);
      if (conv == nullptr || conv->input != input) {
        continue;
      }
      std::vector<std::int64_t>& shape = graph.tensors[input].shape;
      const std::int64_t channels = shape[3];
      const auto& w = conv->weights.shape;  // OHWI
      const std::int64_t columns = w[1] * w[2] * channels;
      if (!im2colCandidate(channels, w[1], w[2], conv->params.strides, conv->params.dilations,
                           conv->params.pads, conv->params.groups)) {
        break;
      }
      InputIm2col p;
      p.kernel = {w[1], w[2]};
      p.strides = conv->params.strides;
      p.dilations = conv->params.dilations;
      p.pads = conv->params.pads;
      p.zeroPoint = conv->params.inputZeroPoint;
      const std::int64_t oh =
          outputSize(shape[1], p.kernel[0], p.strides[0], p.dilations[0], p.pads[0], p.pads[2]);
      const std::int64_t ow =
          outputSize(shape[2], p.kernel[1], p.strides[1], p.dilations[1], p.pads[1], p.pads[3]);
      // OHWI [M, kH, kW, C] and [M, 1, 1, kH*kW*C] are the same bytes: the window order of
      // im2colInput is the weights' (kh, kw, c) order.
      conv->weights.shape = {w[0], 1, 1, columns};
      conv->params.strides = {1, 1};
      conv->params.dilations = {1, 1};
      conv->params.pads = {0, 0, 0, 0};
      shape = {1, oh, ow, columns};
      result[i] = p;
      break;
    }
  }
  return result;
}

golden::Int8Tensor im2colInput(const golden::Int8Tensor& x, const InputIm2col& p) {
  if (x.shape.size() != 4 || x.shape[0] != 1) {
    fail("im2col: the input must be NHWC with batch 1");
  }
  const std::int64_t h = x.shape[1];
  const std::int64_t w = x.shape[2];
  const std::int64_t c = x.shape[3];
  const std::int64_t oh =
      outputSize(h, p.kernel[0], p.strides[0], p.dilations[0], p.pads[0], p.pads[2]);
  const std::int64_t ow =
      outputSize(w, p.kernel[1], p.strides[1], p.dilations[1], p.pads[1], p.pads[3]);
  const std::int64_t columns = p.kernel[0] * p.kernel[1] * c;
  golden::Int8Tensor out;
  out.shape = {1, oh, ow, columns};
  out.data.assign(static_cast<std::size_t>(oh * ow * columns),
                  static_cast<std::int8_t>(p.zeroPoint));
  for (std::int64_t y = 0; y < oh; ++y) {
    for (std::int64_t xo = 0; xo < ow; ++xo) {
      std::int8_t* pixel = &out.data[static_cast<std::size_t>((y * ow + xo) * columns)];
      for (std::int64_t kh = 0; kh < p.kernel[0]; ++kh) {
        const std::int64_t iy = y * p.strides[0] + kh * p.dilations[0] - p.pads[0];
        if (iy < 0 || iy >= h) {
          continue;
        }
        for (std::int64_t kw = 0; kw < p.kernel[1]; ++kw) {
          const std::int64_t ix = xo * p.strides[1] + kw * p.dilations[1] - p.pads[1];
          if (ix < 0 || ix >= w) {
            continue;
          }
          std::copy_n(&x.data[static_cast<std::size_t>((iy * w + ix) * c)], c,
                      pixel + (kh * p.kernel[1] + kw) * c);
        }
      }
    }
  }
  return out;
}

}  // namespace npu::compiler
