// The fold-conv-affine pass: Conv -> per-channel Mul/Div/Add/Sub becomes one Conv.
#include "npu/compiler/passes/fold_conv_affine.h"

#include <algorithm>

#include "npu/compiler/ir/op_params.h"
#include "npu/support/error.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

/// y = conv(x) * scale[c] + shift[c], as the reader of a conv output asks for it.
struct ChannelAffine {
  std::vector<float> scale;
  std::vector<float> shift;
};

std::optional<ChannelAffine> affineOf(const Graph& graph, const Node& reader, ValueId convOut,
                                      std::int64_t channels) {
  // An epilogue activation on the Mul/Add would be lost in the fold.
  if (reader.inputs.size() != 2 || reader.outputs.size() != 1 ||
      fusedActivation(reader).op != OpKind::Identity) {
    return std::nullopt;
  }
  bool convFirst = reader.input(0) == convOut;
  ValueId other = convFirst ? reader.input(1) : reader.input(0);
  if (other == convOut) {
    return std::nullopt;
  }
  std::optional<std::vector<float>> c = perChannelConstant(graph, other, channels);
  if (!c) {
    return std::nullopt;
  }
  ChannelAffine affine{std::vector<float>(c->size(), 1.0F), std::vector<float>(c->size(), 0.0F)};
  switch (reader.op) {
    case OpKind::Mul:
      affine.scale = *c;
      return affine;
    case OpKind::Add:
      affine.shift = *c;
      return affine;
    case OpKind::Div:
      if (!convFirst) {
        return std::nullopt;
      }
      for (std::size_t i = 0; i < c->size(); ++i) {
        affine.scale[i] = 1.0F / (*c)[i];
      }
      return affine;
    case OpKind::Sub:
      if (!convFirst) {
        return std::nullopt;
      }
      for (std::size_t i = 0; i < c->size(); ++i) {
        affine.shift[i] = -(*c)[i];
      }
      return affine;
    default:
      return std::nullopt;
  }
}

/// Folds the reader of conv `n`'s output into it; false when there is none to fold.
bool foldInto(Graph& graph, const Uses& uses, std::size_t n, std::vector<bool>& removed) {
  const Node& conv = graph.nodes()[n];
  if (conv.op != OpKind::Conv || fusedActivation(conv).op != OpKind::Identity ||
      constantData(graph, conv.input(1)) == nullptr ||
      (conv.input(2).valid() && constantData(graph, conv.input(2)) == nullptr)) {
    return false;
  }
  ValueId out = conv.outputs.at(0);
  if (!uses.hasSingleUse(out) || graph.isOutput(out)) {
    return false;
  }
  std::size_t readerIndex = uses.consumers(out)[0];
  const Value& w = graph.value(conv.input(1));
  std::int64_t channels = w.shape.at(0);
  std::optional<ChannelAffine> affine = affineOf(graph, graph.nodes()[readerIndex], out, channels);
  if (!affine) {
    return false;
  }
  std::span<const float> weights = w.data->floats();
  std::size_t perOutput = weights.size() / static_cast<std::size_t>(channels);
  std::vector<float> newWeights(weights.size());
  std::vector<float> newBias = convBias(graph, conv);
  if (newBias.size() != static_cast<std::size_t>(w.shape.at(0))) {
    return false;  // a bias of the wrong size: the conv's own checks name it
  }
  for (std::size_t c = 0; c < newBias.size(); ++c) {
    for (std::size_t i = 0; i < perOutput; ++i) {
      newWeights[c * perOutput + i] = weights[c * perOutput + i] * affine->scale[c];
    }
    newBias[c] = newBias[c] * affine->scale[c] + affine->shift[c];
  }
  replaceConvParameters(graph, n, "affine", std::move(newWeights), std::move(newBias));
  absorbConsumer(graph, n, readerIndex, removed);
  return true;
}

/// Whether conv node `index` can take an affine of its input `in` into its weights: constant
/// weights and bias, `in` its data input alone, and no padding (a padded border would read 0,
/// not the affine's shift).
bool takesInputAffine(const Graph& graph, std::size_t index, ValueId in) {
  const Node& conv = graph.nodes()[index];
  if (conv.op != OpKind::Conv || conv.input(0) != in || conv.input(1) == in ||
      conv.input(2) == in || constantData(graph, conv.input(1)) == nullptr ||
      (conv.input(2).valid() && constantData(graph, conv.input(2)) == nullptr)) {
    return false;
  }
  const Value& w = graph.value(conv.input(1));
  if (convBias(graph, conv).size() != static_cast<std::size_t>(w.shape.at(0))) {
    return false;  // a bias of the wrong size: the conv's own checks name it
  }
  try {
    return convParams(conv, graph.value(in).shape, w.shape).pads ==
           std::array<std::int64_t, 4>{0, 0, 0, 0};
  } catch (const Error&) {
    return false;
  }
}

