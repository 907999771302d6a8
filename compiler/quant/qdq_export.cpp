// QDQ ONNX export: the optimised graph with Q/DQ at every NPU tensor and int8 weights.
#include "npu/compiler/quant/qdq_export.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "npu/compiler/ir/op_params.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::compiler {
namespace {

/// One NPU conv as the quantizer realized it.
struct ConvQuant {
  const golden::Int8Tensor* weights = nullptr;  // OHWI
  std::vector<float> scales;
  std::vector<std::int32_t> bias;
  double inputScale = 1.0;
};

int onnxType(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return onnx::TensorProto::FLOAT;
    case DType::Int64:
      return onnx::TensorProto::INT64;
    case DType::Int32:
      return onnx::TensorProto::INT32;
    case DType::Int8:
      return onnx::TensorProto::INT8;
    case DType::UInt8:
      return onnx::TensorProto::UINT8;
    case DType::Bool:
      return onnx::TensorProto::BOOL;
  }
  return onnx::TensorProto::FLOAT;
}

template <typename T>
onnx::TensorProto tensorProto(const std::string& name, const Shape& shape, int type,
                              std::span<const T> values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (std::int64_t d : shape) {
    t.add_dims(d);
  }
  std::string raw(values.size() * sizeof(T), '\0');
  if (!values.empty()) {
    std::memcpy(raw.data(), values.data(), raw.size());
  }
  t.set_raw_data(std::move(raw));
  return t;
}

onnx::TensorProto tensorProto(const std::string& name, const Shape& shape, const TensorData& data) {
  switch (data.dtype()) {
    case DType::Float32:
      return tensorProto(name, shape, onnx::TensorProto::FLOAT, data.floats());
    case DType::Int64:
      return tensorProto(name, shape, onnx::TensorProto::INT64, data.int64s());
    case DType::Int32:
      return tensorProto(name, shape, onnx::TensorProto::INT32, data.int32s());
    case DType::Int8:
      return tensorProto(name, shape, onnx::TensorProto::INT8, data.int8s());
    case DType::UInt8:
    case DType::Bool:
      return tensorProto(name, shape, onnxType(data.dtype()), data.bytes());
  }
  return {};
}

void setAttribute(onnx::NodeProto& node, const std::string& name, const AttributeValue& value) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  if (const auto* i = std::get_if<std::int64_t>(&value)) {
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(*i);
  } else if (const auto* f = std::get_if<float>(&value)) {
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(*f);
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(*s);
  } else if (const auto* is = std::get_if<std::vector<std::int64_t>>(&value)) {
    a->set_type(onnx::AttributeProto::INTS);
    for (std::int64_t v : *is) {
      a->add_ints(v);
    }
  } else if (const auto* fs = std::get_if<std::vector<float>>(&value)) {
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float v : *fs) {
      a->add_floats(v);
    }
  }
}

void setValueInfo(onnx::ValueInfoProto* info, const Value& value) {
  info->set_name(value.name);
  auto* type = info->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnxType(value.dtype));
  auto* shape = type->mutable_shape();
  for (std::int64_t d : value.shape) {
    shape->add_dim()->set_dim_value(d);
  }
}

class QdqExporter {
 public:
  explicit QdqExporter(const QuantizedModel& model) : m_model(model), m_graph(model.graph) {}

  onnx::ModelProto run() {
    m_opset = requiredOpset();
    collectConvs();
    for (const auto& [name, t] : m_model.calibration.tensors) {
      m_params.emplace(name, t.params);
    }
    for (std::size_t i = 0; i < m_graph.valueCount(); ++i) {
      m_names.insert(m_graph.value(ValueId{static_cast<std::uint32_t>(i)}).name);
    }
    m_out.set_ir_version(7);
    m_out.set_producer_name("npu");
    m_out.set_producer_version("qdq-export 1");
    onnx::GraphProto* graph = m_out.mutable_graph();
    graph->set_name(m_graph.name());
    for (ValueId id : m_graph.inputs()) {
      const Value& v = m_graph.value(id);
      setValueInfo(graph->add_input(), v);
      if (auto p = m_params.find(v.name); p != m_params.end()) {
        m_read[v.name] = emitQdq(v.name, p->second, "");
      }
    }
    for (std::size_t n = 0; n < m_graph.nodes().size(); ++n) {
      emitNode(n, m_graph.nodes()[n]);
    }
    for (ValueId id : m_graph.outputs()) {
      setValueInfo(graph->add_output(), m_graph.value(id));
    }
    auto* opset = m_out.add_opset_import();
    opset->set_domain("");
    opset->set_version(m_opset);
    return std::move(m_out);
  }

