// The accuracy report: fp32, the int8 model and each int8 op alone over the same samples.
#include "npu/compiler/quant/accuracy_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "npu/compiler/ir/op_params.h"
#include "npu/compiler/quant/run_partitioned.h"
#include "npu/compiler/quant/tensor_layout.h"
#include "npu/support/error.h"
#include "npu/support/interrupt.h"
#include "npu/support/parallel_for.h"

namespace npu::compiler {
namespace {

/// A range this many times wider than the 99.99th percentile of |x| loses two bits or more.
constexpr double kOutlierRatio = 4.0;
/// Values beyond this many times the quantized range saturate hard.
constexpr float kClippedRatio = 1.5F;
/// Weights below this SQNR lose more than int8's usual ~35-40 dB.
constexpr double kWeightSqnrDb = 30.0;
/// Per-tensor weights whose channels' ranges differ by more than this lose a bit or more.
constexpr double kChannelRangeRatio = 2.0;

golden::QuantParams paramsOf(const QTensor& t) {
  return golden::QuantParams{static_cast<float>(t.scale), t.zeroPoint};
}

std::string opDescription(const Node& node) {
  FusedActivation act = fusedActivation(node);
  if (act.op == OpKind::Identity) {
    return std::string(opName(node.op));
  }
  return fmt::format("{}+{}", opName(node.op), opName(act.op));
}

/// One op of a segment as a graph of its own, to run it alone.
struct SingleOp {
  std::size_t layer = 0;
  const NpuSegment* segment = nullptr;
  QuantizedGraph graph;
};

bool under(const Agreement& a, const AccuracyThresholds& t, bool withSqnr) {
  return a.cosine < t.cosine || (withSqnr && a.sqnrDb < t.sqnrDb);
}

/// Why a flagged layer is likely off, most likely first.
std::vector<std::string> likelyReasons(const LayerAccuracy& layer, const QuantizedModel& model,
                                       const NpuSegment& segment, const QOp& op,
                                       const AccuracyThresholds& t) {
  std::vector<std::string> reasons;
  if (!under(layer.isolated, t, true)) {
    reasons.push_back(fmt::format(
        "accumulated error: alone the layer reaches cosine {:.5f}, the error comes from earlier "
        "layers",
        layer.isolated.cosine));
    return reasons;
  }
  if (!layer.perChannel && layer.weightChannelRangeRatio &&
      *layer.weightChannelRangeRatio > kChannelRangeRatio) {
    reasons.push_back(fmt::format(
        "per-tensor weights: output channels' weight ranges differ {:.1f}x (granularity: "
        "per_channel keeps each channel's resolution)",
        *layer.weightChannelRangeRatio));
  }
  if (layer.weightSqnrDb && *layer.weightSqnrDb < kWeightSqnrDb) {
    reasons.push_back(fmt::format("weight quantization: weight SQNR {:.1f} dB (outlier weights)",
                                  *layer.weightSqnrDb));
  }
  const QuantizedGraph& g = segment.graph;
  std::vector<std::string> tensors;
  for (TensorId id : opInputs(op)) {
    tensors.push_back(g.tensors[id].name);
  }
  tensors.push_back(g.tensors[opOutput(op)].name);
  if (layer.lut && std::holds_alternative<QConv>(op)) {
    tensors.push_back(preActivationName(layer.output));
  }
  for (const std::string& name : tensors) {
    const TensorCalibration& c = model.calibration.at(name);
    const Range& r = c.alignedRange;
    if ((r.hi > 0.0F && c.max > kClippedRatio * r.hi) ||
        (r.lo < 0.0F && c.min < kClippedRatio * r.lo)) {
      reasons.push_back(fmt::format(
          "clipped range: '{}' ({}) is quantized over [{:.4g}, {:.4g}] but reaches [{:.4g}, "
          "{:.4g}] (method minmax or mse keeps more of it)",
          name, observerName(c.settings.method), r.lo, r.hi, c.min, c.max));
    }
    double span = std::max(std::abs(c.alignedRange.lo), std::abs(c.alignedRange.hi));
    if (c.absPercentile9999 > 0.0F && span >= kOutlierRatio * c.absPercentile9999) {
      reasons.push_back(fmt::format(
          "outlier range: '{}' is quantized over [{:.4g}, {:.4g}] but 99.99% of |x| is below "
          "{:.4g} ({:.0f}x; method percentile, kl or mse clips outliers)",
          name, c.alignedRange.lo, c.alignedRange.hi, c.absPercentile9999,
          span / c.absPercentile9999));
    }
    double own = c.range.hi - c.range.lo;
    double aligned = c.alignedRange.hi - c.alignedRange.lo;
    if (own > 0.0 && aligned > 2.0 * own) {
      reasons.push_back(fmt::format(
          "shared scale: '{}' shares its alignment group's range [{:.4g}, {:.4g}], {:.1f}x its "
          "own",
          name, c.alignedRange.lo, c.alignedRange.hi, aligned / own));
    }
  }
  if (layer.lut) {
    std::string input = std::holds_alternative<QConv>(op) ? preActivationName(layer.output)
                                                          : g.tensors[opInputs(op).at(0)].name;
    const TensorCalibration& c = model.calibration.at(input);
    reasons.push_back(fmt::format(
        "LUT range: the 256-entry table samples its input '{}' over [{:.4g}, {:.4g}] in steps of "
        "{:.3g}",
        input, c.alignedRange.lo, c.alignedRange.hi, c.params.scale));
  }
  if (reasons.empty()) {
    const TensorCalibration& c = model.calibration.at(layer.output);
    reasons.push_back(
        fmt::format("int8 resolution: the output range [{:.4g}, {:.4g}] in steps of {:.3g}",
                    c.alignedRange.lo, c.alignedRange.hi, c.params.scale));
  }
  return reasons;
}

std::size_t argMax(std::span<const float> values) {
  return static_cast<std::size_t>(std::max_element(values.begin(), values.end()) - values.begin());
}

}  // namespace

void AgreementAccumulator::add(std::span<const float> reference, std::span<const float> quantized) {
  if (reference.size() != quantized.size()) {
    fail("cannot compare {} values with {}", quantized.size(), reference.size());
  }
  for (std::size_t i = 0; i < reference.size(); ++i) {
    double r = reference[i];
    double q = quantized[i];
    m_dot += r * q;
    m_reference2 += r * r;
    m_quantized2 += q * q;
    m_noise2 += (q - r) * (q - r);
  }
}

void AgreementAccumulator::merge(const AgreementAccumulator& other) {
  m_dot += other.m_dot;
  m_reference2 += other.m_reference2;
  m_quantized2 += other.m_quantized2;
  m_noise2 += other.m_noise2;
}

Agreement AgreementAccumulator::result() const {
  Agreement a;
  if (m_reference2 == 0.0 || m_quantized2 == 0.0) {
    a.cosine = m_reference2 == m_quantized2 ? 1.0 : 0.0;
  } else {
    a.cosine = m_dot / (std::sqrt(m_reference2) * std::sqrt(m_quantized2));
  }
  if (m_noise2 > 0.0) {
    a.sqnrDb = m_reference2 > 0.0 ? 10.0 * std::log10(m_reference2 / m_noise2)
                                  : -std::numeric_limits<double>::infinity();
  }
  return a;
}

namespace {

/// Each sample's sums on their own (samples run on `jobs` threads), merged in sample order.
struct SampleSums {
  std::vector<AgreementAccumulator> isolated, accumulated, outputs;
  std::vector<std::size_t> top1Equal;
};

/// The layers, each op alone, and the fp32 values the comparisons need.
struct MeasuredLayers {
  std::vector<SingleOp> single;
  std::vector<const QOp*> ops;
  std::unordered_map<std::string, std::size_t> layerOf;
  std::unordered_map<std::string, golden::FloatTensor> fp32;
  // A requantizing step's output is no fp32 value: its fp32 counterpart is its input's.
  std::vector<std::pair<std::string, std::string>> requantOf;
};

/// Op i of `segment` as a report layer, its agreement not yet measured.
LayerAccuracy describeLayer(const Graph& graph, const NpuSegment& segment, std::size_t i) {
  const QuantizedGraph& g = segment.graph;
  const QOp& op = g.ops[i];
  const QOpOrigin& origin = segment.origins.at(i);
  LayerAccuracy layer;
  layer.layer = opName(op);
  layer.op = opDescription(graph.nodes().at(origin.node));
  layer.output = g.tensors[opOutput(op)].name;
  layer.segment = segment.segment;
  layer.weightSqnrDb = origin.weightSqnrDb;
  layer.weightChannelRangeRatio = origin.weightChannelRangeRatio;
  layer.perChannel = origin.perChannel;
  layer.lut = origin.lut;
  return layer;
}

/// `op` of `segment` as a graph of its own (report layer `layer`): its non-constant inputs in,
/// its output out.
SingleOp singleOp(const NpuSegment& segment, const QOp& op, std::size_t layer) {
  const QuantizedGraph& g = segment.graph;
  SingleOp s;
  s.layer = layer;
  s.segment = &segment;
  s.graph.tensors = g.tensors;
  s.graph.ops = {op};
  for (TensorId id : opInputs(op)) {
    if (!g.tensors[id].data) {  // a constant holds its values already
      s.graph.inputs.push_back(id);
    }
  }
  s.graph.outputs = {opOutput(op)};
  return s;
}

/// Adds every op of the NPU segments to report.layers, each also as an op alone.
MeasuredLayers collectLayers(const QuantizedModel& model, AccuracyReport& report) {
  const Graph& graph = model.graph;
  MeasuredLayers layers;
  for (const NpuSegment& segment : model.npuSegments) {
    const QuantizedGraph& g = segment.graph;
    for (const QTensor& t : g.tensors) {
      layers.fp32.emplace(t.name, golden::FloatTensor{});
    }
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
      const QOp& op = g.ops[i];
      LayerAccuracy layer = describeLayer(graph, segment, i);
      layers.layerOf.emplace(layer.output, report.layers.size());
      // "<x>#requant" and "<y>#pre_requant" (realizeSegments) hold x's and y's values.
      if (!graph.findValue(layer.output) && layer.output.find('#') != std::string::npos) {
        layers.requantOf.emplace_back(layer.output, layer.output.substr(0, layer.output.find('#')));
      }
      layers.single.push_back(singleOp(segment, op, report.layers.size()));
      layers.ops.push_back(&op);
      report.layers.push_back(std::move(layer));
    }
  }
  return layers;
}

/// Runs a sample in fp32, through the int8 model and through each int8 op alone, and sums how
/// far each layer and output is from fp32.
class SampleMeasurer {
 public:
  /// Prepares the fp32 interpreter and the golden runners of the model and of each op alone.
  SampleMeasurer(const QuantizedModel& model, const MeasuredLayers& layers)
      : m_model(model), m_layers(layers), m_interpreter(model.graph), m_golden(model) {
    m_singleRunners.reserve(layers.single.size());
    for (const SingleOp& s : layers.single) {
      m_singleRunners.emplace_back(s.graph);
    }
  }

