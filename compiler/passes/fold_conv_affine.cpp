// The fold-conv-affine pass: Conv -> per-channel Mul/Div/Add/Sub becomes one Conv.
#include "npu/compiler/passes/fold_conv_affine.h"

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

/// Folds the per-channel Mul/Add producing conv `n`'s input into it when the conv pads nothing
/// (a padded border would read 0, not the affine's shift); false when there is none to fold.
bool foldFromProducer(Graph& graph, const Uses& uses, std::size_t n, std::vector<bool>& removed) {
  const Node& conv = graph.nodes()[n];
  if (conv.op != OpKind::Conv || constantData(graph, conv.input(1)) == nullptr ||
      (conv.input(2).valid() && constantData(graph, conv.input(2)) == nullptr)) {
    return false;
  }
  ValueId in = conv.input(0);
  std::optional<std::size_t> producer = uses.producer(in);
  if (!producer || removed[*producer] || !uses.hasSingleUse(in) || graph.isOutput(in)) {
    return false;
  }
  const Node& affineNode = graph.nodes()[*producer];
  const Value& w = graph.value(conv.input(1));
  const Shape& inShape = graph.value(in).shape;
  golden::Conv2dParams params;
  try {
    params = convParams(conv, inShape, w.shape);
  } catch (const Error&) {
    return false;
  }
  if (params.pads != std::array<std::int64_t, 4>{0, 0, 0, 0} || inShape.size() != 4 ||
      affineNode.op == OpKind::Div || affineNode.op == OpKind::Sub) {
    return false;
  }
  // The affine's activation operand: whichever input is not the per-channel constant.
  std::int64_t channels = inShape[1];
  std::optional<ChannelAffine> affine;
  ValueId x;
  for (std::size_t side = 0; side < 2 && !affine; ++side) {
    ValueId candidate = affineNode.input(side);
    if (candidate.valid() && !graph.value(candidate).isConstant() &&
        graph.value(candidate).shape == inShape) {
      affine = affineOf(graph, affineNode, candidate, channels);
      x = candidate;
    }
  }
  if (!affine) {
    return false;
  }
  // conv(x * s + t): w'[o, i, ...] = w[o, i, ...] * s[ci], b'[o] = b[o] + sum w[o, i, ...] * t[ci]
  // with ci the input channel that weight column i of output o's group reads.
  std::span<const float> weights = w.data->floats();
  std::int64_t outputs = w.shape[0];
  std::int64_t perGroupIn = w.shape[1];
  std::int64_t taps = w.shape[2] * w.shape[3];
  std::int64_t outputsPerGroup = outputs / params.group;
  std::vector<float> newWeights(weights.size());
  std::vector<float> newBias = convBias(graph, conv);
  if (newBias.size() != static_cast<std::size_t>(w.shape.at(0))) {
    return false;  // a bias of the wrong size: the conv's own checks name it
  }
  for (std::int64_t o = 0; o < outputs; ++o) {
    double shift = 0.0;
    for (std::int64_t i = 0; i < perGroupIn; ++i) {
      std::size_t ci = static_cast<std::size_t>((o / outputsPerGroup) * perGroupIn + i);
      for (std::int64_t t = 0; t < taps; ++t) {
        std::size_t k = static_cast<std::size_t>((o * perGroupIn + i) * taps + t);
        newWeights[k] = weights[k] * affine->scale[ci];
        shift += static_cast<double>(weights[k]) * affine->shift[ci];
      }
    }
    newBias[static_cast<std::size_t>(o)] += static_cast<float>(shift);
  }
  replaceConvParameters(graph, n, "affine", std::move(newWeights), std::move(newBias));
  graph.nodes()[n].inputs[0] = x;
  removed[*producer] = true;
  return true;
}

}  // namespace

void foldConvAffine(Graph& graph) {
  bool changed = true;
  while (changed) {
    changed = false;
    Uses uses(graph);
    std::vector<bool> removed(graph.nodes().size(), false);
    for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
      // One fold per conv per sweep: the uses table is stale for its new output.
      if (!removed[n] &&
          (foldInto(graph, uses, n, removed) || foldFromProducer(graph, uses, n, removed))) {
        changed = true;
      }
    }
    graph.removeNodes(removed);
  }
}

}  // namespace npu::compiler
