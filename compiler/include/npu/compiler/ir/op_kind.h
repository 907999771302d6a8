// OpKind: the ops of the compiler IR, generated from ops.def, and their names.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace npu::compiler {

/// Every op the IR holds. The enumerators are the ONNX op_type names.
enum class OpKind : std::uint8_t {
#define NPU_OP(Name, Kernel) Name,
#include "npu/compiler/ir/ops.def"
#undef NPU_OP
};

/// How the fp32 interpreter runs an op (see ops.def).
enum class KernelKind : std::uint8_t { Fp32, Index };

/// The op's ONNX name, e.g. "Conv".
std::string_view opName(OpKind op);

/// How the interpreter runs `op`.
KernelKind kernelKind(OpKind op);

/// The op named `name` (exact, case-sensitive ONNX spelling), or nullopt.
std::optional<OpKind> parseOpKind(std::string_view name);

/// Every op in table order.
std::span<const OpKind> allOps();

/// Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, Silu, Gelu, Mish, Softplus: one
/// input, one output, applied element by element.
bool isActivation(OpKind op);

/// ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceL1, ReduceL2, ReduceSumSquare,
/// ReduceLogSumExp and ReduceProd: reductions over the axes of their second input.
bool isReduction(OpKind op);

/// Sqrt, Reciprocal, Exp, Log, Neg, Abs, Floor, Ceil, Round, Sign, Sin, Cos, Softsign and Erf:
/// one input, one output, a math function element by element (golden::unary).
bool isUnaryMath(OpKind op);

/// Flatten, Reshape, Squeeze, Unsqueeze and Identity: the output holds the input's elements in the
/// same order under another shape.
bool isReshapeLike(OpKind op);

}  // namespace npu::compiler
