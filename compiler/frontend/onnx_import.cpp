// The ONNX front end: model protobuf -> Graph, with opset forms normalised and inputs typed.
#include "npu/compiler/frontend/onnx_import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "gelu_pattern.h"
#include "mapped_file.h"
#include "npu/compiler/ir/diagnostics.h"
#include "npu/compiler/ir/verify.h"
#include "npu/compiler/passes/infer_shapes.h"
#include "npu/support/error.h"
#include "onnx_tensor.h"
#include "qdq_import.h"

namespace npu::compiler {
namespace {

constexpr std::int64_t kLowestOpset = 9;
constexpr std::int64_t kHighestOpset = 18;

bool inDefaultDomain(const onnx::NodeProto& proto) {
  return proto.domain().empty() || proto.domain() == "ai.onnx";
}

/// An Einsum equation that is a (batched) matrix product, "...ij,...jk->...ik" with the same
/// batch letters on all three terms, so MatMul runs it.
bool isMatMulEinsum(std::string equation) {
  std::erase(equation, ' ');
  std::size_t comma = equation.find(',');
  std::size_t arrow = equation.find("->");
  if (comma == std::string::npos || arrow == std::string::npos || arrow < comma) {
    return false;
  }
  std::string a = equation.substr(0, comma);
  std::string b = equation.substr(comma + 1, arrow - comma - 1);
  std::string c = equation.substr(arrow + 2);
  if (a.size() < 2 || a.size() != b.size() || a.size() != c.size() ||
      a.find("...") != std::string::npos) {
    return false;
  }
  std::string batch = a.substr(0, a.size() - 2);
  char i = a[a.size() - 2];
  char j = a.back();
  char k = b.back();
  bool distinct = i != j && j != k && i != k && batch.find_first_of({i, j, k}) == std::string::npos;
  return distinct && b.substr(0, batch.size()) == batch && c.substr(0, batch.size()) == batch &&
         b[b.size() - 2] == j && c[c.size() - 2] == i && c.back() == k;
}

/// Why the front end cannot import a node of this type, or nullopt when it can.
std::optional<std::string> unsupportedOp(const onnx::NodeProto& proto) {
  if (!inDefaultDomain(proto)) {
    return fmt::format("{}::{}", proto.domain(), proto.op_type());
  }
  const std::string& type = proto.op_type();
  if (parseOpKind(type) == OpKind::ChannelLayerNorm ||
      parseOpKind(type) == OpKind::ChannelRmsNorm || parseOpKind(type) == OpKind::HeadMatMul) {
    // The compiler's own ops (fuse-channel-layernorm, fuse-rms-norm, lift-token-tensors), not
    // ONNX: a file spells them out.
    return type + " (the compiler's internal op, not an ONNX op)";
  }
  if (type == "Constant" || type == "Upsample" || parseOpKind(type)) {
    return std::nullopt;
  }
  if (type == "Einsum") {
    for (const onnx::AttributeProto& a : proto.attribute()) {
      if (a.name() == "equation" && proto.input_size() == 2 && isMatMulEinsum(a.s())) {
        return std::nullopt;
      }
    }
    return "Einsum (only matrix-product equations such as 'bij,bjk->bik')";
  }
  return type;
}

class OnnxImporter {
 public:
  OnnxImporter(const onnx::ModelProto& model, std::string source, std::filesystem::path baseDir,
               QdqAnnotations quantization, DimensionBinder bind)
      : m_model(model),
        m_quantization(std::move(quantization)),
        m_bind(std::move(bind)),
        m_source(std::move(source)),
        m_baseDir(std::move(baseDir)),
        m_graph(graphName(model, m_source), m_source) {}

