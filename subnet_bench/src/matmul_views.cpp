// Matmul case views: token tensor shapes, the geometry they state, and their validation.
#include "npu/subnet_bench/matmul_views.h"

#include <optional>
#include <string_view>

#include "npu/subnet_bench/op_case.h"
#include "npu/support/error.h"

namespace npu::bench {
namespace {

/// Rows and columns of each head's b: k x n ([K][N]) or n x k ([N][K]).
std::int64_t rowsB(const OpCase& c) {
  return c.transposedB ? c.outChannels : c.channels;
}

std::int64_t colsB(const OpCase& c) {
  return c.transposedB ? c.channels : c.outChannels;
}

std::vector<std::int64_t> shapeOf(const std::optional<TokenView>& tokens, std::int64_t heads,
                                  std::int64_t rows, std::int64_t cols) {
  if (tokens) {
    return {1, rows, 1, tokens->rowWidth};
  }
  return {1, heads, rows, cols};
}

compiler::MatrixView viewOf(const std::optional<TokenView>& tokens, std::int64_t rows,
                            std::int64_t cols) {
  if (tokens) {
    return {tokens->columnOffset, tokens->headStep, tokens->rowWidth};
  }
  return {0, rows * cols, cols};
}

void checkTokens(const std::optional<TokenView>& tokens, std::string_view key, std::int64_t heads,
                 std::int64_t cols) {
  if (!tokens) {
    return;
  }
  const TokenView& t = *tokens;
  const auto inRange = [&](std::int64_t v, std::int64_t lo, std::string_view what) {
    if (v < lo || v > kMaxCaseSize) {
      fail("case: {} {} {} is outside [{}, {}]", key, what, v, lo, kMaxCaseSize);
    }
  };
  inRange(t.rowWidth, 1, "row width");
  inRange(t.columnOffset, 0, "column offset");
  inRange(t.headStep, 0, "head step");
  // Every factor is at most 65535, so the end fits easily in int64.
  const std::int64_t end = t.columnOffset + (heads - 1) * t.headStep + cols;
  if (end > t.rowWidth) {
    fail("case: {} head {} reads columns [{}, {}), past the token row's {} columns", key, heads - 1,
         end - cols, end, t.rowWidth);
  }
}

}  // namespace

bool isStridedMatMul(const OpCase& c) {
  return c.kind == CaseKind::MatMul && (c.tokensA || c.tokensB || c.mergedY || c.bFromA);
}

std::vector<std::int64_t> matMulShapeA(const OpCase& c) {
  return shapeOf(c.tokensA, c.height, c.width, c.channels);
}

std::vector<std::int64_t> matMulShapeB(const OpCase& c) {
  return shapeOf(c.tokensB, c.height, rowsB(c), colsB(c));
}

std::vector<std::int64_t> matMulShapeY(const OpCase& c) {
  if (c.mergedY) {
    return {1, c.width, 1, c.height * c.outChannels};
  }
  return {1, c.height, c.width, c.outChannels};
}

compiler::HeadMatMulGeometry matMulCaseGeometry(const OpCase& c) {
  compiler::HeadMatMulGeometry g;
  g.heads = c.height;
  g.m = c.width;
  g.k = c.channels;
  g.n = c.outChannels;
  g.bRowsAreN = c.transposedB;
  g.a = viewOf(c.tokensA, c.width, c.channels);
  g.b = viewOf(c.tokensB, rowsB(c), colsB(c));
  g.y = c.mergedY ? compiler::MatrixView{0, c.outChannels, c.height * c.outChannels}
                  : compiler::MatrixView{0, c.width * c.outChannels, c.outChannels};
  return g;
}

void validateMatMulViews(const OpCase& c) {
  checkTokens(c.tokensA, "a_view", c.height, c.channels);
  checkTokens(c.tokensB, "b_view", c.height, colsB(c));
  if (c.bFromA && (!c.tokensA || !c.tokensB || c.tokensA->rowWidth != c.tokensB->rowWidth ||
                   rowsB(c) != c.width)) {
    fail(
        "case: b_from_a needs a_view and b_view in token rows of one width and as many rows of b "
        "({}) as of a ({})",
        rowsB(c), c.width);
  }
  if (c.mergedY && c.height * c.outChannels > kMaxCaseSize) {
    fail("case: y_view merged rows of {} heads x {} columns are wider than {}", c.height,
         c.outChannels, kMaxCaseSize);
  }
}

}  // namespace npu::bench
