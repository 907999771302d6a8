// The fp32 interpreter: runs an imported graph on the golden fp32 ops, observing every value.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/interp/evaluate.h"
#include "npu/compiler/ir/graph.h"
#include "npu/golden/float_tensor.h"
#include "npu/golden/fp32_conv.h"

namespace npu::compiler {

/// fp32 tensors by value name: the graph inputs to a run, the graph outputs from it.
using TensorMap = std::map<std::string, golden::FloatTensor, std::less<>>;

/// Observes one fp32 value as soon as it is computed: each graph input, then each node output in
/// node order (integer index tensors are not reported). Calibration observers and per-layer
/// debugging hang here; the tensor is only valid during the call.
using TensorHook = std::function<void(const Value& value, const golden::FloatTensor& tensor)>;

/// Runs a graph many times. Construction converts the constants once and prepares each Conv with
/// constant weights (golden::Conv2dLayer: oneDNN primitive and weights in its layout); the graph
/// must outlive the interpreter and stay unchanged. Intermediate values are freed after their last
/// reader. run() may be called from several threads at once.
class Interpreter {
 public:
  explicit Interpreter(const Graph& graph);

  /// Runs the graph on `inputs` (one per graph input, by name, with the declared shape) and
  /// returns the graph outputs. Errors name the file, node and op.
  TensorMap run(const TensorMap& inputs, const TensorHook& hook = {}) const;

 private:
  const Graph* m_graph;
  /// Per value: the converted constant, when it is one.
  std::vector<std::optional<RuntimeValue>> m_constants;
  /// Per value: index of the last node reading it (graph outputs are never freed).
  std::vector<std::size_t> m_lastUse;
  /// Per node: the prepared conv, for a Conv with constant weights and bias whose preparation
  /// succeeded (a failing one reports its error from run(), with the node's context).
  std::vector<std::optional<golden::Conv2dLayer>> m_convs;
};

/// One-shot form of Interpreter::run.
TensorMap interpret(const Graph& graph, const TensorMap& inputs, const TensorHook& hook = {});

/// The interpreter's value for graph input `input` given as floats: the floats, or for an
/// int64 input (token ids) the integers they hold (an error names a fraction).
RuntimeValue graphInputValue(const Graph& graph, const Value& input,
                             const golden::FloatTensor& given);

/// Throws Error "<source>: ..." unless `inputs` holds exactly one tensor per graph input, by
/// name, with the declared shape.
void checkGraphInputs(const Graph& graph, const TensorMap& inputs);

}  // namespace npu::compiler
