// The output-type rule of every op (ONNX semantics), used by shape inference and the verifier.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "npu/compiler/ir/head_matmul.h"
#include "npu/compiler/ir/index_eval.h"
#include "npu/compiler/ir/op_params.h"
#include "npu/golden/fp32_pool.h"
#include "npu/support/error.h"
#include "shape_rules.h"

namespace npu::compiler {
namespace rules {

std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    std::int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      return std::nullopt;
    }
    out[out.size() - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

InferredOutput output(DType dtype, Shape shape) {
  return {dtype, std::move(shape), std::nullopt};
}

std::int64_t normalizedAxis(std::int64_t axis, std::size_t rank, bool allowEnd) {
  auto r = static_cast<std::int64_t>(rank);
  std::int64_t limit = allowEnd ? r + 1 : r;
  if (axis < -limit || axis >= limit) {
    fail("axis {} is out of range for rank {}", axis, rank);
  }
  return axis < 0 ? axis + limit : axis;
}

void requireRank(const KnownValue& v, std::size_t rank, std::string_view what) {
  if (v.shape.size() != rank) {
    fail("{} must have rank {}, has shape {}", what, rank, formatShape(v.shape));
  }
}

void requireVector(const KnownValue& v, std::int64_t length, std::string_view what) {
  if (v.shape.size() != 1 || v.shape[0] != length) {
    fail("{} must have shape [{}], has {}", what, length, formatShape(v.shape));
  }
}

}  // namespace rules

namespace {

using namespace rules;  // NOLINT(google-build-using-namespace): the rule helpers, private to the IR

std::vector<InferredOutput> inferConv(const Node& node, const Inputs& in) {
  in.requireCount(2, 3);
  const KnownValue& x = in.floatInput(0);
  const KnownValue& w = in.floatInput(1);
  golden::Conv2dParams p = convParams(node, x.shape, w.shape);
  if (x.shape[1] != w.shape[1] * p.group) {
    fail("input has {} channels, weights {} expect {} (group {})", x.shape[1], formatShape(w.shape),
         w.shape[1] * p.group, p.group);
  }
  if (w.shape[0] % p.group != 0) {
    fail("{} output channels are not divisible by group {}", w.shape[0], p.group);
  }
  if (in.has(2)) {
    requireVector(in.floatInput(2), w.shape[0], "bias");
  }
  Shape out{x.shape[0], w.shape[0], 0, 0};
  for (int a = 0; a < 2; ++a) {
    std::int64_t span = x.shape[2 + a] + p.pads[a] + p.pads[a + 2];
    std::int64_t window = p.dilations[a] * (w.shape[2 + a] - 1) + 1;
    if (span < window) {
      fail("kernel {}x{} does not fit the padded input {}", w.shape[2], w.shape[3],
           formatShape(x.shape));
    }
    out[2 + a] = (span - window) / p.strides[a] + 1;
  }
  return {output(DType::Float32, out)};
}

std::vector<InferredOutput> inferConvTranspose(const Node& node, const Inputs& in) {
  in.requireCount(2, 3);
  const KnownValue& x = in.floatInput(0);
  const KnownValue& w = in.floatInput(1);
  golden::ConvTranspose2dParams p = convTransposeParams(node, x.shape, w.shape);
  if (x.shape[1] != w.shape[0]) {
    fail("input has {} channels, weights {} expect {}", x.shape[1], formatShape(w.shape),
         w.shape[0]);
  }
  if (w.shape[0] % p.group != 0) {
    fail("{} input channels are not divisible by group {}", w.shape[0], p.group);
  }
  std::int64_t outChannels = w.shape[1] * p.group;
  if (in.has(2)) {
    requireVector(in.floatInput(2), outChannels, "bias");
  }
  Shape out{x.shape[0], outChannels, 0, 0};
  for (int a = 0; a < 2; ++a) {
    out[2 + a] = p.strides[a] * (x.shape[2 + a] - 1) + p.outputPadding[a] +
                 p.dilations[a] * (w.shape[2 + a] - 1) + 1 - p.pads[a] - p.pads[a + 2];
    if (out[2 + a] < 1) {
      fail("output size {} along axis {} is not positive", out[2 + a], 2 + a);
    }
  }
  return {output(DType::Float32, out)};
}

std::vector<InferredOutput> inferBatchNorm(const Node& node, const Inputs& in) {
  in.requireCount(5, 5);
  if (node.outputs.size() != 1) {
    fail("training-mode outputs (running mean/var) are not supported");
  }
  const KnownValue& x = in.floatInput(0);
  if (x.shape.size() < 2) {
    fail("input must have rank 2 or more, has shape {}", formatShape(x.shape));
  }
  static constexpr const char* kNames[] = {"scale", "bias", "mean", "var"};
  for (std::size_t i = 1; i < 5; ++i) {
    requireVector(in.floatInput(i), x.shape[1], kNames[i - 1]);
  }
  return {output(DType::Float32, x.shape)};
}

std::vector<InferredOutput> inferGemm(const Node& node, const Inputs& in) {
  in.requireCount(2, 3);
  const KnownValue& a = in.floatInput(0);
  const KnownValue& b = in.floatInput(1);
  requireRank(a, 2, "A");
  requireRank(b, 2, "B");
  bool transA = node.attributes.getInt("transA", 0) != 0;
  bool transB = node.attributes.getInt("transB", 0) != 0;
  std::int64_t m = transA ? a.shape[1] : a.shape[0];
  std::int64_t k = transA ? a.shape[0] : a.shape[1];
  std::int64_t kb = transB ? b.shape[1] : b.shape[0];
  std::int64_t n = transB ? b.shape[0] : b.shape[1];
  if (k != kb) {
    fail("A {} and B {} do not multiply (transA={}, transB={})", formatShape(a.shape),
         formatShape(b.shape), transA ? 1 : 0, transB ? 1 : 0);
  }
  if (in.has(2)) {
    const KnownValue& c = in.floatInput(2);
    Shape full{m, n};
    if (broadcast(c.shape, full) != full) {
      fail("C {} does not broadcast to [{}, {}]", formatShape(c.shape), m, n);
    }
  }
  return {output(DType::Float32, {m, n})};
}

/// HeadMatMul: the output shape is an attribute (the shape of the value whose NHWC bytes it
/// fills); the geometry must stay inside both operands and cover the output once.
std::vector<InferredOutput> inferHeadMatMul(const Node& node, const Inputs& in) {
  in.requireCount(2, 2);
  const Shape out = node.attributes.getInts("shape", {});
  if (out.size() != 4 || out[0] != 1 ||
      std::any_of(out.begin(), out.end(), [](std::int64_t d) { return d < 1; })) {
    fail("HeadMatMul needs a shape attribute [1, C, H, W], got {}", formatShape(out));
  }
  if (!std::isfinite(node.attributes.getFloat("alpha", 1.0F))) {
    fail("HeadMatMul alpha is not finite");
  }
  checkHeadMatMulGeometry(headMatMulGeometry(node.attributes), elementCount(in.floatInput(0).shape),
                          elementCount(in.floatInput(1).shape), elementCount(out));
  return {output(DType::Float32, out)};
}

std::vector<InferredOutput> inferMatMul(const Inputs& in) {
  in.requireCount(2, 2);
  Shape a = in.floatInput(0).shape;
  Shape b = in.floatInput(1).shape;
  if (a.empty() || b.empty()) {
    fail("operands must have rank 1 or more");
  }
  bool vectorA = a.size() == 1;
  bool vectorB = b.size() == 1;
  if (vectorA) {
    a.insert(a.begin(), 1);
  }
  if (vectorB) {
    b.push_back(1);
  }
  if (a.back() != b[b.size() - 2]) {
    fail("shapes {} and {} do not multiply", formatShape(in[0].shape), formatShape(in[1].shape));
  }
  Shape batchA(a.begin(), a.end() - 2);
  Shape batchB(b.begin(), b.end() - 2);
  std::optional<Shape> batch = broadcast(batchA, batchB);
  if (!batch) {
    fail("batch dimensions of {} and {} do not broadcast", formatShape(in[0].shape),
         formatShape(in[1].shape));
  }
  Shape out = *batch;
  if (!vectorA) {
    out.push_back(a[a.size() - 2]);
  }
  if (!vectorB) {
    out.push_back(b.back());
  }
  return {output(DType::Float32, out)};
}

std::vector<InferredOutput> inferActivation(const Node& node, const Inputs& in) {
  in.requireCount(1, node.op == OpKind::Clip ? 3 : 1);
  const KnownValue& x = in.floatInput(0);
  for (std::size_t i = 1; i < in.count(); ++i) {
    if (in.has(i) && elementCount(in[i].shape) != 1) {
      fail("bound (input {}) must be a scalar, has shape {}", i, formatShape(in[i].shape));
    }
  }
  return {output(DType::Float32, x.shape)};
}

std::vector<InferredOutput> inferBinary(const Inputs& in) {
  in.requireCount(2, 2);
  if (in[0].dtype != in[1].dtype) {
    fail("inputs have different types {} and {}", dtypeName(in[0].dtype), dtypeName(in[1].dtype));
  }
  std::optional<Shape> out = broadcast(in[0].shape, in[1].shape);
  if (!out) {
    fail("input shapes {} and {} do not broadcast", formatShape(in[0].shape),
         formatShape(in[1].shape));
  }
  return {output(in[0].dtype, *out)};
}

std::vector<InferredOutput> inferPool(const Node& node, const Inputs& in) {
  in.requireCount(1, 1);
  const KnownValue& x = in.floatInput(0);
  if (node.outputs.size() != 1) {
    fail("the Indices output is not supported");
  }
  golden::Pool2dParams p = poolParams(node, x.shape);
  Shape out{x.shape[0], x.shape[1], 0, 0};
  for (int a = 0; a < 2; ++a) {
    out[2 + a] = golden::pooledSize(x.shape[2 + a], p.kernel[a], p.strides[a], p.dilations[a],
                                    p.pads[a], p.pads[a + 2], p.ceilMode);
  }
  return {output(DType::Float32, out)};
}

std::vector<InferredOutput> inferGlobalPool(const Inputs& in) {
  in.requireCount(1, 1);
  Shape out = in.floatInput(0).shape;
  if (out.size() < 3) {
    fail("input must have rank 3 or more, has shape {}", formatShape(out));
  }
  std::fill(out.begin() + 2, out.end(), 1);
  return {output(DType::Float32, out)};
}

std::vector<InferredOutput> inferConcat(const Node& node, const Inputs& in) {
  if (in.count() == 0) {
    fail("expects at least one input");
  }
  if (!node.attributes.has("axis")) {
    fail("attribute 'axis' is required");
  }
  const KnownValue& first = in[0];
  std::int64_t axis = normalizedAxis(node.attributes.getInt("axis", 0), first.shape.size());
  Shape out = first.shape;
  for (std::size_t i = 1; i < in.count(); ++i) {
    const KnownValue& v = in[i];
    if (v.dtype != first.dtype) {
      fail("input {} is {}, input 0 is {}", i, dtypeName(v.dtype), dtypeName(first.dtype));
    }
    bool compatible = v.shape.size() == first.shape.size();
    for (std::size_t d = 0; compatible && d < v.shape.size(); ++d) {
      compatible = static_cast<std::int64_t>(d) == axis || v.shape[d] == first.shape[d];
    }
    if (!compatible) {
      fail("input {} has shape {}, which does not concatenate with {} along axis {}", i,
           formatShape(v.shape), formatShape(first.shape), axis);
    }
    out[axis] += v.shape[axis];
  }
  return {output(first.dtype, out)};
}

std::vector<InferredOutput> inferFlatten(const Node& node, const Inputs& in) {
  in.requireCount(1, 1);
  const Shape& s = in[0].shape;
  std::int64_t axis = normalizedAxis(node.attributes.getInt("axis", 1), s.size(), true);
  std::int64_t outer = elementCount(std::span(s).first(axis));
  std::int64_t inner = elementCount(std::span(s).subspan(axis));
  return {output(in[0].dtype, {outer, inner})};
}

std::vector<InferredOutput> inferReshape(const Node& node, const Inputs& in) {
  in.requireCount(2, 2);
  const Shape& s = in[0].shape;
  std::vector<std::int64_t> target = in.knownInts(1, "the target shape");
  bool allowZero = node.attributes.getInt("allowzero", 0) != 0;
  Shape out(target.size());
  int inferred = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (inferred >= 0) {
        fail("target shape [{}] has more than one -1", fmt::join(target, ", "));
      }
      inferred = static_cast<int>(i);
      continue;
    }
    if (target[i] == 0 && !allowZero) {
      if (i >= s.size()) {
        fail("target shape [{}] copies dimension {} of {}, which does not exist",
             fmt::join(target, ", "), i, formatShape(s));
      }
      out[i] = s[i];
    } else if (target[i] < 0) {
      fail("target shape [{}] has a negative dimension", fmt::join(target, ", "));
    } else {
      out[i] = target[i];
    }
  }
  // The product of the given dimensions, checked for 64-bit overflow as any shape's is (a target
  // of [2^48, 2^40] is refused, not wrapped).
  Shape given = out;
  if (inferred >= 0) {
    given[static_cast<std::size_t>(inferred)] = 1;
  }
  const std::int64_t known = elementCount(given);
  std::int64_t total = elementCount(s);
  if (inferred >= 0) {
    if (known == 0 || total % known != 0) {
      fail("cannot reshape {} to [{}]", formatShape(s), fmt::join(target, ", "));
    }
    out[inferred] = total / known;
  } else if (known != total) {
    fail("cannot reshape {} ({} elements) to [{}]", formatShape(s), total, fmt::join(target, ", "));
  }
  return {output(in[0].dtype, out)};
}

