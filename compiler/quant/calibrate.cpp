// Calibration: observe, choose ranges, align, derive int8 parameters.
#include "npu/compiler/quant/calibrate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "npu/compiler/ir/masked_scores.h"
#include "npu/compiler/ir/op_params.h"
#include "npu/compiler/quant/calibration_data.h"
#include "npu/compiler/quant/calibration_table.h"
#include "npu/compiler/quant/constant_activation.h"
#include "npu/compiler/quant/quant_params.h"
#include "npu/compiler/quant/scale_alignment.h"
#include "npu/golden/int8_norm.h"
#include "npu/support/error.h"
#include "npu/support/interrupt.h"

namespace npu::compiler {
namespace {

bool isLutConv(const Graph& graph, const Partition& partition, std::size_t n) {
  const Node& node = graph.nodes()[n];
  return partition.device[n] == Device::Npu && node.op == OpKind::Conv && fusedActivation(node).lut;
}

/// The activation node a LUT epilogue stands for.
Node activationNode(const Graph& graph, const Node& conv, ValueId in, ValueId out) {
  FusedActivation act = fusedActivation(conv);
  Node node;
  node.name = graph.uniqueNodeName(conv.name + "#activation");
  node.op = act.op;
  node.inputs = {in};
  node.outputs = {out};
  if (act.op == OpKind::LeakyRelu || act.op == OpKind::HardSigmoid) {
    node.attributes.set("alpha", act.alpha);
  }
  if (act.op == OpKind::HardSigmoid) {
    node.attributes.set("beta", act.beta);
  }
  return node;
}

Range rangeFor(const TensorObserver& observer, const ActivationSettings& s) {
  switch (s.method) {
    case ObserverMethod::MinMax:
      return minMaxRange(observer, s.symmetric);
    case ObserverMethod::Percentile:
      return percentileRange(observer, s.percentile, s.symmetric);
    case ObserverMethod::Entropy:
      return entropyRange(observer, s.symmetric);
    case ObserverMethod::Mse:
      return mseRange(observer, s.symmetric);
  }
  return minMaxRange(observer, s.symmetric);
}

/// The tensors calibration observes (NPU nodes' activation inputs and outputs, constant
/// activations, LUT pre-activations) in graph order, each with the node producing it (null for
/// graph inputs and constants).
std::pair<std::vector<std::string>, std::vector<const Node*>> observedTensors(
    const Graph& graph, const Partition& partition) {
  std::vector<std::string> names;
  std::vector<const Node*> producers;
  std::unordered_map<std::string, std::size_t> index;
  auto want = [&](const std::string& name, const Node* producer) {
    if (index.emplace(name, names.size()).second) {
      names.push_back(name);
      producers.push_back(producer);
    }
  };
  Uses uses(graph);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    if (partition.device[n] != Device::Npu) {
      continue;
    }
    const Node& node = graph.nodes()[n];
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const ValueId in = node.input(i);
      if (!in.valid()) {
        continue;
      }
      const Value& v = graph.value(in);
      if (isConstantActivation(graph, partition, n, i)) {
        want(v.name, nullptr);  // a constant activation: the range of its own values
      } else if (!v.isConstant() && v.dtype == DType::Float32) {
        std::optional<std::size_t> p = uses.producer(in);
        want(v.name, p ? &graph.nodes()[*p] : nullptr);
      }
    }
    want(graph.value(node.outputs.at(0)).name, &node);
    if (isLutConv(graph, partition, n)) {
      want(preActivationName(graph.value(node.outputs[0]).name), &node);
    }
  }

  return {std::move(names), std::move(producers)};
}

