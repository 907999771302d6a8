// The index evaluator: shape arithmetic on integer tensors (and data movement of any dtype).
#include "npu/compiler/ir/index_eval.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "npu/compiler/ir/shape_inference.h"
#include "npu/support/error.h"
#include "shape_rules.h"

namespace npu::compiler {
namespace {

std::vector<std::int64_t> stridesOf(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) {
    strides[i - 1] = strides[i] * shape[i];
  }
  return strides;
}

/// For each element of `out` (row-major), the flat index `source(coordinate)` gives of the
/// element it reads: the one walk behind every gather-style data movement here.
template <typename Source>
std::vector<std::int64_t> sourceIndices(const Shape& out, Source source) {
  std::int64_t count = elementCount(out);
  std::vector<std::int64_t> indices(static_cast<std::size_t>(count));
  std::vector<std::int64_t> coord(out.size(), 0);
  for (std::int64_t n = 0; n < count; ++n) {
    indices[static_cast<std::size_t>(n)] = source(coord);
    for (std::size_t d = out.size(); d-- > 0;) {
      if (++coord[d] < out[d]) {
        break;
      }
      coord[d] = 0;
    }
  }
  return indices;
}

/// For each element of `to` (row-major), the index of the element of `from` it reads under
/// numpy broadcasting.
std::vector<std::int64_t> broadcastIndices(const Shape& from, const Shape& to) {
  std::vector<std::int64_t> fromStrides = stridesOf(from);
  std::size_t offset = to.size() - from.size();
  return sourceIndices(to, [&](const std::vector<std::int64_t>& coord) {
    std::int64_t index = 0;
    for (std::size_t d = 0; d < from.size(); ++d) {
      index += (from[d] == 1 ? 0 : coord[d + offset]) * fromStrides[d];
    }
    return index;
  });
}

Tensor arithmetic(const Node& node, const Tensor& a, const Tensor& b, const Shape& out) {
  if (a.data.dtype() == DType::Float32) {
    fail("float arithmetic runs on the fp32 kernels, not the index evaluator");
  }
  std::vector<std::int64_t> x = a.data.gather(broadcastIndices(a.shape, out)).toInt64();
  std::vector<std::int64_t> y = b.data.gather(broadcastIndices(b.shape, out)).toInt64();
  for (std::size_t i = 0; i < x.size(); ++i) {
    switch (node.op) {
      case OpKind::Add:
        x[i] += y[i];
        break;
      case OpKind::Sub:
        x[i] -= y[i];
        break;
      case OpKind::Mul:
        x[i] *= y[i];
        break;
      default:
        if (y[i] == 0) {
          fail("integer division by zero");
        }
        x[i] /= y[i];
        break;
    }
  }
  return {out, TensorData(std::move(x)).castTo(a.data.dtype())};
}

Tensor transpose(const Node& node, const Tensor& x, const Shape& out) {
  std::vector<std::int64_t> perm(x.shape.size());
  std::iota(perm.rbegin(), perm.rend(), 0);
  perm = node.attributes.getInts("perm", perm);
  std::vector<std::int64_t> inStrides = stridesOf(x.shape);
  std::vector<std::int64_t> indices =
      sourceIndices(out, [&](const std::vector<std::int64_t>& coord) {
        std::int64_t index = 0;
        for (std::size_t d = 0; d < out.size(); ++d) {
          index += coord[d] * inStrides[perm[d]];
        }
        return index;
      });
  return {out, x.data.gather(indices)};
}

std::int64_t axisOf(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

Tensor concat(const Node& node, std::span<const Tensor* const> inputs, const Shape& out) {
  std::int64_t axis = axisOf(node.attributes.getInt("axis", 0), out.size());
  std::int64_t outer = elementCount(std::span(out).first(static_cast<std::size_t>(axis)));
  TensorData data = TensorData::zeros(inputs[0]->data.dtype(), 0);
  for (std::int64_t o = 0; o < outer; ++o) {
    for (const Tensor* in : inputs) {
      std::int64_t inner =
          elementCount(std::span(in->shape).subspan(static_cast<std::size_t>(axis)));
      std::vector<std::int64_t> indices(static_cast<std::size_t>(inner));
      std::iota(indices.begin(), indices.end(), o * inner);
      data.append(in->data.gather(indices));
    }
  }
  return {out, std::move(data)};
}

Tensor gatherOp(const Node& node, const Tensor& x, const Tensor& idx, const Shape& out) {
  std::int64_t axis = axisOf(node.attributes.getInt("axis", 0), x.shape.size());
  std::int64_t dim = x.shape[axis];
  std::int64_t outer = elementCount(std::span(x.shape).first(static_cast<std::size_t>(axis)));
  std::int64_t inner = elementCount(std::span(x.shape).subspan(static_cast<std::size_t>(axis) + 1));
  std::vector<std::int64_t> picks = idx.data.toInt64();
  std::vector<std::int64_t> indices;
  indices.reserve(static_cast<std::size_t>(elementCount(out)));
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t p : picks) {
      if (p < -dim || p >= dim) {
        fail("index {} is out of range for axis {} of size {}", p, axis, dim);
      }
      std::int64_t row = p < 0 ? p + dim : p;
      for (std::int64_t i = 0; i < inner; ++i) {
        indices.push_back((o * dim + row) * inner + i);
      }
    }
  }
  return {out, x.data.gather(indices)};
}

