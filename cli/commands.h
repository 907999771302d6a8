// Registration of the CLI's subcommands; each adds itself to the app and sets its action.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

namespace npu::bench {
struct BenchReport;
}

namespace npu::cli {

/// What a subcommand runs once CLI11 has parsed its options; returns the exit code.
using Action = std::function<int()>;

/// `npu asm` and `npu disasm`.
void addAsmCommands(CLI::App& app, Action& action);

/// `npu sim`.
void addSimCommand(CLI::App& app, Action& action);

/// `npu cosim`.
void addCosimCommand(CLI::App& app, Action& action);

/// `npu verify-bundle`.
void addVerifyBundleCommand(CLI::App& app, Action& action);

/// `npu import`.
void addImportCommand(CLI::App& app, Action& action);

/// `npu opcheck`.
void addOpcheckCommand(CLI::App& app, Action& action);

/// `npu bench`.
void addBenchCommand(CLI::App& app, Action& action);

/// `npu merge`.
void addMergeCommand(CLI::App& app, Action& action);

/// Writes the figures of a bench report's passing subnets into the baseline file `path` (locked,
/// re-read and merged: bench_baseline.h) and prints the line saying so on `out`.
void writeBaselines(const std::filesystem::path& path, const std::string& hardware,
                    const bench::BenchReport& report, std::FILE* out);

/// With --verbose: each subnet's per-layer table.
void printSubnetLayers(std::FILE* out, const bench::BenchReport& report);

/// `npu quant-report`.
void addQuantReportCommand(CLI::App& app, Action& action);

/// `npu generate`.
void addGenerateCommand(CLI::App& app, Action& action);

/// `npu run`, `npu compile` and `npu export`.
void addModelCommands(CLI::App& app, Action& action);

}  // namespace npu::cli
