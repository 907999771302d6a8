// Private to the passes: small graph-editing helpers shared by the rewrites.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "npu/compiler/ir/index_eval.h"

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// The constant data of `id`, or nullptr when it is omitted or not a constant.
const TensorData* constantData(const Graph& graph, ValueId id);

/// The per-channel values of f32 constant `id` for a [N, C, H, W] tensor of `channels` channels:
/// C values (one repeated when the constant has one element), or nothing when `id` is not such a
/// constant, varies along another axis or would broadcast the tensor to a larger shape.
std::optional<std::vector<float>> perChannelConstant(const Graph& graph, ValueId id,
                                                     std::int64_t channels);

/// The single reader of `value`, when it is a node of kind `op` and `value` is no graph output.
std::optional<std::size_t> soleReader(const Graph& graph, const Uses& uses, ValueId value,
                                      OpKind op);

/// The other operand of binary node `node` than `value`.
std::optional<ValueId> otherOperand(const Node& node, ValueId value);

/// The value of a one-element f32 constant, or nullopt.
std::optional<float> scalarConstant(const Graph& graph, ValueId id);

/// Removes node `index`, whose output `out` equals its input `in`, by making readers of `out`
/// read `in`. When `out` is a graph output, `in`'s producer takes over `out` instead. Returns
/// false (and changes nothing) when neither is possible, e.g. `in` is a graph input and `out` a
/// graph output. The node is removed from the graph.
bool bypassNode(Graph& graph, std::size_t index, ValueId in, ValueId out);

/// Makes node `producer` write the single output of node `consumer` and flags `consumer` in
/// `removed` (for Graph::removeNodes); the producer's old output must have no other reader.
void absorbConsumer(Graph& graph, std::size_t producer, std::size_t consumer,
                    std::vector<bool>& removed);

/// The bias of Conv `conv` (zeros when it has none); its weight and bias must be constants.
std::vector<float> convBias(const Graph& graph, const Node& conv);

/// Gives Conv node `index` new constant weights (shape unchanged) and bias, named after the conv
/// with `suffix` (e.g. "bn" -> NAME.weight_bn); the old constants stay for dead-code elimination.
void replaceConvParameters(Graph& graph, std::size_t index, std::string_view suffix,
                           std::vector<float> weights, std::vector<float> bias);

/// True for the element-wise ops a twin rewrite (sink-nhwc-transposes, lift-token-tensors)
/// computes on the twins as they are: binary arithmetic, Min/Max, the activations but PRelu and
/// the unary math ops.
bool isTwinElementwise(OpKind op);

/// A new typed f32 intermediate named after `name`.
ValueId addTypedIntermediate(Graph& graph, std::string_view name, Shape shape);

/// Appends to `nodes` (a rewrite's replacement, not yet in the graph) a node named after
/// `base + tag`, numbered past the first so one rewrite's names stay apart; returns `out`.
ValueId appendRewriteNode(Graph& graph, std::vector<Node>& nodes, std::string_view base,
                          std::string_view tag, OpKind op, std::vector<ValueId> inputs, ValueId out,
                          Attributes attributes);

/// A new typed f32 constant named after `base`.
ValueId addFloatConstant(Graph& graph, std::string_view base, Shape shape,
                         std::vector<float> values);

/// A new typed i64 constant named after `base`.
ValueId addIndexConstant(Graph& graph, std::string_view base, std::vector<std::int64_t> values);

/// The nodes that compute `to` from `from` alone (every other input a constant), each of them
/// `allowed`, in graph order, at most `maxNodes`; nullopt when `to` needs anything else.
std::optional<std::vector<std::size_t>> nodesBetween(
    const Graph& graph, const Uses& uses, ValueId from, ValueId to,
    const std::function<bool(const Node&)>& allowed, std::size_t maxNodes);

/// Runs data-movement `nodes` (nodesBetween's) on `from`'s elements numbered 1, 2, ... in
/// row-major order and returns where each element of `to` came from, by that number: negative
/// where a Neg or a Mul by -1 negated it (a Mul by +1 keeps it). nullopt when a node is no data
/// movement the index evaluator runs, or `from` has more than `maxElements` elements.
std::optional<Tensor> numberedElements(const Graph& graph, ValueId from, ValueId to,
                                       const std::vector<std::size_t>& nodes,
                                       std::int64_t maxElements);

}  // namespace npu::compiler