Tensor slice(std::span<const Tensor* const> inputs, const Shape& out) {
  const Tensor& x = *inputs[0];
  std::vector<std::int64_t> starts = inputs[1]->data.toInt64();
  std::vector<std::int64_t> axes(starts.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (inputs.size() > 3 && inputs[3] != nullptr) {
    axes = inputs[3]->data.toInt64();
  }
  std::vector<std::int64_t> steps(starts.size(), 1);
  if (inputs.size() > 4 && inputs[4] != nullptr) {
    steps = inputs[4]->data.toInt64();
  }
  std::vector<std::int64_t> begin(x.shape.size(), 0);
  std::vector<std::int64_t> step(x.shape.size(), 1);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    std::int64_t a = axisOf(axes[i], x.shape.size());
    std::int64_t dim = x.shape[a];
    std::int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    begin[a] = steps[i] > 0 ? std::clamp<std::int64_t>(s, 0, dim)
                            : std::clamp<std::int64_t>(s, -1, dim - 1);
    step[a] = steps[i];
  }
  std::vector<std::int64_t> inStrides = stridesOf(x.shape);
  std::vector<std::int64_t> indices =
      sourceIndices(out, [&](const std::vector<std::int64_t>& coord) {
        std::int64_t index = 0;
        for (std::size_t d = 0; d < out.size(); ++d) {
          index += (begin[d] + coord[d] * step[d]) * inStrides[d];
        }
        return index;
      });
  return {out, x.data.gather(indices)};
}

Tensor constantOfShape(const Node& node, const Shape& out) {
  std::int64_t count = elementCount(out);
  auto it = node.attributes.all().find("value");
  if (it != node.attributes.all().end() && std::holds_alternative<std::int64_t>(it->second)) {
    return {out, TensorData(std::vector<std::int64_t>(static_cast<std::size_t>(count),
                                                      std::get<std::int64_t>(it->second)))};
  }
  float value = node.attributes.getFloat("value", 0.0F);
  return {out, TensorData(std::vector<float>(static_cast<std::size_t>(count), value))};
}

/// Min/Max over integer inputs and Neg/Abs of one, element by element under broadcasting.
Tensor integerMath(const Node& node, std::span<const Tensor* const> inputs, const Shape& out) {
  std::vector<std::int64_t> x =
      inputs[0]->data.gather(broadcastIndices(inputs[0]->shape, out)).toInt64();
  if (node.op == OpKind::Neg || node.op == OpKind::Abs) {
    for (std::int64_t& v : x) {
      v = node.op == OpKind::Neg ? -v : std::abs(v);
    }
  }
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    std::vector<std::int64_t> y =
        inputs[i]->data.gather(broadcastIndices(inputs[i]->shape, out)).toInt64();
    for (std::size_t e = 0; e < x.size(); ++e) {
      x[e] = node.op == OpKind::Min ? std::min(x[e], y[e]) : std::max(x[e], y[e]);
    }
  }
  return {out, TensorData(std::move(x)).castTo(inputs[0]->data.dtype())};
}

