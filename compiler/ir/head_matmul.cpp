// HeadMatMul's geometry: its attributes, its bounds check and its fp32 kernel.
#include "npu/compiler/ir/head_matmul.h"

#include <algorithm>
#include <limits>

#include "npu/golden/fp32_linear.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

MatrixView viewAttribute(const Attributes& attributes, std::string_view name) {
  const std::vector<std::int64_t> v = attributes.getInts(name, {});
  if (v.size() != 3) {
    fail("HeadMatMul attribute {} needs 3 values (offset, head stride, row stride), got {}", name,
         v.size());
  }
  if (std::any_of(v.begin(), v.end(), [](std::int64_t x) { return x < 0; })) {
    fail("HeadMatMul attribute {} has a negative value", name);
  }
  return MatrixView{v[0], v[1], v[2]};
}

std::int64_t extentAttribute(const Attributes& attributes, std::string_view name) {
  const std::int64_t v = attributes.getInt(name, 0);
  if (v < 1) {
    fail("HeadMatMul attribute {} must be at least 1, got {}", name, v);
  }
  return v;
}

/// The last element `view` reaches for `heads` x `rows` x `cols`, or -1 past int64.
std::int64_t lastElement(const MatrixView& view, std::int64_t heads, std::int64_t rows,
                         std::int64_t cols) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 4;
  // Every factor is below 2^31 (checked by the caller), so each product fits.
  const __int128 last = static_cast<__int128>(view.offset) +
                        static_cast<__int128>(heads - 1) * view.headStride +
                        static_cast<__int128>(rows - 1) * view.rowStride + (cols - 1);
  return last > kMax ? -1 : static_cast<std::int64_t>(last);
}

void checkInside(std::string_view name, const MatrixView& view, std::int64_t heads,
                 std::int64_t rows, std::int64_t cols, std::int64_t elements) {
  const std::int64_t last = lastElement(view, heads, rows, cols);
  if (last < 0 || last >= elements) {
    fail(
        "HeadMatMul {} view (offset {}, head stride {}, row stride {}) of {} x {} x {} reaches "
        "past the tensor's {} elements",
        name, view.offset, view.headStride, view.rowStride, heads, rows, cols, elements);
  }
}

}  // namespace

HeadMatMulGeometry headMatMulGeometry(const Attributes& attributes) {
  HeadMatMulGeometry g;
  g.heads = extentAttribute(attributes, "heads");
  g.m = extentAttribute(attributes, "m");
  g.k = extentAttribute(attributes, "k");
  g.n = extentAttribute(attributes, "n");
  g.a = viewAttribute(attributes, "a_view");
  g.b = viewAttribute(attributes, "b_view");
  g.y = viewAttribute(attributes, "y_view");
  g.bRowsAreN = attributes.getInt("b_nk", 0) != 0;
  return g;
}

void setHeadMatMulGeometry(Attributes& attributes, const HeadMatMulGeometry& g) {
  attributes.set("heads", g.heads);
  attributes.set("m", g.m);
  attributes.set("k", g.k);
  attributes.set("n", g.n);
  const auto view = [](const MatrixView& v) {
    return std::vector<std::int64_t>{v.offset, v.headStride, v.rowStride};
  };
  attributes.set("a_view", view(g.a));
  attributes.set("b_view", view(g.b));
  attributes.set("y_view", view(g.y));
  attributes.set("b_nk", std::int64_t{g.bRowsAreN ? 1 : 0});
}

void checkHeadMatMulGeometry(const HeadMatMulGeometry& g, std::int64_t aElements,
                             std::int64_t bElements, std::int64_t yElements) {
  constexpr std::int64_t kMaxExtent = std::int64_t{1} << 31;
  for (const std::int64_t v :
       {g.heads, g.m, g.k, g.n, g.a.offset, g.a.headStride, g.a.rowStride, g.b.offset,
        g.b.headStride, g.b.rowStride, g.y.offset, g.y.headStride, g.y.rowStride}) {
    if (v < 0 || v >= kMaxExtent) {
      fail("HeadMatMul geometry value {} outside [0, 2^31)", v);
    }
  }
  checkInside("a", g.a, g.heads, g.m, g.k, aElements);
  checkInside("b", g.b, g.heads, g.bRowsAreN ? g.n : g.k, g.bRowsAreN ? g.k : g.n, bElements);
  checkInside("y", g.y, g.heads, g.m, g.n, yElements);
  if (static_cast<__int128>(g.heads) * g.m * g.n != yElements) {
    fail("HeadMatMul writes {} x {} x {} values into an output of {} elements", g.heads, g.m, g.n,
         yElements);
  }
  std::vector<bool> written(static_cast<std::size_t>(yElements), false);
  for (std::int64_t h = 0; h < g.heads; ++h) {
    for (std::int64_t r = 0; r < g.m; ++r) {
      const std::int64_t base = g.y.offset + h * g.y.headStride + r * g.y.rowStride;
      for (std::int64_t c = 0; c < g.n; ++c) {
        const auto index = static_cast<std::size_t>(base + c);
        if (written[index]) {
          fail("HeadMatMul output views overlap at element {}", base + c);
        }
        written[index] = true;
      }
    }
  }
}