 private:
  void collectConvs() {
    for (const NpuSegment& segment : m_model.npuSegments) {
      for (std::size_t i = 0; i < segment.graph.ops.size(); ++i) {
        const auto* conv = std::get_if<QConv>(&segment.graph.ops[i]);
        const QOpOrigin& origin = segment.origins[i];
        if (conv == nullptr || origin.requant || m_graph.nodes()[origin.node].op != OpKind::Conv) {
          continue;
        }
        ConvQuant q;
        q.weights = &conv->weights;
        q.scales = origin.weightScales;
        q.bias = conv->params.bias;
        q.inputScale = segment.graph.tensors[conv->input].scale;
        m_convs.emplace(origin.node, std::move(q));
      }
    }
  }

  /// The lowest opset (13 at least) with every op and attribute of the graph: HardSwish and
  /// Reshape's allowzero 14, LayerNormalization 17, Mish and GroupNormalization 18 (the
  /// importer's highest; Gelu is written as its erf formula).
  std::int64_t requiredOpset() const {
    std::int64_t opset = 13;
    for (const Node& node : m_graph.nodes()) {
      OpKind op = node.op;
      FusedActivation act = fusedActivation(node);
      for (OpKind k : {op, act.op}) {
        if (k == OpKind::HardSwish || (k == OpKind::Reshape && node.attributes.has("allowzero"))) {
          opset = std::max<std::int64_t>(opset, 14);
        } else if (k == OpKind::LayerNormalization) {
          opset = std::max<std::int64_t>(opset, 17);
        } else if (k == OpKind::Mish || k == OpKind::GroupNormalization) {
          opset = std::max<std::int64_t>(opset, 18);
        }
      }
    }
    return opset;
  }

  std::string unique(const std::string& base) {
    std::string name = base;
    for (int k = 1; m_names.contains(name); ++k) {
      name = fmt::format("{}_{}", base, k);
    }
    m_names.insert(name);
    return name;
  }

  onnx::NodeProto* addNode(const std::string& op, const std::string& name) {
    onnx::NodeProto* node = m_out.mutable_graph()->add_node();
    node->set_op_type(op);
    node->set_name(name);
    return node;
  }

  /// A one-input node `op` named after `base` ("base/op", made unique): y = op(x).
  void addUnary(const std::string& base, const char* op, const std::string& x,
                const std::string& y) {
    onnx::NodeProto* n = addNode(op, unique(base + "/" + op));
    n->add_input(x);
    n->add_output(y);
  }

  /// A keepdims ReduceMean of `x` over one axis named after `base`: `axes` names the axes
  /// initializer from opset 18 on (where ReduceMean takes them as an input), else the axis is
  /// an attribute.
  void addReduceMean(const std::string& base, const std::string& x, const std::string& axes,
                     std::int64_t axis, const std::string& y) {
    onnx::NodeProto* n = addNode("ReduceMean", unique(base + "/ReduceMean"));
    n->add_input(x);
    if (m_opset >= 18) {
      n->add_input(axes);
    } else {
      setAttribute(*n, "axes", std::vector<std::int64_t>{axis});
    }
    setAttribute(*n, "keepdims", std::int64_t{1});
    n->add_output(y);
  }

  /// A two-input node `op` named after `base` ("base/op", made unique): y = op(a, b).
  void addBinary(const std::string& base, const char* op, const std::string& a,
                 const std::string& b, const std::string& y) {
    onnx::NodeProto* n = addNode(op, unique(base + "/" + op));
    n->add_input(a);
    n->add_input(b);
    n->add_output(y);
  }

