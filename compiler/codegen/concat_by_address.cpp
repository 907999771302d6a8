// Concat by address: which inputs of a channel concat their producers store straight into the
// concat's output (docs/main-job.md, "Concat by address"), so the concat moves no bytes for them;
// and the copies of aliases (one-input row concats) made in place the same way.
#include <algorithm>

#include "lowering.h"
#include "npu/compiler/ir/types.h"

namespace npu::compiler {

std::vector<std::optional<ConcatSlot>> planConcatByAddress(const QuantizedGraph& graph,
                                                           const ShufflePlans& shuffles,
                                                           const FusionPlan& fusion) {
  std::vector<std::optional<ConcatSlot>> slots(graph.tensors.size());
  const TensorUses uses(graph);
  const auto isInput = [&](TensorId id) {
    return std::find(graph.inputs.begin(), graph.inputs.end(), id) != graph.inputs.end();
  };
  for (std::size_t index = 0; index < graph.ops.size(); ++index) {
    const auto* concat = std::get_if<QConcat>(&graph.ops[index]);
    // A concat its shuffle reads as its inputs is never assembled: nothing is stored into it.
    if (concat == nullptr || concat->axis != 3 || shuffles.unassembled[concat->output]) {
      continue;
    }
    const QTensor& out = graph.tensors[concat->output];
    std::int64_t offset = 0;
    for (const TensorId id : concat->inputs) {
      const QTensor& in = graph.tensors[id];
      const QOp* from = uses.producer[id];
      // Only the lowerings of convs (one by one, in a cascade or a gated project) and slices
      // store at a channel offset with a wider pixel; the bytes must be the concat's as they
      // are (shared scale and zero point), and nothing else may read them.
      // (A slice its shuffle writes is stored densely by the shuffle's CONVs.)
      const bool storesByAddress =
          from != nullptr &&
          (std::holds_alternative<QConv>(*from) ||
           (std::holds_alternative<QSlice>(*from) && shuffles.writtenBy[id] < 0));
      if (storesByAddress && !in.data && !isInput(id) && singleUse(graph, id) && !slots[id] &&
          sameLayout(graph, id, concat->output)) {
        slots[id] = ConcatSlot{concat->output, offset, out.shape[3], index};
      }
      offset += in.shape.size() == 4 ? in.shape[3] : 0;
    }
  }
  planSplitsIntoConcats(graph, shuffles, fusion, slots);
  return slots;
}

namespace {

/// Whether op `index` is an add, sub or multiply of operands of its output's shape lowered on its
/// own (in no fused group of `fusion`): lowerEltwise, which reads an operand at any pixel stride,
/// lowers it.
bool eltwiseAlone(const QuantizedGraph& graph, const FusionPlan& fusion, std::size_t index) {
  const QOp& op = graph.ops[index];
  if (!std::holds_alternative<QAdd>(op) && !std::holds_alternative<QSub>(op) &&
      !std::holds_alternative<QMul>(op)) {
    return false;
  }
  const auto& shape = graph.tensors[opOutput(op)].shape;
  for (const TensorId id : opInputs(op)) {
    if (graph.tensors[id].shape != shape) {
      return false;
    }
  }
  return !fusion.fused(index);
}

}  // namespace

void planSplitsIntoConcats(const QuantizedGraph& graph, const ShufflePlans& shuffles,
                           const FusionPlan& fusion,
                           std::vector<std::optional<ConcatSlot>>& slots) {
  const TensorUses uses(graph);
  const auto& producer = uses.producer;
  const auto& readers = uses.readers;
  const auto isGraphTensor = [&](TensorId id) { return uses.isGraphTensor(id); };
  for (std::size_t index = 0; index < graph.ops.size(); ++index) {
    const auto* concat = std::get_if<QConcat>(&graph.ops[index]);
    if (concat == nullptr || concat->axis != 3 || shuffles.unassembled[concat->output]) {
      continue;
    }
    const QTensor& out = graph.tensors[concat->output];
    const bool nhwc = out.shape.size() == 4 &&
                      std::all_of(concat->inputs.begin(), concat->inputs.end(),
                                  [&](TensorId id) { return graph.tensors[id].shape.size() == 4; });
    if (!nhwc) {
      continue;
    }
    std::int64_t offset = 0;
    for (std::size_t first = 0; first < concat->inputs.size();
         offset += graph.tensors[concat->inputs[first]].shape[3], ++first) {
      // A run of inputs, from `first` on, that are the channel slices of one conv's output X in
      // order and cover it: X is stored into the concat and the slices are its channels there.
      const auto* head = producer[concat->inputs[first]] != nullptr
                             ? std::get_if<QSlice>(producer[concat->inputs[first]])
                             : nullptr;
      if (head == nullptr || head->channelBegin != 0) {
        continue;
      }
      const TensorId x = head->input;
      const QTensor& source = graph.tensors[x];
      const bool convMade = producer[x] != nullptr && std::holds_alternative<QConv>(*producer[x]);
      if (!convMade || source.data || isGraphTensor(x) || slots[x] ||
          !sameLayout(graph, x, concat->output)) {
        continue;
      }
      std::vector<TensorId> run;
      std::int64_t covered = 0;
      for (std::size_t k = first; k < concat->inputs.size() && covered < source.shape[3]; ++k) {
        const TensorId id = concat->inputs[k];
        const auto* slice = producer[id] != nullptr ? std::get_if<QSlice>(producer[id]) : nullptr;
        const QTensor& piece = graph.tensors[id];
        if (slice == nullptr || slice->input != x || slice->channelBegin != covered ||
            slice->rowBegin != 0 || slice->colBegin != 0 || slice->rowStep != 1 ||
            slice->colStep != 1 || !sameLayout(graph, id, concat->output) || isGraphTensor(id)) {
          break;
        }
        // The concat reads the slice once; anything else reading it reads an input at any
        // pixel stride: a conv, or an add or multiply lowered on its own.
        const auto concatReads =
            std::count(readers[id].begin(), readers[id].end(), &graph.ops[index]);
        const bool othersConvs =
            std::all_of(readers[id].begin(), readers[id].end(), [&](const QOp* op) {
              return op == &graph.ops[index] || std::holds_alternative<QConv>(*op) ||
                     eltwiseAlone(graph, fusion, static_cast<std::size_t>(op - graph.ops.data()));
            });
        if (concatReads != 1 || !othersConvs ||
            std::count(concat->inputs.begin(), concat->inputs.end(), id) != 1) {
          break;
        }
        run.push_back(id);
        covered += piece.shape[3];
      }
      // X's readers must be exactly these slices (else X needs a DDR space of its own).
      if (covered != source.shape[3] || readers[x].size() != run.size()) {
        continue;
      }
      slots[x] = ConcatSlot{concat->output, offset, out.shape[3], index};
      std::int64_t at = offset;
      for (const TensorId id : run) {
        slots[id] = ConcatSlot{concat->output, at, out.shape[3], index};
        at += graph.tensors[id].shape[3];
      }
    }
  }
}

void planAliasCopiesInPlace(const QuantizedGraph& graph, const ShufflePlans& shuffles,
                            std::vector<std::optional<ConcatSlot>>& slots,
                            std::vector<std::optional<SliceView>>& views) {
  const TensorUses uses(graph);
  // Tensors other tensors live in (a slot's concat, a view's source): their space is planned.
  std::vector<bool> hosts(graph.tensors.size(), false);
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    if (slots[id]) {
      hosts[slots[id]->concatOutput] = true;
    }
    if (views[id]) {
      hosts[views[id]->source] = true;
    }
  }
  for (std::size_t index = 0; index < graph.ops.size(); ++index) {
    const auto* copy = std::get_if<QConcat>(&graph.ops[index]);
    if (copy == nullptr || copy->axis != 1 || copy->inputs.size() != 1) {
      continue;
    }
    const TensorId x = copy->inputs[0];
    const TensorId y = copy->output;
    const QTensor& in = graph.tensors[x];
    const QTensor& out = graph.tensors[y];
    // Both dense, in no other tensor; the same bytes.
    if (slots[x] || views[x] || slots[y] || views[y] || in.data ||
        elementCount(in.shape) != elementCount(out.shape) || in.scale != out.scale ||
        in.zeroPoint != out.zeroPoint || shuffles.writtenBy[x] >= 0 || shuffles.unassembled[x]) {
      continue;
    }
    // X's producer stores it into Y when only the copy reads X and its producer writes it
    // where it is placed (a concat's output may be a family's root, a shuffle's lowering
    // wants its tensors dense and their own: not those).
    const QOp* from = uses.producer[x];
    const auto isShuffle = [](const QOp* op) { return std::holds_alternative<QShuffle>(*op); };
    if (from != nullptr && !std::holds_alternative<QConcat>(*from) && !isShuffle(from) &&
        !uses.isGraphTensor(x) && singleUse(graph, x) && !hosts[x]) {
      slots[x] = ConcatSlot{y, 0, in.shape[3], index};
      hosts[y] = true;
    } else if (!uses.isGraphTensor(y) && !hosts[y] &&
               std::none_of(uses.readers[y].begin(), uses.readers[y].end(), isShuffle)) {
      // Else Y is read where X is (a graph input, a tensor with other readers).
      views[y] = SliceView{x, 0, out.shape[3]};
      hosts[x] = true;
    }
  }
}

