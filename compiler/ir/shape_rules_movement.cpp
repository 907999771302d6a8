// The output-type rules of the data-movement ops Split, Expand, Tile, Range, DepthToSpace and
// SpaceToDepth (ONNX semantics).
#include <cmath>

#include "shape_rules.h"

namespace npu::compiler::rules {
namespace {

/// A scalar input that must be known before running the graph, as double.
double knownScalar(const Inputs& in, std::size_t i, std::string_view what) {
  std::vector<double> values;
  if (in[i].dtype == DType::Float32) {
    std::vector<float> floats = in.knownFloats(i, what);
    values.assign(floats.begin(), floats.end());
  } else {
    std::vector<std::int64_t> ints = in.knownInts(i, what);
    values.assign(ints.begin(), ints.end());
  }
  if (values.size() != 1) {
    fail("{} (input {}) must be a scalar, has shape {}", what, i, formatShape(in[i].shape));
  }
  return values[0];
}

}  // namespace

std::vector<std::int64_t> splitSizes(const Node& node, const Inputs& in, std::int64_t dim) {
  auto outputs = static_cast<std::int64_t>(node.outputs.size());
  if (in.has(1)) {
    std::vector<std::int64_t> sizes = in.knownInts(1, "split");
    std::int64_t total = 0;
    for (std::int64_t s : sizes) {
      if (s < 0 || s > dim) {  // within the dimension, so the total stays inside 64 bits
        fail("split size {} is outside [0, {}]", s, dim);
      }
      total += s;
    }
    if (static_cast<std::int64_t>(sizes.size()) != outputs || total != dim) {
      fail("split sizes {} do not cut a dimension of {} into {} outputs", formatShape(sizes), dim,
           outputs);
    }
    return sizes;
  }
  std::int64_t parts = node.attributes.getInt("num_outputs", outputs);
  if (parts != outputs || parts < 1) {
    fail("num_outputs is {}, the node has {} outputs", parts, outputs);
  }
  // Opset 18: equal parts of ceil(dim / parts), the last one smaller.
  std::int64_t chunk = (dim + parts - 1) / parts;
  if (chunk * (parts - 1) >= dim && parts > 1) {
    fail("a dimension of {} cannot be split into {} non-empty parts", dim, parts);
  }
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(parts), chunk);
  sizes.back() = dim - chunk * (parts - 1);
  return sizes;
}

std::vector<InferredOutput> inferSplit(const Node& node, const Inputs& in) {
  in.requireCount(1, 2);
  const Shape& s = in[0].shape;
  if (s.empty()) {
    fail("input must have rank 1 or more");
  }
  std::int64_t axis = normalizedAxis(node.attributes.getInt("axis", 0), s.size());
  std::vector<InferredOutput> outputs;
  for (std::int64_t size : splitSizes(node, in, s[axis])) {
    Shape out = s;
    out[axis] = size;
    outputs.push_back(output(in[0].dtype, out));
  }
  return outputs;
}

std::vector<InferredOutput> inferExpand(const Inputs& in) {
  in.requireCount(2, 2);
  std::vector<std::int64_t> shape = in.knownInts(1, "shape");
  std::optional<Shape> out = broadcast(in[0].shape, shape);
  if (!out) {
    fail("input of shape {} does not expand to {}", formatShape(in[0].shape), formatShape(shape));
  }
  return {output(in[0].dtype, *out)};
}

std::vector<InferredOutput> inferTile(const Inputs& in) {
  in.requireCount(2, 2);
  std::vector<std::int64_t> repeats = in.knownInts(1, "repeats");
  Shape out = in[0].shape;
  if (repeats.size() != out.size()) {
    fail("repeats has {} values for an input of rank {}", repeats.size(), out.size());
  }
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (repeats[d] < 0 || repeats[d] > kMaxTensorElements) {
      fail("repeat {} along axis {} is outside [0, {}]", repeats[d], d, kMaxTensorElements);
    }
    out[d] *= repeats[d];
  }
  return {output(in[0].dtype, out)};
}

std::vector<InferredOutput> inferRange(const Inputs& in) {
  in.requireCount(3, 3);
  for (std::size_t i = 1; i < 3; ++i) {
    if (in[i].dtype != in[0].dtype) {
      fail("input {} is {}, input 0 is {}", i, dtypeName(in[i].dtype), dtypeName(in[0].dtype));
    }
  }
  double start = knownScalar(in, 0, "start");
  double limit = knownScalar(in, 1, "limit");
  double delta = knownScalar(in, 2, "delta");
  if (delta == 0) {
    fail("delta is 0");
  }
  double count = std::max(std::ceil((limit - start) / delta), 0.0);
  if (!(count <= 1e9)) {
    fail("the range from {} to {} by {} has too many elements", start, limit, delta);
  }
  return {output(in[0].dtype, {static_cast<std::int64_t>(count)})};
}

std::vector<InferredOutput> inferSpaceDepth(const Node& node, const Inputs& in) {
  in.requireCount(1, 1);
  const KnownValue& x = in.floatInput(0);
  requireRank(x, 4, "input");
  std::int64_t b = node.attributes.getInt("blocksize", 0);
  // Bounded so that b * b and the products with the sizes below stay inside 64 bits.
  if (b < 1 || b > (std::int64_t{1} << 14)) {
    fail("blocksize {} must be 1 to 16384", b);
  }
  Shape out = x.shape;
  if (node.op == OpKind::DepthToSpace) {
    if (x.shape[1] % (b * b) != 0) {
      fail("{} channels are not divisible by blocksize^2 = {}", x.shape[1], b * b);
    }
    out = {x.shape[0], x.shape[1] / (b * b), x.shape[2] * b, x.shape[3] * b};
  } else {
    if (x.shape[2] % b != 0 || x.shape[3] % b != 0) {
      fail("height {} and width {} must be divisible by blocksize {}", x.shape[2], x.shape[3], b);
    }
    out = {x.shape[0], x.shape[1] * b * b, x.shape[2] / b, x.shape[3] / b};
  }
  return {output(DType::Float32, out)};
}

}  // namespace npu::compiler::rules