/// Equal/Less/.../GreaterOrEqual: floats compare as floats, every other dtype as int64.
Tensor comparison(const Node& node, const Tensor& a, const Tensor& b, const Shape& out) {
  TensorData x = a.data.gather(broadcastIndices(a.shape, out));
  TensorData y = b.data.gather(broadcastIndices(b.shape, out));
  auto compare = [&](const auto& l, const auto& r) {
    std::vector<std::uint8_t> result(l.size());
    for (std::size_t i = 0; i < l.size(); ++i) {
      switch (node.op) {
        case OpKind::Equal:
          result[i] = l[i] == r[i];
          break;
        case OpKind::Less:
          result[i] = l[i] < r[i];
          break;
        case OpKind::LessOrEqual:
          result[i] = l[i] <= r[i];
          break;
        case OpKind::Greater:
          result[i] = l[i] > r[i];
          break;
        default:
          result[i] = l[i] >= r[i];
          break;
      }
    }
    return result;
  };
  std::vector<std::uint8_t> result = x.dtype() == DType::Float32
                                         ? compare(x.toFloat(), y.toFloat())
                                         : compare(x.toInt64(), y.toInt64());
  return {out, TensorData(std::move(result), DType::Bool)};
}

/// Not/And/Or/Xor on bool tensors.
Tensor logic(const Node& node, std::span<const Tensor* const> inputs, const Shape& out) {
  std::vector<std::int64_t> x =
      inputs[0]->data.gather(broadcastIndices(inputs[0]->shape, out)).toInt64();
  std::vector<std::uint8_t> result(x.size());
  if (node.op == OpKind::Not) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      result[i] = x[i] == 0;
    }
    return {out, TensorData(std::move(result), DType::Bool)};
  }
  std::vector<std::int64_t> y =
      inputs[1]->data.gather(broadcastIndices(inputs[1]->shape, out)).toInt64();
  for (std::size_t i = 0; i < x.size(); ++i) {
    bool l = x[i] != 0;
    bool r = y[i] != 0;
    result[i] = node.op == OpKind::And ? (l && r) : node.op == OpKind::Or ? (l || r) : (l != r);
  }
  return {out, TensorData(std::move(result), DType::Bool)};
}

/// Where: the x element where the condition holds, else the y element (x and y broadcast).
Tensor where(std::span<const Tensor* const> inputs, const Shape& out) {
  std::vector<std::int64_t> cond =
      inputs[0]->data.gather(broadcastIndices(inputs[0]->shape, out)).toInt64();
  // Both candidates in one buffer, x's then y's, so one gather picks from either.
  TensorData both = inputs[1]->data.gather(broadcastIndices(inputs[1]->shape, out));
  both.append(inputs[2]->data.gather(broadcastIndices(inputs[2]->shape, out)));
  auto count = static_cast<std::int64_t>(cond.size());
  std::vector<std::int64_t> picks(cond.size());
  for (std::int64_t i = 0; i < count; ++i) {
    picks[static_cast<std::size_t>(i)] = cond[static_cast<std::size_t>(i)] != 0 ? i : count + i;
  }
  return {out, both.gather(picks)};
}

/// Tile: output element at coordinate c reads the input at c modulo the input's shape.
Tensor tile(const Tensor& x, const Shape& out) {
  std::vector<std::int64_t> inStrides = stridesOf(x.shape);
  std::vector<std::int64_t> indices =
      sourceIndices(out, [&](const std::vector<std::int64_t>& coord) {
        std::int64_t index = 0;
        for (std::size_t d = 0; d < out.size(); ++d) {
          index += (coord[d] % x.shape[d]) * inStrides[d];
        }
        return index;
      });
  return {out, x.data.gather(indices)};
}

/// Split: consecutive slices along the axis, of the sizes the output shapes carry.
std::vector<Tensor> split(const Node& node, const Tensor& x,
                          std::span<const InferredOutput> types) {
  std::int64_t axis = axisOf(node.attributes.getInt("axis", 0), x.shape.size());
  std::int64_t dim = x.shape[axis];
  std::int64_t outer = elementCount(std::span(x.shape).first(static_cast<std::size_t>(axis)));
  std::int64_t inner = elementCount(std::span(x.shape).subspan(static_cast<std::size_t>(axis) + 1));
  std::vector<Tensor> parts;
  std::int64_t begin = 0;
  for (const InferredOutput& type : types) {
    std::int64_t size = type.shape[axis];
    std::vector<std::int64_t> indices;
    indices.reserve(static_cast<std::size_t>(outer * size * inner));
    for (std::int64_t o = 0; o < outer; ++o) {
      for (std::int64_t i = 0; i < size * inner; ++i) {
        indices.push_back((o * dim + begin) * inner + i);
      }
    }
    parts.push_back({type.shape, x.data.gather(indices)});
    begin += size;
  }
  return parts;
}

