// The front-end pipeline: the graph passes in order, with verification and dumps between them.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// One pass of the pipeline: its name for --dump-after, its entry point, and what it does.
struct Pass {
  std::string_view name;
  void (*run)(Graph&);
  std::string_view summary;
};

/// How the pipeline runs.
struct PipelineOptions {
  /// Run verifyGraph after every pass (always on in debug builds).
  bool verifyEach = false;
  /// Pass names after which the graph is dumped; "all" dumps after every pass.
  std::vector<std::string> dumpAfter;
  /// When not empty, only these passes run, in this order (a pass test runs one pass on a text
  /// fixture); otherwise the whole pipeline.
  std::vector<std::string> only;
  /// Receives the dumps (pass name, dumpGraph text); by default they go to stdout.
  std::function<void(std::string_view pass, const std::string& dump)> dumpSink;
};

/// Whether each stage verifies its result: when asked (verifyEach), and always in debug builds.
bool verifiesEachStage(const PipelineOptions& options);

/// The front-end passes in pipeline order (a pass may appear more than once).
std::span<const Pass> frontEndPasses();

/// Runs the front-end passes (or those `options.only` names) over an imported fp32 graph. Throws
/// Error for an unknown name in `dumpAfter` or `only` and for a graph that fails verification,
/// naming the pass that broke it.
void runFrontEndPasses(Graph& graph, const PipelineOptions& options = {});

}  // namespace npu::compiler