std::vector<float> nchwToNhwcOrder(const golden::FloatTensor& nchw) {
  if (nchw.shape.size() != 4) {
    return nchw.data;  // [1, C] and lower ranks: one pixel, the order is the same
  }
  const std::int64_t c = nchw.shape[1];
  const std::int64_t hw = nchw.shape[2] * nchw.shape[3];
  std::vector<float> out(nchw.data.size());
  for (std::int64_t ch = 0; ch < c; ++ch) {
    for (std::int64_t p = 0; p < hw; ++p) {
      out[static_cast<std::size_t>(p * c + ch)] = nchw.data[static_cast<std::size_t>(ch * hw + p)];
    }
  }
  return out;
}

golden::FloatTensor nhwcOrderToNchw(std::span<const float> nhwc,
                                    std::span<const std::int64_t> shape) {
  golden::FloatTensor out{{shape.begin(), shape.end()}, std::vector<float>(nhwc.size())};
  if (shape.size() != 4) {
    std::copy(nhwc.begin(), nhwc.end(), out.data.begin());
    return out;
  }
  const std::int64_t c = shape[1];
  const std::int64_t hw = shape[2] * shape[3];
  for (std::int64_t ch = 0; ch < c; ++ch) {
    for (std::int64_t p = 0; p < hw; ++p) {
      out.data[static_cast<std::size_t>(ch * hw + p)] = nhwc[static_cast<std::size_t>(p * c + ch)];
    }
  }
  return out;
}

golden::FloatTensor headMatMulFloat(const golden::FloatTensor& a, const golden::FloatTensor& b,
                                    const HeadMatMulGeometry& g, float alpha,
                                    std::span<const std::int64_t> outputShape) {
  const std::int64_t yElements = golden::elementCount(outputShape);
  checkHeadMatMulGeometry(g, static_cast<std::int64_t>(a.data.size()),
                          static_cast<std::int64_t>(b.data.size()), yElements);
  const std::vector<float> aOrder = nchwToNhwcOrder(a);
  const std::vector<float> bOrder = nchwToNhwcOrder(b);
  golden::FloatTensor aPlanes{{g.heads, g.m, g.k},
                              gatherPlanes<float>(aOrder, g.a, g.heads, g.m, g.k)};
  golden::FloatTensor bPlanes{{g.heads, g.k, g.n}, {}};
  if (g.bRowsAreN) {
    const std::vector<float> nk = gatherPlanes<float>(bOrder, g.b, g.heads, g.n, g.k);
    bPlanes.data.resize(nk.size());
    for (std::int64_t h = 0; h < g.heads; ++h) {
      for (std::int64_t j = 0; j < g.n; ++j) {
        for (std::int64_t i = 0; i < g.k; ++i) {
          bPlanes.data[static_cast<std::size_t>((h * g.k + i) * g.n + j)] =
              nk[static_cast<std::size_t>((h * g.n + j) * g.k + i)];
        }
      }
    }
  } else {
    bPlanes.data = gatherPlanes<float>(bOrder, g.b, g.heads, g.k, g.n);
  }
  golden::FloatTensor y = golden::matmul(aPlanes, bPlanes);
  for (float& v : y.data) {
    v *= alpha;
  }
  std::vector<float> yOrder(static_cast<std::size_t>(yElements));
  scatterPlanes<float>(y.data, g.y, g.heads, g.m, g.n, yOrder);
  return nhwcOrderToNchw(yOrder, outputShape);
}

}  // namespace npu::compiler
