// fp32 data-movement ops with ONNX semantics: Reshape, Flatten, Transpose, Squeeze, Unsqueeze,
// Concat, Pad, DepthToSpace and SpaceToDepth.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "npu/golden/float_tensor.h"

namespace npu::golden {

/// ONNX Reshape: one entry may be -1 (inferred); 0 copies the input dimension at that index
/// unless `allowZero`, in which case it means a zero-sized dimension.
FloatTensor reshape(const FloatTensor& x, std::span<const std::int64_t> shape,
                    bool allowZero = false);

/// The output shape of ONNX Reshape (shared with shape inference).
std::vector<std::int64_t> reshapedShape(std::span<const std::int64_t> inShape,
                                        std::span<const std::int64_t> shape,
                                        bool allowZero = false);

/// ONNX Flatten: [d0 * ... * d(axis-1), d(axis) * ... * d(n-1)], axis in [-rank, rank].
FloatTensor flatten(const FloatTensor& x, std::int64_t axis = 1);

/// ONNX Transpose: output dimension i is input dimension perm[i]; an empty perm reverses.
FloatTensor transpose(const FloatTensor& x, std::span<const std::int64_t> perm = {});

/// ONNX Squeeze: removes the listed size-1 axes, or every size-1 axis when `axes` is empty.
FloatTensor squeeze(const FloatTensor& x, std::span<const std::int64_t> axes = {});

/// ONNX Unsqueeze: inserts size-1 axes at the listed positions of the output.
FloatTensor unsqueeze(const FloatTensor& x, std::span<const std::int64_t> axes);

/// ONNX Concat along `axis`; all other dimensions must match.
FloatTensor concat(const std::vector<std::reference_wrapper<const FloatTensor>>& inputs,
                   std::int64_t axis);

/// ONNX Pad modes.
enum class PadMode : std::uint8_t {
  Constant,  ///< fill with the constant value
  Reflect,   ///< mirror without repeating the edge (numpy "reflect"); pads must be < the axis size
  Edge,      ///< repeat the edge value
};

/// ONNX Pad: `pads` holds 2 * rank entries, ONNX order [x1_begin, x2_begin, ..., x1_end, ...].
/// Negative pads crop.
FloatTensor pad(const FloatTensor& x, std::span<const std::int64_t> pads,
                PadMode mode = PadMode::Constant, float value = 0.0F);

/// ONNX DepthToSpace on x [N, C, H, W] with C divisible by blocksize^2: output
/// [N, C / b^2, H * b, W * b]. DCR mode (`crdMode` false) reads the input channels as
/// [b, b, C / b^2], CRD mode as [C / b^2, b, b].
FloatTensor depthToSpace(const FloatTensor& x, std::int64_t blocksize, bool crdMode = false);

/// ONNX SpaceToDepth on x [N, C, H, W] with H and W divisible by blocksize: output
/// [N, C * b^2, H / b, W / b], channels ordered [b, b, C] (the inverse of DCR DepthToSpace).
FloatTensor spaceToDepth(const FloatTensor& x, std::int64_t blocksize);

}  // namespace npu::golden