  Graph run() {
    readOpset();
    addInitializers();
    addInputs();
    checkEveryOpIsKnown();
    for (int index : topologicalOrder()) {
      addNode(m_model.graph().node(index), index);
    }
    addOutputs();
    annotateQuantization(m_graph, m_quantization);  // a QDQ model's given parameters
    fuseGeluPattern(m_graph);
    inferShapes(m_graph);
    checkDeclaredOutputs();
    verifyGraph(m_graph);
    return std::move(m_graph);
  }

 private:
  static std::string graphName(const onnx::ModelProto& model, const std::string& source) {
    if (!model.graph().name().empty()) {
      return model.graph().name();
    }
    return std::filesystem::path(source).stem().string();
  }

  std::string nodeLabel(const onnx::NodeProto& node, int index) const {
    std::string name = node.name().empty() ? fmt::format("#{}", index) : node.name();
    std::string op = node.domain().empty() || node.domain() == "ai.onnx"
                         ? node.op_type()
                         : node.domain() + "::" + node.op_type();
    return fmt::format("{}: node '{}' ({})", m_source, name, op);
  }

  void readOpset() {
    m_opset = -1;
    for (const auto& entry : m_model.opset_import()) {
      if (entry.domain().empty() || entry.domain() == "ai.onnx") {
        m_opset = entry.version();
      }
    }
    if (m_opset < 0) {
      fail("{}: the model imports no version of the default ONNX opset", m_source);
    }
    if (m_opset < kLowestOpset || m_opset > kHighestOpset) {
      fail("{}: opset {} is not supported (opsets {}-{})", m_source, m_opset, kLowestOpset,
           kHighestOpset);
    }
  }

  void addInitializers() {
    for (const onnx::TensorProto& t : m_model.graph().initializer()) {
      if (m_graph.findValue(t.name())) {
        fail("{}: initializer '{}' is defined twice", m_source, t.name());
      }
      OnnxTensor tensor =
          decodeTensor(t, m_baseDir, fmt::format("{}: initializer '{}'", m_source, t.name()));
      m_graph.addConstant(t.name(), std::move(tensor.shape), std::move(tensor.data));
    }
  }

  void addInputs() {
    for (const onnx::ValueInfoProto& input : m_model.graph().input()) {
      if (m_graph.findValue(input.name())) {
        continue;  // Older exporters list initializers as inputs too.
      }
      const auto& type = input.type().tensor_type();
      // Integer inputs are indices (a language model's token ids), read by host ops such as an
      // embedding Gather; their data arrives as whole numbers (calibration_data.h).
      const bool indices =
          input.type().has_tensor_type() && (type.elem_type() == onnx::TensorProto::INT64 ||
                                             type.elem_type() == onnx::TensorProto::INT32);
      if (!input.type().has_tensor_type() ||
          (type.elem_type() != onnx::TensorProto::FLOAT && !indices)) {
        fail(
            "{}: graph input '{}' is not an f32, int64 or int32 tensor (only those inputs are "
            "supported)",
            m_source, input.name());
      }
      if (!type.has_shape()) {
        fail("{}: graph input '{}' has no shape", m_source, input.name());
      }
      Value value;
      value.name = input.name();
      value.dtype = !indices                                       ? DType::Float32
                    : type.elem_type() == onnx::TensorProto::INT32 ? DType::Int32
                                                                   : DType::Int64;
      value.typed = true;
      for (int axis = 0; axis < type.shape().dim_size(); ++axis) {
        const auto& dim = type.shape().dim(axis);
        const std::optional<std::int64_t> bound = dim.has_dim_value() || !m_bind
                                                      ? std::nullopt
                                                      : m_bind(input.name(), axis, dim.dim_param());
        if (dim.has_dim_value() && dim.dim_value() > 0) {
          value.shape.push_back(dim.dim_value());
        } else if (bound) {
          if (*bound <= 0) {
            fail("{}: graph input '{}': dimension '{}' at axis {} bound to {}; it must be positive",
                 m_source, input.name(), dim.dim_param(), axis, *bound);
          }
          value.shape.push_back(*bound);
        } else if (axis == 0) {
          value.shape.push_back(1);  // A symbolic batch dimension is compiled as batch 1.
        } else {
          fail(
              "{}: graph input '{}' has a symbolic dimension '{}' at axis {}; only the batch "
              "axis may be symbolic",
              m_source, input.name(), dim.dim_param(), axis);
        }
      }
      // Bounded before shape inference computes windows and strides from it.
      (void)boundedElementCount(value.shape,
                                fmt::format("{}: graph input '{}'", m_source, input.name()));
      m_graph.addInput(m_graph.addValue(std::move(value)));
    }
  }

