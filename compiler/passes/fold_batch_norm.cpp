// The fold-batch-norm pass: Conv -> BatchNormalization becomes one Conv with rescaled weights.
#include "npu/compiler/passes/fold_batch_norm.h"

#include <cmath>

#include "npu/compiler/ir/op_params.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

/// The BatchNormalization reading node `convIndex`'s output, if it can be folded into it.
std::optional<std::size_t> foldableBatchNorm(const Graph& graph, const Uses& uses,
                                             std::size_t convIndex) {
  const Node& conv = graph.nodes()[convIndex];
  if (conv.op != OpKind::Conv || fusedActivation(conv).op != OpKind::Identity) {
    return std::nullopt;
  }
  ValueId out = conv.outputs.at(0);
  if (!uses.hasSingleUse(out)) {
    return std::nullopt;
  }
  std::size_t bnIndex = uses.consumers(out)[0];
  const Node& bn = graph.nodes()[bnIndex];
  if (bn.op != OpKind::BatchNormalization || bn.input(0) != out) {
    return std::nullopt;
  }
  if (constantData(graph, conv.input(1)) == nullptr ||
      (conv.input(2).valid() && constantData(graph, conv.input(2)) == nullptr)) {
    return std::nullopt;
  }
  for (std::size_t i = 1; i < 5; ++i) {
    if (constantData(graph, bn.input(i)) == nullptr) {
      return std::nullopt;
    }
  }
  // One gamma per output channel, dividing the weights: an empty conv (0 output channels) or
  // mismatched statistics stay unfolded (the fold divides by the channel count).
  const std::size_t channels = constantData(graph, bn.input(1))->size();
  const std::size_t weights = constantData(graph, conv.input(1))->size();
  if (channels == 0 || weights % channels != 0) {
    return std::nullopt;
  }
  return bnIndex;
}

void fold(Graph& graph, std::size_t convIndex, std::size_t bnIndex, std::vector<bool>& removed) {
  const Node& bn = graph.nodes()[bnIndex];
  std::span<const float> gamma = constantData(graph, bn.input(1))->floats();
  std::span<const float> beta = constantData(graph, bn.input(2))->floats();
  std::span<const float> mean = constantData(graph, bn.input(3))->floats();
  std::span<const float> var = constantData(graph, bn.input(4))->floats();
  float epsilon = bn.attributes.getFloat("epsilon", 1e-5F);

  const Node& conv = graph.nodes()[convIndex];
  const Value& w = graph.value(conv.input(1));
  std::span<const float> weights = w.data->floats();
  std::size_t channels = gamma.size();
  std::size_t perChannel = weights.size() / channels;
  const std::vector<float> bias = convBias(graph, conv);

  std::vector<float> newWeights(weights.size());
  std::vector<float> newBias(channels);
  for (std::size_t c = 0; c < channels; ++c) {
    // In double, so the folded graph tracks the unfolded one to float rounding.
    double scale = static_cast<double>(gamma[c]) /
                   std::sqrt(static_cast<double>(var[c]) + static_cast<double>(epsilon));
    for (std::size_t i = 0; i < perChannel; ++i) {
      std::size_t k = c * perChannel + i;
      newWeights[k] = static_cast<float>(static_cast<double>(weights[k]) * scale);
    }
    newBias[c] = static_cast<float>((static_cast<double>(bias[c]) - mean[c]) * scale + beta[c]);
  }
  replaceConvParameters(graph, convIndex, "bn", std::move(newWeights), std::move(newBias));
  absorbConsumer(graph, convIndex, bnIndex, removed);
}

}  // namespace

void foldBatchNorm(Graph& graph) {
  Uses uses(graph);
  std::vector<bool> removed(graph.nodes().size(), false);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    if (std::optional<std::size_t> bn = foldableBatchNorm(graph, uses, n)) {
      fold(graph, n, *bn, removed);
    }
  }
  graph.removeNodes(removed);
}

}  // namespace npu::compiler
