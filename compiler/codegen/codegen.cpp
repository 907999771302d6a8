// Codegen driver: DDR plan (activations with liveness reuse, then constants: constant
// activations, weights, parameters; then code), one lowering per op, tokens from the emitter,
// and the manifest.
#include "npu/compiler/codegen/codegen.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "lowering.h"
#include "npu/isa/encoding.h"
#include "npu/support/error.h"
#include "npu/support/overloaded.h"

namespace npu::compiler {
namespace {

/// Placement granularity: at least 64 bytes, and whole DDR bursts, so that a tensor, a weight
/// blob or the code starts on a burst boundary and a contiguous transfer wastes no burst
/// (docs/timing.md: DMA pays for every burst a run touches).
std::uint64_t placementAlignment(const isa::NpuConfig& config) {
  return std::max<std::uint64_t>(64, static_cast<std::uint64_t>(config.ddrBurstBytes));
}

std::uint64_t alignUp(std::uint64_t v, std::uint64_t alignment) {
  return (v + alignment - 1) / alignment * alignment;
}

std::uint64_t tensorBytes(const QTensor& tensor) {
  std::uint64_t n = 1;
  for (const std::int64_t d : tensor.shape) {
    n *= static_cast<std::uint64_t>(d);
  }
  return n;
}

/// planActivations' state: what is placed where, and the arena's busy spans and live tensors.
class ActivationPlanner {
 public:
  ActivationPlanner(const QuantizedGraph& graph, const FusionPlan& fusion, std::uint64_t alignment,
                    const std::vector<std::optional<ConcatSlot>>& slots,
                    const std::vector<std::optional<SliceView>>& views,
                    const ShufflePlans& shuffles, std::vector<TensorPlacement>& placed,
                    std::vector<isa::Region>& regions)
      : m_graph(graph),
        m_fusion(fusion),
        m_alignment(alignment),
        m_slots(slots),
        m_views(views),
        m_shuffles(shuffles),
        m_placed(placed),
        m_regions(regions) {}

  std::uint64_t run();

 private:
  void pin(TensorId id, isa::RegionKind kind);
  [[nodiscard]] std::vector<std::int64_t> lastUses() const;
  void freeBefore(std::size_t i);
  void placeOutputs(std::size_t i);
  void placeInArena(TensorId placing, std::size_t i, const std::optional<ConcatSlot>& slot);