  /// Fails once, listing every op type the front end cannot import with its node count and
  /// first node, so a user learns the whole gap in one run.
  void checkEveryOpIsKnown() const {
    struct Gap {
      std::string op;
      int count = 0;
      std::string firstNode;
    };
    std::vector<Gap> gaps;
    int index = 0;
    for (const onnx::NodeProto& proto : m_model.graph().node()) {
      if (std::optional<std::string> op = unsupportedOp(proto)) {
        auto it = std::find_if(gaps.begin(), gaps.end(), [&](const Gap& g) { return g.op == *op; });
        if (it == gaps.end()) {
          std::string name = proto.name().empty() ? fmt::format("#{}", index) : proto.name();
          gaps.push_back({*op, 0, std::move(name)});
          it = gaps.end() - 1;
        }
        ++it->count;
      }
      ++index;
    }
    if (gaps.empty()) {
      return;
    }
    std::vector<std::string> parts;
    int nodes = 0;
    for (const Gap& g : gaps) {
      parts.push_back(fmt::format("{} ({} node{}, first '{}')", g.op, g.count,
                                  g.count == 1 ? "" : "s", g.firstNode));
      nodes += g.count;
    }
    fail("{}: {} node{} of {} op type{} the compiler does not support: {}", m_source, nodes,
         nodes == 1 ? "" : "s", gaps.size(), gaps.size() == 1 ? "" : "s", fmt::join(parts, ", "));
  }

  /// Node indices in an order where every input is defined before it is read (the file order
  /// when it already is one). Fails on a cycle or on an input nothing defines.
  std::vector<int> topologicalOrder() const {
    const auto& nodes = m_model.graph().node();
    std::unordered_set<std::string> defined;
    for (std::size_t i = 0; i < m_graph.valueCount(); ++i) {
      defined.insert(m_graph.value(ValueId{static_cast<std::uint32_t>(i)}).name);
    }
    std::unordered_map<std::string, int> producer;
    for (int n = 0; n < nodes.size(); ++n) {
      for (const std::string& out : nodes[n].output()) {
        if (out.empty()) {
          continue;
        }
        if (defined.contains(out) || producer.contains(out)) {
          fail("{}: output '{}' is already defined", nodeLabel(nodes[n], n), out);
        }
        producer.emplace(out, n);
      }
    }
    for (int n = 0; n < nodes.size(); ++n) {
      for (const std::string& in : nodes[n].input()) {
        if (!in.empty() && !defined.contains(in) && !producer.contains(in)) {
          fail(
              "{}: input '{}' is not a graph input, an initializer or a node output (missing "
              "initializer?)",
              nodeLabel(nodes[n], n), in);
        }
      }
    }
    std::vector<int> order;
    std::vector<bool> done(static_cast<std::size_t>(nodes.size()), false);
    while (static_cast<int>(order.size()) < nodes.size()) {
      bool progress = false;
      for (int n = 0; n < nodes.size(); ++n) {
        if (done[n]) {
          continue;
        }
        bool ready = true;
        for (const std::string& in : nodes[n].input()) {
          ready = ready && (in.empty() || defined.contains(in));
        }
        if (!ready) {
          continue;
        }
        for (const std::string& out : nodes[n].output()) {
          defined.insert(out);
        }
        done[n] = true;
        order.push_back(n);
        progress = true;
      }
      if (!progress) {
        int stuck = 0;
        while (done[stuck]) {
          ++stuck;
        }
        fail("{}: the graph has a cycle through this node", nodeLabel(nodes[stuck], stuck));
      }
    }
    return order;
  }

