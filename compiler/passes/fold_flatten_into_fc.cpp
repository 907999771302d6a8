// The fold-flatten-into-fc pass: a flatten before a fully connected layer becomes its kernel.
#include "npu/compiler/passes/fold_flatten_into_fc.h"

#include "npu/isa/limits.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

/// Kernels larger than CONV's kernel fields stay a flatten and a 1x1 conv: a larger window would
/// move the layer to the host instead of just its flatten.
constexpr std::int64_t kMaxFoldedKernelH = isa::limits::kConvKernelH;
constexpr std::int64_t kMaxFoldedKernelW = isa::limits::kConvKernelW;

}  // namespace

void foldFlattenIntoFc(Graph& graph) {
  Uses uses(graph);
  std::vector<bool> removed(graph.nodes().size(), false);
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    const Node& conv = graph.nodes()[i];
    if (conv.op != OpKind::Conv || conv.attributes.getInt("group", 1) != 1) {
      continue;
    }
    std::optional<std::size_t> r = uses.producer(conv.input(0));
    const TensorData* weights = constantData(graph, conv.input(1));
    if (!r || !isReshapeLike(graph.nodes()[*r].op) || !uses.hasSingleUse(conv.input(0)) ||
        weights == nullptr || !uses.hasSingleUse(conv.input(1))) {
      continue;
    }
    const Shape& in = graph.value(graph.nodes()[*r].input(0)).shape;
    const Shape& flat = graph.value(conv.input(0)).shape;
    const Shape& w = graph.value(conv.input(1)).shape;
    bool flattens = in.size() == 4 && flat.size() == 4 && flat[0] == in[0] &&
                    flat[1] == in[1] * in[2] * in[3] && flat[2] == 1 && flat[3] == 1;
    bool pointwise =
        w.size() == 4 && w[2] == 1 && w[3] == 1 && w[1] == flat[1] &&
        conv.attributes.getInts("pads", {0, 0, 0, 0}) == std::vector<std::int64_t>{0, 0, 0, 0};
    if (!flattens || !pointwise || (in[2] == 1 && in[3] == 1) || in[2] > kMaxFoldedKernelH ||
        in[3] > kMaxFoldedKernelW) {
      continue;
    }
    Value& weightValue = graph.value(conv.input(1));
    weightValue.shape = {w[0], in[1], in[2], in[3]};
    Node& folded = graph.nodes()[i];
    folded.inputs[0] = graph.nodes()[*r].input(0);
    folded.attributes.set("kernel_shape", std::vector<std::int64_t>{in[2], in[3]});
    removed[*r] = true;
  }
  graph.removeNodes(removed);
}

}  // namespace npu::compiler