  const QuantizedGraph& m_graph;
  const FusionPlan& m_fusion;
  std::uint64_t m_alignment;
  const std::vector<std::optional<ConcatSlot>>& m_slots;
  const std::vector<std::optional<SliceView>>& m_views;
  const ShufflePlans& m_shuffles;
  std::vector<TensorPlacement>& m_placed;
  std::vector<isa::Region>& m_regions;
  std::vector<bool> m_pinned;
  std::uint64_t m_next = 0;
  std::vector<std::int64_t> m_lastUse;
  std::vector<bool> m_placedYet;
  std::uint64_t m_arenaBase = 0;
  std::map<std::uint64_t, std::uint64_t> m_busy;  // offset -> end, within the arena
  std::vector<std::pair<std::int64_t, TensorId>> m_live;
  std::uint64_t m_arenaEnd = 0;
};

/// Places `id` in a region of its own (a graph input or output), once.
void ActivationPlanner::pin(TensorId id, isa::RegionKind kind) {
  if (m_pinned[id]) {
    return;
  }
  m_pinned[id] = true;
  const QTensor& tensor = m_graph.tensors[id];
  m_placed[id] = {m_next, tensorBytes(tensor)};
  isa::Region region;
  region.name = tensor.name;
  region.kind = kind;
  region.base = m_next;
  region.size = m_placed[id].bytes;
  region.dtype = "int8";
  region.shape = tensor.shape;
  region.scale = tensor.scale;
  region.zeroPoint = tensor.zeroPoint;
  m_regions.push_back(region);
  m_next = alignUp(m_next + m_placed[id].bytes, m_alignment);
}

/// Per tensor, the index of the last op it must stay alive through (-1: none).
std::vector<std::int64_t> ActivationPlanner::lastUses() const {
  const std::size_t n = m_graph.tensors.size();
  // Liveness: an intermediate lives from its producer to its last reader, and on through the
  // ops a fused lowering may run with that reader (a cascade or gated project interleaves its
  // ops band by band: its last op's output bands are stored while its first op still loads
  // input bands, so no output of the group may take an input's place).
  std::vector<std::int64_t> lastUse(n, -1);
  for (std::size_t i = 0; i < m_graph.ops.size(); ++i) {
    for (const TensorId id : opInputs(m_graph.ops[i])) {
      lastUse[id] = static_cast<std::int64_t>(m_fusion.groupEnd(i));
    }
  }
  for (TensorId id = 0; id < n; ++id) {
    if (m_views[id]) {
      lastUse[m_views[id]->source] = std::max(lastUse[m_views[id]->source], lastUse[id]);
    }
    // A tensor stored into a concat may have readers besides the concat (a split's slice read
    // by a conv in place): the concat's space lives until they have run.
    if (m_slots[id]) {
      const TensorId concat = m_slots[id]->concatOutput;
      lastUse[concat] = std::max(lastUse[concat], lastUse[id]);
    }
  }
  for (std::size_t i = 0; i < m_graph.ops.size(); ++i) {
    if (const std::optional<ShuffleLayout>& layout = m_shuffles.byOp[i]) {
      for (const TensorId id : layout->groupInputs) {
        lastUse[id] = std::max(lastUse[id], static_cast<std::int64_t>(i));
      }
    }
  }
  return lastUse;
}

/// Frees the arena space of tensors whose last reader ran before op `i`.
void ActivationPlanner::freeBefore(std::size_t i) {
  for (auto it = m_live.begin(); it != m_live.end();) {
    if (it->first < static_cast<std::int64_t>(i)) {
      m_busy.erase(m_placed[it->second].address);
      it = m_live.erase(it);
    } else {
      ++it;
    }
  }
}

/// Places `placing`, made by op `i`, at the first arena gap that holds it (first fit).
void ActivationPlanner::placeInArena(TensorId placing, std::size_t i,
                                     const std::optional<ConcatSlot>& slot) {
  const std::uint64_t size =
      alignUp(std::max<std::uint64_t>(tensorBytes(m_graph.tensors[placing]), 1), m_alignment);
  std::uint64_t at = m_arenaBase;
  for (const auto& [start, end] : m_busy) {
    if (start >= at + size) {
      break;
    }
    at = std::max(at, alignUp(end, m_alignment));
  }
  m_placed[placing] = {at, tensorBytes(m_graph.tensors[placing])};
  m_placedYet[placing] = true;
  m_busy[at] = at + size;
  // Placed early for a concat stored by address: alive through the concat itself, which
  // still copies its other inputs in, even when nothing reads its output.
  const std::int64_t until =
      std::max({m_lastUse[placing], static_cast<std::int64_t>(i),
                slot ? static_cast<std::int64_t>(slot->concatOp) : std::int64_t{-1}});
  m_live.emplace_back(until, placing);
  m_arenaEnd = std::max(m_arenaEnd, at + size);
}

/// Places what op `i` writes: its output, the tensor that output is stored in, a shuffle's slices.
void ActivationPlanner::placeOutputs(std::size_t i) {
  const TensorId produced = opOutput(m_graph.ops[i]);
  const std::optional<SliceView>& view = m_views[produced];
  const std::optional<ConcatSlot>& slot = m_slots[produced];
  // Stored by address: the concat's output is placed now (its first producer), if not yet; a
  // view of a concat family's root places the root too.
  const TensorId out = view ? view->source : slot ? slot->concatOutput : produced;
  std::vector<TensorId> outs{out};  // and the slices a shuffle writes
  if (m_shuffles.byOp[i]) {
    outs.insert(outs.end(), m_shuffles.byOp[i]->parts.begin(), m_shuffles.byOp[i]->parts.end());
  }
  for (const TensorId placing : outs) {
    if (m_pinned[placing] || m_placedYet[placing]) {
      continue;
    }
    placeInArena(placing, i, slot);
  }
  if (view) {
    const TensorId source = view->source;
    m_placed[produced] = {
        m_placed[source].address + static_cast<std::uint64_t>(view->channelOffset),
        tensorBytes(m_graph.tensors[produced])};
    m_placed[produced].storedIn = static_cast<std::int64_t>(source);
    m_placed[produced].pixelStride =
        view->pixelStride > 0 ? view->pixelStride : m_graph.tensors[source].shape[3];
    return;
  }
  if (slot) {
    TensorPlacement& placement = m_placed[produced];
    placement.address = m_placed[out].address + static_cast<std::uint64_t>(slot->channelOffset);
    placement.bytes = tensorBytes(m_graph.tensors[produced]);
    placement.storedIn = static_cast<std::int64_t>(out);
    placement.pixelStride = slot->channels;
  }
}

/// Pins the graph's inputs and outputs, places every op's outputs, adds the arena's region.
std::uint64_t ActivationPlanner::run() {
  const std::size_t n = m_graph.tensors.size();
  m_placed.assign(n, {});
  m_pinned.assign(n, false);
  for (const TensorId id : m_graph.inputs) {
    pin(id, isa::RegionKind::Input);
  }
  for (const TensorId id : m_graph.outputs) {
    pin(id, isa::RegionKind::Output);
  }
  m_lastUse = lastUses();
  m_placedYet.assign(n, false);
  m_arenaBase = m_next;
  m_arenaEnd = m_arenaBase;
  for (std::size_t i = 0; i < m_graph.ops.size(); ++i) {
    freeBefore(i);
    placeOutputs(i);
  }
  if (m_arenaEnd > m_arenaBase) {
    isa::Region scratch;
    scratch.name = "activations";
    scratch.kind = isa::RegionKind::Scratch;
    scratch.base = m_arenaBase;
    scratch.size = m_arenaEnd - m_arenaBase;
    m_regions.push_back(scratch);
  }
  return alignUp(m_arenaEnd, m_alignment);
}

/// Places graph inputs and outputs in regions of their own and intermediates in a shared arena
/// where a tensor's space is reused once its last reader has run (first fit). Returns the end.
/// A concat's input stored by address (`slots`) takes no space of its own: its producer writes
/// into the concat's output, which is placed from that producer on. A slice read in place
/// (`views`) takes none either: it is its source's channels, and keeps its source alive; so is
/// a member of a concat family, a view of its root's first channels (placed, if not yet, when
/// the member is made). A shuffle that writes its slices (`shuffles`) places them when it runs,
/// and keeps the concat inputs it reads where they are alive until then.
std::uint64_t planActivations(const QuantizedGraph& graph, const FusionPlan& fusion,
                              std::uint64_t alignment,
                              const std::vector<std::optional<ConcatSlot>>& slots,
                              const std::vector<std::optional<SliceView>>& views,
                              const ShufflePlans& shuffles, std::vector<TensorPlacement>& placed,
                              std::vector<isa::Region>& regions) {
  return ActivationPlanner(graph, fusion, alignment, slots, views, shuffles, placed, regions).run();
}

void checkGraph(const QuantizedGraph& graph) {
  for (const QTensor& tensor : graph.tensors) {
    if (tensor.shape.size() != 4 || tensor.shape[0] != 1) {
      fail("tensor '{}': the NPU takes NHWC tensors with batch 1", tensor.name);
    }
  }
}

}  // namespace

void setProgramInputs(CompiledProgram& compiled, const QuantizedGraph& graph,
                      const std::vector<golden::Int8Tensor>& inputData) {
  if (inputData.size() != graph.inputs.size()) {
    fail("codegen: the graph has {} inputs, {} given", graph.inputs.size(), inputData.size());
  }
  std::vector<isa::DdrSegment>& segments = compiled.program.segments;
  for (std::size_t i = 0; i < graph.inputs.size(); ++i) {
    const TensorPlacement& place = compiled.tensors[graph.inputs[i]];
    if (inputData[i].data.size() != place.bytes) {
      fail("codegen: input '{}' has {} bytes, expected {}", graph.tensors[graph.inputs[i]].name,
           inputData[i].data.size(), place.bytes);
    }
    if (place.bytes == 0) {
      continue;
    }
    std::vector<std::uint8_t> bytes(inputData[i].data.begin(), inputData[i].data.end());
    auto existing = std::find_if(segments.begin(), segments.end(), [&](const isa::DdrSegment& s) {
      return s.address == place.address;
    });
    if (existing != segments.end()) {
      existing->bytes = std::move(bytes);
    } else {
      segments.push_back({place.address, std::move(bytes)});
    }
  }
  std::sort(
      segments.begin(), segments.end(),
      [](const isa::DdrSegment& a, const isa::DdrSegment& b) { return a.address < b.address; });
}

namespace {

/// The manifest's layer table: per op that has instructions, in op order, the maximal runs of
/// consecutive instructions that belong to it (a cascade interleaves several ops' instructions).
std::vector<isa::ProgramLayer> programLayers(const QuantizedGraph& graph,
                                             const std::vector<std::int64_t>& instructionOp) {
  std::vector<isa::ProgramLayer> byOp(graph.ops.size());
  for (std::size_t k = 0; k < instructionOp.size(); ++k) {
    if (instructionOp[k] < 0) {
      continue;
    }
    std::vector<isa::InstructionRange>& ranges =
        byOp[static_cast<std::size_t>(instructionOp[k])].ranges;
    if (!ranges.empty() && ranges.back().first + ranges.back().count == k) {
      ++ranges.back().count;
    } else {
      ranges.push_back({k, 1});
    }
  }
  std::vector<isa::ProgramLayer> layers;
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    if (!byOp[i].ranges.empty()) {
      byOp[i].name = opName(graph.ops[i]);
      layers.push_back(std::move(byOp[i]));
    }
  }
  return layers;
}

}  // namespace

