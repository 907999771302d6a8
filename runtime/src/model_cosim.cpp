#include "npu/runtime/model_cosim.h"

#include "npu/runtime/run_model.h"

namespace npu::runtime {

std::vector<SegmentCosim> cosimulateModel(const compiler::CompiledModel& model,
                                          const compiler::TensorMap& input) {
  const auto inputs = segmentInputs(model, input);
  std::vector<SegmentCosim> segments;
  for (std::size_t i = 0; i < model.programs.size(); ++i) {
    const SegmentImages images = segmentImages(model, i, inputs[i]);
    SegmentCosim cosim;
    cosim.segment = i;
    cosim.program = images.compiled.program;
    cosim.report = runtime::cosimulate(cosim.program);
    cosim.goldenEqual = !cosim.report.rtl.ddr.firstDifference(images.expected);
    segments.push_back(std::move(cosim));
  }
  return segments;
}

}  // namespace npu::runtime