std::vector<InferredOutput> inferTranspose(const Node& node, const Inputs& in) {
  in.requireCount(1, 1);
  const Shape& s = in[0].shape;
  std::vector<std::int64_t> perm(s.size());
  std::iota(perm.rbegin(), perm.rend(), 0);
  perm = node.attributes.getInts("perm", perm);
  std::vector<std::int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool valid = sorted.size() == s.size();
  for (std::size_t i = 0; valid && i < sorted.size(); ++i) {
    valid = sorted[i] == static_cast<std::int64_t>(i);
  }
  if (!valid) {
    fail("perm [{}] is not a permutation of the {} axes", fmt::join(perm, ", "), s.size());
  }
  Shape out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    out[i] = s[perm[i]];
  }
  return {output(in[0].dtype, out)};
}

std::vector<InferredOutput> inferSqueeze(const Inputs& in) {
  in.requireCount(1, 2);
  const Shape& s = in[0].shape;
  std::vector<bool> drop(s.size(), false);
  if (in.has(1)) {
    for (std::int64_t axis : in.knownInts(1, "axes")) {
      std::int64_t a = normalizedAxis(axis, s.size());
      if (s[a] != 1) {
        fail("cannot squeeze axis {} of {}: its size is not 1", axis, formatShape(s));
      }
      drop[a] = true;
    }
  } else {
    for (std::size_t a = 0; a < s.size(); ++a) {
      drop[a] = s[a] == 1;
    }
  }
  Shape out;
  for (std::size_t a = 0; a < s.size(); ++a) {
    if (!drop[a]) {
      out.push_back(s[a]);
    }
  }
  return {output(in[0].dtype, out)};
}

