// Per-layer accuracy of a quantized model against fp32, as the torch.fx numeric-suite tools
// report it: cosine similarity and SQNR of every int8 layer, isolated and accumulated, the
// weights' quantization error, and the layers under a threshold with their likely reasons.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/quant/quantized_model.h"

namespace npu::compiler {

/// How close a quantized tensor is to its fp32 reference, over all samples seen (the samples
/// concatenated into one vector).
struct Agreement {
  /// dot(ref, q) / (|ref| |q|); 1 when both are zero, 0 when only one is.
  double cosine = 1.0;
  /// Signal-to-quantization-noise ratio 10 log10(sum ref^2 / sum (q - ref)^2) in dB; +infinity
  /// when q equals ref.
  double sqnrDb = std::numeric_limits<double>::infinity();
};

/// Accumulates the sums behind an Agreement, sample by sample.
class AgreementAccumulator {
 public:
  /// Adds one sample; both spans hold the same elements in the same order (throws Error
  /// otherwise).
  void add(std::span<const float> reference, std::span<const float> quantized);
  /// Adds everything `other` holds (partial sums of other samples, e.g. from another thread;
  /// merging them in a fixed order keeps the result independent of the thread count).
  void merge(const AgreementAccumulator& other);
  /// The agreement over everything added (cosine 1 and infinite SQNR when nothing was).
  Agreement result() const;

 private:
  double m_dot = 0.0;
  double m_reference2 = 0.0;
  double m_quantized2 = 0.0;
  double m_noise2 = 0.0;
};

/// When a layer is flagged: its isolated or accumulated cosine is below `cosine`, or its
/// isolated SQNR is below `sqnrDb`.
struct AccuracyThresholds {
  double cosine = 0.99;
  double sqnrDb = 20.0;
};

/// The accuracy of one int8 op of an NPU segment.
struct LayerAccuracy {
  /// The op's name (the fp32 node's name).
  std::string layer;
  /// The fp32 node's op, with its fused activation ("Conv+Relu").
  std::string op;
  /// The fp32 value the op writes.
  std::string output;
  /// Index into Partition::segments.
  std::size_t segment = 0;
  /// fp32 inputs quantized into this op alone, its output dequantized.
  Agreement isolated;
  /// The whole int8 model run: errors of earlier layers included.
  Agreement accumulated;
  /// From QOpOrigin: the weights' SQNR and channel range ratio (conv-like ops only).
  std::optional<double> weightSqnrDb;
  std::optional<double> weightChannelRangeRatio;
  bool perChannel = true;
  /// The output goes through a 256-entry LUT.
  bool lut = false;
  /// Under a threshold.
  bool flagged = false;
  /// When flagged: the likely reasons, most likely first, each one sentence starting with its
  /// kind: "accumulated error", "per-tensor weights", "weight quantization", "clipped range",
  /// "outlier range", "shared scale", "LUT range", or else "int8 resolution".
  std::vector<std::string> reasons;
};

/// The accuracy of one graph output.
struct OutputAccuracy {
  std::string name;
  Agreement agreement;
  /// For a [1, N] output with N > 1: the share of samples (0-1) whose arg max equals fp32's.
  std::optional<double> top1Agreement;
};

/// The whole report.
struct AccuracyReport {
  std::size_t samples = 0;
  AccuracyThresholds thresholds;
  /// Every op of every NPU segment, in execution order.
  std::vector<LayerAccuracy> layers;
  /// In graph output order.
  std::vector<OutputAccuracy> outputs;
};

/// Runs `model` over `samples` three ways (the fp32 interpreter; the partitioned model with the
/// golden int8 reference; each int8 op alone on its quantized fp32 inputs) and compares every
/// NPU tensor with fp32. Samples run on up to `jobs` threads; the report is the same for any
/// number. Throws Error for no samples, and as the runs do for bad inputs.
AccuracyReport accuracyReport(const QuantizedModel& model, const std::vector<TensorMap>& samples,
                              const AccuracyThresholds& thresholds = {}, std::size_t jobs = 1);

}  // namespace npu::compiler