CompiledProgram generateProgram(const QuantizedGraph& graph, const isa::NpuConfig& config,
                                const std::vector<golden::Int8Tensor>& inputData) {
  checkGraph(graph);
  if (inputData.size() != graph.inputs.size()) {
    fail("codegen: the graph has {} inputs, {} given", graph.inputs.size(), inputData.size());
  }
  CompiledProgram compiled;
  isa::Program& program = compiled.program;
  program.config = config;
  const std::uint64_t alignment = placementAlignment(config);
  const ShufflePlans shuffles = planShuffles(graph, config);
  const FusionPlan fusion = planFusion(graph, config);
  ConcatFamilies families = planConcatFamilies(graph, shuffles, fusion);
  std::vector<std::optional<SliceView>> views = planSliceViews(graph, families.slots, shuffles);
  for (TensorId id = 0; id < views.size(); ++id) {
    if (families.views[id]) {
      views[id] = families.views[id];  // a concat's output: no slice view of its own
    }
  }
  planAliasCopiesInPlace(graph, shuffles, families.slots, views);
  const std::uint64_t activationEnd = planActivations(
      graph, fusion, alignment, families.slots, views, shuffles, compiled.tensors, program.regions);

  TokenEmitter emitter;
  ConstantPool constants;
  constants.base = activationEnd;
  constants.alignment = alignment;
  // Constant activations (a class token, a position embedding) open the constant area, as
  // weights do: the DDR image holds them before the program runs.
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    if (const QTensor& tensor = graph.tensors[id]; tensor.data) {
      std::vector<std::uint8_t> bytes(tensor.data->begin(), tensor.data->end());
      compiled.tensors[id] = {constants.add(tensor.name, bytes), bytes.size()};
      isa::Region& region = constants.regions.back();  // described like an activation's region
      region.dtype = "int8";
      region.shape = tensor.shape;
      region.scale = tensor.scale;
      region.zeroPoint = tensor.zeroPoint;
    }
  }
  SramSlots slots(config);
  LoweringContext ctx{config, graph, compiled.tensors, emitter, constants, slots, shuffles};
  for (const FusedGroup& group : fusion.groups) {
    ctx.op = static_cast<std::int64_t>(group.first);
    try {
      std::visit(Overloaded{
                     [&](const SingleOp&) {
                       std::visit([&ctx](const auto& op) { lowerOp(ctx, op); },
                                  graph.ops[group.first]);
                     },
                     [&](const Cascade& cascade) { lowerCascade(ctx, cascade); },
                     [&](const GatedProject& gated) { lowerGatedProject(ctx, gated); },
                 },
                 group.form);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Unsupported) {
        throw;
      }
      throw OpUnsupported(group.first, e.what());
    }
    for (const TensorId id : onChipTensors(group)) {
      compiled.tensors[id].onChip = true;
    }
  }
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    if (shuffles.unassembled[id]) {
      compiled.tensors[id].onChip = true;  // assembled only in SRAM, by its shuffle's CONVs
    }
  }
  program.instructions = emitter.finish();
  compiled.instructionOp = emitter.origins();
  program.layers = programLayers(graph, compiled.instructionOp);

  // Constants, then the code, after the activations.
  if (!constants.bytes.empty()) {
    program.segments.push_back({constants.base, constants.bytes});
  }
  program.regions.insert(program.regions.end(), constants.regions.begin(), constants.regions.end());
  program.codeAddress = alignUp(constants.base + constants.bytes.size(), alignment);
  const std::uint64_t end = program.codeAddress + program.instructions.size() * isa::kWordBytes;
  if (end > static_cast<std::uint64_t>(config.ddrBytes)) {
    fail(ErrorKind::Unsupported, "codegen: the plan needs {} bytes of DDR, '{}' has {}", end,
         config.name, config.ddrBytes);
  }
  setProgramInputs(compiled, graph, inputData);
  isa::validateProgram(program, "codegen");
  return compiled;
}

}  // namespace npu::compiler