std::vector<InferredOutput> inferUnsqueeze(const Inputs& in) {
  in.requireCount(2, 2);
  const Shape& s = in[0].shape;
  std::vector<std::int64_t> axes = in.knownInts(1, "axes");
  std::size_t rank = s.size() + axes.size();
  std::vector<bool> inserted(rank, false);
  for (std::int64_t axis : axes) {
    std::int64_t a = normalizedAxis(axis, rank);
    if (inserted[a]) {
      fail("axes [{}] repeat axis {}", fmt::join(axes, ", "), a);
    }
    inserted[a] = true;
  }
  Shape out;
  std::size_t next = 0;
  for (std::size_t a = 0; a < rank; ++a) {
    out.push_back(inserted[a] ? 1 : s[next++]);
  }
  return {output(in[0].dtype, out)};
}

std::vector<InferredOutput> inferPad(const Node& node, const Inputs& in) {
  in.requireCount(2, 3);
  const KnownValue& x = in.floatInput(0);
  std::string mode = node.attributes.getString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    fail("mode '{}' is not supported", mode);
  }
  std::vector<std::int64_t> pads = in.knownInts(1, "pads");
  std::size_t rank = x.shape.size();
  if (pads.size() != 2 * rank) {
    fail("pads has {} values, an input of rank {} needs {}", pads.size(), rank, 2 * rank);
  }
  if (in.has(2) && elementCount(in[2].shape) != 1) {
    fail("constant_value must be a scalar, has shape {}", formatShape(in[2].shape));
  }
  // Each pad within the size limit (a dimension's), so the sums below stay inside 64 bits.
  for (const std::int64_t pad : pads) {
    if (pad < -kMaxTensorElements || pad > kMaxTensorElements) {
      fail("pad {} is outside [-{}, {}]", pad, kMaxTensorElements, kMaxTensorElements);
    }
  }
  Shape out = x.shape;
  for (std::size_t a = 0; a < rank; ++a) {
    out[a] += pads[a] + pads[a + rank];
    if (out[a] < 0) {
      fail("pads [{}] leave a negative size along axis {}", fmt::join(pads, ", "), a);
    }
  }
  return {output(DType::Float32, out)};
}