namespace {

/// Whether `prefix` is a strict prefix of `list`.
bool strictPrefix(const std::vector<TensorId>& prefix, const std::vector<TensorId>& list) {
  return prefix.size() < list.size() && std::equal(prefix.begin(), prefix.end(), list.begin());
}

}  // namespace

bool concatCopies(const QuantizedGraph& graph, const std::vector<TensorPlacement>& tensors,
                  std::size_t concatOp, TensorId input) {
  const auto& concat = std::get<QConcat>(graph.ops[concatOp]);
  const std::int64_t storedIn = tensors[concat.output].storedIn;
  const auto root = storedIn >= 0 ? storedIn : static_cast<std::int64_t>(concat.output);
  if (tensors[input].storedIn == root) {
    return false;
  }
  for (std::size_t k = 0; k < concatOp; ++k) {
    const auto* earlier = std::get_if<QConcat>(&graph.ops[k]);
    if (earlier != nullptr && tensors[earlier->output].storedIn == root &&
        std::find(earlier->inputs.begin(), earlier->inputs.end(), input) != earlier->inputs.end()) {
      return false;
    }
  }
  return true;
}

ConcatFamilies planConcatFamilies(const QuantizedGraph& graph, const ShufflePlans& shuffles,
                                  const FusionPlan& fusion) {
  ConcatFamilies plan;
  plan.slots = planConcatByAddress(graph, shuffles, fusion);
  plan.views.assign(graph.tensors.size(), std::nullopt);
  const TensorUses uses(graph);
  const auto& producer = uses.producer;
  const auto& readers = uses.readers;
  const auto isGraphTensor = [&](TensorId id) { return uses.isGraphTensor(id); };
  std::vector<std::size_t> concats;
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    if (const auto* concat = std::get_if<QConcat>(&graph.ops[i]);
        concat != nullptr && concat->axis == 3 && !shuffles.unassembled[concat->output]) {
      concats.push_back(i);
    }
  }
  const auto concatAt = [&](std::size_t i) -> const QConcat& {
    return std::get<QConcat>(graph.ops[i]);
  };
  // The root of a concat: the concat with the longest input list that its own list is a strict
  // prefix of (DenseNet: every dense layer's concat is a prefix of the block's last one).
  std::vector<std::optional<std::size_t>> rootOf(graph.ops.size());
  for (const std::size_t k : concats) {
    for (const std::size_t r : concats) {
      if (r != k && strictPrefix(concatAt(k).inputs, concatAt(r).inputs) &&
          sameLayout(graph, concatAt(k).output, concatAt(r).output) &&
          (!rootOf[k] || concatAt(r).inputs.size() > concatAt(*rootOf[k]).inputs.size())) {
        rootOf[k] = r;
      }
    }
  }
  std::vector<std::vector<std::size_t>> members(graph.ops.size());
  for (const std::size_t k : concats) {
    if (!rootOf[k]) {
      continue;
    }
    // A root is no member itself, and owns its DDR space.
    const std::size_t r = *rootOf[k];
    const TensorId out = concatAt(k).output;
    const TensorId rootOut = concatAt(r).output;
    if (rootOf[r] || plan.slots[rootOut] || graph.tensors[rootOut].data) {
      continue;
    }
    // Only convs read the member (their lowerings read an input at any pixel stride).
    const bool convsRead =
        std::all_of(readers[out].begin(), readers[out].end(),
                    [&](const QOp* op) { return std::holds_alternative<QConv>(*op); });
    // (A split stored into a concat never makes it a member: its slices would be read by the
    // root concat too, which planSplitsIntoConcats does not allow.)
    if (!convsRead || readers[out].empty() || isGraphTensor(out) || plan.slots[out]) {
      continue;
    }
    plan.views[out] = SliceView{rootOut, 0};
    members[r].push_back(k);
  }
  // An input that only the family's concats read is stored by its producer into the root.
  for (const std::size_t r : concats) {
    if (members[r].empty()) {
      continue;
    }
    const QConcat& root = concatAt(r);
    const auto inFamily = [&](const QOp* op) {
      if (op == &graph.ops[r]) {
        return true;
      }
      return std::any_of(members[r].begin(), members[r].end(),
                         [&](std::size_t k) { return op == &graph.ops[k]; });
    };
    std::int64_t offset = 0;
    for (const TensorId id : root.inputs) {
      const QOp* from = producer[id];
      const bool storesByAddress =
          from != nullptr &&
          (std::holds_alternative<QConv>(*from) ||
           (std::holds_alternative<QSlice>(*from) && shuffles.writtenBy[id] < 0));
      if (storesByAddress && !plan.slots[id] && !graph.tensors[id].data && !isGraphTensor(id) &&
          sameLayout(graph, id, root.output) &&
          std::all_of(readers[id].begin(), readers[id].end(), inFamily)) {
        plan.slots[id] = ConcatSlot{root.output, offset, graph.tensors[root.output].shape[3], r};
      }
      offset += graph.tensors[id].shape[3];
    }
  }
  return plan;
}

}  // namespace npu::compiler