/// conv(x * s + t) as one conv: w'[o, i, ...] = w[o, i, ...] * s[ci], b'[o] = b[o] +
/// sum w[o, i, ...] * t[ci], with ci the input channel that weight column i of output o's group
/// reads. The conv then reads x.
void foldInputAffine(Graph& graph, std::size_t index, const ChannelAffine& affine, ValueId x) {
  const Node& conv = graph.nodes()[index];
  const Value& w = graph.value(conv.input(1));
  const golden::Conv2dParams params = convParams(conv, graph.value(conv.input(0)).shape, w.shape);
  std::span<const float> weights = w.data->floats();
  const std::int64_t outputs = w.shape[0];
  const std::int64_t perGroupIn = w.shape[1];
  const std::int64_t taps = w.shape[2] * w.shape[3];
  const std::int64_t outputsPerGroup = outputs / params.group;
  std::vector<float> newWeights(weights.size());
  std::vector<float> newBias = convBias(graph, conv);
  for (std::int64_t o = 0; o < outputs; ++o) {
    double shift = 0.0;
    for (std::int64_t i = 0; i < perGroupIn; ++i) {
      const auto ci = static_cast<std::size_t>((o / outputsPerGroup) * perGroupIn + i);
      for (std::int64_t t = 0; t < taps; ++t) {
        const auto k = static_cast<std::size_t>((o * perGroupIn + i) * taps + t);
        newWeights[k] = weights[k] * affine.scale[ci];
        shift += static_cast<double>(weights[k]) * affine.shift[ci];
      }
    }
    newBias[static_cast<std::size_t>(o)] += static_cast<float>(shift);
  }
  replaceConvParameters(graph, index, "affine", std::move(newWeights), std::move(newBias));
  graph.nodes()[index].inputs[0] = x;
}

/// Folds per-channel Mul/Add node `p` into its readers when every one is a conv that can take
/// it (takesInputAffine): an RMSNorm's weight before the q, k and v projections, a single
/// BatchNorm before a 1x1 conv. Readers changed are flagged in `touched`; false when `p` stays.
bool foldIntoReaders(Graph& graph, const Uses& uses, std::size_t p, std::vector<bool>& removed,
                     std::vector<bool>& touched) {
  const Node& affineNode = graph.nodes()[p];
  if ((affineNode.op != OpKind::Mul && affineNode.op != OpKind::Add) ||
      affineNode.outputs.size() != 1 || graph.isOutput(affineNode.outputs[0])) {
    return false;
  }
  const ValueId out = affineNode.outputs[0];
  const Shape& shape = graph.value(out).shape;
  const auto readers = uses.consumers(out);
  if (shape.size() != 4 || readers.empty() ||
      !std::all_of(readers.begin(), readers.end(), [&](std::size_t r) {
        return !removed[r] && !touched[r] && takesInputAffine(graph, r, out);
      })) {
    return false;
  }
  // The affine's activation operand: whichever input is not the per-channel constant.
  std::optional<ChannelAffine> affine;
  ValueId x;
  for (std::size_t side = 0; side < 2 && !affine; ++side) {
    const ValueId candidate = affineNode.input(side);
    if (candidate.valid() && !graph.value(candidate).isConstant() &&
        graph.value(candidate).shape == shape) {
      affine = affineOf(graph, affineNode, candidate, shape[1]);
      x = candidate;
    }
  }
  if (!affine) {
    return false;
  }
  const std::vector<std::size_t> convs(readers.begin(), readers.end());
  for (const std::size_t r : convs) {
    foldInputAffine(graph, r, *affine, x);
    touched[r] = true;
  }
  removed[p] = true;
  return true;
}

}  // namespace

void foldConvAffine(Graph& graph) {
  bool changed = true;
  while (changed) {
    changed = false;
    Uses uses(graph);
    std::vector<bool> removed(graph.nodes().size(), false);
    // One fold per conv per sweep: the uses table is stale for what a fold changed.
    std::vector<bool> touched(graph.nodes().size(), false);
    for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
      if (removed[n] || touched[n]) {
        continue;
      }
      if (foldInto(graph, uses, n, removed)) {
        touched[n] = true;
        changed = true;
      } else if (foldIntoReaders(graph, uses, n, removed, touched)) {
        changed = true;
      }
    }
    graph.removeNodes(removed);
  }
}

}  // namespace npu::compiler
