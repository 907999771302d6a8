// fp32 data-movement ops: index remapping only, no arithmetic. DepthToSpace and SpaceToDepth are
// the ONNX reshape-transpose-reshape definitions over reshape() and transpose().
#include "npu/golden/fp32_shape.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include "npu/support/error.h"

namespace npu::golden {

std::vector<std::int64_t> reshapedShape(std::span<const std::int64_t> inShape,
                                        std::span<const std::int64_t> shape, bool allowZero) {
  std::vector<std::int64_t> out(shape.begin(), shape.end());
  std::int64_t inferred = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (inferred >= 0) {
        fail("reshape: more than one -1 in target shape {}", shapeString(shape));
      }
      inferred = static_cast<std::int64_t>(i);
      continue;
    }
    if (out[i] == 0 && !allowZero) {
      if (i >= inShape.size()) {
        fail("reshape: 0 at index {} of {} has no input dimension to copy (input {})", i,
             shapeString(shape), shapeString(inShape));
      }
      out[i] = inShape[i];
    }
    if (out[i] < 0) {
      fail("reshape: invalid dimension {} in target shape {}", out[i], shapeString(shape));
    }
    known *= out[i];
  }
  const std::int64_t count = elementCount(inShape);
  if (inferred >= 0) {
    if (known == 0 || count % known != 0) {
      fail("reshape: cannot infer -1 in {} from input {}", shapeString(shape),
           shapeString(inShape));
    }
    out[static_cast<std::size_t>(inferred)] = count / known;
  } else if (known != count) {
    fail("reshape: input {} has {} elements, target {} has {}", shapeString(inShape), count,
         shapeString(out), known);
  }
  return out;
}

FloatTensor reshape(const FloatTensor& x, std::span<const std::int64_t> shape, bool allowZero) {
  checkConsistent(x, "reshape");
  return FloatTensor{reshapedShape(x.shape, shape, allowZero), x.data};
}

FloatTensor flatten(const FloatTensor& x, std::int64_t axis) {
  checkConsistent(x, "flatten");
  const std::int64_t a = normalizeAxis(axis, x.rank(), "flatten", true);
  const auto split = static_cast<std::size_t>(a);
  const std::int64_t outer = elementCount(std::span(x.shape).first(split));
  const std::int64_t inner = elementCount(std::span(x.shape).subspan(split));
  return FloatTensor{{outer, inner}, x.data};
}

FloatTensor transpose(const FloatTensor& x, std::span<const std::int64_t> perm) {
  checkConsistent(x, "transpose");
  const std::size_t rank = x.shape.size();
  std::vector<std::int64_t> p(perm.begin(), perm.end());
  if (p.empty()) {
    for (std::size_t i = 0; i < rank; ++i) {
      p.push_back(static_cast<std::int64_t>(rank - 1 - i));
    }
  }
  std::vector<bool> seen(rank, false);
  if (p.size() != rank) {
    fail("transpose: perm {} does not match input rank {}", shapeString(p), rank);
  }
  for (std::int64_t& axis : p) {
    axis = normalizeAxis(axis, static_cast<std::int64_t>(rank), "transpose");
    if (seen[static_cast<std::size_t>(axis)]) {
      fail("transpose: perm {} repeats axis {}", shapeString(perm), axis);
    }
    seen[static_cast<std::size_t>(axis)] = true;
  }
  std::vector<std::int64_t> outShape(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    outShape[i] = x.shape[static_cast<std::size_t>(p[i])];
  }
  const std::vector<std::int64_t> inStrides = stridesOf(x.shape);
  std::vector<std::int64_t> stride(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    stride[i] = inStrides[static_cast<std::size_t>(p[i])];
  }
  FloatTensor y = makeFloatTensor(outShape);
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t at = 0;
  for (float& out : y.data) {
    out = x.data[static_cast<std::size_t>(at)];
    for (std::size_t d = rank; d-- > 0;) {
      ++index[d];
      at += stride[d];
      if (index[d] < outShape[d]) {
        break;
      }
      at -= stride[d] * index[d];
      index[d] = 0;
    }
  }
  return y;
}

