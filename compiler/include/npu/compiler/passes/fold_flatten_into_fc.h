// The fold-flatten-into-fc pass: foldFlattenIntoFc().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// A Reshape of [N, C, H, W] to [N, C * H * W, 1, 1] read only by a 1x1 Conv (a fully connected
/// layer after gemm-to-conv) becomes that Conv with an H x W kernel over the unflattened map:
/// the flatten order c * H * W + h * W + w is the OIHW order of the weights, so only the weight
/// shape changes. The NPU then needs no flatten (not a layout no-op in NHWC) between the feature
/// extractor and the classifier (AlexNet, VGG).
void foldFlattenIntoFc(Graph& graph);

}  // namespace npu::compiler