std::vector<InferredOutput> inferResize(const Node& node, const Inputs& in) {
  in.requireCount(1, 4);
  const KnownValue& x = in.floatInput(0);
  std::vector<float> scales;
  std::vector<std::int64_t> sizes;
  if (in.has(2) && elementCount(in[2].shape) > 0) {
    scales = in.knownFloats(2, "scales");
  } else if (in.has(3) && elementCount(in[3].shape) > 0) {
    sizes = in.knownInts(3, "sizes");
  } else {
    fail("needs scales or sizes");
  }
  golden::ResizeParams p = resizeParams(node, x.shape, scales, sizes);
  Shape out(x.shape.size());
  for (std::size_t a = 0; a < out.size(); ++a) {
    if (p.scales.empty()) {
      out[a] = p.sizes[a];
    } else {
      // ONNX: floor(input size * scale), in float. A hostile scale (huge, infinite, NaN) must be
      // refused before the conversion to an integer, which would be undefined behaviour.
      const float size = static_cast<float>(x.shape[a]) * p.scales[a];
      if (!(size >= 1.0F && size <= static_cast<float>(kMaxTensorElements))) {
        fail("scale {} along axis {} gives an output size of {} (must be 1 to {})", p.scales[a], a,
             size, kMaxTensorElements);
      }
      out[a] = static_cast<std::int64_t>(size);
    }
    if (out[a] < 1) {
      fail("output size {} along axis {} is not positive", out[a], a);
    }
  }
  return {output(DType::Float32, out)};
}