  AttributeValue convertAttribute(const onnx::AttributeProto& a, const std::string& where) const {
    switch (a.type()) {
      case onnx::AttributeProto::FLOAT:
        return a.f();
      case onnx::AttributeProto::INT:
        return static_cast<std::int64_t>(a.i());
      case onnx::AttributeProto::STRING:
        return a.s();
      case onnx::AttributeProto::FLOATS:
        return std::vector<float>(a.floats().begin(), a.floats().end());
      case onnx::AttributeProto::INTS:
        return std::vector<std::int64_t>(a.ints().begin(), a.ints().end());
      case onnx::AttributeProto::TENSOR: {
        // Only ConstantOfShape's one-element fill value takes a tensor.
        OnnxTensor t = decodeTensor(a.t(), m_baseDir, where + ": attribute '" + a.name() + "'");
        if (t.data.size() != 1) {
          fail("{}: tensor attribute '{}' must hold one value", where, a.name());
        }
        if (t.dtype == DType::Float32) {
          return t.data.floats()[0];
        }
        return t.data.toInt64()[0];
      }
      default:
        fail("{}: attribute '{}' has an unsupported type", where, a.name());
    }
  }

  ValueId constantInput(const std::string& nodeName, const std::string& what, Shape shape,
                        TensorData data) {
    return m_graph.addConstant(m_graph.uniqueValueName(nodeName + "." + what), std::move(shape),
                               std::move(data));
  }

  /// A Constant node becomes a constant value.
  void addConstantNode(const onnx::NodeProto& proto, const std::string& where) {
    if (proto.output_size() != 1 || proto.attribute_size() != 1) {
      fail("{}: expects one output and one value attribute", where);
    }
    const onnx::AttributeProto& a = proto.attribute(0);
    const std::string& name = proto.output(0);
    if (a.name() == "value") {
      OnnxTensor t = decodeTensor(a.t(), m_baseDir, where + ": attribute 'value'");
      m_graph.addConstant(name, std::move(t.shape), std::move(t.data));
    } else if (a.name() == "value_float") {
      m_graph.addConstant(name, {}, TensorData(std::vector<float>{a.f()}));
    } else if (a.name() == "value_floats") {
      m_graph.addConstant(name, {a.floats_size()},
                          TensorData(std::vector<float>(a.floats().begin(), a.floats().end())));
    } else if (a.name() == "value_int") {
      m_graph.addConstant(name, {}, TensorData(std::vector<std::int64_t>{a.i()}));
    } else if (a.name() == "value_ints") {
      m_graph.addConstant(name, {a.ints_size()},
                          TensorData(std::vector<std::int64_t>(a.ints().begin(), a.ints().end())));
    } else {
      fail("{}: attribute '{}' is not supported", where, a.name());
    }
  }