  template <typename T>
  std::string addInitializer(const std::string& base, const Shape& shape, int type,
                             std::span<const T> values) {
    std::string name = unique(base);
    *m_out.mutable_graph()->add_initializer() = tensorProto(name, shape, type, values);
    return name;
  }

  /// x -> QuantizeLinear -> DequantizeLinear; returns the name the readers read. With `output`
  /// set, the DequantizeLinear writes that name (a graph output keeps its name).
  std::string emitQdq(const std::string& x, const golden::QuantParams& p,
                      const std::string& output) {
    std::vector<float> scale{p.scale};
    std::vector<std::int8_t> zp{static_cast<std::int8_t>(p.zeroPoint)};
    std::string s = addInitializer<float>(x + "_scale", {}, onnx::TensorProto::FLOAT, scale);
    std::string z = addInitializer<std::int8_t>(x + "_zero_point", {}, onnx::TensorProto::INT8, zp);
    std::string q = unique(x + "_quantized");
    std::string dq = output.empty() ? unique(x + "_dequantized") : output;
    onnx::NodeProto* quant = addNode("QuantizeLinear", unique(x + "_QuantizeLinear"));
    quant->add_input(x);
    quant->add_input(s);
    quant->add_input(z);
    quant->add_output(q);
    onnx::NodeProto* dequant = addNode("DequantizeLinear", unique(x + "_DequantizeLinear"));
    dequant->add_input(q);
    dequant->add_input(s);
    dequant->add_input(z);
    dequant->add_output(dq);
    return dq;
  }

  /// The name a node reads for value `id` (a constant is emitted on first use).
  std::string readName(ValueId id) {
    if (!id.valid()) {
      return "";
    }
    const Value& v = m_graph.value(id);
    if (auto it = m_read.find(v.name); it != m_read.end()) {
      return it->second;
    }
    if (auto p = m_params.find(v.name); p != m_params.end() && v.isConstant()) {
      // A constant the NPU reads as an int8 activation (a class token, a position embedding):
      // its int8 values behind a DequantizeLinear that writes its name, as a weight's.
      std::span<const float> values = v.data->floats();
      std::vector<std::int8_t> q(values.size());
      for (std::size_t i = 0; i < values.size(); ++i) {
        q[i] = static_cast<std::int8_t>(golden::quantizeValue(values[i], p->second));
      }
      std::vector<float> scale{p->second.scale};
      std::vector<std::int8_t> zp{static_cast<std::int8_t>(p->second.zeroPoint)};
      std::string data =
          addInitializer<std::int8_t>(v.name + "_quantized", v.shape, onnx::TensorProto::INT8, q);
      std::string s = addInitializer<float>(v.name + "_scale", {}, onnx::TensorProto::FLOAT, scale);
      std::string z =
          addInitializer<std::int8_t>(v.name + "_zero_point", {}, onnx::TensorProto::INT8, zp);
      onnx::NodeProto* dq = addNode("DequantizeLinear", unique(v.name + "_DequantizeLinear"));
      dq->add_input(data);
      dq->add_input(s);
      dq->add_input(z);
      dq->add_output(v.name);
      m_read[v.name] = v.name;
      return v.name;
    }
    if (v.isConstant()) {
      *m_out.mutable_graph()->add_initializer() = tensorProto(v.name, v.shape, *v.data);
      m_read[v.name] = v.name;
      return v.name;
    }
    return v.name;
  }