std::vector<InferredOutput> inferSoftmax(const Node& node, const Inputs& in) {
  in.requireCount(1, 1);
  const KnownValue& x = in.floatInput(0);
  normalizedAxis(node.attributes.getInt("axis", -1), x.shape.size());
  return {output(DType::Float32, x.shape)};
}

std::vector<InferredOutput> inferShape(const Node& node, const Inputs& in) {
  in.requireCount(1, 1);
  auto rank = static_cast<std::int64_t>(in[0].shape.size());
  auto clampAxis = [rank](std::int64_t a) {
    return std::clamp<std::int64_t>(a < 0 ? a + rank : a, 0, rank);
  };
  std::int64_t start = clampAxis(node.attributes.getInt("start", 0));
  std::int64_t end = clampAxis(node.attributes.getInt("end", rank));
  return {output(DType::Int64, {std::max<std::int64_t>(0, end - start)})};
}

std::vector<InferredOutput> inferGather(const Node& node, const Inputs& in) {
  in.requireCount(2, 2);
  const Shape& s = in[0].shape;
  if (in[1].dtype != DType::Int64 && in[1].dtype != DType::Int32) {
    fail("indices must be integers, are {}", dtypeName(in[1].dtype));
  }
  if (s.empty()) {
    fail("data must have rank 1 or more");
  }
  std::int64_t axis = normalizedAxis(node.attributes.getInt("axis", 0), s.size());
  Shape out(s.begin(), s.begin() + axis);
  out.insert(out.end(), in[1].shape.begin(), in[1].shape.end());
  out.insert(out.end(), s.begin() + axis + 1, s.end());
  return {output(in[0].dtype, out)};
}

