// The NPU ops by name, their opcheck families and docs links, and the partition's NPU forms:
// the lists generated from the op registry (target/npu_ops.def).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace npu::compiler {

/// An NPU op as reports, `npu opcheck` and docs name it (an NPU_OP row).
enum class NpuOp : std::uint8_t {
#define NPU_OP(Op, name, Type, Family, anchor) Op,
#include "npu/compiler/target/npu_ops.def"
#undef NPU_OP
};

/// An `npu opcheck` family: the group of NPU ops one sweep covers (an NPU_FAMILY row).
enum class NpuOpFamily : std::uint8_t {
#define NPU_FAMILY(Family, name) Family,
#include "npu/compiler/target/npu_ops.def"
#undef NPU_FAMILY
};

/// The form a graph node takes on the NPU, as the partition decides it (an NPU_FORM row).
enum class NpuOpKind : std::uint8_t {
#define NPU_FORM(Form) Form,
#include "npu/compiler/target/npu_ops.def"
#undef NPU_FORM
};

/// One NPU_OP row, without its QOp type (quant/quantized_graph.h maps types to ops).
struct NpuOpInfo {
  NpuOp op;
  std::string_view name;
  NpuOpFamily family;
  /// "file.md#heading" under docs/.
  std::string_view docsAnchor;
};

/// Every NPU_OP row, in table order.
inline constexpr std::array kNpuOps{
#define NPU_OP(Op, name, Type, Family, anchor) \
  NpuOpInfo{NpuOp::Op, name, NpuOpFamily::Family, anchor},
#include "npu/compiler/target/npu_ops.def"
#undef NPU_OP
};

/// Every NPU_FAMILY row's name, in table order.
inline constexpr std::array kNpuOpFamilyNames{
#define NPU_FAMILY(Family, name) std::string_view{name},
#include "npu/compiler/target/npu_ops.def"
#undef NPU_FAMILY
};

/// The row of `op`.
constexpr const NpuOpInfo& npuOpInfo(NpuOp op) {
  return kNpuOps[static_cast<std::size_t>(op)];
}

/// "conv", "add", ...: the report and repro name.
constexpr std::string_view npuOpName(NpuOp op) {
  return npuOpInfo(op).name;
}

/// The op named `name`, or nullopt.
std::optional<NpuOp> parseNpuOp(std::string_view name);

/// "conv", "eltwise", ...: the name `npu opcheck` takes.
constexpr std::string_view npuOpFamilyName(NpuOpFamily family) {
  return kNpuOpFamilyNames[static_cast<std::size_t>(family)];
}

/// The family named `name`, or nullopt.
std::optional<NpuOpFamily> parseNpuOpFamily(std::string_view name);

}  // namespace npu::compiler