  /// The int8 weights and int32 bias of an NPU conv behind DequantizeLinear nodes.
  std::pair<std::string, std::string> quantizedParameters(const Node& node, const ConvQuant& q) {
    const Value& w = m_graph.value(node.input(1));
    const std::int64_t m = w.shape[0];
    const std::int64_t c = w.shape[1];
    const std::int64_t kh = w.shape[2];
    const std::int64_t kw = w.shape[3];
    std::vector<std::int8_t> oihw(static_cast<std::size_t>(m * c * kh * kw));
    for (std::int64_t o = 0; o < m; ++o) {
      for (std::int64_t i = 0; i < c; ++i) {
        for (std::int64_t y = 0; y < kh; ++y) {
          for (std::int64_t x = 0; x < kw; ++x) {
            oihw[static_cast<std::size_t>(((o * c + i) * kh + y) * kw + x)] =
                q.weights->data[static_cast<std::size_t>(((o * kh + y) * kw + x) * c + i)];
          }
        }
      }
    }
    std::vector<std::int8_t> zeros8(static_cast<std::size_t>(m), 0);
    std::string wq =
        addInitializer<std::int8_t>(w.name + "_quantized", w.shape, onnx::TensorProto::INT8, oihw);
    std::string ws =
        addInitializer<float>(w.name + "_scale", {m}, onnx::TensorProto::FLOAT, q.scales);
    std::string wz =
        addInitializer<std::int8_t>(w.name + "_zero_point", {m}, onnx::TensorProto::INT8, zeros8);
    // The DequantizeLinear writes the weight's own name, so a re-import names it alike.
    std::string weight = m_read.contains(w.name) ? unique(w.name + "_dequantized") : w.name;
    m_read.emplace(w.name, weight);
    onnx::NodeProto* dw = addNode("DequantizeLinear", unique(w.name + "_DequantizeLinear"));
    dw->add_input(wq);
    dw->add_input(ws);
    dw->add_input(wz);
    dw->add_output(weight);
    setAttribute(*dw, "axis", std::int64_t{0});

    std::string biasBase =
        node.input(2).valid() ? m_graph.value(node.input(2)).name : node.name + ".bias";
    std::vector<float> biasScales;
    for (float s : q.scales) {
      biasScales.push_back(static_cast<float>(q.inputScale * static_cast<double>(s)));
    }
    std::vector<std::int32_t> zeros32(static_cast<std::size_t>(m), 0);
    std::string bq = addInitializer<std::int32_t>(biasBase + "_quantized", {m},
                                                  onnx::TensorProto::INT32, q.bias);
    std::string bs =
        addInitializer<float>(biasBase + "_scale", {m}, onnx::TensorProto::FLOAT, biasScales);
    std::string bz = addInitializer<std::int32_t>(biasBase + "_zero_point", {m},
                                                  onnx::TensorProto::INT32, zeros32);
    std::string bias = node.input(2).valid() && !m_read.contains(biasBase)
                           ? biasBase
                           : unique(biasBase + "_dequantized");
    m_read.emplace(biasBase, bias);
    onnx::NodeProto* db = addNode("DequantizeLinear", unique(biasBase + "_DequantizeLinear"));
    db->add_input(bq);
    db->add_input(bs);
    db->add_input(bz);
    db->add_output(bias);
    setAttribute(*db, "axis", std::int64_t{0});
    return {weight, bias};
  }

  std::string floatScalar(const std::string& base, float value) {
    std::vector<float> v{value};
    return addInitializer<float>(base, {}, onnx::TensorProto::FLOAT, v);
  }