/// Parameters for the tensors in `names` that `table` does not name but can be derived from it:
/// the output of a byte-moving NPU op (pool, concat, upsample, layout no-op...) takes its first
/// input's (a QDQ model quantizes a max pool's output through its input's Q/DQ); any other
/// member of an alignment group the first given member's; a tensor next to a layout op
/// (reshape, flatten, squeeze, identity) the other side's (the passes put such ops around the
/// convs they create, a fully connected layer's 1x1 conv between reshapes).
std::map<std::string, golden::QuantParams, std::less<>> inheritedParameters(
    const Graph& graph, const Partition& partition,
    const std::vector<std::vector<std::string>>& groups, const std::vector<std::string>& names,
    const CalibrationTable& table) {
  // A tensor the table does not name, written by a byte-moving NPU op (pool, concat, upsample,
  // layout no-op...), takes the parameters of that op's first input, given or so derived (a QDQ
  // model quantizes a max pool's output through its input's Q/DQ); any other member of an
  // alignment group takes the first given member's.
  std::map<std::string, golden::QuantParams, std::less<>> fromGroup;
  auto known = [&](const std::string& name) -> const golden::QuantParams* {
    if (auto it = table.tensors.find(name); it != table.tensors.end()) {
      return &it->second;
    }
    if (auto it = fromGroup.find(name); it != fromGroup.end()) {
      return &it->second;
    }
    return nullptr;
  };
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    const Node& node = graph.nodes()[n];
    std::optional<NpuOpKind> kind =
        partition.device[n] == Device::Npu ? partition.npuKind[n] : std::nullopt;
    bool movesBytes = kind && (*kind == NpuOpKind::MaxPool || *kind == NpuOpKind::AvgPool ||
                               *kind == NpuOpKind::GlobalAvgPool || *kind == NpuOpKind::Concat ||
                               *kind == NpuOpKind::Slice || *kind == NpuOpKind::ChannelShuffle ||
                               *kind == NpuOpKind::Upsample || *kind == NpuOpKind::ResizeLinear ||
                               *kind == NpuOpKind::Alias);
    if (!movesBytes || node.outputs.empty() || !node.input(0).valid()) {
      continue;
    }
    const std::string& out = graph.value(node.outputs[0]).name;
    if (known(out) == nullptr) {
      if (const golden::QuantParams* p = known(graph.value(node.input(0)).name)) {
        fromGroup.emplace(out, *p);
      }
    }
  }
  for (const std::vector<std::string>& group : groups) {
    auto first = std::find_if(group.begin(), group.end(),
                              [&](const std::string& n) { return table.tensors.contains(n); });
    if (first == group.end()) {
      continue;
    }
    for (const std::string& name : group) {
      if (known(name) == nullptr) {
        fromGroup.emplace(name, table.tensors.find(*first)->second);
      }
    }
  }
  // Through layout ops (reshape, flatten, squeeze, identity) a tensor takes the parameters of the
  // tensor on the other side: the front-end passes put such ops around the convs they create
  // (a fully connected layer's 1x1 conv between reshapes).
  std::map<std::string, std::vector<std::string>, std::less<>> layoutNeighbours;
  for (const Node& node : graph.nodes()) {
    bool layout = node.op == OpKind::Reshape || node.op == OpKind::Flatten ||
                  node.op == OpKind::Squeeze || node.op == OpKind::Unsqueeze ||
                  node.op == OpKind::Identity;
    if (layout && node.input(0).valid() && node.outputs.size() == 1) {
      const std::string& a = graph.value(node.input(0)).name;
      const std::string& b = graph.value(node.outputs[0]).name;
      layoutNeighbours[a].push_back(b);
      layoutNeighbours[b].push_back(a);
    }
  }
  auto throughLayout = [&](const std::string& start) -> std::optional<golden::QuantParams> {
    std::vector<std::string> queue{start};
    std::set<std::string, std::less<>> seen{start};
    for (std::size_t i = 0; i < queue.size(); ++i) {
      if (auto it = table.tensors.find(queue[i]); it != table.tensors.end()) {
        return it->second;
      }
      if (auto it = layoutNeighbours.find(queue[i]); it != layoutNeighbours.end()) {
        for (const std::string& next : it->second) {
          if (seen.insert(next).second) {
            queue.push_back(next);
          }
        }
      }
    }
    return std::nullopt;
  };
  for (const std::string& name : names) {
    if (!table.tensors.contains(name) && !fromGroup.contains(name)) {
      if (std::optional<golden::QuantParams> p = throughLayout(name)) {
        fromGroup.emplace(name, *p);
      }
    }
  }
  return fromGroup;
}

}  // namespace

const TensorCalibration& CalibrationResult::at(std::string_view name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) {
    fail("tensor '{}' was not calibrated", name);
  }
  return it->second;
}

std::string preActivationName(std::string_view output) {
  return fmt::format("{}#preact", output);
}

