// The checks both engines make before a stream runs (token analysis: no deadlock; hazard check:
// no unordered conflicting access), remembered for the streams that passed. Every input of a
// model runs the same stream (only the data in DDR differ), and both checks depend only on the
// stream and the configuration, so a model's later inputs skip them.
#pragma once

#include <vector>

#include "npu/isa/instruction.h"
#include "npu/isa/npu_config.h"

namespace npu::sim {

/// analyzeTokens, then checkHazards when `hazards`, unless this stream already passed them (with
/// the hazard check, when `hazards`) under an equal configuration. Throws SimFault as they do; a
/// stream that faulted is not remembered, so it faults on every run.
void checkStream(const std::vector<isa::Instruction>& stream, const isa::NpuConfig& config,
                 bool hazards);

}  // namespace npu::sim
