// Seeded weight generation and BatchNormalization statistics for YAML graph specs.
#include "weight_init.h"

#include <cmath>
#include <numbers>

#include "npu/compiler/interp/evaluate.h"
#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/ir/diagnostics.h"

namespace npu::compiler {
namespace {

/// FNV-1a, to turn a layer name into part of its seed.
std::uint64_t hashName(std::string_view name) {
  std::uint64_t h = 14695981039346656037ULL;
  for (char c : name) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  return h;
}

}  // namespace

SeededRandom::SeededRandom(std::uint64_t seed, std::string_view stream)
    : m_engine(seed * 0x9E3779B97F4A7C15ULL ^ hashName(stream)) {}

double SeededRandom::unit() {
  // 53 random bits -> [0, 1).
  return static_cast<double>(m_engine() >> 11) * 0x1.0p-53;
}

float SeededRandom::uniform(float lo, float hi) {
  return static_cast<float>(lo + (hi - lo) * unit());
}

float SeededRandom::normal() {
  double u1 = 1.0 - unit();  // (0, 1]
  double u2 = unit();
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
}

std::vector<float> kaimingUniform(SeededRandom& random, std::int64_t count, std::int64_t fanIn) {
  auto bound =
      static_cast<float>(std::sqrt(6.0 / static_cast<double>(std::max<std::int64_t>(fanIn, 1))));
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& v : values) {
    v = random.uniform(-bound, bound);
  }
  return values;
}

std::vector<float> biasUniform(SeededRandom& random, std::int64_t count, std::int64_t fanIn) {
  auto bound =
      static_cast<float>(1.0 / std::sqrt(static_cast<double>(std::max<std::int64_t>(fanIn, 1))));
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& v : values) {
    v = random.uniform(-bound, bound);
  }
  return values;
}

void estimateBatchNormStatistics(Graph& graph, std::uint64_t seed,
                                 const std::unordered_set<std::string>& nodes) {
  if (nodes.empty()) {
    return;
  }
  std::vector<std::optional<RuntimeValue>> values(graph.valueCount());
  std::vector<std::size_t> lastUse(graph.valueCount(), 0);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    for (ValueId in : graph.nodes()[n].inputs) {
      if (in.valid()) {
        lastUse[in.index] = n;
      }
    }
  }
  for (ValueId id : graph.inputs()) {
    const Value& v = graph.value(id);
    SeededRandom random(seed, "input:" + v.name);
    golden::FloatTensor x{v.shape,
                          std::vector<float>(static_cast<std::size_t>(elementCount(v.shape)))};
    if (v.dtype == DType::Int64 || v.dtype == DType::Int32) {
      // Token ids: 0, an index every embedding table has.
      values[id.index] = graphInputValue(graph, v, x);
      continue;
    }
    for (float& e : x.data) {
      e = random.normal();
    }
    values[id.index] = std::move(x);
  }
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    const Node& node = graph.nodes()[n];
    if (nodes.contains(node.name)) {
      const auto& x = std::get<golden::FloatTensor>(*values[node.input(0).index]);
      std::int64_t channels = x.shape[1];
      std::int64_t inner = elementCount(std::span(x.shape).subspan(2));
      std::int64_t batch = x.shape[0];
      std::vector<float> mean(static_cast<std::size_t>(channels));
      std::vector<float> var(static_cast<std::size_t>(channels));
      for (std::int64_t c = 0; c < channels; ++c) {
        double sum = 0.0;
        double squares = 0.0;
        for (std::int64_t b = 0; b < batch; ++b) {
          const float* plane = x.data.data() + (b * channels + c) * inner;
          for (std::int64_t i = 0; i < inner; ++i) {
            sum += plane[i];
            squares += static_cast<double>(plane[i]) * plane[i];
          }
        }
        double count = static_cast<double>(batch * inner);
        double m = sum / count;
        mean[c] = static_cast<float>(m);
        var[c] = static_cast<float>(std::max(squares / count - m * m, 0.0));
      }
      graph.value(node.input(3)).data = TensorData(std::move(mean));
      graph.value(node.input(4)).data = TensorData(std::move(var));
    }
    std::vector<RuntimeValue> constants;
    constants.reserve(node.inputs.size());
    std::vector<const RuntimeValue*> operands;
    for (ValueId in : node.inputs) {
      if (!in.valid()) {
        operands.push_back(nullptr);
      } else if (graph.value(in).isConstant()) {
        constants.push_back(runtimeValueOf(graph.value(in)));
        operands.push_back(&constants.back());
      } else {
        operands.push_back(&*values[in.index]);
      }
    }
    std::vector<RuntimeValue> results =
        withNodeContext(graph, node, [&] { return evaluateNode(node, operands); });
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      values[node.outputs[i].index] = std::move(results[i]);
    }
    for (ValueId in : node.inputs) {
      if (in.valid() && lastUse[in.index] == n) {
        values[in.index].reset();
      }
    }
  }
}

}  // namespace npu::compiler