Graph calibrationGraph(const Graph& graph, const Partition& partition) {
  Graph copy = graph;
  std::vector<Node> nodes;
  nodes.reserve(graph.nodes().size());
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    Node node = graph.nodes()[n];
    if (!isLutConv(graph, partition, n)) {
      nodes.push_back(std::move(node));
      continue;
    }
    ValueId out = node.outputs.at(0);
    ValueId pre = copy.addIntermediate(preActivationName(graph.value(out).name));
    Value& preValue = copy.value(pre);
    preValue.dtype = graph.value(out).dtype;
    preValue.shape = graph.value(out).shape;
    preValue.typed = true;
    Node activation = activationNode(copy, node, pre, out);
    for (const char* name : {"activation", "activation_min", "activation_max", "activation_alpha",
                             "activation_beta", "activation_lut"}) {
      node.attributes.erase(name);
    }
    node.outputs = {pre};
    nodes.push_back(std::move(node));
    nodes.push_back(std::move(activation));
  }
  copy.nodes() = std::move(nodes);
  return copy;
}

namespace {

/// Where observeSample leaves masked scores: per observed tensor, whether it may hold them
/// (maskedScoreTensors) and how many it held.
struct MaskedScores {
  std::vector<bool> scores;
  std::vector<std::uint64_t> masked;
};

/// Runs calibration sample k and adds every observed tensor's values to its observer (a tensor
/// that may hold masked scores without them); a NaN or Inf fails.
void observeSample(const Graph& graph, const Interpreter& interpreter, const TensorMap& sample,
                   std::size_t k, const std::unordered_map<std::string, std::size_t>& index,
                   std::vector<TensorObserver>& observers, MaskedScores& masks) {
  std::vector<float> unmasked;
  interpreter.run(sample, [&](const Value& value, const golden::FloatTensor& tensor) {
    auto it = index.find(value.name);
    if (it == index.end()) {
      return;
    }
    const bool scores = masks.scores[it->second];
    for (std::size_t i = 0; i < tensor.data.size(); ++i) {
      // A masked score may be -inf (a mask added to a masked score): masked, not an error.
      const bool masked = scores && tensor.data[i] <= kMaskedScore;
      if (!std::isfinite(tensor.data[i]) && !masked) {
        fail("{}: tensor '{}' holds {} at element {} for calibration sample {}", graph.source(),
             value.name, std::isnan(tensor.data[i]) ? "NaN" : "Inf", i, k);
      }
    }
    if (!scores) {
      observers[it->second].observe(tensor.data);
      return;
    }
    unmasked.clear();
    for (const float x : tensor.data) {
      if (x > kMaskedScore) {
        unmasked.push_back(x);
      }
    }
    masks.masked[it->second] += tensor.data.size() - unmasked.size();
    observers[it->second].observe(unmasked);
  });
}

/// An additive attention mask: computed from integer inputs alone, or a constant holding masked
/// values (a causal mask's float minimum).
bool isMask(const Graph& graph, const std::vector<bool>& derived, ValueId v) {
  if (derived[v.index]) {
    return true;
  }
  const Value& value = graph.value(v);
  if (!value.isConstant() || value.dtype != DType::Float32) {
    return false;
  }
  const std::span<const float> values = value.data->floats();
  return std::any_of(values.begin(), values.end(), [](float x) { return x <= kMaskedScore; });
}

/// The NPU Adds that apply a mask, each with its mask operands.
std::vector<std::pair<std::size_t, std::vector<ValueId>>> maskAdds(const Graph& graph,
                                                                   const Partition& partition) {
  const std::vector<bool> derived = integerDerivedValues(graph);
  std::vector<std::pair<std::size_t, std::vector<ValueId>>> adds;
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    const Node& add = graph.nodes()[n];
    if (add.op != OpKind::Add || partition.device[n] != Device::Npu) {
      continue;
    }
    std::vector<ValueId> masks;
    for (const ValueId in : add.inputs) {
      if (in.valid() && isMask(graph, derived, in)) {
        masks.push_back(in);
      }
    }
    if (!masks.empty()) {
      adds.emplace_back(n, std::move(masks));
    }
  }
  return adds;
}

