// QDQ models: QuantizeLinear/DequantizeLinear stripped into given quantization (qdq_import.h).
#include "qdq_import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <unordered_map>

#include "npu/support/error.h"
#include "onnx_tensor.h"

namespace npu::compiler {
namespace {

/// The QOperator-form ops (integer kernels with their quantization as inputs).
constexpr std::string_view kQOperatorOps[] = {
    "QLinearConv",
    "QLinearMatMul",
    "ConvInteger",
    "MatMulInteger",
    "QLinearAdd",
    "QLinearMul",
    "QLinearConcat",
    "QLinearSigmoid",
    "QLinearLeakyRelu",
    "QLinearAveragePool",
    "QLinearGlobalAveragePool",
    "QLinearSoftmax",
    "QGemm",
    "DynamicQuantizeLinear",
};

bool isQOperator(const onnx::NodeProto& node) {
  return std::find(std::begin(kQOperatorOps), std::end(kQOperatorOps), node.op_type()) !=
         std::end(kQOperatorOps);
}

bool isDefaultDomain(const onnx::NodeProto& node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

bool isQ(const onnx::NodeProto& node) {
  return isDefaultDomain(node) && node.op_type() == "QuantizeLinear";
}

bool isDq(const onnx::NodeProto& node) {
  return isDefaultDomain(node) && node.op_type() == "DequantizeLinear";
}

/// The integer type of a Q/DQ pair.
enum class IntType : std::uint8_t { Int8, UInt8, Int32 };

/// The parameters of one QuantizeLinear or DequantizeLinear node.
struct NodeParams {
  std::vector<float> scales;
  /// In the node's own integer type (uint8 not yet moved).
  std::vector<std::int32_t> zeroPoints;
  IntType type = IntType::UInt8;
  /// The axis for per-axis parameters (normalised to >= 0 once the rank is known), -1 per tensor.
  std::int64_t axis = -1;

  bool perAxis() const { return axis >= 0; }
  std::int32_t lowest() const {
    return type == IntType::Int8 ? -128 : type == IntType::UInt8 ? 0 : INT32_MIN;
  }
  std::int32_t highest() const {
    return type == IntType::Int8 ? 127 : type == IntType::UInt8 ? 255 : INT32_MAX;
  }
  /// The zero points moved into int8 (uint8 - 128).
  std::vector<std::int32_t> int8ZeroPoints() const {
    std::vector<std::int32_t> zps = zeroPoints;
    if (type == IntType::UInt8) {
      for (std::int32_t& z : zps) {
        z -= 128;
      }
    }
    return zps;
  }
  QuantParams toQuant() const {
    return QuantParams{scales, int8ZeroPoints(), perAxis() ? axis : -1};
  }
  friend bool operator==(const NodeParams& a, const NodeParams& b) {
    return a.scales == b.scales && a.int8ZeroPoints() == b.int8ZeroPoints() && a.axis == b.axis;
  }
};

std::string formatParams(const NodeParams& p) {
  if (!p.perAxis()) {
    return fmt::format("scale {} zero point {}", p.scales[0], p.int8ZeroPoints()[0]);
  }
  return fmt::format("per-axis (axis {}) scales [{}] zero points [{}]", p.axis,
                     fmt::join(p.scales, ", "), fmt::join(p.int8ZeroPoints(), ", "));
}

class QdqStripper {
 public:
  QdqStripper(onnx::ModelProto& model, std::string source, std::filesystem::path baseDir)
      : m_model(model), m_source(std::move(source)), m_baseDir(std::move(baseDir)) {}

  QdqAnnotations run() {
    rejectQOperators();
    bool any = false;
    for (const onnx::NodeProto& node : m_model.graph().node()) {
      any = any || isQ(node) || isDq(node);
    }
    if (!any) {
      return {};
    }
    indexGraph();
    const auto& nodes = m_model.graph().node();
    std::vector<bool> drop(static_cast<std::size_t>(nodes.size()), false);
    std::vector<onnx::NodeProto> identities;
    for (int n = 0; n < nodes.size(); ++n) {
      if (isQ(nodes[n])) {
        quantizeNode(n, drop, identities);
      }
    }
    for (int n = 0; n < nodes.size(); ++n) {
      if (isDq(nodes[n]) && !m_handled.contains(n)) {
        dequantizeNode(n, drop);
      }
    }
    // Rebuild the node list: the Identity nodes take the place of their DequantizeLinear.
    std::vector<onnx::NodeProto> kept;
    for (int n = 0; n < nodes.size(); ++n) {
      if (!drop[n]) {
        kept.push_back(nodes[n]);
      } else if (auto it = m_identityAt.find(n); it != m_identityAt.end()) {
        kept.push_back(identities[it->second]);
      }
    }
    auto* graph = m_model.mutable_graph();
    graph->clear_node();
    for (onnx::NodeProto& node : kept) {
      *graph->add_node() = std::move(node);
    }
    removeUnreadInitializers();
    return std::move(m_out);
  }

 private:
  std::string label(int n) const {
    const onnx::NodeProto& node = m_model.graph().node(n);
    std::string name = node.name().empty() ? fmt::format("#{}", n) : node.name();
    return fmt::format("{}: node '{}' ({})", m_source, name, node.op_type());
  }

  void rejectQOperators() const {
    std::map<std::string, std::pair<int, std::string>> found;
    int n = 0;
    for (const onnx::NodeProto& node : m_model.graph().node()) {
      if (isQOperator(node)) {
        auto [it, fresh] = found.try_emplace(
            node.op_type(), 0, node.name().empty() ? fmt::format("#{}", n) : node.name());
        ++it->second.first;
      }
      ++n;
    }
    if (found.empty()) {
      return;
    }
    std::vector<std::string> parts;
    for (const auto& [op, entry] : found) {
      parts.push_back(fmt::format("{} ({} node{}, first '{}')", op, entry.first,
                                  entry.first == 1 ? "" : "s", entry.second));
    }
    fail(ErrorKind::Unsupported,
         "{}: the model is quantized in the QOperator form, which the compiler does not import: "
         "{}; export it in the QDQ form instead (QuantizeLinear/DequantizeLinear around float "
         "ops, e.g. onnxruntime quantize_static with quant_format=QuantFormat.QDQ; "
         "docs/quantized-models.md)",
         m_source, fmt::join(parts, ", "));
  }

  void indexGraph() {
    const auto& graph = m_model.graph();
    for (int i = 0; i < graph.initializer_size(); ++i) {
      m_initializer.emplace(graph.initializer(i).name(), i);
    }
    for (int n = 0; n < graph.node_size(); ++n) {
      const onnx::NodeProto& node = graph.node(n);
      for (const std::string& in : node.input()) {
        if (!in.empty()) {
          m_readers[in].push_back(n);
        }
      }
      for (const std::string& out : node.output()) {
        m_producer.emplace(out, n);
      }
      if (isDefaultDomain(node) && node.op_type() == "Constant" && node.output_size() == 1) {
        m_constantNode.emplace(node.output(0), n);
      }
    }
    for (const onnx::ValueInfoProto& out : graph.output()) {
      m_graphOutputs.insert(out.name());
    }
  }

  /// The constant named `name` (an initializer or a Constant node's value), or nullopt.
  std::optional<OnnxTensor> constant(const std::string& name, const std::string& what) const {
    if (auto it = m_initializer.find(name); it != m_initializer.end()) {
      return decodeTensor(m_model.graph().initializer(it->second), m_baseDir, what);
    }
    if (auto it = m_constantNode.find(name); it != m_constantNode.end()) {
      const onnx::NodeProto& node = m_model.graph().node(it->second);
      if (node.attribute_size() == 1 && node.attribute(0).name() == "value") {
        return decodeTensor(node.attribute(0).t(), m_baseDir, what);
      }
    }
    // PyTorch's exporter shares a zero point through Identity nodes.
    if (auto it = m_producer.find(name); it != m_producer.end()) {
      const onnx::NodeProto& node = m_model.graph().node(it->second);
      if (isDefaultDomain(node) && node.op_type() == "Identity" && node.input_size() == 1 &&
          node.input(0) != name) {
        return constant(node.input(0), what);
      }
    }
    return std::nullopt;
  }

  /// The scale and zero point of Q/DQ node `n`, checked.
  NodeParams paramsOf(int n) const {
    const onnx::NodeProto& node = m_model.graph().node(n);
    std::string where = label(n);
    if (node.input_size() < 2 || node.input(0).empty() || node.input(1).empty() ||
        node.output_size() != 1 || node.output(0).empty()) {
      fail("{}: expects an input, a scale (and a zero point) and one output", where);
    }
    std::optional<OnnxTensor> scale = constant(node.input(1), where + ": scale");
    if (!scale) {
      fail("{}: scale '{}' is not a constant (the compiler needs fixed quantization parameters)",
           where, node.input(1));
    }
    if (scale->dtype != DType::Float32) {
      fail("{}: scale '{}' is {}, not float", where, node.input(1), dtypeName(scale->dtype));
    }
    if (scale->shape.size() > 1) {
      fail("{}: scale '{}' has shape {}; a scalar or a 1-D tensor is expected", where,
           node.input(1), formatShape(scale->shape));
    }
    NodeParams p;
    std::span<const float> scales = scale->data.floats();
    p.scales.assign(scales.begin(), scales.end());
    for (std::size_t i = 0; i < p.scales.size(); ++i) {
      if (!std::isfinite(p.scales[i]) || p.scales[i] <= 0.0F) {
        fail("{}: scale '{}' holds {} at element {}; scales must be positive and finite", where,
             node.input(1), p.scales[i], i);
      }
    }
    if (p.scales.empty()) {
      fail("{}: scale '{}' is empty", where, node.input(1));
    }
    bool hasZp = node.input_size() >= 3 && !node.input(2).empty();
    if (hasZp) {
      std::optional<OnnxTensor> zp = constant(node.input(2), where + ": zero point");
      if (!zp) {
        fail("{}: zero point '{}' is not a constant", where, node.input(2));
      }
      switch (zp->dtype) {
        case DType::Int8:
          p.type = IntType::Int8;
          break;
        case DType::UInt8:
          p.type = IntType::UInt8;
          break;
        case DType::Int32:
          p.type = IntType::Int32;
          break;
        default:
          fail("{}: zero point '{}' is {}; int8, uint8 (or int32 for a bias) are supported", where,
               node.input(2), dtypeName(zp->dtype));
      }
      if (zp->shape != scale->shape) {
        fail("{}: zero point '{}' has shape {} but the scale has {}", where, node.input(2),
             formatShape(zp->shape), formatShape(scale->shape));
      }
      for (std::int64_t z : zp->data.toInt64()) {
        p.zeroPoints.push_back(static_cast<std::int32_t>(z));
      }
    } else {
      p.zeroPoints.assign(p.scales.size(), 0);  // ONNX's default: uint8, zero point 0
    }
    if (scale->shape.size() == 1) {
      std::int64_t axis = 1;
      for (const onnx::AttributeProto& a : node.attribute()) {
        if (a.name() == "axis") {
          axis = a.i();
        }
      }
      p.axis = axis;  // normalised against the rank by the caller
      if (p.scales.size() == 1) {
        p.axis = -1;  // one scale: per tensor, whatever the rank
      }
    }
    return p;
  }

  /// Normalises a per-axis parameter set's axis against `rank` and checks the channel count.
  void checkAxis(NodeParams& p, const Shape& shape, int n) const {
    if (!p.perAxis()) {
      return;
    }
    auto rank = static_cast<std::int64_t>(shape.size());
    std::int64_t axis = p.axis;
    if (axis < 0) {
      axis += rank;
    }
    if (axis < 0 || axis >= rank) {
      fail("{}: axis {} is outside a tensor of rank {}", label(n), p.axis, rank);
    }
    p.axis = axis;
    if (shape[axis] != static_cast<std::int64_t>(p.scales.size())) {
      fail("{}: {} per-axis scales for axis {} of shape {}", label(n), p.scales.size(), axis,
           formatShape(shape));
    }
  }

  /// The per-element parameter index of flat element `i` of a tensor of `shape`.
  static std::size_t channelOf(const NodeParams& p, const Shape& shape, std::size_t i) {
    if (!p.perAxis()) {
      return 0;
    }
    std::int64_t inner = 1;
    for (std::size_t d = static_cast<std::size_t>(p.axis) + 1; d < shape.size(); ++d) {
      inner *= shape[d];
    }
    return static_cast<std::size_t>((static_cast<std::int64_t>(i) / inner) % shape[p.axis]);
  }

  /// Adds a float initializer (replacing one of the same name).
  void addFloatInitializer(const std::string& name, const Shape& shape,
                           const std::vector<float>& values) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (std::int64_t d : shape) {
      t.add_dims(d);
    }
    std::string raw(values.size() * sizeof(float), '\0');
    if (!values.empty()) {
      std::memcpy(raw.data(), values.data(), raw.size());
    }
    t.set_raw_data(std::move(raw));
    *m_model.mutable_graph()->add_initializer() = std::move(t);
    m_initializer[name] = m_model.graph().initializer_size() - 1;
  }

  /// A DequantizeLinear of an integer constant: the float constant (q - zp) * s.
  void dequantizeNode(int n, std::vector<bool>& drop) {
    const onnx::NodeProto& node = m_model.graph().node(n);
    std::string where = label(n);
    NodeParams p = paramsOf(n);
    std::optional<OnnxTensor> q = constant(node.input(0), where + ": input");
    if (!q) {
      auto producer = m_producer.find(node.input(0));
      if (producer == m_producer.end()) {
        fail(ErrorKind::Unsupported,
             "{}: dequantizes '{}', an integer graph input; the compiler takes float inputs "
             "(quantize them in the model with a QuantizeLinear)",
             where, node.input(0));
      }
      fail(ErrorKind::Unsupported, "{}: dequantizes the output of '{}' ({}), not a constant", where,
           m_model.graph().node(producer->second).name(),
           m_model.graph().node(producer->second).op_type());
    }
    if (q->dtype != DType::Int8 && q->dtype != DType::UInt8 && q->dtype != DType::Int32) {
      fail("{}: input '{}' is {}, not int8, uint8 or int32", where, node.input(0),
           dtypeName(q->dtype));
    }
    bool hasZp = node.input_size() >= 3 && !node.input(2).empty();
    IntType dataType = q->dtype == DType::Int8    ? IntType::Int8
                       : q->dtype == DType::UInt8 ? IntType::UInt8
                                                  : IntType::Int32;
    if (hasZp && dataType != p.type) {
      fail("{}: input '{}' and zero point '{}' have different types", where, node.input(0),
           node.input(2));
    }
    p.type = dataType;
    checkAxis(p, q->shape, n);
    std::vector<std::int64_t> values = q->data.toInt64();
    std::vector<float> real(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::size_t c = channelOf(p, q->shape, i);
      real[i] = static_cast<float>(values[i] - p.zeroPoints[c]) * p.scales[c];
    }
    const std::string& out = node.output(0);
    addFloatInitializer(out, q->shape, real);
    if (p.type != IntType::Int32) {
      m_out.values[out] = p.toQuant();
    } else {
      for (std::int32_t z : p.zeroPoints) {
        if (z != 0) {
          fail("{}: an int32 (bias) tensor needs zero point 0, got {}", where, z);
        }
      }
    }
    drop[n] = true;
  }

  /// A QuantizeLinear and the DequantizeLinear nodes reading it.
  void quantizeNode(int n, std::vector<bool>& drop, std::vector<onnx::NodeProto>& identities) {
    const onnx::NodeProto& node = m_model.graph().node(n);
    std::string where = label(n);
    NodeParams p = paramsOf(n);
    if (p.type == IntType::Int32) {
      fail("{}: quantizes to int32; activations and weights must be int8 or uint8", where);
    }
    const std::string& x = node.input(0);
    const std::string& qOut = node.output(0);
    if (m_graphOutputs.contains(qOut)) {
      fail(ErrorKind::Unsupported,
           "{}: its int8 output '{}' is a graph output; the compiler returns float outputs "
           "(end the model with a DequantizeLinear)",
           where, qOut);
    }
    std::vector<int> dqs;
    for (int reader : m_readers[qOut]) {
      const onnx::NodeProto& r = m_model.graph().node(reader);
      if (!isDq(r) || r.input(0) != qOut) {
        fail(ErrorKind::Unsupported,
             "{}: its int8 output '{}' is read by node '{}' ({}), not by a DequantizeLinear; "
             "only the QDQ form is supported",
             where, qOut, r.name(), r.op_type());
      }
      NodeParams dp = paramsOf(reader);
      if (!(dp == p)) {
        fail(
            "{}: the DequantizeLinear '{}' reading it has {}, the QuantizeLinear {}; a Q/DQ "
            "pair must share its parameters",
            where, r.name(), formatParams(dp), formatParams(p));
      }
      dqs.push_back(reader);
    }
    drop[n] = true;
    std::optional<OnnxTensor> w = constant(x, where + ": input");
    if (w) {
      if (w->dtype != DType::Float32) {
        fail("{}: input '{}' is {}, not float", where, x, dtypeName(w->dtype));
      }
      checkAxis(p, w->shape, n);
      // Fake quantization of a weight: DQ(Q(w)) with ONNX's rounding (half to even).
      std::span<const float> values = w->data.floats();
      std::vector<float> real(values.size());
      for (std::size_t i = 0; i < values.size(); ++i) {
        std::size_t c = channelOf(p, w->shape, i);
        float v = std::nearbyint(values[i] / p.scales[c]) + static_cast<float>(p.zeroPoints[c]);
        v = std::clamp(v, static_cast<float>(p.lowest()), static_cast<float>(p.highest()));
        real[i] = (v - static_cast<float>(p.zeroPoints[c])) * p.scales[c];
      }
      for (int dq : dqs) {
        const std::string& out = m_model.graph().node(dq).output(0);
        addFloatInitializer(out, w->shape, real);
        m_out.values[out] = p.toQuant();
        drop[dq] = true;
        m_handled.insert(dq);
      }
      return;
    }
    if (p.perAxis()) {
      fail(ErrorKind::Unsupported,
           "{}: quantizes activation '{}' per axis (axis {}); the NPU quantizes activations per "
           "tensor (one scale and zero point)",
           where, x, p.axis);
    }
    if (auto it = m_out.values.find(x); it != m_out.values.end() && !(it->second == p.toQuant())) {
      fail(
          "{}: quantizes '{}' with {}, but another QuantizeLinear gives it scale {} zero point "
          "{}",
          where, x, formatParams(p), it->second.scales[0], it->second.zeroPoints[0]);
    }
    m_out.values[x] = p.toQuant();
    for (int dq : dqs) {
      const onnx::NodeProto& d = m_model.graph().node(dq);
      onnx::NodeProto identity;
      identity.set_name(d.name());
      identity.set_op_type("Identity");
      identity.add_input(x);
      identity.add_output(d.output(0));
      m_out.values[d.output(0)] = p.toQuant();
      drop[dq] = true;
      m_handled.insert(dq);
      m_identityAt.emplace(dq, identities.size());
      identities.push_back(std::move(identity));
    }
  }

  /// Drops initializers no node reads any more (the int8 weights, scales and zero points).
  void removeUnreadInitializers() {
    std::set<std::string> read;
    for (const onnx::NodeProto& node : m_model.graph().node()) {
      for (const std::string& in : node.input()) {
        read.insert(in);
      }
    }
    for (const onnx::ValueInfoProto& out : m_model.graph().output()) {
      read.insert(out.name());
    }
    auto* inits = m_model.mutable_graph()->mutable_initializer();
    std::vector<onnx::TensorProto> kept;
    std::set<std::string> seen;
    // A replaced initializer appears twice; the later (float) one wins.
    for (int i = inits->size() - 1; i >= 0; --i) {
      const onnx::TensorProto& t = inits->Get(i);
      if (read.contains(t.name()) && seen.insert(t.name()).second) {
        kept.push_back(t);
      }
    }
    std::reverse(kept.begin(), kept.end());
    inits->Clear();
    for (onnx::TensorProto& t : kept) {
      *inits->Add() = std::move(t);
    }
    // Graph inputs that named a dropped initializer (older exporters list them) go too.
    auto* inputs = m_model.mutable_graph()->mutable_input();
    std::vector<onnx::ValueInfoProto> keptInputs;
    for (const onnx::ValueInfoProto& in : *inputs) {
      bool wasInitializer = m_initializer.contains(in.name());
      if (!wasInitializer || seen.contains(in.name())) {
        keptInputs.push_back(in);
      }
    }
    inputs->Clear();
    for (onnx::ValueInfoProto& in : keptInputs) {
      *inputs->Add() = std::move(in);
    }
  }

  onnx::ModelProto& m_model;
  std::string m_source;
  std::filesystem::path m_baseDir;
  std::unordered_map<std::string, int> m_initializer;
  std::unordered_map<std::string, int> m_constantNode;
  std::unordered_map<std::string, int> m_producer;
  std::unordered_map<std::string, std::vector<int>> m_readers;
  std::set<std::string> m_graphOutputs;
  std::set<int> m_handled;
  std::map<int, std::size_t> m_identityAt;
  QdqAnnotations m_out;
};

}  // namespace

QdqAnnotations stripQdq(onnx::ModelProto& model, const std::string& source,
                        const std::filesystem::path& baseDir) {
  return QdqStripper(model, source, baseDir).run();
}

void annotateQuantization(Graph& graph, const QdqAnnotations& annotations) {
  for (const auto& [name, params] : annotations.values) {
    if (std::optional<ValueId> id = graph.findValue(name)) {
      graph.value(*id).quant = params;
    }
  }
}

}  // namespace npu::compiler
