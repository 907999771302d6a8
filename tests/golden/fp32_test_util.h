// Shared helpers for the fp32 golden tests: tensor construction, comparison and error capture.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "npu/golden/float_tensor.h"
#include "npu/support/error.h"

namespace npu::golden::testing {

/// A tensor holding 0, 1, 2, ... in row-major order.
inline FloatTensor iota(std::vector<std::int64_t> shape, float start = 0.0F) {
  FloatTensor t = makeFloatTensor(std::move(shape));
  std::iota(t.data.begin(), t.data.end(), start);
  return t;
}

/// Checks shape and values (to `tolerance`), printing the first differing index.
inline void expectTensor(const FloatTensor& actual, const std::vector<std::int64_t>& shape,
                         const std::vector<float>& values, float tolerance = 1e-5F) {
  ASSERT_EQ(actual.shape, shape);
  ASSERT_EQ(actual.data.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_NEAR(actual.data[i], values[i], tolerance) << "at flat index " << i;
  }
}

/// The message of the npu::Error `fn` throws, or "(no error)".
inline std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace npu::golden::testing
