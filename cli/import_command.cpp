// `npu import MODEL.onnx|GRAPH.yaml`: imports a model, runs the front-end passes, and prints a
// summary or the graph.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "npu/compiler/frontend/import.h"
#include "npu/compiler/ir/dump.h"
#include "npu/compiler/passes/pipeline.h"

namespace npu::cli {

void addImportCommand(CLI::App& app, Action& action) {
  struct Options {
    std::string model;
    bool dump = false;
    bool verifyEach = false;
    bool noPasses = false;
    std::vector<std::string> dumpAfter;
    std::vector<std::string> passes;
  };
  auto options = std::make_shared<Options>();

  CLI::App* command = app.add_subcommand(
      "import", "Import an ONNX model or YAML graph spec and run the front-end passes");
  command->add_option("MODEL", options->model, "Model (.onnx) or graph spec (.yaml)")->required();
  command->add_flag("--dump", options->dump, "Print the graph after the passes, with shapes");
  command->add_flag("--verify-each", options->verifyEach, "Verify the IR after every pass");
  command
      ->add_option("--dump-after", options->dumpAfter,
                   "Print the graph after this pass (repeatable; 'all' for every pass)")
      ->delimiter(',');
  command
      ->add_option("--passes", options->passes,
                   "Run only these passes, in this order (a pass's text fixture test)")
      ->delimiter(',');
  command->add_flag("--no-passes", options->noPasses,
                    "Stop after import (with --dump: as imported)");
  command->callback([&action, options] {
    action = [options] {
      compiler::Graph graph = compiler::importModel(options->model);
      if (!options->noPasses) {
        compiler::PipelineOptions pipeline;
        pipeline.verifyEach = options->verifyEach;
        pipeline.dumpAfter = options->dumpAfter;
        pipeline.only = options->passes;
        compiler::runFrontEndPasses(graph, pipeline);
      }
      if (options->dump) {
        fmt::print("{}", compiler::dumpGraph(graph));
      } else if (options->dumpAfter.empty()) {
        std::size_t constants = 0;
        for (std::size_t i = 0; i < graph.valueCount(); ++i) {
          constants += graph.value(compiler::ValueId{static_cast<std::uint32_t>(i)}).isConstant();
        }
        fmt::print("{}: {} nodes, {} inputs, {} outputs, {} constants\n", options->model,
                   graph.nodes().size(), graph.inputs().size(), graph.outputs().size(), constants);
      }
      return 0;
    };
  });
}

}  // namespace npu::cli