  /// Rewrites the attribute forms of older opsets into the opset-13+ input forms.
  void normalize(Node& node, const std::string& where) {
    auto moveInts = [&](const char* attribute, std::size_t slot) {
      if (!node.attributes.has(attribute)) {
        return;
      }
      std::vector<std::int64_t> values = node.attributes.getInts(attribute);
      node.attributes.erase(attribute);
      node.inputs.resize(std::max(node.inputs.size(), slot + 1));
      Shape shape{static_cast<std::int64_t>(values.size())};
      node.inputs[slot] = constantInput(node.name, attribute, shape, TensorData(std::move(values)));
    };
    auto moveFloat = [&](const char* attribute, std::size_t slot) {
      if (!node.attributes.has(attribute)) {
        return;
      }
      float value = node.attributes.getFloat(attribute, 0.0F);
      node.attributes.erase(attribute);
      node.inputs.resize(std::max(node.inputs.size(), slot + 1));
      node.inputs[slot] = constantInput(node.name, attribute, {}, TensorData(std::vector{value}));
    };
    if (isReduction(node.op)) {
      moveInts("axes", 1);  // an attribute before opset 18 (ReduceSum: 13)
    }
    switch (node.op) {
      case OpKind::Clip:
        moveFloat("min", 1);
        moveFloat("max", 2);
        break;
      case OpKind::Pad:
        moveInts("pads", 1);
        moveFloat("value", 2);
        break;
      case OpKind::Squeeze:
      case OpKind::Unsqueeze:
        moveInts("axes", 1);
        break;
      case OpKind::Split:
        moveInts("split", 1);
        break;
      case OpKind::Slice:
        moveInts("starts", 1);
        moveInts("ends", 2);
        moveInts("axes", 3);
        break;
      case OpKind::Softmax:
        if (m_opset < 13) {
          node.attributes.set("axis", node.attributes.getInt("axis", 1));
          node.attributes.set("flatten_to_2d", std::int64_t{1});
        }
        break;
      case OpKind::BatchNormalization:
        if (node.attributes.getInt("training_mode", 0) != 0) {
          fail("{}: training mode is not supported", where);
        }
        node.attributes.erase("training_mode");
        node.attributes.erase("spatial");
        node.attributes.erase("momentum");
        break;
      case OpKind::Resize:
        if (m_opset < 11) {  // Resize-10: (X, scales), asymmetric coordinates, floor.
          node.inputs = {node.input(0), ValueId{}, node.input(1)};
          node.attributes.set("coordinate_transformation_mode", std::string("asymmetric"));
          node.attributes.set("nearest_mode", std::string("floor"));
        }
        break;
      default:
        break;
    }
  }

  /// Upsample (deprecated in opset 10) as the equivalent Resize.
  void upsampleToResize(Node& node) {
    node.op = OpKind::Resize;
    ValueId scales = node.input(1);
    if (node.attributes.has("scales")) {
      std::vector<float> values = node.attributes.getFloats("scales");
      node.attributes.erase("scales");
      Shape shape{static_cast<std::int64_t>(values.size())};
      scales = constantInput(node.name, "scales", shape, TensorData(std::move(values)));
    }
    node.inputs = {node.input(0), ValueId{}, scales};
    // Some exporters spell Upsample's linear mode "bilinear" (opset 7-9 Caffe2 and Keras tools).
    if (node.attributes.getString("mode", "nearest") == "bilinear") {
      node.attributes.set("mode", std::string("linear"));
    }
    node.attributes.set("coordinate_transformation_mode", std::string("asymmetric"));
    node.attributes.set("nearest_mode", std::string("floor"));
  }

  void addNode(const onnx::NodeProto& proto, int index) {
    std::string where = nodeLabel(proto, index);
    bool defaultDomain = inDefaultDomain(proto);
    if (defaultDomain && proto.op_type() == "Constant") {
      addConstantNode(proto, where);
      return;
    }
    bool upsample = defaultDomain && proto.op_type() == "Upsample";
    bool einsum = defaultDomain && proto.op_type() == "Einsum";  // a matrix product (checked)
    std::optional<OpKind> op = einsum          ? OpKind::MatMul
                               : defaultDomain ? parseOpKind(proto.op_type())
                                               : std::nullopt;
    if (!op && !upsample) {
      fail("{}: no fp32 kernel for this op", where);
    }
    Node node;
    std::string base =
        proto.name().empty() ? fmt::format("{}_{}", proto.op_type(), index) : proto.name();
    node.name = m_nodeNames.contains(base) ? m_graph.uniqueNodeName(base) : base;
    m_nodeNames.insert(node.name);
    node.op = upsample ? OpKind::Resize : *op;
    for (const onnx::AttributeProto& a : proto.attribute()) {
      if (!einsum) {
        node.attributes.set(a.name(), convertAttribute(a, where));
      }
    }
    for (const std::string& in : proto.input()) {
      node.inputs.push_back(in.empty() ? ValueId{} : *m_graph.findValue(in));
    }
    while (!node.inputs.empty() && !node.inputs.back().valid()) {
      node.inputs.pop_back();
    }
    int outputs = proto.output_size();
    while (outputs > 0 && proto.output(outputs - 1).empty()) {
      --outputs;  // Trailing optional outputs left unnamed.
    }
    for (int i = 0; i < outputs; ++i) {
      if (proto.output(i).empty()) {
        fail("{}: unnamed output {} before named ones", where, i);
      }
      node.outputs.push_back(m_graph.addIntermediate(proto.output(i)));
    }
    if (upsample) {
      // Upsample-7/9 spell linear "linear" (older exporters "bilinear"); Resize checks the rest.
      if (node.attributes.getString("mode", "nearest") == "bilinear") {
        node.attributes.set("mode", std::string("linear"));
      }
      upsampleToResize(node);
    } else {
      normalize(node, where);
    }
    m_graph.addNode(std::move(node));
  }

