// The op table's names and kernel kinds.
#include "npu/compiler/ir/op_kind.h"

#include <array>

namespace npu::compiler {
namespace {

struct OpRow {
  OpKind op;
  std::string_view name;
  KernelKind kernel;
};

constexpr std::array kOps = {
#define NPU_OP(Name, Kernel) OpRow{OpKind::Name, #Name, KernelKind::Kernel},
#include "npu/compiler/ir/ops.def"
#undef NPU_OP
};

constexpr std::array kOpKinds = {
#define NPU_OP(Name, Kernel) OpKind::Name,
#include "npu/compiler/ir/ops.def"
#undef NPU_OP
};

}  // namespace

std::string_view opName(OpKind op) {
  return kOps[static_cast<std::size_t>(op)].name;
}

KernelKind kernelKind(OpKind op) {
  return kOps[static_cast<std::size_t>(op)].kernel;
}

std::optional<OpKind> parseOpKind(std::string_view name) {
  for (const OpRow& row : kOps) {
    if (row.name == name) {
      return row.op;
    }
  }
  return std::nullopt;
}

std::span<const OpKind> allOps() {
  return kOpKinds;
}

bool isActivation(OpKind op) {
  switch (op) {
    case OpKind::Relu:
    case OpKind::LeakyRelu:
    case OpKind::Clip:
    case OpKind::Sigmoid:
    case OpKind::Tanh:
    case OpKind::HardSigmoid:
    case OpKind::HardSwish:
    case OpKind::Silu:
    case OpKind::Gelu:
    case OpKind::Mish:
    case OpKind::Softplus:
      return true;
    default:
      return false;
  }
}

bool isReduction(OpKind op) {
  switch (op) {
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
    case OpKind::ReduceMin:
    case OpKind::ReduceL1:
    case OpKind::ReduceL2:
    case OpKind::ReduceSumSquare:
    case OpKind::ReduceLogSumExp:
    case OpKind::ReduceProd:
      return true;
    default:
      return false;
  }
}

bool isUnaryMath(OpKind op) {
  switch (op) {
    case OpKind::Sqrt:
    case OpKind::Reciprocal:
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Neg:
    case OpKind::Abs:
    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::Round:
    case OpKind::Sign:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Softsign:
    case OpKind::Erf:
      return true;
    default:
      return false;
  }
}

bool isReshapeLike(OpKind op) {
  switch (op) {
    case OpKind::Flatten:
    case OpKind::Reshape:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
    case OpKind::Identity:
      return true;
    default:
      return false;
  }
}

}  // namespace npu::compiler