  /// An activation `op` from `in` to `out` as ONNX nodes.
  void emitActivation(const Node& node, OpKind op, const FusedActivation& act,
                      const std::string& in, const std::string& out, const std::string& name) {
    switch (op) {
      case OpKind::Silu: {
        std::string gate = unique(name + "_sigmoid");
        onnx::NodeProto* s = addNode("Sigmoid", unique(name + "/Sigmoid"));
        s->add_input(in);
        s->add_output(gate);
        onnx::NodeProto* mul = addNode("Mul", unique(name + "/Mul"));
        mul->add_input(in);
        mul->add_input(gate);
        mul->add_output(out);
        return;
      }
      case OpKind::Gelu: {
        // x * (1 + erf(x / sqrt(2))) * 0.5, or with tanh(sqrt(2/pi) * (x + 0.044715 x^3)) for
        // the tanh form: what the importer fuses back into one Gelu.
        auto binary = [&](const char* op, const std::string& a, const std::string& b,
                          const std::string& y) { addBinary(name, op, a, b, y); };
        const bool tanhForm = node.attributes.getString("approximate", "none") == "tanh";
        std::string core = unique(name + (tanhForm ? "_tanh" : "_erf"));
        if (tanhForm) {
          std::string cube = unique(name + "_cube");
          binary("Pow", in, floatScalar(name + "_three", 3.0F), cube);
          std::string cubeTerm = unique(name + "_cube_term");
          binary("Mul", cube, floatScalar(name + "_coefficient", 0.044715F), cubeTerm);
          std::string inner = unique(name + "_inner");
          binary("Add", in, cubeTerm, inner);
          std::string argument = unique(name + "_argument");
          binary("Mul", inner,
                 floatScalar(name + "_sqrt_2_over_pi",
                             static_cast<float>(std::sqrt(2.0 / 3.14159265358979323846))),
                 argument);
          onnx::NodeProto* t = addNode("Tanh", unique(name + "/Tanh"));
          t->add_input(argument);
          t->add_output(core);
        } else {
          std::string scaled = unique(name + "_scaled");
          binary("Div", in, floatScalar(name + "_sqrt2", static_cast<float>(std::sqrt(2.0))),
                 scaled);
          onnx::NodeProto* e = addNode("Erf", unique(name + "/Erf"));
          e->add_input(scaled);
          e->add_output(core);
        }
        std::string bracket = unique(name + "_bracket");
        binary("Add", core, floatScalar(name + "_one", 1.0F), bracket);
        std::string product = unique(name + "_product");
        binary("Mul", in, bracket, product);
        // The last Mul keeps the node's name: the importer names the fused Gelu after it, so a
        // standalone Gelu's layer is named as this one.
        onnx::NodeProto* half = addNode("Mul", unique(name));
        half->add_input(product);
        half->add_input(floatScalar(name + "_half", 0.5F));
        half->add_output(out);
        return;
      }
      default:
        break;
    }
    onnx::NodeProto* a = addNode(std::string(opName(op)), name);
    a->add_input(in);
    if (op == OpKind::Clip) {
      a->add_input(floatScalar(name + "_min", act.min));
      a->add_input(std::isinf(act.max) ? std::string() : floatScalar(name + "_max", act.max));
      if (a->input(2).empty()) {
        a->mutable_input()->RemoveLast();
      }
    }
    if (op == OpKind::LeakyRelu) {
      setAttribute(*a, "alpha", act.alpha);
    }
    if (op == OpKind::HardSigmoid) {
      setAttribute(*a, "alpha", act.alpha);
      setAttribute(*a, "beta", act.beta);
    }
    a->add_output(out);
  }

  /// The name node output `v` is written under, and its Q/DQ after the node.
  std::string outputName(ValueId v) {
    const Value& value = m_graph.value(v);
    if (m_graph.isOutput(v) && m_params.contains(value.name)) {
      return unique(value.name + "_unquantized");
    }
    return value.name;
  }

  void quantizeOutput(ValueId v, const std::string& written) {
    const Value& value = m_graph.value(v);
    auto p = m_params.find(value.name);
    if (p == m_params.end()) {
      return;
    }
    bool output = m_graph.isOutput(v);
    m_read[value.name] = emitQdq(written, p->second, output ? value.name : "");
  }

  /// A ChannelLayerNorm (not an ONNX op) as the seven nodes it was fused from: ReduceMean over
  /// axis 1, Sub, Mul, ReduceMean, Add epsilon, Sqrt, Div (the importer fuses them back).
  void emitChannelLayerNorm(const Node& node, const std::string& in, const std::string& out) {
    const std::string& name = node.name;
    std::vector<std::int64_t> axis{1};
    const std::string axes =
        m_opset >= 18
            ? addInitializer<std::int64_t>(name + "_axes", {1}, onnx::TensorProto::INT64, axis)
            : std::string();
    auto mean = [&](const std::string& x, const std::string& y) {
      addReduceMean(name, x, axes, 1, y);
    };
    auto binary = [&](const char* op, const std::string& a, const std::string& b,
                      const std::string& y) { addBinary(name, op, a, b, y); };
    const std::string mu = unique(name + "_mean");
    mean(in, mu);
    const std::string centred = unique(name + "_centred");
    binary("Sub", in, mu, centred);
    const std::string square = unique(name + "_square");
    binary("Mul", centred, centred, square);
    const std::string variance = unique(name + "_variance");
    mean(square, variance);
    const std::string shifted = unique(name + "_var_eps");
    binary("Add", variance,
           floatScalar(name + "_epsilon", node.attributes.getFloat("epsilon", 1e-5F)), shifted);
    const std::string deviation = unique(name + "_stddev");
    addUnary(name, "Sqrt", shifted, deviation);
    // The Div keeps the node's name: fusing the seven back makes the ChannelLayerNorm of the Div,
    // so the re-imported layer is named as this one.
    onnx::NodeProto* div = addNode("Div", unique(name));
    div->add_input(centred);
    div->add_input(deviation);
    div->add_output(out);
  }

