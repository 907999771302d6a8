// YAML layer builders: each layer's keys become IR nodes and (seeded or .npy) weights.
#include "yaml_layers.h"

#include <fmt/format.h>

#include <functional>

#include "npu/compiler/frontend/npy.h"
#include "npu/compiler/ir/shape_inference.h"
#include "npu/support/error.h"
#include "weight_init.h"

namespace npu::compiler {
namespace {

/// The `weights:` map of a layer: .npy paths by weight name.
class WeightFiles {
 public:
  WeightFiles(LayerKeys& keys, std::filesystem::path baseDir)
      : m_map(keys.map("weights")), m_baseDir(std::move(baseDir)) {}

  std::optional<std::filesystem::path> path(const std::string& name) {
    m_used.insert(name);
    if (!m_map.IsDefined() || !m_map[name].IsDefined()) {
      return std::nullopt;
    }
    if (!m_map[name].IsScalar()) {
      fail("weights: '{}' must be the name of a .npy file", name);
    }
    return m_baseDir / m_map[name].Scalar();
  }

  void checkAllUsed() const {
    if (!m_map.IsDefined()) {
      return;
    }
    if (!m_map.IsMap()) {
      fail("'weights' must be a map of weight name to .npy file");
    }
    for (const auto& entry : m_map) {
      if (!entry.first.IsScalar()) {
        fail("weights: a weight name must be a single value");
      }
      const std::string& key = entry.first.Scalar();
      if (!m_used.contains(key)) {
        fail("weights: unknown weight '{}'", key);
      }
    }
  }

 private:
  YAML::Node m_map;
  std::filesystem::path m_baseDir;
  std::set<std::string> m_used;
};

class Builder {
 public:
  explicit Builder(LayerBuild& build) : m_b(build), m_files(build.keys, build.baseDir) {}

  ValueId build();

 private:
  const Value& input(std::size_t i) const { return m_b.graph.value(m_b.inputs.at(i)); }

  void expectInputs(std::size_t lowest, std::size_t highest) const {
    std::size_t n = m_b.inputs.size();
    if (n < lowest || n > highest) {
      if (lowest == highest) {
        fail("expects {} input{}, has {}", lowest, lowest == 1 ? "" : "s", n);
      }
      fail("expects {} to {} inputs, has {}", lowest, highest, n);
    }
  }

  /// A float weight from the weights map's .npy file, or generated.
  ValueId weight(const std::string& key, const Shape& shape,
                 const std::function<std::vector<float>()>& generate) {
    std::string name = m_b.graph.uniqueValueName(m_b.name + "." + key);
    (void)boundedElementCount(shape, fmt::format("weight '{}'", name));
    if (std::optional<std::filesystem::path> file = m_files.path(key)) {
      Tensor t = readNpy(*file);
      if (t.data.dtype() != DType::Float32) {
        fail("weight '{}' in {} is {}, expected f32", key, file->string(),
             dtypeName(t.data.dtype()));
      }
      if (t.shape != shape) {
        fail("weight '{}' in {} has shape {}, expected {}", key, file->string(),
             formatShape(t.shape), formatShape(shape));
      }
      return m_b.graph.addConstant(name, shape, std::move(t.data));
    }
    const std::int64_t count = elementCount(shape);
    if (count > m_b.seededWeightLimit - m_b.seededWeights) {
      fail(
          "weight '{}' of {} values takes the weights generated from the seed past the limit "
          "of {} (give large weights as .npy files)",
          name, count, m_b.seededWeightLimit);
    }
    m_b.seededWeights += count;
    return m_b.graph.addConstant(name, shape, TensorData(generate()));
  }

  /// The inputs of a weighted layer: its data input, "weight" of `wShape` (Kaiming-uniform over
  /// `fanIn` when generated) and, when `withBias` and the layer's `bias` flag allow, "bias" of
  /// `outChannels`.
  std::vector<ValueId> weightedInputs(const Shape& wShape, std::int64_t outChannels,
                                      std::int64_t fanIn, bool withBias = true) {
    ValueId w = weight("weight", wShape, [&] {
      SeededRandom r = random("weight");
      return kaimingUniform(r, elementCount(wShape), fanIn);
    });
    std::vector<ValueId> inputs{m_b.inputs[0], w};
    if (withBias && m_b.keys.flag("bias", true)) {
      inputs.push_back(weight("bias", {outChannels}, [&] {
        SeededRandom r = random("bias");
        return biasUniform(r, outChannels, fanIn);
      }));
    }
    return inputs;
  }

