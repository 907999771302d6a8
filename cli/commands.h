// Registration of the CLI's subcommands; each adds itself to the app and sets its action.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace npu::cli {

/// What a subcommand runs once CLI11 has parsed its options; returns the exit code.
using Action = std::function<int()>;

/// `npu asm` and `npu disasm`.
void addAsmCommands(CLI::App& app, Action& action);

/// `npu sim`.
void addSimCommand(CLI::App& app, Action& action);

/// `npu cosim`.
void addCosimCommand(CLI::App& app, Action& action);

/// `npu import`.
void addImportCommand(CLI::App& app, Action& action);

/// `npu opcheck`.
void addOpcheckCommand(CLI::App& app, Action& action);

/// `npu bench`.
void addBenchCommand(CLI::App& app, Action& action);

/// `npu quant-report`.
void addQuantReportCommand(CLI::App& app, Action& action);

/// `npu run`, `npu compile` and `npu export`.
void addModelCommands(CLI::App& app, Action& action);

}  // namespace npu::cli
