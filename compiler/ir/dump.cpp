// The text form of a graph: inputs, constants, nodes in order and outputs, one line each.
#include "npu/compiler/ir/dump.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace npu::compiler {
namespace {

/// Constants with at most this many elements show their values.
constexpr std::int64_t kInlineElements = 8;

/// The type, and the given quantization of a QDQ model's value: "scale 0.02 zp -3", or for
/// per-axis weights "per axis 0: 8 scales".
std::string typed(const Value& v) {
  std::string text = v.typed ? formatType(v.dtype, v.shape) : std::string("?");
  if (v.quant && v.quant->scales.size() == 1) {
    text += fmt::format(" <scale {} zp {}>", v.quant->scales[0],
                        v.quant->zeroPoints.empty() ? 0 : v.quant->zeroPoints[0]);
  } else if (v.quant) {
    text += fmt::format(" <per axis {}: {} scales>", v.quant->axis, v.quant->scales.size());
  }
  return text;
}

std::string constantValues(const TensorData& data) {
  if (data.dtype() == DType::Float32) {
    return fmt::format("[{}]", fmt::join(data.floats(), ", "));
  }
  return fmt::format("[{}]", fmt::join(data.toInt64(), ", "));
}

}  // namespace

std::string dumpGraph(const Graph& graph) {
  std::string out = fmt::format("graph {} ({} nodes)\n", graph.name(), graph.nodes().size());
  for (ValueId id : graph.inputs()) {
    const Value& v = graph.value(id);
    out += fmt::format("  input  %{}: {}\n", v.name, typed(v));
  }
  for (std::size_t i = 0; i < graph.valueCount(); ++i) {
    const Value& v = graph.value(ValueId{static_cast<std::uint32_t>(i)});
    if (!v.isConstant()) {
      continue;
    }
    out += fmt::format("  const  %{}: {}", v.name, typed(v));
    if (v.data->size() <= kInlineElements) {
      out += " = " + constantValues(*v.data);
    }
    out += '\n';
  }
  for (const Node& node : graph.nodes()) {
    std::vector<std::string> results;
    for (ValueId id : node.outputs) {
      const Value& v = graph.value(id);
      results.push_back(fmt::format("%{}: {}", v.name, typed(v)));
    }
    std::vector<std::string> operands;
    for (ValueId id : node.inputs) {
      operands.push_back(id.valid() ? "%" + graph.value(id).name : std::string("_"));
    }
    out += fmt::format("  {} = {}[{}]({})", fmt::join(results, ", "), opName(node.op), node.name,
                       fmt::join(operands, ", "));
    if (!node.attributes.all().empty()) {
      std::vector<std::string> attributes;
      for (const auto& [name, value] : node.attributes.all()) {
        attributes.push_back(fmt::format("{}={}", name, formatAttribute(value)));
      }
      out += fmt::format(" {{{}}}", fmt::join(attributes, ", "));
    }
    out += '\n';
  }
  for (ValueId id : graph.outputs()) {
    const Value& v = graph.value(id);
    out += fmt::format("  output %{}: {}\n", v.name, typed(v));
  }
  return out;
}

}  // namespace npu::compiler