/// Range: start, start + delta, ... below limit (above it for a negative delta).
Tensor range(std::span<const Tensor* const> inputs, const Shape& out) {
  std::size_t count = static_cast<std::size_t>(out[0]);
  if (inputs[0]->data.dtype() == DType::Float32) {
    float start = inputs[0]->data.toFloat()[0];
    float delta = inputs[2]->data.toFloat()[0];
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i) {
      values[i] = start + static_cast<float>(i) * delta;
    }
    return {out, TensorData(std::move(values))};
  }
  std::int64_t start = inputs[0]->data.toInt64()[0];
  std::int64_t delta = inputs[2]->data.toInt64()[0];
  std::vector<std::int64_t> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    values[i] = start + static_cast<std::int64_t>(i) * delta;
  }
  return {out, TensorData(std::move(values)).castTo(inputs[0]->data.dtype())};
}

}  // namespace

bool runsOnIndexEvaluator(OpKind op, DType firstInputDtype) {
  switch (kernelKind(op)) {
    case KernelKind::Index:
      return true;
    case KernelKind::Fp32:
      break;
  }
  switch (op) {
    case OpKind::Concat:
    case OpKind::Flatten:
    case OpKind::Reshape:
    case OpKind::Transpose:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
    case OpKind::Identity:
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Min:
    case OpKind::Max:
    case OpKind::Neg:
    case OpKind::Abs:
      return firstInputDtype != DType::Float32;
    default:
      return false;
  }
}

std::vector<Tensor> evaluateIndexOp(const Node& node, std::span<const Tensor* const> inputs) {
  std::vector<KnownValue> known(inputs.size());
  std::vector<const KnownValue*> knownPointers(inputs.size(), nullptr);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] != nullptr) {
      known[i] = KnownValue{inputs[i]->data.dtype(), inputs[i]->shape, &inputs[i]->data};
      knownPointers[i] = &known[i];
    }
  }
  std::vector<InferredOutput> types = inferOutputTypes(node, knownPointers);
  const Shape& out = types.at(0).shape;
  switch (node.op) {
    case OpKind::Shape: {
      const Shape& s = inputs[0]->shape;
      auto rank = static_cast<std::int64_t>(s.size());
      std::int64_t start = node.attributes.getInt("start", 0);
      start = std::clamp<std::int64_t>(start < 0 ? start + rank : start, 0, rank);
      std::vector<std::int64_t> dims(s.begin() + start,
                                     s.begin() + start + static_cast<std::int64_t>(out[0]));
      return {{out, TensorData(std::move(dims))}};
    }
    case OpKind::Cast:
      return {{out, inputs[0]->data.castTo(types[0].dtype)}};
    case OpKind::Gather:
      return {gatherOp(node, *inputs[0], *inputs[1], out)};
    case OpKind::Slice:
      return {slice(inputs, out)};
    case OpKind::ConstantOfShape:
      return {constantOfShape(node, out)};
    case OpKind::Concat:
      return {concat(node, inputs, out)};
    case OpKind::Transpose:
      return {transpose(node, *inputs[0], out)};
    case OpKind::Flatten:
    case OpKind::Reshape:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
    case OpKind::Identity:
      return {{out, inputs[0]->data}};
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
      return {arithmetic(node, *inputs[0], *inputs[1], out)};
    case OpKind::Min:
    case OpKind::Max:
    case OpKind::Neg:
    case OpKind::Abs:
      return {integerMath(node, inputs, out)};
    case OpKind::Equal:
    case OpKind::Less:
    case OpKind::LessOrEqual:
    case OpKind::Greater:
    case OpKind::GreaterOrEqual:
      return {comparison(node, *inputs[0], *inputs[1], out)};
    case OpKind::Not:
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Xor:
      return {logic(node, inputs, out)};
    case OpKind::Where:
      return {where(inputs, out)};
    case OpKind::Expand:
      return {{out, inputs[0]->data.gather(broadcastIndices(inputs[0]->shape, out))}};
    case OpKind::Tile:
      return {tile(*inputs[0], out)};
    case OpKind::Split:
      return split(node, *inputs[0], types);
    case OpKind::Range:
      return {range(inputs, out)};
    default:
      fail("the index evaluator does not run {}", opName(node.op));
  }
}

}  // namespace npu::compiler
