// The output-type rules of the element-wise math, comparison, logic, reduction and normalisation
// ops (ONNX semantics).
#include <fmt/format.h>

#include <algorithm>

#include "npu/golden/fp32_reduce.h"
#include "shape_rules.h"

namespace npu::compiler::rules {
namespace {

bool isNumeric(DType dtype) {
  return dtype != DType::Bool;
}

/// The broadcast of every present input's shape; fails naming the first pair that does not.
Shape broadcastAll(const Inputs& in) {
  Shape out = in[0].shape;
  for (std::size_t i = 1; i < in.count(); ++i) {
    std::optional<Shape> next = broadcast(out, in[i].shape);
    if (!next) {
      fail("input {} of shape {} does not broadcast with {}", i, formatShape(in[i].shape),
           formatShape(out));
    }
    out = *next;
  }
  return out;
}

void requireSameDtype(const Inputs& in, std::size_t first, std::size_t last) {
  for (std::size_t i = first + 1; i <= last; ++i) {
    if (in[i].dtype != in[first].dtype) {
      fail("input {} is {}, input {} is {}", i, dtypeName(in[i].dtype), first,
           dtypeName(in[first].dtype));
    }
  }
}

void requireBool(const KnownValue& v, std::size_t i) {
  if (v.dtype != DType::Bool) {
    fail("input {} is {}, expected bool", i, dtypeName(v.dtype));
  }
}

/// A per-channel parameter of C values (any shape holding exactly C elements).
void requireChannels(const Inputs& in, std::size_t i, std::int64_t channels,
                     std::string_view what) {
  if (in.has(i) && elementCount(in.floatInput(i).shape) != channels) {
    fail("{} (input {}) must hold {} values, has shape {}", what, i, channels,
         formatShape(in[i].shape));
  }
}

}  // namespace

std::vector<InferredOutput> inferUnary(const Node& node, const Inputs& in) {
  in.requireCount(1, 1);
  bool integerToo = node.op == OpKind::Neg || node.op == OpKind::Abs;
  const KnownValue& x = integerToo ? in[0] : in.floatInput(0);
  if (!isNumeric(x.dtype)) {
    fail("input 0 is bool, expected a number");
  }
  return {output(x.dtype, x.shape)};
}

std::vector<InferredOutput> inferVariadic(const Node& node, const Inputs& in) {
  if (node.op == OpKind::Pow) {
    in.requireCount(2, 2);
    const KnownValue& base = in.floatInput(0);
    if (!isNumeric(in[1].dtype)) {
      fail("the exponent (input 1) is bool, expected a number");
    }
    return {output(base.dtype, broadcastAll(in))};
  }
  if (in.count() == 0) {
    fail("expects at least one input");
  }
  requireSameDtype(in, 0, in.count() - 1);
  if (!isNumeric(in[0].dtype)) {
    fail("inputs are bool, expected numbers");
  }
  return {output(in[0].dtype, broadcastAll(in))};
}

std::vector<InferredOutput> inferComparison(const Node& /*node*/, const Inputs& in) {
  in.requireCount(2, 2);
  requireSameDtype(in, 0, 1);
  return {output(DType::Bool, broadcastAll(in))};
}

std::vector<InferredOutput> inferLogic(const Node& node, const Inputs& in) {
  std::size_t arity = node.op == OpKind::Not ? 1 : 2;
  in.requireCount(arity, arity);
  for (std::size_t i = 0; i < arity; ++i) {
    requireBool(in[i], i);
  }
  return {output(DType::Bool, broadcastAll(in))};
}

std::vector<InferredOutput> inferWhere(const Inputs& in) {
  in.requireCount(3, 3);
  requireBool(in[0], 0);
  requireSameDtype(in, 1, 2);
  return {output(in[1].dtype, broadcastAll(in))};
}

std::vector<InferredOutput> inferPRelu(const Inputs& in) {
  in.requireCount(2, 2);
  const KnownValue& x = in.floatInput(0);
  const KnownValue& slope = in.floatInput(1);
  std::optional<Shape> b = broadcast(x.shape, slope.shape);
  if (!b || *b != x.shape) {
    fail("slope of shape {} does not broadcast to the input's {}", formatShape(slope.shape),
         formatShape(x.shape));
  }
  return {output(DType::Float32, x.shape)};
}

std::optional<std::vector<std::int64_t>> reduceAxes(const Node& node, const Inputs& in) {
  std::vector<std::int64_t> axes;
  if (in.has(1)) {
    axes = in.knownInts(1, "axes");
  }
  if (axes.empty() && node.attributes.getInt("noop_with_empty_axes", 0) != 0) {
    return std::nullopt;
  }
  return axes;
}

std::vector<InferredOutput> inferReduce(const Node& node, const Inputs& in) {
  in.requireCount(1, 2);
  const KnownValue& x = in.floatInput(0);
  std::optional<std::vector<std::int64_t>> axes = reduceAxes(node, in);
  if (!axes) {
    return {output(DType::Float32, x.shape)};
  }
  bool keepDims = node.attributes.getInt("keepdims", 1) != 0;
  return {output(DType::Float32, golden::reducedShape(x.shape, *axes, keepDims, opName(node.op)))};
}

std::vector<InferredOutput> inferArgExtreme(const Node& node, const Inputs& in) {
  in.requireCount(1, 1);
  const KnownValue& x = in.floatInput(0);
  std::int64_t axis = normalizedAxis(node.attributes.getInt("axis", 0), x.shape.size());
  Shape out = x.shape;
  if (node.attributes.getInt("keepdims", 1) != 0) {
    out[axis] = 1;
  } else {
    out.erase(out.begin() + axis);
  }
  return {output(DType::Int64, out)};
}

std::vector<InferredOutput> inferNormalization(const Node& node, const Inputs& in) {
  if (node.outputs.size() != 1) {
    fail("only the normalised output is supported, the node asks for {} outputs",
         node.outputs.size());
  }
  switch (node.op) {
    case OpKind::LogSoftmax: {
      in.requireCount(1, 1);
      const KnownValue& x = in.floatInput(0);
      normalizedAxis(node.attributes.getInt("axis", -1), x.shape.size());
      return {output(DType::Float32, x.shape)};
    }
    case OpKind::ChannelLayerNorm:
    case OpKind::ChannelRmsNorm: {
      in.requireCount(1, 1);
      const KnownValue& x = in.floatInput(0);
      if (x.shape.size() < 2) {
        fail("a channel {} needs an input with a channel axis, got rank {}",
             node.op == OpKind::ChannelLayerNorm ? "LayerNorm" : "RMSNorm", x.shape.size());
      }
      if (const float epsilon = node.attributes.getFloat("epsilon", 1e-5F); !(epsilon >= 0.0F)) {
        fail("epsilon {} is not a number of at least 0", epsilon);
      }
      return {output(DType::Float32, x.shape)};
    }
    case OpKind::LayerNormalization:
    case OpKind::RMSNormalization: {
      // RMSNormalization: X and a scale (optional here: fuse-rms-norm leaves it out when the
      // chain has no weight), no bias.
      if (node.op == OpKind::LayerNormalization) {
        in.requireCount(2, 3);
      } else {
        in.requireCount(1, 2);
      }
      if (const float epsilon = node.attributes.getFloat("epsilon", 1e-5F); !(epsilon >= 0.0F)) {
        fail("epsilon {} is not a number of at least 0", epsilon);
      }
      const KnownValue& x = in.floatInput(0);
      std::int64_t axis = normalizedAxis(node.attributes.getInt("axis", -1), x.shape.size());
      Shape normalized(x.shape.begin() + axis, x.shape.end());
      for (std::size_t i = 1; i < in.count(); ++i) {
        std::optional<Shape> b = in.has(i) ? broadcast(normalized, in.floatInput(i).shape)
                                           : std::optional<Shape>(normalized);
        if (!b || *b != normalized) {
          fail("{} (input {}) of shape {} does not broadcast to the normalised shape {}",
               i == 1 ? "scale" : "bias", i, formatShape(in[i].shape), formatShape(normalized));
        }
      }
      return {output(DType::Float32, x.shape)};
    }
    case OpKind::InstanceNormalization: {
      in.requireCount(3, 3);
      const KnownValue& x = in.floatInput(0);
      if (x.shape.size() < 3) {
        fail("input must have rank 3 or more, has shape {}", formatShape(x.shape));
      }
      requireChannels(in, 1, x.shape[1], "scale");
      requireChannels(in, 2, x.shape[1], "bias");
      return {output(DType::Float32, x.shape)};
    }
    default: {  // GroupNormalization
      in.requireCount(3, 3);
      const KnownValue& x = in.floatInput(0);
      if (x.shape.size() < 3) {
        fail("input must have rank 3 or more, has shape {}", formatShape(x.shape));
      }
      if (!node.attributes.has("num_groups")) {
        fail("attribute 'num_groups' is required");
      }
      std::int64_t groups = node.attributes.getInt("num_groups", 1);
      if (groups < 1 || x.shape[1] % groups != 0) {
        fail("num_groups {} does not divide the {} channels", groups, x.shape[1]);
      }
      std::int64_t scaleCount = elementCount(in.floatInput(1).shape);
      if (scaleCount != groups && scaleCount != x.shape[1]) {
        fail("scale (input 1) must hold num_groups ({}) or channel ({}) values, has shape {}",
             groups, x.shape[1], formatShape(in[1].shape));
      }
      requireChannels(in, 2, scaleCount, "bias");
      return {output(DType::Float32, x.shape)};
    }
  }
}

}  // namespace npu::compiler::rules
