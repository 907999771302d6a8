// Private to the IR: the per-op type rules behind inferNode, and what the rule files share.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "npu/compiler/ir/shape_inference.h"
#include "npu/support/error.h"

namespace npu::compiler {

/// The output types of `node` by its op's rule, without evaluating anything.
std::vector<InferredOutput> inferOutputTypes(const Node& node,
                                             std::span<const KnownValue* const> values);

namespace rules {

/// The inputs of the node being inferred, with the checks every rule needs.
class Inputs {
 public:
  Inputs(const Node& node, std::span<const KnownValue* const> values)
      : m_node(node), m_values(values) {}

  std::size_t count() const { return m_values.size(); }
  bool has(std::size_t i) const { return i < m_values.size() && m_values[i] != nullptr; }

  const KnownValue& operator[](std::size_t i) const {
    if (!has(i)) {
      fail("input {} is missing", i);
    }
    return *m_values[i];
  }

  /// The i-th input, which must hold floats.
  const KnownValue& floatInput(std::size_t i) const {
    const KnownValue& v = (*this)[i];
    if (v.dtype != DType::Float32) {
      fail("input {} is {}, expected f32", i, dtypeName(v.dtype));
    }
    return v;
  }

  /// The elements of the i-th input as int64; it must be known before running the graph.
  std::vector<std::int64_t> knownInts(std::size_t i, std::string_view what) const {
    const KnownValue& v = (*this)[i];
    if (v.dtype == DType::Float32) {
      fail("{} (input {}) must be integers, is f32", what, i);
    }
    if (v.data == nullptr) {
      fail("{} (input {}) must be a constant or computable from static shapes", what, i);
    }
    return v.data->toInt64();
  }

  /// The elements of the i-th input as floats; it must be known.
  std::vector<float> knownFloats(std::size_t i, std::string_view what) const {
    const KnownValue& v = (*this)[i];
    if (v.data == nullptr) {
      fail("{} (input {}) must be a constant or computable from static shapes", what, i);
    }
    return v.data->toFloat();
  }

  void requireCount(std::size_t lowest, std::size_t highest) const {
    if (count() < lowest || count() > highest) {
      if (lowest == highest) {
        fail("expects {} inputs, has {}", lowest, count());
      }
      fail("expects {} to {} inputs, has {}", lowest, highest, count());
    }
  }

 private:
  const Node& m_node;
  std::span<const KnownValue* const> m_values;
};

/// The numpy broadcast of two shapes, or nullopt when they do not broadcast.
std::optional<Shape> broadcast(const Shape& a, const Shape& b);

/// An output type without known elements.
InferredOutput output(DType dtype, Shape shape);

/// `axis` resolved against `rank` (negative counts from the end; `allowEnd` admits rank itself).
std::int64_t normalizedAxis(std::int64_t axis, std::size_t rank, bool allowEnd = false);

void requireRank(const KnownValue& v, std::size_t rank, std::string_view what);
void requireVector(const KnownValue& v, std::int64_t length, std::string_view what);

// The rules of the op groups kept in their own files.
std::vector<InferredOutput> inferUnary(const Node& node, const Inputs& in);
std::vector<InferredOutput> inferVariadic(const Node& node, const Inputs& in);
std::vector<InferredOutput> inferComparison(const Node& node, const Inputs& in);
std::vector<InferredOutput> inferLogic(const Node& node, const Inputs& in);
std::vector<InferredOutput> inferWhere(const Inputs& in);
std::vector<InferredOutput> inferPRelu(const Inputs& in);
std::vector<InferredOutput> inferReduce(const Node& node, const Inputs& in);
std::vector<InferredOutput> inferArgExtreme(const Node& node, const Inputs& in);
std::vector<InferredOutput> inferNormalization(const Node& node, const Inputs& in);
std::vector<InferredOutput> inferSplit(const Node& node, const Inputs& in);
std::vector<InferredOutput> inferExpand(const Inputs& in);
std::vector<InferredOutput> inferTile(const Inputs& in);
std::vector<InferredOutput> inferRange(const Inputs& in);
std::vector<InferredOutput> inferSpaceDepth(const Node& node, const Inputs& in);

/// The axes a Reduce* node reduces, from its axes input (empty: every axis, or none when
/// noop_with_empty_axes is set, returned as nullopt).
std::optional<std::vector<std::int64_t>> reduceAxes(const Node& node, const Inputs& in);

/// The split sizes of a Split node along `axis` of a dimension `dim`.
std::vector<std::int64_t> splitSizes(const Node& node, const Inputs& in, std::int64_t dim);

}  // namespace rules
}  // namespace npu::compiler
