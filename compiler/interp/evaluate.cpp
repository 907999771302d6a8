// One node's evaluation: the dispatch from IR ops to the golden fp32 ops (no op math lives here)
// and to the index evaluator for integer tensors.
#include "npu/compiler/interp/evaluate.h"

#include <functional>
#include <limits>

#include "npu/compiler/ir/head_matmul.h"
#include "npu/compiler/ir/op_params.h"
#include "npu/golden/fp32_ops.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

using golden::FloatTensor;

/// The inputs of the node being evaluated, typed on access.
class Operands {
 public:
  explicit Operands(std::span<const RuntimeValue* const> values) : m_values(values) {}

  bool has(std::size_t i) const { return i < m_values.size() && m_values[i] != nullptr; }
  std::size_t count() const { return m_values.size(); }
  const RuntimeValue* value(std::size_t i) const { return m_values[i]; }

  const FloatTensor& floats(std::size_t i) const {
    const auto* tensor = has(i) ? std::get_if<FloatTensor>(m_values[i]) : nullptr;
    if (tensor == nullptr) {
      fail("input {} must be an f32 tensor", i);
    }
    return *tensor;
  }

  std::vector<std::int64_t> ints(std::size_t i) const {
    const auto* tensor = has(i) ? std::get_if<Tensor>(m_values[i]) : nullptr;
    if (tensor == nullptr) {
      fail("input {} must be an integer tensor", i);
    }
    return tensor->data.toInt64();
  }

  /// A scalar float input, or `fallback` when the input is omitted.
  float scalar(std::size_t i, float fallback) const {
    if (!has(i)) {
      return fallback;
    }
    const FloatTensor& t = floats(i);
    if (t.data.size() != 1) {
      fail("input {} must be a scalar", i);
    }
    return t.data[0];
  }

 private:
  std::span<const RuntimeValue* const> m_values;
};

std::span<const float> biasOf(const Operands& in, std::size_t i) {
  return in.has(i) ? std::span<const float>(in.floats(i).data) : std::span<const float>();
}

/// An activation with its parameters in the FusedActivation form (min/max for Clip, alpha/beta
/// for LeakyRelu and HardSigmoid), shared by stand-alone nodes and fused epilogues.
FloatTensor activation(const FloatTensor& x, const FusedActivation& a) {
  switch (a.op) {
    case OpKind::Relu:
      return golden::relu(x);
    case OpKind::LeakyRelu:
      return golden::leakyRelu(x, a.alpha);
    case OpKind::Clip:
      return golden::clip(x, a.min, a.max);
    case OpKind::Sigmoid:
      return golden::sigmoid(x);
    case OpKind::Tanh:
      return golden::tanh(x);
    case OpKind::HardSigmoid:
      return golden::hardSigmoid(x, a.alpha, a.beta);
    case OpKind::HardSwish:
      return golden::hardSwish(x);
    case OpKind::Silu:
      return golden::silu(x);
    case OpKind::Gelu:
      return golden::gelu(x);
    case OpKind::Mish:
      return golden::mish(x);
    case OpKind::Softplus:
      return golden::softplus(x);
    default:
      fail("{} is not an activation", opName(a.op));
  }
}

/// A stand-alone activation node's parameters, from its attributes and (Clip) bound inputs.
FusedActivation activationOf(const Node& node, const Operands& in) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  FusedActivation a;
  a.op = node.op;
  a.alpha = node.attributes.getFloat("alpha", node.op == OpKind::LeakyRelu ? 0.01F : 0.2F);
  a.beta = node.attributes.getFloat("beta", 0.5F);
  a.min = in.scalar(1, -kInf);
  a.max = in.scalar(2, kInf);
  return a;
}

FloatTensor softmax(const Node& node, const FloatTensor& x) {
  std::int64_t axis = node.attributes.getInt("axis", -1);
  if (node.attributes.getInt("flatten_to_2d", 0) == 0) {
    return golden::softmax(x, axis);
  }
  // ONNX opsets < 13: the input is coerced to 2-D at `axis` and normalised over the second part.
  FloatTensor flat = golden::flatten(x, axis);
  return golden::reshape(golden::softmax(flat, 1), x.shape);
}

FloatTensor resize(const Node& node, const Operands& in) {
  const FloatTensor& x = in.floats(0);
  std::vector<float> scales;
  std::vector<std::int64_t> sizes;
  if (in.has(2) && !in.floats(2).data.empty()) {
    scales = in.floats(2).data;
  } else {
    sizes = in.ints(3);
  }
  golden::ResizeParams params = resizeParams(node, x.shape, scales, sizes);
  return params.mode == golden::ResizeMode::Linear ? golden::resizeLinear(x, params)
                                                   : golden::resizeNearest(x, params);
}

