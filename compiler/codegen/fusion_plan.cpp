// The fusion plan (see fusion_plan.h): every op's group, decided once.
#include "fusion_plan.h"

#include "npu/support/overloaded.h"

namespace npu::compiler {
namespace {

/// Ops a cascade lowers: [expand], depthwise, [project], [add | pool].
std::size_t opsOf(const Cascade& c) {
  return (c.expand != nullptr ? 1 : 0) + 1 + (c.project != nullptr ? 1 : 0) +
         (c.add != nullptr ? 1 : 0) + (c.pool != nullptr ? 1 : 0);
}

/// Ops a gated project lowers: multiply, project, [add].
std::size_t opsOf(const GatedProject& g) {
  return g.add != nullptr ? 3 : 2;
}

}  // namespace

FusionPlan planFusion(const QuantizedGraph& graph, const isa::NpuConfig& config) {
  FusionPlan plan;
  plan.groupOf.assign(graph.ops.size(), 0);
  for (std::size_t first = 0; first < graph.ops.size();) {
    FusedGroup group{first, first, SingleOp{}};
    if (std::optional<Cascade> cascade = planCascade(graph, config, first)) {
      group.last = first + opsOf(*cascade) - 1;
      group.form = std::move(*cascade);
    } else if (std::optional<GatedProject> gated = planGatedProject(graph, config, first)) {
      group.last = first + opsOf(*gated) - 1;
      group.form = std::move(*gated);
    }
    for (std::size_t op = group.first; op <= group.last; ++op) {
      plan.groupOf[op] = plan.groups.size();
    }
    first = group.last + 1;
    plan.groups.push_back(std::move(group));
  }
  return plan;
}

std::vector<TensorId> onChipTensors(const FusedGroup& group) {
  return std::visit(Overloaded{
                        [](const SingleOp&) { return std::vector<TensorId>{}; },
                        [](const Cascade& c) {
                          std::vector<TensorId> kept;
                          if (c.expand != nullptr) {
                            kept.push_back(c.expand->output);
                          }
                          if (c.project != nullptr) {
                            kept.push_back(c.depthwise->output);
                          }
                          if (c.add != nullptr) {
                            kept.push_back(c.project->output);
                          }
                          return kept;
                        },
                        [](const GatedProject& g) {
                          std::vector<TensorId> kept{g.mul->output};
                          if (g.add != nullptr) {
                            kept.push_back(g.project->output);
                          }
                          return kept;
                        },
                    },
                    group.form);
}

}  // namespace npu::compiler
