// Name look-ups over the op registry's lists (see npu_op.h).
#include "npu/compiler/target/npu_op.h"

namespace npu::compiler {

std::optional<NpuOp> parseNpuOp(std::string_view name) {
  for (const NpuOpInfo& info : kNpuOps) {
    if (info.name == name) {
      return info.op;
    }
  }
  return std::nullopt;
}

std::optional<NpuOpFamily> parseNpuOpFamily(std::string_view name) {
  for (std::size_t i = 0; i < kNpuOpFamilyNames.size(); ++i) {
    if (kNpuOpFamilyNames[i] == name) {
      return static_cast<NpuOpFamily>(i);
    }
  }
  return std::nullopt;
}

}  // namespace npu::compiler