FloatTensor squeeze(const FloatTensor& x, std::span<const std::int64_t> axes) {
  checkConsistent(x, "squeeze");
  std::vector<bool> drop(x.shape.size(), false);
  if (axes.empty()) {
    for (std::size_t d = 0; d < x.shape.size(); ++d) {
      drop[d] = x.shape[d] == 1;
    }
  }
  for (std::int64_t axis : axes) {
    const auto a = static_cast<std::size_t>(normalizeAxis(axis, x.rank(), "squeeze"));
    if (x.shape[a] != 1) {
      fail("squeeze: axis {} of {} has size {}, not 1", axis, shapeString(x.shape), x.shape[a]);
    }
    drop[a] = true;
  }
  std::vector<std::int64_t> shape;
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    if (!drop[d]) {
      shape.push_back(x.shape[d]);
    }
  }
  return FloatTensor{shape, x.data};
}

FloatTensor unsqueeze(const FloatTensor& x, std::span<const std::int64_t> axes) {
  checkConsistent(x, "unsqueeze");
  const std::int64_t outRank = x.rank() + static_cast<std::int64_t>(axes.size());
  std::vector<bool> inserted(static_cast<std::size_t>(outRank), false);
  for (std::int64_t axis : axes) {
    const auto a = static_cast<std::size_t>(normalizeAxis(axis, outRank, "unsqueeze"));
    if (inserted[a]) {
      fail("unsqueeze: axis {} is listed twice", axis);
    }
    inserted[a] = true;
  }
  std::vector<std::int64_t> shape;
  std::size_t next = 0;
  for (std::size_t d = 0; d < inserted.size(); ++d) {
    shape.push_back(inserted[d] ? 1 : x.shape[next++]);
  }
  return FloatTensor{shape, x.data};
}

FloatTensor concat(const std::vector<std::reference_wrapper<const FloatTensor>>& inputs,
                   std::int64_t axis) {
  if (inputs.empty()) {
    fail("concat: no inputs");
  }
  const FloatTensor& first = inputs.front().get();
  const auto a = static_cast<std::size_t>(normalizeAxis(axis, first.rank(), "concat"));
  std::vector<std::int64_t> outShape = first.shape;
  outShape[a] = 0;
  for (const FloatTensor& in : inputs) {
    checkConsistent(in, "concat");
    bool compatible = in.shape.size() == first.shape.size();
    for (std::size_t d = 0; compatible && d < in.shape.size(); ++d) {
      compatible = d == a || in.shape[d] == first.shape[d];
    }
    if (!compatible) {
      fail("concat: input {} does not match {} outside axis {}", shapeString(in.shape),
           shapeString(first.shape), axis);
    }
    outShape[a] += in.shape[a];
  }
  std::int64_t outer = 1;
  for (std::size_t d = 0; d < a; ++d) {
    outer *= outShape[d];
  }
  FloatTensor y = makeFloatTensor(outShape);
  const std::int64_t outBlock = elementCount(std::span(outShape).subspan(a));
  std::int64_t offset = 0;
  for (const FloatTensor& in : inputs) {
    const std::int64_t block = elementCount(std::span(in.shape).subspan(a));
    for (std::int64_t o = 0; o < outer; ++o) {
      std::copy_n(in.data.begin() + o * block, block, y.data.begin() + o * outBlock + offset);
    }
    offset += block;
  }
  return y;
}

FloatTensor pad(const FloatTensor& x, std::span<const std::int64_t> pads, PadMode mode,
                float value) {
  checkConsistent(x, "pad");
  const std::size_t rank = x.shape.size();
  if (pads.size() != 2 * rank) {
    fail("pad: {} pads given for rank {} (need {})", pads.size(), rank, 2 * rank);
  }
  std::vector<std::int64_t> outShape(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t begin = pads[d], end = pads[d + rank];
    outShape[d] = x.shape[d] + begin + end;
    if (outShape[d] < 0) {
      fail("pad: pads {} crop axis {} of {} below zero", shapeString(pads), d,
           shapeString(x.shape));
    }
    if (mode != PadMode::Constant && (begin > 0 || end > 0) && x.shape[d] == 0) {
      fail("pad: cannot {} pad the empty axis {}", mode == PadMode::Reflect ? "reflect" : "edge",
           d);
    }
    if (mode == PadMode::Reflect && (begin >= x.shape[d] || end >= x.shape[d])) {
      fail("pad: reflect pads {} must be smaller than axis {} of size {}", shapeString(pads), d,
           x.shape[d]);
    }
  }
  FloatTensor y = makeFloatTensor(outShape);
  const std::vector<std::int64_t> inStrides = stridesOf(x.shape);
  std::vector<std::int64_t> index(rank, 0);
  for (float& out : y.data) {
    std::int64_t at = 0;
    bool outside = false;
    for (std::size_t d = 0; d < rank; ++d) {
      std::int64_t i = index[d] - pads[d];
      const std::int64_t len = x.shape[d];
      if (i < 0 || i >= len) {
        if (mode == PadMode::Constant) {
          outside = true;
          break;
        }
        if (mode == PadMode::Edge) {
          i = std::clamp<std::int64_t>(i, 0, len - 1);
        } else {
          i = i < 0 ? -i : 2 * (len - 1) - i;
        }
      }
      at += i * inStrides[d];
    }
    out = outside ? value : x.data[static_cast<std::size_t>(at)];
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < outShape[d]) {
        break;
      }
      index[d] = 0;
    }
  }
  return y;
}

