// exportModel: each NPU segment's images from golden, checked on the timed simulator, written.
#include "npu/runtime/export_model.h"

#include <fmt/format.h>

#include "npu/runtime/engine.h"
#include "npu/runtime/export_bundle.h"
#include "npu/runtime/run_model.h"
#include "npu/support/error.h"
#include "npu/support/interrupt.h"

namespace npu::runtime {

std::vector<ExportedSegment> exportModel(const compiler::CompiledModel& model,
                                         const compiler::TensorMap& input,
                                         const std::filesystem::path& dir,
                                         std::string_view modelName) {
  const std::size_t count = model.programs.size();
  if (count == 0) {
    fail(ErrorKind::Unsupported, "{}: no layer runs on the NPU (nothing to export)", modelName);
  }
  const std::vector<std::vector<golden::Int8Tensor>> inputs = segmentInputs(model, input);
  std::vector<ExportedSegment> written;
  const InterruptibleScope interruptible;
  for (std::size_t i = 0; i < count; ++i) {
    throwIfInterrupted();  // a staged folder is removed as the error unwinds
    const SegmentImages images = segmentImages(model, i, inputs[i]);
    const EngineRun timed = runOnEngine(images.compiled.program, Engine::Timed);
    if (timed.fault) {
      fail(ErrorKind::Verification, "export: NPU segment {}: {}", i, *timed.fault);
    }
    if (timed.ddr.firstDifference(images.expected)) {
      fail(ErrorKind::Verification,
           "export: NPU segment {}: the simulator's final DDR differs from golden", i);
    }
    const std::filesystem::path folder =
        count == 1 ? std::filesystem::path() : std::filesystem::path(fmt::format("segment{}", i));
    writeBundle(dir / folder, images.compiled, model.graphs[i], images.values, images.expected,
                timed.totalCycles);
    written.push_back({folder, i, images.compiled.program.instructions.size(), timed.totalCycles});
  }
  return written;
}

}  // namespace npu::runtime