FloatTensor pad(const Node& node, const Operands& in) {
  std::string mode = node.attributes.getString("mode", "constant");
  golden::PadMode padMode = mode == "reflect" ? golden::PadMode::Reflect
                            : mode == "edge"  ? golden::PadMode::Edge
                                              : golden::PadMode::Constant;
  return golden::pad(in.floats(0), in.ints(1), padMode, in.scalar(2, 0.0F));
}

/// Every present input as floats, for the variadic ops.
std::vector<std::reference_wrapper<const FloatTensor>> allFloats(const Operands& in,
                                                                 std::size_t count) {
  std::vector<std::reference_wrapper<const FloatTensor>> parts;
  for (std::size_t i = 0; i < count; ++i) {
    parts.emplace_back(in.floats(i));
  }
  return parts;
}

golden::ReduceKind reduceKind(OpKind op) {
  switch (op) {
    case OpKind::ReduceMean:
      return golden::ReduceKind::Mean;
    case OpKind::ReduceSum:
      return golden::ReduceKind::Sum;
    case OpKind::ReduceMax:
      return golden::ReduceKind::Max;
    case OpKind::ReduceMin:
      return golden::ReduceKind::Min;
    case OpKind::ReduceL1:
      return golden::ReduceKind::L1;
    case OpKind::ReduceL2:
      return golden::ReduceKind::L2;
    case OpKind::ReduceSumSquare:
      return golden::ReduceKind::SumSquare;
    case OpKind::ReduceLogSumExp:
      return golden::ReduceKind::LogSumExp;
    case OpKind::ReduceProd:
      return golden::ReduceKind::Prod;
    default:
      fail("{} is not a reduction", opName(op));
  }
}

golden::UnaryKind unaryKind(OpKind op) {
  switch (op) {
    case OpKind::Sqrt:
      return golden::UnaryKind::Sqrt;
    case OpKind::Reciprocal:
      return golden::UnaryKind::Reciprocal;
    case OpKind::Exp:
      return golden::UnaryKind::Exp;
    case OpKind::Log:
      return golden::UnaryKind::Log;
    case OpKind::Neg:
      return golden::UnaryKind::Neg;
    case OpKind::Abs:
      return golden::UnaryKind::Abs;
    case OpKind::Floor:
      return golden::UnaryKind::Floor;
    case OpKind::Ceil:
      return golden::UnaryKind::Ceil;
    case OpKind::Round:
      return golden::UnaryKind::Round;
    case OpKind::Sign:
      return golden::UnaryKind::Sign;
    case OpKind::Sin:
      return golden::UnaryKind::Sin;
    case OpKind::Cos:
      return golden::UnaryKind::Cos;
    case OpKind::Softsign:
      return golden::UnaryKind::Softsign;
    case OpKind::Erf:
      return golden::UnaryKind::Erf;
    default:
      fail("{} is not a unary math op", opName(op));
  }
}

/// Reduce*: axes from input 1 (the importer moved the attribute form there).
FloatTensor reduction(const Node& node, const Operands& in) {
  const FloatTensor& x = in.floats(0);
  std::vector<std::int64_t> axes = in.has(1) ? in.ints(1) : std::vector<std::int64_t>{};
  if (axes.empty() && node.attributes.getInt("noop_with_empty_axes", 0) != 0) {
    return x;
  }
  return golden::reduce(x, reduceKind(node.op), axes, node.attributes.getInt("keepdims", 1) != 0);
}

Tensor argExtreme(const Node& node, const Operands& in) {
  golden::IndexResult r = golden::argExtreme(
      in.floats(0), node.attributes.getInt("axis", 0), node.attributes.getInt("keepdims", 1) != 0,
      node.attributes.getInt("select_last_index", 0) != 0, node.op == OpKind::ArgMax);
  return Tensor{std::move(r.shape), TensorData(std::move(r.indices))};
}