namespace {

/// Checks DepthToSpace/SpaceToDepth's common preconditions (rank 4, blocksize >= 1); errors name
/// `op`.
void checkBlockOp(const FloatTensor& x, std::int64_t blocksize, std::string_view op) {
  checkConsistent(x, op);
  if (x.rank() != 4) {
    fail("{}: input must be 4-D NCHW, got {}", op, shapeString(x.shape));
  }
  if (blocksize < 1) {
    fail("{}: blocksize {} must be >= 1", op, blocksize);
  }
}

/// dim * factor (both >= 0), or an Error naming `op` when it does not fit in 64 bits.
std::int64_t scaledDim(std::int64_t dim, std::int64_t factor, std::string_view op) {
  if (factor != 0 && dim > std::numeric_limits<std::int64_t>::max() / factor) {
    fail("{}: dimension {} times blocksize {} overflows", op, dim, factor);
  }
  return dim * factor;
}

/// The ONNX definition of both ops: reshape to 6-D, transpose, reshape to the output. An empty
/// input skips the 6-D form, whose dimensions need not fit in 64 bits when another one is 0.
FloatTensor blockRearrange(const FloatTensor& x, std::span<const std::int64_t> sixD,
                           std::span<const std::int64_t> perm,
                           std::span<const std::int64_t> outShape) {
  if (x.data.empty()) {
    return makeFloatTensor({outShape.begin(), outShape.end()});
  }
  return reshape(transpose(reshape(x, sixD), perm), outShape);
}

}  // namespace

FloatTensor depthToSpace(const FloatTensor& x, std::int64_t blocksize, bool crdMode) {
  checkBlockOp(x, blocksize, "depthToSpace");
  const std::int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  const std::int64_t b = blocksize;
  // c % (b * b) without forming b * b, which may not fit.
  if (c % b != 0 || c / b % b != 0) {
    fail("depthToSpace: {} channels of {} are not divisible by blocksize {} squared", c,
         shapeString(x.shape), b);
  }
  const std::int64_t depth = c / b / b;
  const std::vector<std::int64_t> outShape{n, depth, scaledDim(h, b, "depthToSpace"),
                                           scaledDim(w, b, "depthToSpace")};
  if (crdMode) {
    // Channels read as [depth, b, b].
    return blockRearrange(x, std::vector<std::int64_t>{n, depth, b, b, h, w},
                          std::vector<std::int64_t>{0, 1, 4, 2, 5, 3}, outShape);
  }
  // DCR: channels read as [b, b, depth].
  return blockRearrange(x, std::vector<std::int64_t>{n, b, b, depth, h, w},
                        std::vector<std::int64_t>{0, 3, 4, 1, 5, 2}, outShape);
}

FloatTensor spaceToDepth(const FloatTensor& x, std::int64_t blocksize) {
  checkBlockOp(x, blocksize, "spaceToDepth");
  const std::int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  const std::int64_t b = blocksize;
  if (h % b != 0 || w % b != 0) {
    fail("spaceToDepth: height {} and width {} of {} are not divisible by blocksize {}", h, w,
         shapeString(x.shape), b);
  }
  const std::int64_t depth = scaledDim(scaledDim(c, b, "spaceToDepth"), b, "spaceToDepth");
  // Output channels ordered [b, b, c], the inverse of DCR DepthToSpace.
  return blockRearrange(x, std::vector<std::int64_t>{n, c, h / b, b, w / b, b},
                        std::vector<std::int64_t>{0, 3, 5, 1, 2, 4},
                        std::vector<std::int64_t>{n, depth, h / b, w / b});
}

}  // namespace npu::golden