  ValueId indexConstant(const std::string& key, std::vector<std::int64_t> values) {
    std::string name = m_b.graph.uniqueValueName(m_b.name + "." + key);
    Shape shape{static_cast<std::int64_t>(values.size())};
    return m_b.graph.addConstant(name, shape, TensorData(std::move(values)));
  }

  ValueId scalarConstant(const std::string& key, float value) {
    std::string name = m_b.graph.uniqueValueName(m_b.name + "." + key);
    return m_b.graph.addConstant(name, {}, TensorData(std::vector<float>{value}));
  }

  /// Adds a node and types its output at once, so later layers can read the shape.
  ValueId emit(OpKind op, const std::string& nodeName, const std::string& outputName,
               std::vector<ValueId> inputs, Attributes attributes = {}) {
    Graph& g = m_b.graph;
    Node node;
    node.name = g.uniqueNodeName(nodeName);
    node.op = op;
    node.inputs = std::move(inputs);
    node.attributes = std::move(attributes);
    // The output first: adding a value may move every value, and `known` points into them.
    ValueId out = g.addIntermediate(g.uniqueValueName(outputName));
    node.outputs = {out};
    std::vector<KnownValue> known;
    known.reserve(node.inputs.size());
    std::vector<const KnownValue*> pointers;
    for (ValueId in : node.inputs) {
      if (!in.valid()) {
        pointers.push_back(nullptr);
        continue;
      }
      const Value& v = g.value(in);
      known.push_back(KnownValue{v.dtype, v.shape, v.data ? &*v.data : nullptr});
      pointers.push_back(&known.back());
    }
    std::vector<InferredOutput> types = inferNode(node, pointers);
    Value& v = g.value(out);
    v.dtype = types.at(0).dtype;
    v.shape = types.at(0).shape;
    v.typed = true;
    g.addNode(std::move(node));
    return out;
  }

  /// The name of the op's own output: the layer's name, unless an `activation:` shorthand follows
  /// (then the activation's output takes the layer's name).
  std::string opOutputName() { return m_b.keys.has("activation") ? m_b.name + ".pre" : m_b.name; }

  SeededRandom random(const std::string& key) const {
    return SeededRandom(m_b.seed, m_b.name + "." + key);
  }

  /// The `pad` key as ONNX pads [top, left, bottom, right]; empty for `same`.
  std::vector<std::int64_t> pads() {
    if (!m_b.keys.has("pad")) {
      return {0, 0, 0, 0};
    }
    std::vector<std::int64_t> p;
    if (m_b.keys.text("pad", "") == "same") {
      return {};
    }
    p = m_b.keys.integers("pad", {});
    if (p.size() == 1) {
      return {p[0], p[0], p[0], p[0]};
    }
    if (p.size() == 2) {
      return {p[0], p[1], p[0], p[1]};
    }
    if (p.size() == 4) {
      return p;
    }
    fail("'pad' must be an int, [h, w], [top, left, bottom, right] or same");
  }

  void setPads(Attributes& a) {
    std::vector<std::int64_t> p = pads();
    if (p.empty()) {
      a.set("auto_pad", std::string("SAME_UPPER"));
    } else {
      a.set("pads", p);
    }
  }

  ValueId conv();
  ValueId convTranspose();
  ValueId batchNorm();
  ValueId constant();
  ValueId linear(bool matmul);
  ValueId activation(OpKind op, ValueId x, const std::string& nodeName,
                     const std::string& outputName);
  ValueId binary(OpKind op);
  ValueId pool(OpKind op);
  ValueId resize();
  ValueId pad();
  ValueId fusedShorthand(ValueId out);