FloatTensor normalization(const Node& node, const Operands& in) {
  float epsilon = node.attributes.getFloat("epsilon", 1e-5F);
  switch (node.op) {
    case OpKind::LayerNormalization:
      return golden::layerNormalization(in.floats(0), in.floats(1),
                                        in.has(2) ? &in.floats(2) : nullptr,
                                        node.attributes.getInt("axis", -1), epsilon);
    case OpKind::RMSNormalization:
      return golden::rmsNormalization(in.floats(0), in.has(1) ? &in.floats(1) : nullptr,
                                      node.attributes.getInt("axis", -1), epsilon);
    case OpKind::InstanceNormalization:
      return golden::instanceNormalization(in.floats(0), in.floats(1).data, in.floats(2).data,
                                           epsilon);
    case OpKind::GroupNormalization:
      return golden::groupNormalization(in.floats(0), in.floats(1).data, in.floats(2).data,
                                        node.attributes.getInt("num_groups", 1), epsilon);
    default:
      return golden::logSoftmax(in.floats(0), node.attributes.getInt("axis", -1));
  }
}

RuntimeValue fp32Kernel(const Node& node, const Operands& in) {
  if (isUnaryMath(node.op)) {
    return golden::unary(in.floats(0), unaryKind(node.op));
  }
  if (isReduction(node.op)) {
    return reduction(node, in);
  }
  if (isActivation(node.op)) {
    // GELU's tanh form is the one parameter a fused epilogue does not carry.
    if (node.op == OpKind::Gelu) {
      return golden::gelu(in.floats(0), node.attributes.getString("approximate", "none") == "tanh");
    }
    return activation(in.floats(0), activationOf(node, in));
  }
  switch (node.op) {
    case OpKind::Conv: {
      const FloatTensor& x = in.floats(0);
      const FloatTensor& w = in.floats(1);
      FloatTensor y = golden::conv2d(x, w, biasOf(in, 2), convParams(node, x.shape, w.shape));
      return applyActivation(std::move(y), node);
    }
    case OpKind::ConvTranspose: {
      const FloatTensor& x = in.floats(0);
      const FloatTensor& w = in.floats(1);
      return golden::convTranspose2d(x, w, biasOf(in, 2),
                                     convTransposeParams(node, x.shape, w.shape));
    }
    case OpKind::BatchNormalization:
      return applyActivation(
          golden::batchNormalization(in.floats(0), in.floats(1).data, in.floats(2).data,
                                     in.floats(3).data, in.floats(4).data,
                                     node.attributes.getFloat("epsilon", 1e-5F)),
          node);
    case OpKind::Gemm: {
      golden::GemmParams p;
      p.alpha = node.attributes.getFloat("alpha", 1.0F);
      p.beta = node.attributes.getFloat("beta", 1.0F);
      p.transA = node.attributes.getInt("transA", 0) != 0;
      p.transB = node.attributes.getInt("transB", 0) != 0;
      return golden::gemm(in.floats(0), in.floats(1), in.has(2) ? &in.floats(2) : nullptr, p);
    }
    case OpKind::MatMul:
      return golden::matmul(in.floats(0), in.floats(1));
    case OpKind::PRelu:
      return golden::prelu(in.floats(0), in.floats(1));
    case OpKind::Pow: {
      // The exponent may be an integer tensor.
      if (const auto* f = in.has(1) ? std::get_if<FloatTensor>(in.value(1)) : nullptr) {
        return golden::pow(in.floats(0), *f);
      }
      const auto& e = std::get<Tensor>(*in.value(1));
      return golden::pow(in.floats(0), FloatTensor{e.shape, e.data.toFloat()});
    }
    case OpKind::Min:
    case OpKind::Max:
      return golden::minMax(allFloats(in, in.count()), node.op == OpKind::Max);
    case OpKind::ArgMax:
    case OpKind::ArgMin:
      return argExtreme(node, in);
    case OpKind::LayerNormalization:
    case OpKind::RMSNormalization:
    case OpKind::GroupNormalization:
    case OpKind::InstanceNormalization:
    case OpKind::LogSoftmax:
      return normalization(node, in);
    case OpKind::HeadMatMul:
      return headMatMulFloat(in.floats(0), in.floats(1), headMatMulGeometry(node.attributes),
                             node.attributes.getFloat("alpha", 1.0F),
                             node.attributes.getInts("shape", {}));
    case OpKind::ChannelLayerNorm:
      return golden::channelLayerNormalization(in.floats(0),
                                               node.attributes.getFloat("epsilon", 1e-5F));
    case OpKind::ChannelRmsNorm:
      return golden::channelRmsNormalization(in.floats(0),
                                             node.attributes.getFloat("epsilon", 1e-5F));
    case OpKind::DepthToSpace:
      return golden::depthToSpace(in.floats(0), node.attributes.getInt("blocksize", 1),
                                  node.attributes.getString("mode", "DCR") == "CRD");
    case OpKind::SpaceToDepth:
      return golden::spaceToDepth(in.floats(0), node.attributes.getInt("blocksize", 1));
    case OpKind::Add:
      return applyActivation(golden::add(in.floats(0), in.floats(1)), node);
    case OpKind::Sub:
      return golden::sub(in.floats(0), in.floats(1));
    case OpKind::Mul:
      return golden::mul(in.floats(0), in.floats(1));
    case OpKind::Div:
      return golden::div(in.floats(0), in.floats(1));
    case OpKind::MaxPool:
      return golden::maxPool2d(in.floats(0), poolParams(node, in.floats(0).shape));
    case OpKind::AveragePool:
      return golden::averagePool2d(in.floats(0), poolParams(node, in.floats(0).shape));
    case OpKind::GlobalAveragePool:
      return golden::globalAveragePool(in.floats(0));
    case OpKind::GlobalMaxPool:
      return golden::globalMaxPool(in.floats(0));
    case OpKind::Concat:
      return golden::concat(allFloats(in, in.count()), node.attributes.getInt("axis", 0));
    case OpKind::Flatten:
      return golden::flatten(in.floats(0), node.attributes.getInt("axis", 1));
    case OpKind::Reshape:
      return golden::reshape(in.floats(0), in.ints(1), node.attributes.getInt("allowzero", 0) != 0);
    case OpKind::Transpose:
      return golden::transpose(in.floats(0), node.attributes.getInts("perm"));
    case OpKind::Squeeze:
      return golden::squeeze(in.floats(0), in.has(1) ? in.ints(1) : std::vector<std::int64_t>{});
    case OpKind::Unsqueeze:
      return golden::unsqueeze(in.floats(0), in.ints(1));
    case OpKind::Pad:
      return pad(node, in);
    case OpKind::Resize:
      return resize(node, in);
    case OpKind::Softmax:
      return softmax(node, in.floats(0));
    case OpKind::Identity:
      return in.floats(0);
    default:
      fail("no fp32 kernel for this op");
  }
}