  void addOutputs() {
    for (const onnx::ValueInfoProto& output : m_model.graph().output()) {
      std::optional<ValueId> id = m_graph.findValue(output.name());
      if (!id) {
        fail("{}: graph output '{}' is not produced by any node", m_source, output.name());
      }
      m_graph.addOutput(*id);
    }
    if (m_graph.outputs().empty()) {
      fail("{}: the graph has no outputs", m_source);
    }
  }

  /// A declared output shape that disagrees with inference means the file is inconsistent.
  void checkDeclaredOutputs() const {
    for (const onnx::ValueInfoProto& output : m_model.graph().output()) {
      const Value& v = m_graph.value(*m_graph.findValue(output.name()));
      const auto& type = output.type().tensor_type();
      if (!output.type().has_tensor_type() || !type.has_shape()) {
        continue;
      }
      bool matches = type.shape().dim_size() == static_cast<int>(v.shape.size());
      for (int axis = 0; matches && axis < type.shape().dim_size(); ++axis) {
        const auto& dim = type.shape().dim(axis);
        matches = !dim.has_dim_value() || dim.dim_value() == v.shape[axis] || axis == 0;
      }
      if (!matches) {
        std::vector<std::string> dims;
        for (const auto& dim : type.shape().dim()) {
          dims.push_back(dim.has_dim_value() ? std::to_string(dim.dim_value()) : dim.dim_param());
        }
        fail("{}: graph output '{}' is declared [{}], but the graph computes {}", m_source,
             output.name(), fmt::join(dims, ", "), formatShape(v.shape));
      }
    }
  }

  const onnx::ModelProto& m_model;
  QdqAnnotations m_quantization;
  DimensionBinder m_bind;
  std::string m_source;
  std::filesystem::path m_baseDir;
  Graph m_graph;
  std::int64_t m_opset = 0;
  std::unordered_set<std::string> m_nodeNames;
};

}  // namespace

Graph importOnnxBytes(std::span<const std::uint8_t> bytes, const std::string& source,
                      const std::filesystem::path& baseDir, const DimensionBinder& bind) {
  if (bytes.empty()) {
    fail("{}: empty file, not an ONNX model", source);
  }
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    fail("{}: not a valid ONNX model (the protobuf does not parse: truncated or another format)",
         source);
  }
  if (!model.has_graph()) {
    fail("{}: not a valid ONNX model (no graph)", source);
  }
  QdqAnnotations quantization = stripQdq(model, source, baseDir);  // QDQ -> float + parameters
  return OnnxImporter(model, source, baseDir, std::move(quantization), bind).run();
}

Graph importOnnx(const std::filesystem::path& path, const DimensionBinder& bind) {
  MappedFile file(path);
  return importOnnxBytes(file.bytes(), path.string(), path.parent_path(), bind);
}

}  // namespace npu::compiler
