// The run report's timeline and accuracy charts (inline SVG), private to run_report.cpp.
#pragma once

#include <string>

#include "npu/runtime/main_job.h"

namespace npu::runtime {

/// The first input's run on one time axis: a row of layers (each time bucket coloured by the
/// layer that kept the units busiest in it), a row of host segments (modelled), and per unit
/// (load, compute, store) its busy share of each bucket; then a table of every unit's busy and
/// stall cycles by reason. Empty when no timeline was recorded.
std::string timelineSvg(const MainJobReport& report);

/// Accumulated cosine (int8 vs fp32) per NPU layer, in layer order, with the warning threshold
/// as a dashed line and the layers below it in red and named. Empty when no layer has a cosine.
std::string accuracySvg(const MainJobReport& report);

}  // namespace npu::runtime
