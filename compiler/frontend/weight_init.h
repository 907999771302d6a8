// Private to the YAML front end: seeded weights and BatchNormalization statistics.
#pragma once

#include <cstdint>
#include <random>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// A random stream fixed by a seed and a name (the layer's), so a layer's weights do not change
/// when other layers are added. Uses only std::mt19937_64's specified output, so the numbers are
/// the same on every platform and standard library.
class SeededRandom {
 public:
  SeededRandom(std::uint64_t seed, std::string_view stream);

  /// Uniform in [lo, hi).
  float uniform(float lo, float hi);
  /// Standard normal (Box-Muller).
  float normal();

 private:
  double unit();
  std::mt19937_64 m_engine;
};

/// `count` values uniform in [-sqrt(6 / fanIn), sqrt(6 / fanIn)): Kaiming-uniform with the ReLU
/// gain, which keeps the activation variance through a ReLU network.
std::vector<float> kaimingUniform(SeededRandom& random, std::int64_t count, std::int64_t fanIn);

/// `count` values uniform in [-1 / sqrt(fanIn), 1 / sqrt(fanIn)) (PyTorch's bias default).
std::vector<float> biasUniform(SeededRandom& random, std::int64_t count, std::int64_t fanIn);

/// Runs the graph on a seeded standard-normal input and sets the mean and var constants of the
/// BatchNormalization nodes named in `nodes` to the per-channel statistics of their input, in
/// node order (so each sees already-normalised producers), as train-mode BN would.
void estimateBatchNormStatistics(Graph& graph, std::uint64_t seed,
                                 const std::unordered_set<std::string>& nodes);

}  // namespace npu::compiler