Tensor toIndexTensor(const RuntimeValue& value) {
  if (const auto* t = std::get_if<Tensor>(&value)) {
    return *t;
  }
  const auto& f = std::get<FloatTensor>(value);
  return Tensor{f.shape, TensorData(f.data)};
}

RuntimeValue fromIndexTensor(Tensor tensor) {
  if (tensor.data.dtype() == DType::Float32) {
    std::span<const float> values = tensor.data.floats();
    return FloatTensor{std::move(tensor.shape), std::vector<float>(values.begin(), values.end())};
  }
  return tensor;
}

}  // namespace

const Shape& shapeOf(const RuntimeValue& value) {
  return std::visit([](const auto& v) -> const Shape& { return v.shape; }, value);
}

RuntimeValue runtimeValueOf(const Value& constant) {
  if (!constant.data) {
    fail("'{}' is not a constant", constant.name);
  }
  if (constant.dtype == DType::Float32) {
    std::span<const float> values = constant.data->floats();
    return FloatTensor{constant.shape, std::vector<float>(values.begin(), values.end())};
  }
  return Tensor{constant.shape, *constant.data};
}

std::vector<RuntimeValue> evaluateNode(const Node& node,
                                       std::span<const RuntimeValue* const> inputs) {
  bool floatInput =
      !inputs.empty() && inputs[0] != nullptr && std::holds_alternative<FloatTensor>(*inputs[0]);
  if (runsOnIndexEvaluator(node.op, floatInput ? DType::Float32 : DType::Int64)) {
    // Shape reads only the input's shape: do not copy a float input's elements.
    std::vector<Tensor> operands(inputs.size());
    std::vector<const Tensor*> pointers(inputs.size(), nullptr);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] == nullptr) {
        continue;
      }
      if (node.op == OpKind::Shape) {
        operands[i].shape = shapeOf(*inputs[i]);
      } else {
        operands[i] = toIndexTensor(*inputs[i]);
      }
      pointers[i] = &operands[i];
    }
    std::vector<RuntimeValue> outputs;
    for (Tensor& t : evaluateIndexOp(node, pointers)) {
      outputs.push_back(fromIndexTensor(std::move(t)));
    }
    return outputs;
  }
  std::vector<RuntimeValue> outputs;
  outputs.push_back(fp32Kernel(node, Operands(inputs)));
  return outputs;
}

FloatTensor applyActivation(FloatTensor x, const Node& node) {
  FusedActivation fused = fusedActivation(node);
  return fused.op == OpKind::Identity ? x : activation(x, fused);
}

}  // namespace npu::compiler