std::vector<InferredOutput> inferCast(const Node& node, const Inputs& in) {
  in.requireCount(1, 1);
  std::int64_t to = node.attributes.getInt("to", 0);
  std::optional<DType> dtype = dtypeFromOnnx(to);
  if (!dtype) {
    fail("cast to ONNX data type {} is not supported", to);
  }
  return {output(*dtype, in[0].shape)};
}

std::vector<InferredOutput> inferSlice(const Inputs& in) {
  in.requireCount(3, 5);
  const Shape& s = in[0].shape;
  std::vector<std::int64_t> starts = in.knownInts(1, "starts");
  std::vector<std::int64_t> ends = in.knownInts(2, "ends");
  std::vector<std::int64_t> axes(starts.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (in.has(3)) {
    axes = in.knownInts(3, "axes");
  }
  std::vector<std::int64_t> steps(starts.size(), 1);
  if (in.has(4)) {
    steps = in.knownInts(4, "steps");
  }
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    fail("starts, ends, axes and steps have different lengths");
  }
  Shape out = s;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    std::int64_t a = normalizedAxis(axes[i], s.size());
    std::int64_t dim = s[a];
    if (steps[i] == 0) {
      fail("step 0 along axis {}", a);
    }
    auto clampIndex = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) {
      if (v < 0) {
        v += dim;
      }
      return std::clamp(v, lo, hi);
    };
    // A step longer than the dimension takes one element, as dim + 1 does: clamped so the
    // arithmetic below stays inside 64 bits whatever the file holds.
    const std::int64_t step = std::clamp(steps[i], -(dim + 1), dim + 1);
    std::int64_t count = 0;
    if (step > 0) {
      std::int64_t b = clampIndex(starts[i], 0, dim);
      std::int64_t e = clampIndex(ends[i], 0, dim);
      count = e > b ? (e - b + step - 1) / step : 0;
    } else {
      std::int64_t b = clampIndex(starts[i], -1, dim - 1);
      std::int64_t e = clampIndex(ends[i], -1, dim - 1);
      count = b > e ? (b - e - step - 1) / -step : 0;
    }
    out[a] = count;
  }
  return {output(in[0].dtype, out)};
}