  /// An RMSNorm (a ChannelRmsNorm over axis 1, or an RMSNormalization over the last axis, which
  /// the build's ONNX cannot name) as the chain fuse-rms-norm fuses back: Mul x x, ReduceMean
  /// over the axis, Add epsilon, Sqrt, Div, then the RMSNormalization's weight as a Mul.
  void emitRmsNorm(const Node& node, const std::string& in, const std::string& out) {
    const std::string& name = node.name;
    const bool channels = node.op == OpKind::ChannelRmsNorm;
    if (!channels && node.attributes.getInt("axis", -1) != -1 &&
        node.attributes.getInt("axis", -1) !=
            static_cast<std::int64_t>(m_graph.value(node.input(0)).shape.size()) - 1) {
      fail(ErrorKind::Unsupported,
           "node '{}': an RMSNormalization over more than the last axis has no QDQ ONNX form "
           "at the opsets this build writes",
           name);
    }
    const std::int64_t axis = channels ? 1 : -1;
    const std::string square = unique(name + "_square");
    addBinary(name, "Mul", in, in, square);
    const std::string meanSquare = unique(name + "_mean_square");
    const std::string axes =
        m_opset >= 18 ? addInitializer<std::int64_t>(name + "_axes", {1}, onnx::TensorProto::INT64,
                                                     std::vector<std::int64_t>{axis})
                      : std::string();
    addReduceMean(name, square, axes, axis, meanSquare);
    const std::string shifted = unique(name + "_ms_eps");
    addBinary(name, "Add", meanSquare,
              floatScalar(name + "_epsilon", node.attributes.getFloat("epsilon", 1e-5F)), shifted);
    const std::string rms = unique(name + "_rms");
    addUnary(name, "Sqrt", shifted, rms);
    if (!node.input(1).valid()) {
      // The Div keeps the node's name, so the re-imported fused node is named as this one.
      onnx::NodeProto* div = addNode("Div", unique(name));
      div->add_input(in);
      div->add_input(rms);
      div->add_output(out);
      return;
    }
    const std::string normalised = unique(name + "_normalised");
    addBinary(name, "Div", in, rms, normalised);
    onnx::NodeProto* weight = addNode("Mul", unique(name));
    weight->add_input(normalised);
    weight->add_input(readName(node.input(1)));
    weight->add_output(out);
  }