/// The tensors that may hold masked scores, by their index in `names`: the inputs of the
/// softmaxes the NPU runs and the results of the Adds that apply masks.
std::vector<bool> maskedScoreTensors(const Graph& graph, const Partition& partition,
                                     const std::vector<std::string>& names) {
  std::set<std::string, std::less<>> scores;
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    if (partition.device[n] == Device::Npu && graph.nodes()[n].op == OpKind::Softmax) {
      scores.insert(graph.value(graph.nodes()[n].input(0)).name);
    }
  }
  for (const auto& [add, masks] : maskAdds(graph, partition)) {
    scores.insert(graph.value(graph.nodes()[add].outputs[0]).name);
  }
  std::vector<bool> is(names.size(), false);
  for (std::size_t i = 0; i < names.size(); ++i) {
    is[i] = scores.contains(names[i]);
  }
  return is;
}

/// Every mask an NPU Add applies has a range that stops at kMaskFloor: the float minimum an
/// exporter writes saturates there (docs/numerics.md "Masked scores").
void boundMasks(const Graph& graph, const Partition& partition, CalibrationResult& result) {
  for (const auto& [add, masks] : maskAdds(graph, partition)) {
    for (const ValueId in : masks) {
      const auto it = result.tensors.find(graph.value(in).name);
      if (it == result.tensors.end() || it->second.range.lo >= kMaskFloor) {
        continue;
      }
      TensorCalibration& t = it->second;
      t.range.lo = kMaskFloor;
      t.range.hi = std::max(t.range.hi, 0.0F);
      t.alignedRange = t.range;
      t.params = quantParamsForRange(t.range, t.settings.symmetric, false);
    }
  }
}

/// A softmax input that held masked scores: its range reaches kMaskHeadroom below the least
/// score that was not masked, so the masked ones, saturating at the range's low end, get an exp
/// table entry of 0 in every row (docs/numerics.md "Masked scores").
void makeRoomForMasked(TensorCalibration& t, const TensorObserver& o) {
  t.range.lo = std::min(t.range.lo, o.min() - kMaskHeadroom);
  t.alignedRange = t.range;
  t.params = quantParamsForRange(t.range, t.settings.symmetric, false);
}

/// The NPU's matmul reads its second operand as CONV weights, which have no zero point: those
/// tensors are quantized symmetric (their alignment groups too).
std::set<std::string, std::less<>> matMulWeightNames(const Graph& graph,
                                                     const Partition& partition) {
  std::set<std::string, std::less<>> matMulWeights;
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    if (partition.device[n] == Device::Npu && partition.npuKind[n] == NpuOpKind::MatMul) {
      matMulWeights.insert(graph.value(graph.nodes()[n].input(1)).name);
    }
  }
  return matMulWeights;
}

/// A constant activation is the same in every sample: its values, observed once, give its
/// range as they are (min/max whatever the method: nothing in them is an outlier to clip).
/// Returns their names.
std::set<std::string, std::less<>> observeConstants(
    const Graph& graph, const Partition& partition,
    const std::unordered_map<std::string, std::size_t>& index,
    std::vector<TensorObserver>& observers) {
  std::set<std::string, std::less<>> constants;
  for (const std::string& name : constantActivationNames(graph, partition)) {
    std::span<const float> values = graph.value(*graph.findValue(name)).data->floats();
    observers[index.at(name)].observe(values);
    constants.insert(name);
  }
  return constants;
}

/// One observed tensor's statistics, range and int8 parameters (before alignment).
TensorCalibration tensorCalibration(const Graph& graph, const QuantConfig& config,
                                    const std::string& name, const Node* producer,
                                    const TensorObserver& o, bool matMulWeight, bool constant) {
  TensorCalibration t;
  t.name = name;
  std::string_view valueName = name;
  t.settings = activationSettingsFor(config, graph, producer, valueName);
  if (matMulWeight) {
    t.settings.symmetric = true;
  }
  t.min = o.min();
  t.max = o.max();
  t.absPercentile99 = percentileRange(o, 99.0, true).hi;
  t.absPercentile999 = percentileRange(o, 99.9, true).hi;
  t.absPercentile9999 = percentileRange(o, 99.99, true).hi;
  t.range = constant ? minMaxRange(o, t.settings.symmetric) : rangeFor(o, t.settings);
  t.alignedRange = t.range;
  const TensorObserver* observed[] = {&o};
  t.params = t.settings.powerOfTwo
                 ? powerOfTwoParamsForRange(t.range, t.settings.symmetric, observed)
                 : quantParamsForRange(t.range, t.settings.symmetric, false);
  return t;
}