std::vector<InferredOutput> inferConstantOfShape(const Node& node, const Inputs& in) {
  in.requireCount(1, 1);
  std::vector<std::int64_t> shape = in.knownInts(0, "the shape");
  bool isInt = node.attributes.has("value") &&
               std::holds_alternative<std::int64_t>(node.attributes.all().find("value")->second);
  return {output(isInt ? DType::Int64 : DType::Float32, shape)};
}

}  // namespace

std::vector<InferredOutput> inferOutputTypes(const Node& node,
                                             std::span<const KnownValue* const> values) {
  Inputs in(node, values);
  // The op families op_kind.h names share one rule each.
  if (isActivation(node.op)) {
    return inferActivation(node, in);
  }
  if (isUnaryMath(node.op)) {
    return inferUnary(node, in);
  }
  if (isReduction(node.op)) {
    return inferReduce(node, in);
  }
  switch (node.op) {
    case OpKind::Conv:
      return inferConv(node, in);
    case OpKind::ConvTranspose:
      return inferConvTranspose(node, in);
    case OpKind::BatchNormalization:
      return inferBatchNorm(node, in);
    case OpKind::Gemm:
      return inferGemm(node, in);
    case OpKind::MatMul:
      return inferMatMul(in);
    case OpKind::HeadMatMul:
      return inferHeadMatMul(node, in);
    case OpKind::PRelu:
      return inferPRelu(in);
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
      return inferBinary(in);
    case OpKind::Pow:
    case OpKind::Min:
    case OpKind::Max:
      return inferVariadic(node, in);
    case OpKind::ArgMax:
    case OpKind::ArgMin:
      return inferArgExtreme(node, in);
    case OpKind::LayerNormalization:
    case OpKind::RMSNormalization:
    case OpKind::ChannelLayerNorm:
    case OpKind::ChannelRmsNorm:
    case OpKind::GroupNormalization:
    case OpKind::InstanceNormalization:
    case OpKind::LogSoftmax:
      return inferNormalization(node, in);
    case OpKind::DepthToSpace:
    case OpKind::SpaceToDepth:
      return inferSpaceDepth(node, in);
    case OpKind::Split:
      return inferSplit(node, in);
    case OpKind::Expand:
      return inferExpand(in);
    case OpKind::Tile:
      return inferTile(in);
    case OpKind::Where:
      return inferWhere(in);
    case OpKind::Range:
      return inferRange(in);
    case OpKind::Equal:
    case OpKind::Less:
    case OpKind::LessOrEqual:
    case OpKind::Greater:
    case OpKind::GreaterOrEqual:
      return inferComparison(node, in);
    case OpKind::Not:
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Xor:
      return inferLogic(node, in);
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      return inferPool(node, in);
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      return inferGlobalPool(in);
    case OpKind::Concat:
      return inferConcat(node, in);
    case OpKind::Flatten:
      return inferFlatten(node, in);
    case OpKind::Reshape:
      return inferReshape(node, in);
    case OpKind::Transpose:
      return inferTranspose(node, in);
    case OpKind::Squeeze:
      return inferSqueeze(in);
    case OpKind::Unsqueeze:
      return inferUnsqueeze(in);
    case OpKind::Pad:
      return inferPad(node, in);
    case OpKind::Resize:
      return inferResize(node, in);
    case OpKind::Softmax:
      return inferSoftmax(node, in);
    case OpKind::Identity:
      in.requireCount(1, 1);
      return {output(in[0].dtype, in[0].shape)};
    case OpKind::Shape:
      return inferShape(node, in);
    case OpKind::Gather:
      return inferGather(node, in);
    case OpKind::Cast:
      return inferCast(node, in);
    case OpKind::Slice:
      return inferSlice(in);
    case OpKind::ConstantOfShape:
      return inferConstantOfShape(node, in);
    default:
      break;  // the activation, unary-math and reduction families are handled above
  }
  fail("no shape rule");
}

}  // namespace npu::compiler