  LayerBuild& m_b;
  WeightFiles m_files;
};

ValueId Builder::fusedShorthand(ValueId out) {
  if (!m_b.keys.has("activation")) {
    return out;
  }
  std::string name = m_b.keys.text("activation", "");
  static const std::map<std::string, OpKind> kShorthands = {
      {"relu", OpKind::Relu}, {"relu6", OpKind::Clip},          {"sigmoid", OpKind::Sigmoid},
      {"tanh", OpKind::Tanh}, {"hardswish", OpKind::HardSwish}, {"silu", OpKind::Silu},
      {"gelu", OpKind::Gelu}, {"leaky_relu", OpKind::LeakyRelu}};
  auto it = kShorthands.find(name);
  if (it == kShorthands.end()) {
    fail("unknown activation '{}' (relu, relu6, sigmoid, tanh, hardswish, silu, gelu, leaky_relu)",
         name);
  }
  // The layer's name refers to the activation's output; the op's own output has a suffix.
  return activation(it->second, out, m_b.name + ".act", m_b.name);
}

ValueId Builder::conv() {
  expectInputs(1, 1);
  const Value& x = input(0);
  if (x.shape.size() != 4) {
    fail("input '{}' must be NCHW, has shape {}", x.name, formatShape(x.shape));
  }
  std::int64_t channels = x.shape[1];
  bool depthwise = m_b.keys.flag("depthwise", false);
  std::int64_t groups = depthwise ? channels : m_b.keys.integer("groups", 1);
  std::int64_t outChannels = m_b.keys.integer("out_channels", channels);
  std::array<std::int64_t, 2> kernel = m_b.keys.pair("kernel", 1);
  Attributes a;
  a.set("kernel_shape", std::vector<std::int64_t>{kernel[0], kernel[1]});
  std::array<std::int64_t, 2> stride = m_b.keys.pair("stride", 1);
  a.set("strides", std::vector<std::int64_t>{stride[0], stride[1]});
  std::array<std::int64_t, 2> dilation = m_b.keys.pair("dilation", 1);
  a.set("dilations", std::vector<std::int64_t>{dilation[0], dilation[1]});
  a.set("group", groups);
  setPads(a);
  if (groups < 1 || channels % groups != 0 || outChannels % groups != 0) {
    fail("groups {} must divide the {} input and {} output channels", groups, channels,
         outChannels);
  }
  // Overflow-checked and bounded like a weight: the kernel sizes are any integers in the file.
  const std::int64_t fanIn =
      boundedElementCount(Shape{channels / groups, kernel[0], kernel[1]}, "the weight's fan-in");
  const std::vector<ValueId> inputs =
      weightedInputs({outChannels, channels / groups, kernel[0], kernel[1]}, outChannels, fanIn);
  ValueId out = emit(OpKind::Conv, m_b.name, opOutputName(), inputs, a);
  return fusedShorthand(out);
}

ValueId Builder::convTranspose() {
  expectInputs(1, 1);
  const Value& x = input(0);
  if (x.shape.size() != 4) {
    fail("input '{}' must be NCHW, has shape {}", x.name, formatShape(x.shape));
  }
  std::int64_t channels = x.shape[1];
  std::int64_t groups = m_b.keys.integer("groups", 1);
  std::int64_t outChannels = m_b.keys.integer("out_channels", channels);
  if (groups < 1 || channels % groups != 0 || outChannels % groups != 0) {
    fail("groups {} must divide the {} input and {} output channels", groups, channels,
         outChannels);
  }
  std::array<std::int64_t, 2> kernel = m_b.keys.pair("kernel", 2);
  std::array<std::int64_t, 2> stride = m_b.keys.pair("stride", 1);
  std::array<std::int64_t, 2> outputPadding = m_b.keys.pair("output_padding", 0);
  Attributes a;
  a.set("kernel_shape", std::vector<std::int64_t>{kernel[0], kernel[1]});
  a.set("strides", std::vector<std::int64_t>{stride[0], stride[1]});
  a.set("output_padding", std::vector<std::int64_t>{outputPadding[0], outputPadding[1]});
  a.set("group", groups);
  setPads(a);
  const std::int64_t fanIn =
      boundedElementCount(Shape{outChannels / groups, kernel[0], kernel[1]}, "the weight's fan-in");
  const std::vector<ValueId> inputs =
      weightedInputs({channels, outChannels / groups, kernel[0], kernel[1]}, outChannels, fanIn);
  ValueId out = emit(OpKind::ConvTranspose, m_b.name, opOutputName(), inputs, a);
  return fusedShorthand(out);
}

/// A constant tensor of `shape` (a class token, a position embedding) that later layers read
/// by the layer's name: the .npy file `weights: {value: ...}`, or U(-1, 1) from the seed. It
/// reads no input.
ValueId Builder::constant() {
  const std::vector<std::int64_t> dims = m_b.keys.integers("shape", {});
  if (dims.empty()) {
    fail("'shape' is required");
  }
  for (const std::int64_t d : dims) {
    if (d < 1) {
      fail("'shape' must hold positive sizes, has {}", d);
    }
  }
  const Shape shape(dims.begin(), dims.end());
  return weight("value", shape, [&] {
    SeededRandom r = random("value");
    std::vector<float> v(static_cast<std::size_t>(elementCount(shape)));
    for (float& e : v) {
      e = r.uniform(-1.0F, 1.0F);
    }
    return v;
  });
}

ValueId Builder::batchNorm() {
  expectInputs(1, 1);
  const Value& x = input(0);
  if (x.shape.size() < 2) {
    fail("input '{}' must have a channel axis, has shape {}", x.name, formatShape(x.shape));
  }
  std::int64_t c = x.shape[1];
  std::string stats = m_b.keys.text("stats", "estimate");
  if (stats != "estimate" && stats != "unit") {
    fail("'stats' must be estimate or unit, is '{}'", stats);
  }
  auto filled = [c](float v) { return std::vector<float>(static_cast<std::size_t>(c), v); };
  auto uniform = [&](const char* key, float lo, float hi) {
    SeededRandom r = random(key);
    std::vector<float> v(static_cast<std::size_t>(c));
    for (float& e : v) {
      e = r.uniform(lo, hi);
    }
    return v;
  };
  ValueId scale = weight("scale", {c}, [&] { return uniform("scale", 0.8F, 1.2F); });
  ValueId bias = weight("bias", {c}, [&] { return uniform("bias", -0.2F, 0.2F); });
  bool meanGiven = m_files.path("mean").has_value();
  bool varGiven = m_files.path("var").has_value();
  ValueId mean = weight("mean", {c}, [&] { return filled(0.0F); });
  ValueId var = weight("var", {c}, [&] { return filled(1.0F); });
  Attributes a;
  a.set("epsilon", m_b.keys.real("epsilon", 1e-5F));
  ValueId out = emit(OpKind::BatchNormalization, m_b.name, opOutputName(),
                     {m_b.inputs[0], scale, bias, mean, var}, a);
  if (stats == "estimate" && !meanGiven && !varGiven) {
    m_b.estimateBatchNorm.insert(m_b.graph.nodes().back().name);
  }
  return fusedShorthand(out);
}

ValueId Builder::linear(bool matmul) {
  if (matmul && m_b.inputs.size() == 2) {
    // A MatMul of two activations (attention's Q x K^T and P x V): numpy semantics, no weights.
    if (m_b.keys.has("out_features") || m_b.keys.has("weights")) {
      fail("a MatMul of two inputs takes no 'out_features' or 'weights'");
    }
    return fusedShorthand(emit(OpKind::MatMul, m_b.name, opOutputName(), m_b.inputs));
  }
  expectInputs(1, 1);
  const Value& x = input(0);
  // MatMul takes tokens [..., K] of any rank (numpy semantics); Gemm a [batch, K] matrix.
  if (matmul ? x.shape.size() < 2 : x.shape.size() != 2) {
    fail("input '{}' must be [batch, features] (add a Flatten){}, has shape {}", x.name,
         matmul ? " or [..., features]" : "", formatShape(x.shape));
  }
  std::int64_t k = x.shape.back();
  if (!m_b.keys.has("out_features")) {
    fail("'out_features' is required");
  }
  std::int64_t n = m_b.keys.integer("out_features", 0);
  const std::vector<ValueId> inputs =
      weightedInputs(matmul ? Shape{k, n} : Shape{n, k}, n, k, /*withBias=*/!matmul);
  if (matmul) {
    return fusedShorthand(emit(OpKind::MatMul, m_b.name, opOutputName(), inputs));
  }
  Attributes a;
  a.set("transB", std::int64_t{1});
  return fusedShorthand(emit(OpKind::Gemm, m_b.name, opOutputName(), inputs, a));
}

ValueId Builder::activation(OpKind op, ValueId x, const std::string& nodeName,
                            const std::string& outputName) {
  Attributes a;
  std::vector<ValueId> inputs{x};
  bool relu6 =
      op == OpKind::Clip && (m_b.op == "Relu6" || m_b.keys.text("activation", "") == "relu6");
  if (relu6) {
    inputs.push_back(scalarConstant("min", 0.0F));
    inputs.push_back(scalarConstant("max", 6.0F));
  } else if (op == OpKind::Clip) {
    if (!m_b.keys.has("min") && !m_b.keys.has("max")) {
      fail("Clip needs 'min' or 'max'");
    }
    inputs.push_back(m_b.keys.has("min") ? scalarConstant("min", m_b.keys.real("min", 0.0F))
                                         : ValueId{});
    if (m_b.keys.has("max")) {
      inputs.push_back(scalarConstant("max", m_b.keys.real("max", 0.0F)));
    }
  } else if (op == OpKind::LeakyRelu) {
    a.set("alpha", m_b.keys.real("alpha", 0.01F));
  } else if (op == OpKind::HardSigmoid) {
    a.set("alpha", m_b.keys.real("alpha", 0.2F));
    a.set("beta", m_b.keys.real("beta", 0.5F));
  }
  return emit(op, nodeName, outputName, inputs, a);
}

ValueId Builder::binary(OpKind op) {
  if (m_b.keys.has("scalar")) {
    expectInputs(1, 1);
    ValueId s = scalarConstant("scalar", m_b.keys.real("scalar", 0.0F));
    return fusedShorthand(emit(op, m_b.name, opOutputName(), {m_b.inputs[0], s}));
  }
  expectInputs(2, 2);
  return fusedShorthand(emit(op, m_b.name, opOutputName(), m_b.inputs));
}

ValueId Builder::pool(OpKind op) {
  expectInputs(1, 1);
  if (!m_b.keys.has("kernel")) {
    fail("'kernel' is required");
  }
  std::array<std::int64_t, 2> kernel = m_b.keys.pair("kernel", 1);
  std::array<std::int64_t, 2> stride = m_b.keys.has("stride") ? m_b.keys.pair("stride", 1) : kernel;
  Attributes a;
  a.set("kernel_shape", std::vector<std::int64_t>{kernel[0], kernel[1]});
  a.set("strides", std::vector<std::int64_t>{stride[0], stride[1]});
  setPads(a);
  if (m_b.keys.flag("ceil_mode", false)) {
    a.set("ceil_mode", std::int64_t{1});
  }
  if (op == OpKind::MaxPool) {
    std::array<std::int64_t, 2> dilation = m_b.keys.pair("dilation", 1);
    a.set("dilations", std::vector<std::int64_t>{dilation[0], dilation[1]});
  } else if (m_b.keys.flag("count_include_pad", false)) {
    a.set("count_include_pad", std::int64_t{1});
  }
  return emit(op, m_b.name, m_b.name, m_b.inputs, a);
}

ValueId Builder::resize() {
  expectInputs(1, 1);
  const Value& x = input(0);
  Attributes a;
  a.set("mode", m_b.keys.text("mode", "nearest"));
  a.set("coordinate_transformation_mode",
        m_b.keys.text("coordinate_transformation_mode", "asymmetric"));
  a.set("nearest_mode", m_b.keys.text("nearest_mode", "floor"));
  std::vector<ValueId> inputs{m_b.inputs[0], ValueId{}};
  if (m_b.keys.has("sizes")) {
    std::vector<std::int64_t> sizes = m_b.keys.integers("sizes", {});
    if (sizes.size() == 2 && x.shape.size() == 4) {
      sizes.insert(sizes.begin(), {x.shape[0], x.shape[1]});
    }
    inputs.push_back(ValueId{});
    inputs.push_back(indexConstant("sizes", sizes));
  } else {
    std::vector<float> scales;
    YAML::Node node = m_b.keys.map("scale");
    if (!node.IsDefined()) {
      fail("'scale' or 'sizes' is required");
    }
    try {
      if (node.IsSequence()) {
        for (const auto& s : node) {
          scales.push_back(s.as<float>());
        }
      } else {
        scales = {node.as<float>(), node.as<float>()};
      }
    } catch (const YAML::Exception&) {
      fail("'scale' must be a number or a list of numbers");
    }
    if (scales.size() == 2) {
      scales.insert(scales.begin(), {1.0F, 1.0F});
    }
    std::string name = m_b.graph.uniqueValueName(m_b.name + ".scales");
    Shape shape{static_cast<std::int64_t>(scales.size())};
    inputs.push_back(m_b.graph.addConstant(name, shape, TensorData(std::move(scales))));
  }
  return emit(OpKind::Resize, m_b.name, m_b.name, inputs, a);
}

ValueId Builder::pad() {
  expectInputs(1, 1);
  const Value& x = input(0);
  std::vector<std::int64_t> p = m_b.keys.integers("pads", {});
  if (p.size() == 4 && x.shape.size() == 4) {  // [top, left, bottom, right]
    p = {0, 0, p[0], p[1], 0, 0, p[2], p[3]};
  }
  Attributes a;
  a.set("mode", m_b.keys.text("mode", "constant"));
  std::vector<ValueId> inputs{m_b.inputs[0], indexConstant("pads", p)};
  if (m_b.keys.has("value")) {
    inputs.push_back(scalarConstant("value", m_b.keys.real("value", 0.0F)));
  }
  return emit(OpKind::Pad, m_b.name, m_b.name, inputs, a);
}

ValueId Builder::build() {
  const std::string& op = m_b.op;
  ValueId out;
  if (op == "Conv") {
    out = conv();
  } else if (op == "ConvTranspose") {
    out = convTranspose();
  } else if (op == "BatchNormalization") {
    out = batchNorm();
  } else if (op == "Linear" || op == "Gemm") {
    out = linear(false);
  } else if (op == "MatMul") {
    out = linear(true);
  } else if (op == "Relu6") {
    expectInputs(1, 1);
    out = activation(OpKind::Clip, m_b.inputs[0], m_b.name, m_b.name);
  } else if (op == "Constant") {
    out = constant();
  } else if (op == "Upsample" || op == "Resize") {
    out = resize();
  } else if (op == "Pad") {
    out = pad();
  } else if (op == "Slice") {
    // starts, ends (required), axes (all, in order), steps (1): ONNX Slice with constant bounds.
    expectInputs(1, 1);
    if (!m_b.keys.has("starts") || !m_b.keys.has("ends")) {
      fail("'starts' and 'ends' are required");
    }
    std::vector<ValueId> inputs = m_b.inputs;
    inputs.push_back(indexConstant("starts", m_b.keys.integers("starts", {})));
    inputs.push_back(indexConstant("ends", m_b.keys.integers("ends", {})));
    if (m_b.keys.has("axes") || m_b.keys.has("steps")) {
      inputs.push_back(indexConstant("axes", m_b.keys.integers("axes", {})));
    }
    if (m_b.keys.has("steps")) {
      inputs.push_back(indexConstant("steps", m_b.keys.integers("steps", {})));
    }
    out = emit(OpKind::Slice, m_b.name, m_b.name, inputs, Attributes());
  } else {
    std::optional<OpKind> kind = parseOpKind(op);
    if (!kind || kernelKind(*kind) != KernelKind::Fp32) {
      fail("unknown op '{}'", op);
    }
    Attributes a;
    std::vector<ValueId> inputs = m_b.inputs;
    switch (*kind) {
      case OpKind::Add:
      case OpKind::Sub:
      case OpKind::Mul:
      case OpKind::Div:
        out = binary(*kind);
        break;
      case OpKind::MaxPool:
      case OpKind::AveragePool:
        out = pool(*kind);
        break;
      case OpKind::Concat:
        expectInputs(1, 64);
        a.set("axis", m_b.keys.integer("axis", 1));
        out = emit(*kind, m_b.name, m_b.name, inputs, a);
        break;
      case OpKind::Flatten:
        expectInputs(1, 1);
        a.set("axis", m_b.keys.integer("axis", 1));
        out = emit(*kind, m_b.name, m_b.name, inputs, a);
        break;
      case OpKind::Reshape:
        expectInputs(1, 1);
        inputs.push_back(indexConstant("shape", m_b.keys.integers("shape", {})));
        out = emit(*kind, m_b.name, m_b.name, inputs, a);
        break;
      case OpKind::Transpose:
        expectInputs(1, 1);
        if (m_b.keys.has("perm")) {
          a.set("perm", m_b.keys.integers("perm", {}));
        }
        out = emit(*kind, m_b.name, m_b.name, inputs, a);
        break;
      case OpKind::Squeeze:
      case OpKind::Unsqueeze:
        expectInputs(1, 1);
        if (m_b.keys.has("axes") || *kind == OpKind::Unsqueeze) {
          inputs.push_back(indexConstant("axes", m_b.keys.integers("axes", {})));
        }
        out = emit(*kind, m_b.name, m_b.name, inputs, a);
        break;
      case OpKind::Softmax:
        expectInputs(1, 1);
        a.set("axis", m_b.keys.integer("axis", -1));
        out = emit(*kind, m_b.name, m_b.name, inputs, a);
        break;
      case OpKind::ChannelLayerNorm:
      case OpKind::ChannelRmsNorm:
        expectInputs(1, 1);
        if (const float epsilon = m_b.keys.real("epsilon", 1e-5F); epsilon >= 0.0F) {
          a.set("epsilon", epsilon);
        } else {
          fail("'epsilon' must be at least 0, got {}", epsilon);
        }
        out = emit(*kind, m_b.name, m_b.name, inputs, a);
        break;
      default:
        expectInputs(1, 1);
        if (isActivation(*kind)) {
          out = activation(*kind, m_b.inputs[0], m_b.name, m_b.name);
        } else {
          out = emit(*kind, m_b.name, m_b.name, inputs, a);  // Pools, Identity.
        }
        break;
    }
  }
  m_files.checkAllUsed();
  m_b.keys.checkAllRead();
  return out;
}

}  // namespace

bool LayerKeys::has(const std::string& key) const {
  return m_layer[key].IsDefined();
}

YAML::Node LayerKeys::get(const std::string& key) {
  m_read.insert(key);
  return m_layer[key];
}

std::int64_t LayerKeys::integer(const std::string& key, std::int64_t fallback) {
  YAML::Node n = get(key);
  if (!n.IsDefined()) {
    return fallback;
  }
  try {
    return n.as<std::int64_t>();
  } catch (const YAML::Exception&) {
    fail("'{}' must be an integer", key);
  }
}

float LayerKeys::real(const std::string& key, float fallback) {
  YAML::Node n = get(key);
  if (!n.IsDefined()) {
    return fallback;
  }
  try {
    return n.as<float>();
  } catch (const YAML::Exception&) {
    fail("'{}' must be a number", key);
  }
}

bool LayerKeys::flag(const std::string& key, bool fallback) {
  YAML::Node n = get(key);
  if (!n.IsDefined()) {
    return fallback;
  }
  try {
    return n.as<bool>();
  } catch (const YAML::Exception&) {
    fail("'{}' must be true or false", key);
  }
}

std::string LayerKeys::text(const std::string& key, const std::string& fallback) {
  YAML::Node n = get(key);
  if (!n.IsDefined()) {
    return fallback;
  }
  if (!n.IsScalar()) {
    return "";
  }
  return n.as<std::string>();
}

std::vector<std::int64_t> LayerKeys::integers(const std::string& key,
                                              std::vector<std::int64_t> fallback) {
  YAML::Node n = get(key);
  if (!n.IsDefined()) {
    return fallback;
  }
  try {
    if (n.IsScalar()) {
      return {n.as<std::int64_t>()};
    }
    return n.as<std::vector<std::int64_t>>();
  } catch (const YAML::Exception&) {
    fail("'{}' must be an integer or a list of integers", key);
  }
}

std::array<std::int64_t, 2> LayerKeys::pair(const std::string& key, std::int64_t fallback) {
  std::vector<std::int64_t> v = integers(key, {fallback});
  if (v.size() == 1) {
    return {v[0], v[0]};
  }
  if (v.size() != 2) {
    fail("'{}' must be an integer or [height, width]", key);
  }
  return {v[0], v[1]};
}

YAML::Node LayerKeys::map(const std::string& key) {
  return get(key);
}

void LayerKeys::checkAllRead() const {
  for (const auto& entry : m_layer) {
    if (!entry.first.IsScalar()) {
      fail("a key of a layer must be a single value");
    }
    const std::string& key = entry.first.Scalar();
    if (!m_read.contains(key)) {
      fail("unknown key '{}'", key);
    }
  }
}

ValueId buildLayer(LayerBuild& build) {
  return Builder(build).build();
}

}  // namespace npu::compiler
