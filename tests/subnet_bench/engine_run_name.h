// Test names of the sweeps parameterised over a hardware config and an engine.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "npu/subnet_bench/op_sweep.h"

namespace npu::bench {

/// "<config>_<engine>" for a run with `config` and `engine` members; dashes become underscores,
/// as GoogleTest's names allow none.
template <typename Run>
std::string engineRunName(const ::testing::TestParamInfo<Run>& info) {
  std::string name = info.param.config + "_" + std::string(engineName(info.param.engine));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

}  // namespace npu::bench
