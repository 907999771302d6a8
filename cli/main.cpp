// npu: entry point. Parses the command line, runs one subcommand, and turns every npu::Error
// into one line on stderr and a non-zero exit.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.h"
#include "npu/support/error.h"

int main(int argc, char** argv) {
  CLI::App app{"npu: NPU compiler, simulator and verification toolchain"};
  app.set_version_flag("--version", fmt::format("npu {}", NPU_VERSION));
  app.require_subcommand(1);
  npu::cli::Action action;
  npu::cli::addAsmCommands(app, action);
  npu::cli::addSimCommand(app, action);
  npu::cli::addCosimCommand(app, action);
  npu::cli::addImportCommand(app, action);
  npu::cli::addOpcheckCommand(app, action);
  npu::cli::addBenchCommand(app, action);
  npu::cli::addModelCommands(app, action);
  npu::cli::addQuantReportCommand(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return action ? action() : 0;
  } catch (const npu::Error& e) {
    fmt::print(stderr, "npu: error: {}\n", e.what());
  } catch (const std::exception& e) {
    fmt::print(stderr, "npu: internal error: {}\n", e.what());
  }
  return 1;
}
