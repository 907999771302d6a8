// The quantization config (docs/quant-config.md): strategy, observers, weights, rounding,
// host-only layers and per-layer or per-op-type overrides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/quant/observer.h"
#include "npu/compiler/target/npu_support.h"
#include "npu/golden/requant.h"

namespace npu::compiler {

/// How an activation tensor is calibrated and quantized.
struct ActivationSettings {
  ObserverMethod method = ObserverMethod::MinMax;
  /// For ObserverMethod::Percentile, in [50, 100].
  double percentile = 99.99;
  /// Zero point 0 and scale max|x| / 127 instead of the asymmetric [lo, hi] / 255.
  bool symmetric = false;
  /// Power-of-two scales, so requant reduces to a shift: the power of two just above the
  /// range's scale or the one below, whichever fits the observed values better
  /// (powerOfTwoParamsForRange).
  bool powerOfTwo = false;

  friend bool operator==(const ActivationSettings&, const ActivationSettings&) = default;
};

/// How weight ranges are chosen.
enum class WeightMethod : std::uint8_t {
  MinMax,  ///< scale = max|w| / 127
  Mse,     ///< the clipping threshold (50-100% of max|w|) with the least squared error
};

/// "minmax", "mse".
std::string_view weightMethodName(WeightMethod method);

/// How weights are quantized: always symmetric int8 in [-127, 127].
struct WeightSettings {
  WeightMethod method = WeightMethod::MinMax;
  /// One scale per output channel (default) or one for the whole tensor.
  bool perChannel = true;
  bool powerOfTwo = false;

  friend bool operator==(const WeightSettings&, const WeightSettings&) = default;
};

/// Settings for the layers named in `layers` or of an op type in `opTypes`; unset fields keep the
/// model-wide value. Later overrides win over earlier ones.
struct QuantOverride {
  std::vector<std::string> layers;
  std::vector<OpKind> opTypes;
  std::optional<ObserverMethod> method;
  std::optional<double> percentile;
  std::optional<bool> symmetric;
  std::optional<bool> activationPowerOfTwo;
  std::optional<WeightMethod> weightMethod;
  std::optional<bool> perChannel;
  std::optional<bool> weightPowerOfTwo;
  /// Where it was written, for messages ("config.yaml:12").
  std::string location;
};

/// The whole quantization config. The defaults are what `npu quant-report` uses without
/// --config.
struct QuantConfig {
  DispatchStrategy strategy = DispatchStrategy::Conservative;
  ActivationSettings activations;
  WeightSettings weights;
  /// The requant rounding of every NPU op (a program uses one mode).
  golden::Rounding rounding = golden::Rounding::Single;
  /// Node or output names kept on the host in fp32.
  std::vector<std::string> hostLayers;
  /// Where each host layer was written, parallel to hostLayers.
  std::vector<std::string> hostLayerLocations;
  std::vector<QuantOverride> overrides;
  /// Histogram bins per sign (the |x| histogram of the KL search has this many).
  std::size_t histogramBins = 2048;
  /// At most this many calibration samples are used (0: all).
  std::size_t maxSamples = 0;
  /// The file the config came from ("" for defaults).
  std::string source;
};

/// Parses config YAML; `source` names it in messages. Throws Error "<source>:<line>: ..." for a
/// syntax error, an unknown key, method, strategy, rounding mode or op type, or a value out of
/// range.
QuantConfig parseQuantConfig(const std::string& text, const std::string& source);

/// Reads and parses a config file.
QuantConfig loadQuantConfig(const std::filesystem::path& path);

/// Throws Error "<config>:<line>: layer 'x' is not in <model>" for a host layer or override that
/// names no node, output or graph input of `graph`.
void checkQuantConfig(const QuantConfig& config, const Graph& graph);

/// The activation settings of value `valueName`, produced by `producer` (nullptr for a graph
/// input), after the overrides.
ActivationSettings activationSettingsFor(const QuantConfig& config, const Graph& graph,
                                         const Node* producer, std::string_view valueName);

/// The weight settings of `node` after the overrides.
WeightSettings weightSettingsFor(const QuantConfig& config, const Graph& graph, const Node& node);

}  // namespace npu::compiler