  /// One sample's sums over `layerCount` layers and every graph output.
  void measure(const TensorMap& sample, std::size_t layerCount, SampleSums& out) const {
    const Graph& graph = m_model.graph;
    out.isolated.resize(layerCount);
    out.accumulated.resize(layerCount);
    out.outputs.resize(graph.outputs().size());
    out.top1Equal.assign(graph.outputs().size(), 0);
    std::unordered_map<std::string, golden::FloatTensor> values = m_layers.fp32;
    TensorMap reference =
        m_interpreter.run(sample, [&](const Value& value, const golden::FloatTensor& tensor) {
          auto it = values.find(value.name);
          if (it != values.end()) {
            it->second = tensor;
          }
        });
    for (const auto& [requant, source] : m_layers.requantOf) {
      values[requant] = values.at(source);
    }
    TensorMap quantized = runPartitionedModelGolden(
        m_model, sample,
        [&](const Value& value, const golden::FloatTensor& tensor) {
          auto it = m_layers.layerOf.find(value.name);
          if (it != m_layers.layerOf.end()) {
            out.accumulated[it->second].add(values.at(value.name).data, tensor.data);
          }
        },
        &m_golden);
    measureSingleOps(values, out);
    for (std::size_t o = 0; o < graph.outputs().size(); ++o) {
      const std::string& name = graph.value(graph.outputs()[o]).name;
      const golden::FloatTensor& r = reference.at(name);
      const golden::FloatTensor& q = quantized.at(name);
      out.outputs[o].add(r.data, q.data);
      out.top1Equal[o] += !r.data.empty() && argMax(r.data) == argMax(q.data);
    }
  }

