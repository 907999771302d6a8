// The int8 inputs of a compiled segment in the layout its program reads.
#include "npu/compiler/driver/compiled_model.h"

namespace npu::compiler {

std::vector<golden::Int8Tensor> CompiledModel::programInputs(
    std::size_t i, std::vector<golden::Int8Tensor> segmentInputs) const {
  const auto& im2col = inputIm2col.at(i);
  for (std::size_t k = 0; k < segmentInputs.size() && k < im2col.size(); ++k) {
    if (im2col[k]) {
      segmentInputs[k] = im2colInput(segmentInputs[k], *im2col[k]);
    }
  }
  return segmentInputs;
}

}  // namespace npu::compiler
