// The quantized graph: what quantization hands to codegen and what the golden reference runs.
// int8 activations in NHWC, every op carrying the exact integer parameters of docs/numerics.md
// (the golden reference's own parameter types, so both sides read one description).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "npu/compiler/ir/head_matmul.h"
#include "npu/compiler/target/npu_op.h"
#include "npu/golden/int8_ops.h"
#include "npu/support/variant_of.h"

namespace npu::compiler {

using TensorId = std::size_t;
struct QuantizedGraph;

/// An int8 activation tensor, NHWC [1, H, W, C], per-tensor scale and zero point.
struct QTensor {
  std::string name;
  std::vector<std::int64_t> shape;
  double scale = 1.0;
  std::int32_t zeroPoint = 0;
  /// A constant activation (a class token, a position embedding): its int8 NHWC values,
  /// quantized from the fp32 constant with this tensor's scale and zero point. No op writes it and
  /// it is no graph input; codegen places it among the weights and the golden run starts with it.
  std::optional<std::vector<std::int8_t>> data;
};

/// Convolution (groups and depthwise included), fused bias, requant, clip and optional LUT.
/// Weights OHWI [Cout, kH, kW, Cin/groups].
struct QConv {
  std::string name;
  TensorId input = 0;
  TensorId output = 0;
  golden::Int8Tensor weights;
  golden::Conv2dInt8Params params;
  /// A conv that only moves bytes (0/1 weights, a requant of exactly 1: a space-to-depth run
  /// on the MAC array): the reports count no model arithmetic, so no MACs, for it.
  bool movesBytes = false;
};

/// Element-wise add of two tensors of the same shape (TFLite scheme).
struct QAdd {
  std::string name;
  TensorId a = 0;
  TensorId b = 0;
  TensorId output = 0;
  golden::AddInt8Params params;
};

/// Element-wise difference a - b of two tensors of the same shape (the add's scheme and
/// parameters; docs/numerics.md "Sub").
struct QSub {
  std::string name;
  TensorId a = 0;
  TensorId b = 0;
  TensorId output = 0;
  golden::AddInt8Params params;
};

/// Element-wise multiply of two tensors of the same shape.
struct QMul {
  std::string name;
  TensorId a = 0;
  TensorId b = 0;
  TensorId output = 0;
  golden::MulInt8Params params;
};

/// Max pool; input and output share scale and zero point.
struct QMaxPool {
  std::string name;
  TensorId input = 0;
  TensorId output = 0;
  golden::PoolInt8Params params;
};

/// Average pool (count_include_pad; padding reads the zero point); shared scale and zero point.
struct QAvgPool {
  std::string name;
  TensorId input = 0;
  TensorId output = 0;
  golden::PoolInt8Params params;
};

/// Global average pool to [1, 1, 1, C]; shared scale and zero point.
struct QGlobalAvgPool {
  std::string name;
  TensorId input = 0;
  TensorId output = 0;
};

/// Concatenation along channels (axis 3 of NHWC) or rows (axis 1); all inputs share the output's
/// scale and zero point. Along rows each input is one contiguous block of the output's bytes,
/// the inputs' bytes one after the other: an input holds whole output rows (its W x C bytes a
/// multiple of the output's row of W x C), so it may be the [1, H, W, C] a layout-keeping reshape
/// to [1, H x W, 1, C] reads, without a copy.
struct QConcat {
  std::string name;
  std::vector<TensorId> inputs;
  TensorId output = 0;
  std::int64_t axis = 3;  ///< 3: channels, 1: rows
};

/// The channels [channelBegin, channelBegin + output channels) of the input (a channel Slice, one
/// output of a channel Split), of rows rowBegin, rowBegin + rowStep, ... and columns likewise (the
/// four strided slices of a Focus stem); shared scale and zero point.
struct QSlice {
  std::string name;
  TensorId input = 0;
  TensorId output = 0;
  std::int64_t channelBegin = 0;
  std::int64_t rowBegin = 0;
  std::int64_t rowStep = 1;
  std::int64_t colBegin = 0;
  std::int64_t colStep = 1;
};

/// The channel shuffle in `groups` groups (output channel c * groups + g is input channel
/// g * C / groups + c); shared scale and zero point.
struct QShuffle {
  std::string name;
  TensorId input = 0;
  TensorId output = 0;
  std::int64_t groups = 2;
};

/// Nearest-neighbour upsampling by integer factors; shared scale and zero point.
struct QUpsample {
  std::string name;
  TensorId input = 0;
  TensorId output = 0;
  std::int64_t factorH = 2;
  std::int64_t factorW = 2;
};

/// Linear resize along rows (params.axis 1) or columns (2): each output position reads two
/// input positions with weights in 1/64 (golden::LinearTap) and is requantized like a depthwise
/// conv. The NPU runs it as two-tap depthwise CONVs, one per run of positions with the same
/// weights (codegen/lower_resize.cpp).
struct QResizeLinear {
  std::string name;
  TensorId input = 0;
  TensorId output = 0;
  golden::ResizeLinearInt8Params params;
};

/// The taps the NPU multiplies for one output position: 1 where one input position has the
/// whole weight (the clamped ends of the axis, an output on an input position), otherwise 2.
std::int64_t liveLinearTaps(const golden::LinearTap& tap);

/// A 256-entry table applied element-wise (sigmoid, tanh, SiLU, ... not fused into a conv).
struct QLut {
  std::string name;
  TensorId input = 0;
  TensorId output = 0;
  golden::Lut lut{};
};

/// Matrix multiply of two activations, batched over heads (attention's Q x K^T and P x V);
/// per-tensor requant, clip and optional LUT, no bias. Without a geometry, a is [1, heads, M, K],
/// b is [1, heads, K, N] (params.layoutB KN) or [1, heads, N, K] (NK) and the output
/// [1, heads, M, N], each head a plane; with one (a HeadMatMul's), each head's matrices lie at
/// its strides in the tensors' NHWC bytes (the head split and merge), b's rows k (KN) or n (NK)
/// as params.layoutB says.
struct QMatMul {
  std::string name;
  TensorId a = 0;
  TensorId b = 0;
  TensorId output = 0;
  golden::MatMulInt8Params params;
  std::optional<HeadMatMulGeometry> geometry;
};

/// The matmul's geometry: its own, or the planes its tensor shapes state.
HeadMatMulGeometry matMulGeometry(const QuantizedGraph& graph, const QMatMul& op);

/// A reduction along the last (channel) axis to one value per row, [1, H, W, C] -> [1, H, W, 1]:
/// the row max (output shares the input's scale and zero point) or the row sum with requant and
/// output stage (`params`, sum only).
struct QReduce {
  enum class Kind : std::uint8_t { Max, Sum };
  std::string name;
  TensorId input = 0;
  TensorId output = 0;
  Kind kind = Kind::Max;
  golden::ReduceSumInt8Params params;
};

/// Softmax or LayerNorm of every row along the last (channel) axis, [1, H, W, C] -> the same
/// shape: H*W rows of C values, integer-only (docs/numerics.md "Softmax and LayerNorm over
/// rows"), one NORM instruction per tile. A softmax's output is quantized with scale 1/256 and
/// zero point -128.
struct QNorm {
  enum class Kind : std::uint8_t { Softmax, LayerNorm, RmsNorm };
  std::string name;
  TensorId input = 0;
  TensorId output = 0;
  Kind kind = Kind::Softmax;
  golden::SoftmaxInt8Params softmax;      ///< Kind::Softmax
  golden::LayerNormInt8Params layerNorm;  ///< Kind::LayerNorm and Kind::RmsNorm
};

/// Any one quantized op: a variant of the op registry's NPU_QOP types, in table order
/// (target/npu_ops.def).
using QOp = VariantOf<decltype(std::tuple_cat(
#define NPU_QOP(Type, Lowering) std::tuple<Type>{},
#include "npu/compiler/target/npu_ops.def"
#undef NPU_QOP
    std::tuple<>{}))>::type;

/// The NPU op `op` is (its NPU_OP row): the type's one row, or for a type of several rows
/// (QReduce, QNorm) the row its kind names.
NpuOp npuOpOf(const QOp& op);

/// Ops in execution order over int8 tensors; `inputs` are fed from outside, `outputs` read back,
/// constant tensors (QTensor::data) hold their values from the start.
struct QuantizedGraph {
  std::vector<QTensor> tensors;
  std::vector<QOp> ops;
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
};

/// The op's name (layer name in reports).
const std::string& opName(const QOp& op);

/// Tensors an op reads, in order.
std::vector<TensorId> opInputs(const QOp& op);

/// The tensor an op writes.
TensorId opOutput(const QOp& op);

/// The op's kind as reports name it: its NPU op's name (npuOpOf), except that a conv says what
/// kind of conv it is: "conv", "depthwise", "grouped conv", "fc" or "space_to_depth".
std::string opKindName(const QuantizedGraph& graph, const QOp& op);

/// A requant multiplier of exactly 1 (2^30 at shift 1): with no bias and the same zero point on
/// both sides, acc = x - zp and y = acc + zp is the byte unchanged, under single and double
/// rounding alike. What a conv with 0/1 weights that only places bytes (a channel shuffle, a
/// space-to-depth) requantizes by.
inline constexpr golden::QuantizedMultiplier kUnitMultiplier{1 << 30, 1};

/// The parameters of such a byte-placing conv with `channels` outputs: no bias, kUnitMultiplier,
/// `zeroPoint` in and out, no clipping beyond int8 (strides and padding left at their defaults).
golden::Conv2dInt8Params bytePlacingParams(std::int64_t channels, std::int32_t zeroPoint);

/// Checks that every op reads tensors that exist and are graph inputs, constants or written by an
/// earlier op, and writes a tensor nothing wrote before (never a constant); that no input is a
/// constant and every constant holds one value per element. Throws npu::Error naming the op or
/// tensor.
void verifyQuantizedGraph(const QuantizedGraph& graph);

/// The graph as text, one line per input and constant tensor (shape, scale, zero point) and per
/// op (kind, inputs, output): what `--dump-after=quantize` prints.
std::string dumpQuantizedGraph(const QuantizedGraph& graph);

/// Runs one quantized graph on the golden int8 reference many times: each conv's oneDNN
/// primitive and weights are prepared once, at construction (golden::Conv2dInt8Layer). The graph
/// must outlive the runner and stay unchanged; run() may be called from several threads at once.
class GoldenGraphRunner {
 public:
  explicit GoldenGraphRunner(const QuantizedGraph& graph);

  /// Returns every tensor's value (graph inputs as given); throws npu::Error naming the op when
  /// shapes or parameters are inconsistent.
  std::vector<golden::Int8Tensor> run(const std::vector<golden::Int8Tensor>& inputs) const;

 private:
  const QuantizedGraph* m_graph;
  /// Per op: the prepared conv, for a QConv whose preparation succeeded (a failing one reports
  /// its error from run(), with the op's name).
  std::vector<std::optional<golden::Conv2dInt8Layer>> m_convs;
};

/// One-shot form of GoldenGraphRunner::run.
std::vector<golden::Int8Tensor> runQuantizedGraphGolden(
    const QuantizedGraph& graph, const std::vector<golden::Int8Tensor>& inputs);

}  // namespace npu::compiler