 private:
  /// Each op alone on its fp32 inputs quantized, against its fp32 output.
  void measureSingleOps(const std::unordered_map<std::string, golden::FloatTensor>& values,
                        SampleSums& out) const {
    for (std::size_t i = 0; i < m_layers.single.size(); ++i) {
      const QuantizedGraph& g = m_layers.single[i].graph;
      std::vector<golden::Int8Tensor> in;
      for (TensorId id : g.inputs) {
        in.push_back(quantizeToNhwc(values.at(g.tensors[id].name), paramsOf(g.tensors[id])));
      }
      std::vector<golden::Int8Tensor> result = m_singleRunners[i].run(in);
      const QTensor& output = g.tensors[g.outputs[0]];
      const golden::FloatTensor& expected = values.at(output.name);
      golden::FloatTensor actual =
          dequantizeToNchw(result[g.outputs[0]], paramsOf(output), expected.shape);
      out.isolated[m_layers.single[i].layer].add(expected.data, actual.data);
    }
  }

  const QuantizedModel& m_model;
  const MeasuredLayers& m_layers;
  Interpreter m_interpreter;
  const GoldenModelRunner m_golden;
  std::vector<GoldenGraphRunner> m_singleRunners;
};

/// The samples' sums added up in sample order.
SampleSums mergeSums(const std::vector<SampleSums>& sums, std::size_t layerCount,
                     std::size_t outputCount) {
  SampleSums total;
  total.isolated.resize(layerCount);
  total.accumulated.resize(layerCount);
  total.outputs.resize(outputCount);
  total.top1Equal.assign(outputCount, 0);
  for (const SampleSums& sample : sums) {
    for (std::size_t i = 0; i < layerCount; ++i) {
      total.isolated[i].merge(sample.isolated[i]);
      total.accumulated[i].merge(sample.accumulated[i]);
    }
    for (std::size_t o = 0; o < total.outputs.size(); ++o) {
      total.outputs[o].merge(sample.outputs[o]);
      total.top1Equal[o] += sample.top1Equal[o];
    }
  }
  return total;
}

/// Each layer's agreement, flagged (with its likely reasons) when under the thresholds.
void judgeLayers(AccuracyReport& report, const SampleSums& total, const QuantizedModel& model,
                 const MeasuredLayers& layers, const AccuracyThresholds& thresholds) {
  for (std::size_t i = 0; i < report.layers.size(); ++i) {
    LayerAccuracy& layer = report.layers[i];
    layer.isolated = total.isolated[i].result();
    layer.accumulated = total.accumulated[i].result();
    layer.flagged =
        under(layer.isolated, thresholds, true) || under(layer.accumulated, thresholds, false);
    if (layer.flagged) {
      layer.reasons =
          likelyReasons(layer, model, *layers.single[i].segment, *layers.ops[i], thresholds);
    }
  }
}

/// Each graph output's agreement, and its top-1 agreement when it is one row of class scores.
void addOutputs(AccuracyReport& report, const Graph& graph, const SampleSums& total,
                std::size_t samples) {
  for (std::size_t o = 0; o < graph.outputs().size(); ++o) {
    const Value& v = graph.value(graph.outputs()[o]);
    OutputAccuracy out;
    out.name = v.name;
    out.agreement = total.outputs[o].result();
    if (v.shape.size() == 2 && v.shape[0] == 1 && v.shape[1] > 1) {
      out.top1Agreement = static_cast<double>(total.top1Equal[o]) / static_cast<double>(samples);
    }
    report.outputs.push_back(std::move(out));
  }
}

}  // namespace

AccuracyReport accuracyReport(const QuantizedModel& model, const std::vector<TensorMap>& samples,
                              const AccuracyThresholds& thresholds, std::size_t jobs) {
  const Graph& graph = model.graph;
  if (samples.empty()) {
    fail("{}: no samples to measure accuracy on", graph.source());
  }
  AccuracyReport report;
  report.samples = samples.size();
  report.thresholds = thresholds;
  const MeasuredLayers layers = collectLayers(model, report);
  const SampleMeasurer measurer(model, layers);
  std::vector<SampleSums> sums(samples.size());
  const InterruptibleScope interruptible;
  parallelFor(samples.size(), jobs, [&](std::size_t k) {
    throwIfInterrupted();
    measurer.measure(samples[k], report.layers.size(), sums[k]);
  });
  const SampleSums total = mergeSums(sums, report.layers.size(), graph.outputs().size());
  judgeLayers(report, total, model, layers, thresholds);
  addOutputs(report, graph, total, samples.size());
  return report;
}

}  // namespace npu::compiler
