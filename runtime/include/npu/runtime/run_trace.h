// `npu run --trace`: the first input's run as a Chrome/Perfetto trace whose slices carry layers.
#pragma once

#include <string>

#include "npu/runtime/main_job.h"

namespace npu::runtime {

/// Trace-event JSON (chrome://tracing, ui.perfetto.dev) of MainJobReport::timeline, 1 us shown
/// per cycle: one track per NPU unit as `npu sim --trace` has them (fetch, load, compute,
/// mac_array, vector, store), every span a slice named by the layer of its instruction (from the
/// program's manifest; the program's END, in no layer, is "END") with args segment, instruction
/// and opcode; and a "host" track with each host node's modelled cycles and the NPU/host border.
/// Segments follow one another on one time axis.
std::string runTraceJson(const MainJobReport& report);

}  // namespace npu::runtime