/// NORM's fixed output quantization of a softmax: scale 1/256, zero point -128.
golden::QuantParams softmaxParams() {
  return golden::QuantParams{static_cast<float>(golden::kSoftmaxOutputScale),
                             golden::kSoftmaxOutputZeroPoint};
}

/// A softmax on the NPU writes probabilities at scale 1/256, zero point -128 (NORM's fixed
/// output quantization, docs/numerics.md): its output takes those. Returns those outputs.
std::set<std::string, std::less<>> fixSoftmaxOutputs(const Graph& graph, const Partition& partition,
                                                     const std::vector<std::string>& names,
                                                     const std::vector<const Node*>& producers,
                                                     CalibrationResult& result) {
  std::set<std::string, std::less<>> softmaxOutputs;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const Node* producer = producers[i];
    if (producer == nullptr || producer->op != OpKind::Softmax) {
      continue;
    }
    const auto n = static_cast<std::size_t>(producer - graph.nodes().data());
    if (partition.device[n] == Device::Npu && partition.npuKind[n] == NpuOpKind::Softmax) {
      TensorCalibration& t = result.tensors.find(names[i])->second;
      t.params = softmaxParams();
      t.alignedRange = representableRange(t.params);
      softmaxOutputs.insert(names[i]);
    }
  }
  return softmaxOutputs;
}

/// Every alignment group's members share one range and parameters; a group holding a softmax's
/// output (a flatten or pool after it) takes the softmax's, so no requant follows the softmax.
void alignGroups(const Graph& graph, const Partition& partition,
                 const std::unordered_map<std::string, std::size_t>& index,
                 const std::vector<TensorObserver>& observers,
                 const std::set<std::string, std::less<>>& softmaxOutputs,
                 CalibrationResult& result) {
  std::vector<std::vector<std::string>> groups = alignmentGroups(graph, partition);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    Range aligned{0.0F, 0.0F};
    bool symmetric = false;
    bool powerOfTwo = false;
    bool first = true;
    std::vector<const TensorObserver*> members;
    for (const std::string& name : groups[g]) {
      const TensorCalibration& t = result.at(name);
      members.push_back(&observers[index.at(name)]);
      aligned.lo = first ? t.range.lo : std::min(aligned.lo, t.range.lo);
      aligned.hi = first ? t.range.hi : std::max(aligned.hi, t.range.hi);
      symmetric = symmetric || t.settings.symmetric;
      powerOfTwo = powerOfTwo || t.settings.powerOfTwo;
      first = false;
    }
    golden::QuantParams params = powerOfTwo ? powerOfTwoParamsForRange(aligned, symmetric, members)
                                            : quantParamsForRange(aligned, symmetric, false);
    if (std::any_of(groups[g].begin(), groups[g].end(),
                    [&](const std::string& name) { return softmaxOutputs.contains(name); })) {
      params = softmaxParams();
      aligned = representableRange(params);
    }
    for (const std::string& name : groups[g]) {
      TensorCalibration& t = result.tensors.find(name)->second;
      t.alignedRange = aligned;
      t.params = params;
      t.group = static_cast<std::int64_t>(g);
    }
  }
}

}  // namespace

CalibrationResult calibrate(const Graph& graph, const Partition& partition,
                            const std::vector<TensorMap>& samples, const QuantConfig& config) {
  if (samples.empty()) {
    fail("{}: no calibration data (0 samples)", graph.source());
  }
  checkFinite(samples, graph.source() + " calibration data");

  // What to observe, and which node produces it (for the per-layer settings).
  auto [names, producers] = observedTensors(graph, partition);
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < names.size(); ++i) {
    index.emplace(names[i], i);
  }

  std::vector<TensorObserver> observers(names.size(), TensorObserver(config.histogramBins));
  Graph observed = calibrationGraph(graph, partition);
  Interpreter interpreter(observed);
  std::size_t count =
      config.maxSamples > 0 ? std::min(config.maxSamples, samples.size()) : samples.size();
  const InterruptibleScope interruptible;
  MaskedScores masks{maskedScoreTensors(graph, partition, names),
                     std::vector<std::uint64_t>(names.size(), 0)};
  for (std::size_t k = 0; k < count; ++k) {
    throwIfInterrupted();  // Ctrl-C between samples of a long calibration
    observeSample(graph, interpreter, samples[k], k, index, observers, masks);
  }
  const std::set<std::string, std::less<>> matMulWeights = matMulWeightNames(graph, partition);
  const std::set<std::string, std::less<>> constants =
      observeConstants(graph, partition, index, observers);

  CalibrationResult result;
  result.samples = count;
  for (std::size_t i = 0; i < names.size(); ++i) {
    TensorCalibration t =
        tensorCalibration(graph, config, names[i], producers[i], observers[i],
                          matMulWeights.contains(names[i]), constants.contains(names[i]));
    if (masks.masked[i] > 0) {
      makeRoomForMasked(t, observers[i]);
    }
    result.tensors.emplace(t.name, t);
  }
  boundMasks(graph, partition, result);
  const std::set<std::string, std::less<>> softmaxOutputs =
      fixSoftmaxOutputs(graph, partition, names, producers, result);
  alignGroups(graph, partition, index, observers, softmaxOutputs, result);
  return result;
}