  void emitNode(std::size_t index, const Node& node) {
    if (node.op == OpKind::HeadMatMul) {
      // Its strided views would need Gathers of constant indices that the importer does not fuse
      // back, so the round trip would not compile to the same program.
      fail(ErrorKind::Unsupported,
           "node '{}': a HeadMatMul (attention's matmul with its head split and merge) has no QDQ "
           "ONNX form yet",
           node.name);
    }
    if (node.op == OpKind::ChannelLayerNorm) {
      std::string out = outputName(node.outputs.at(0));
      emitChannelLayerNorm(node, readName(node.input(0)), out);
      quantizeOutput(node.outputs[0], out);
      return;
    }
    if (node.op == OpKind::ChannelRmsNorm || node.op == OpKind::RMSNormalization) {
      std::string out = outputName(node.outputs.at(0));
      emitRmsNorm(node, readName(node.input(0)), out);
      quantizeOutput(node.outputs[0], out);
      return;
    }
    if (node.op == OpKind::Silu || node.op == OpKind::Gelu || node.op == OpKind::Mish) {
      std::string out = outputName(node.outputs.at(0));
      FusedActivation none;
      emitActivation(node, node.op, none, readName(node.input(0)), out, node.name);
      quantizeOutput(node.outputs[0], out);
      return;
    }
    FusedActivation act = fusedActivation(node);
    onnx::NodeProto proto;
    proto.set_name(node.name);
    proto.set_op_type(std::string(opName(node.op)));
    for (const auto& [name, value] : node.attributes.all()) {
      if (name.starts_with("activation")) {
        continue;
      }
      if (name == "flatten_to_2d") {
        continue;  // the opset-13 Softmax the importer normalised to (checked below)
      }
      setAttribute(proto, name, value);
    }
    if (node.op == OpKind::Softmax && node.attributes.getInt("flatten_to_2d", 0) != 0) {
      const Shape& shape = m_graph.value(node.input(0)).shape;
      std::int64_t axis = node.attributes.getInt("axis", 1);
      if (axis < 0) {
        axis += static_cast<std::int64_t>(shape.size());
      }
      if (axis != static_cast<std::int64_t>(shape.size()) - 1) {
        fail(ErrorKind::Unsupported,
             "{}: node '{}': an opset-{} Softmax over the flattened axes {}.. has no opset-13 "
             "form; the QDQ export cannot write it",
             m_graph.source(), node.name, 12, axis);
      }
    }
    auto conv = m_convs.find(index);
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      if (conv != m_convs.end() && i >= 1) {
        continue;
      }
      ValueId in = node.inputs[i];
      // Reductions other than ReduceSum take their axes as an attribute before opset 18.
      if (isReduction(node.op) && node.op != OpKind::ReduceSum && m_opset < 18 && i == 1 &&
          in.valid()) {
        const Value& axes = m_graph.value(in);
        if (!axes.isConstant()) {
          fail(ErrorKind::Unsupported, "{}: node '{}': {} with computed axes has no opset-13 form",
               m_graph.source(), node.name, opName(node.op));
        }
        setAttribute(proto, "axes", axes.data->toInt64());
        continue;
      }
      proto.add_input(readName(in));
    }
    if (conv != m_convs.end()) {
      auto [weight, bias] = quantizedParameters(node, conv->second);
      proto.add_input(weight);
      proto.add_input(bias);
    }
    ValueId out = node.outputs.at(0);
    if (act.op == OpKind::Identity) {
      std::vector<std::string> written;
      for (ValueId o : node.outputs) {
        written.push_back(outputName(o));
        proto.add_output(written.back());
      }
      *m_out.mutable_graph()->add_node() = std::move(proto);
      for (std::size_t k = 0; k < node.outputs.size(); ++k) {
        quantizeOutput(node.outputs[k], written[k]);
      }
      return;
    }
    // A fused activation: the node writes the pre-activation, then the activation node(s).
    const std::string& z = m_graph.value(out).name;
    std::string pre = unique(z + "_preactivation");
    proto.add_output(pre);
    *m_out.mutable_graph()->add_node() = std::move(proto);
    std::string activationInput = pre;
    if (act.lut) {
      auto p = m_params.find(preActivationName(z));
      if (p == m_params.end()) {
        fail(ErrorKind::Internal, "{}: node '{}': no quantization of its pre-activation",
             m_graph.source(), node.name);
      }
      activationInput = emitQdq(pre, p->second, "");
    }
    std::string written = outputName(out);
    emitActivation(node, act.op, act, activationInput, written,
                   unique(node.name + "/" + std::string(opName(act.op))));
    quantizeOutput(out, written);
  }

  const QuantizedModel& m_model;
  const Graph& m_graph;
  onnx::ModelProto m_out;
  std::int64_t m_opset = 13;
  std::map<std::size_t, ConvQuant> m_convs;
  std::map<std::string, golden::QuantParams, std::less<>> m_params;
  std::map<std::string, std::string> m_read;
  std::set<std::string> m_names;
};

}  // namespace

std::string exportQdqOnnx(const QuantizedModel& model) {
  onnx::ModelProto proto = QdqExporter(model).run();
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) {
    fail(ErrorKind::Internal, "{}: the QDQ model does not serialize", model.graph.source());
  }
  return bytes;
}

void writeQdqOnnx(const QuantizedModel& model, const std::filesystem::path& path) {
  writeTextFile(path, exportQdqOnnx(model));
}

}  // namespace npu::compiler
