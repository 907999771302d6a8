// A matmul case's operand views: each of a, b and y as planes [1, heads, rows, cols], or with its
// heads interleaved in token rows, as attention reads q, k and v in place from a fused qkv tensor
// and writes P x V into merged rows.
#pragma once

#include <cstdint>
#include <vector>

#include "npu/compiler/ir/head_matmul.h"

namespace npu::bench {

struct OpCase;

/// An operand held in a token tensor [1, rows, 1, rowWidth] (NHWC, so row r starts at element
/// r * rowWidth): head h is the columns [columnOffset + h * headStep, ... + cols) of every row.
/// Heads may be packed (headStep = cols, as in a fused qkv tensor), spaced, overlapping, or one
/// matrix every head reads (headStep 0, as multi-query attention's K and V).
struct TokenView {
  std::int64_t rowWidth = 1;
  std::int64_t columnOffset = 0;
  std::int64_t headStep = 0;

  friend bool operator==(const TokenView&, const TokenView&) = default;
};

/// Whether a matmul case reads or writes any operand as token rows (its op then carries a
/// geometry; a planar case leaves it to the tensor shapes, as before views existed).
bool isStridedMatMul(const OpCase& c);

/// The NHWC shapes of a matmul case's a, b and y: [1, heads, rows, cols] planes, or token
/// tensors [1, rows, 1, width] (y merged: width heads * N).
std::vector<std::int64_t> matMulShapeA(const OpCase& c);
std::vector<std::int64_t> matMulShapeB(const OpCase& c);
std::vector<std::int64_t> matMulShapeY(const OpCase& c);

/// The HeadMatMul geometry a matmul case states, in the elements of those shapes.
compiler::HeadMatMulGeometry matMulCaseGeometry(const OpCase& c);

/// Throws npu::Error ("case: a_view ...", naming the repro key) when a token view's width,
/// offset or step is out of range or a head's columns run past its row, when b_from_a's
/// operands are not views of one token tensor, or when merged output rows would be wider than a
/// case allows.
void validateMatMulViews(const OpCase& c);

}  // namespace npu::bench