CalibrationResult calibrateWithTable(const Graph& graph, const Partition& partition,
                                     const std::vector<TensorMap>& samples,
                                     const QuantConfig& config,
                                     const CalibrationTable& explicitTable,
                                     std::vector<std::string>& notes) {
  // A constant activation the table does not name keeps the per-tensor quantization it came
  // with (a QDQ model's DequantizeLinear of int8 values).
  CalibrationTable table = explicitTable;
  for (const std::string& name : constantActivationNames(graph, partition)) {
    const Value& v = graph.value(*graph.findValue(name));
    if (!table.tensors.contains(name) && v.quant && v.quant->scales.size() == 1) {
      table.tensors.emplace(name,
                            golden::QuantParams{v.quant->scales[0], v.quant->zeroPoints.at(0)});
    }
  }
  auto [names, producers] = observedTensors(graph, partition);
  std::vector<std::vector<std::string>> groups = alignmentGroups(graph, partition);
  std::map<std::string, golden::QuantParams, std::less<>> fromGroup =
      inheritedParameters(graph, partition, groups, names, table);
  std::vector<std::string> missing;
  std::size_t given = 0;
  for (const std::string& name : names) {
    if (table.tensors.contains(name)) {
      ++given;
    } else if (!fromGroup.contains(name)) {
      missing.push_back(name);
    }
  }

  CalibrationResult result;
  if (!missing.empty()) {
    result = calibrate(graph, partition, samples, config);
    notes.push_back(fmt::format(
        "{}: {} of {} tensors have no parameters in {} and were calibrated from the samples: {}",
        graph.source(), missing.size(), names.size(), table.source, fmt::join(missing, ", ")));
  } else {
    for (std::size_t i = 0; i < names.size(); ++i) {
      TensorCalibration t;
      t.name = names[i];
      t.settings = activationSettingsFor(config, graph, producers[i], names[i]);
      result.tensors.emplace(t.name, t);
    }
  }
  auto setGiven = [](TensorCalibration& t, const golden::QuantParams& p) {
    t.params = p;
    t.range = representableRange(p);
    t.alignedRange = t.range;
    if (t.min == 0.0F && t.max == 0.0F) {
      t.min = t.range.lo;
      t.max = t.range.hi;
    }
  };
  for (auto& [name, t] : result.tensors) {
    if (auto it = table.tensors.find(name); it != table.tensors.end()) {
      setGiven(t, it->second);
      t.given = true;
    } else if (auto g = fromGroup.find(name); g != fromGroup.end()) {
      setGiven(t, g->second);
    }
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const std::string& name : groups[g]) {
      if (auto it = result.tensors.find(name); it != result.tensors.end()) {
        it->second.group = static_cast<std::int64_t>(g);
      }
    }
  }
  std::size_t unused = 0;
  for (const auto& [name, params] : table.tensors) {
    unused += result.tensors.contains(name) ? 0 : 1;
  }
  notes.push_back(fmt::format("{}: {} of {} tensors quantized as {} gives them{}", graph.source(),
                              given, names.size(), table.source,
                              unused == 0 || table.fromModel
                                  ? std::string()
                                  : fmt::format(" ({} of its {} entries name no tensor "
                                                "an NPU segment reads or writes)",
                                                unused, table.tensors.size())));
  return result;
}

}  // namespace npu::compiler
