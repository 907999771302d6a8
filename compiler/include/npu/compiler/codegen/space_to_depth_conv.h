// A space-to-depth (YOLOv5's Focus: the four stride-2 pixel phases of a tensor, concatenated
// along channels) as one conv. Lowered as four slices and a concat, every phase pixel is a DDR
// run of a few bytes (a whole burst each) on one side or the other; as a 2x2 stride-2 conv with
// 0/1 weights and a requant of exactly 1 it reads whole rows and writes whole pixels, and a
// graph input read by it alone is then laid out by the host (input_im2col.h), leaving a 1x1.
#pragma once

#include <cstddef>
#include <vector>

#include "npu/compiler/quant/quantized_graph.h"

namespace npu::compiler {

/// Replaces each channel concat of the four stride-2 phase slices of one tensor (whole pixels,
/// each slice read by the concat alone, all sharing the concat's scale and zero point) by a
/// conv named after the concat, bit-identical: acc = x - zp and y = acc + zp. Returns, per op
/// of the new graph, the index of the op it came from (the concat's for the conv), so errors
/// still name the original layer.
std::vector<std::size_t> spaceToDepthAsConv(QuantizedGraph& graph);

}  // namespace npu::compiler
