// npu: entry point. Parses the command line, runs one subcommand, and turns every npu::Error
// and every usage error into one line on stderr and a non-zero exit.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.h"
#include "npu/support/error.h"
#include "npu/support/interrupt.h"
#include "npu/support/provenance.h"

namespace {

/// Exit status of each kind of error; 0 is success. 1: a check ran and failed (a verification
/// failure, an opcheck sweep with failing cases, a bench regression). 2: the command line cannot be
/// run as given. 3: any other error prevented the check (bad input, unsupported, internal; the
/// message says which). docs/architecture.md, "Errors", lists them.
constexpr int exitStatus(npu::ErrorKind kind) {
  switch (kind) {
    case npu::ErrorKind::Verification:
      return 1;
    case npu::ErrorKind::Usage:
      return 2;
    case npu::ErrorKind::BadInput:
    case npu::ErrorKind::Unsupported:
    case npu::ErrorKind::Internal:
      return 3;
    case npu::ErrorKind::Interrupted:
      return 128 + SIGINT;  // main() uses the signal that actually came (130 or 143)
  }
  return 3;
}

/// Exit status of a command-line usage error.
constexpr int kUsageErrorExit = exitStatus(npu::ErrorKind::Usage);

/// The arguments `app` itself did not understand (a `--` separator aside).
std::vector<std::string> unparsedArguments(const CLI::App& app) {
  std::vector<std::string> extras = app.remaining(false);
  std::erase(extras, "--");
  return extras;
}

/// Names what was not understood: "unknown option '--x'" or "unexpected arguments 'a', 'b'".
std::string describeExtras(const std::vector<std::string>& extras) {
  const bool allOptions = std::all_of(extras.begin(), extras.end(),
                                      [](const std::string& s) { return s.starts_with('-'); });
  std::string quoted;
  for (const std::string& extra : extras) {
    quoted += fmt::format("{}'{}'", quoted.empty() ? "" : ", ", extra);
  }
  return fmt::format("{} {}{} {}", allOptions ? "unknown" : "unexpected",
                     allOptions ? "option" : "argument", extras.size() > 1 ? "s" : "", quoted);
}

/// One line for a usage error: what was not understood if anything was (CLI11 reports a missing
/// required argument before extras, which would hide a typo), else CLI11's message, prefixed by
/// the subcommand it concerns.
std::string usageMessage(const CLI::App& app, const CLI::ParseError& error) {
  const std::vector<CLI::App*> subcommands = app.get_subcommands();
  if (const std::vector<std::string> extras = unparsedArguments(app); !extras.empty()) {
    if (subcommands.empty() && !extras.front().starts_with('-')) {
      return fmt::format("unknown subcommand '{}' (npu --help lists them)", extras.front());
    }
    return describeExtras(extras);
  }
  if (subcommands.empty()) {
    return "a subcommand is required (npu --help lists them)";
  }
  for (const CLI::App* subcommand : subcommands) {
    if (const std::vector<std::string> extras = unparsedArguments(*subcommand); !extras.empty()) {
      return fmt::format("{}: {}", subcommand->get_name(), describeExtras(extras));
    }
  }
  return fmt::format("{}: {}", subcommands.front()->get_name(), error.what());
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (RLIMIT_FSIZE) must surface as a write error naming the file (EFBIG), not
  // kill the process mid-write with SIGXFSZ and leave staging folders behind.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"npu: NPU compiler, simulator and verification toolchain"};
  app.set_version_flag("--version", std::string(npu::toolVersion()));
  app.require_subcommand(1);
  app.footer(fmt::format(
      "Exit status: 0 success, {} a check ran and failed (verification failure, failing cases, "
      "regression), {} command-line usage error, {} an error prevented the check (bad input, "
      "unsupported, internal error; the message says which), 130/143 interrupted; an error is one "
      "line 'npu: error: ...' on stderr.",
      exitStatus(npu::ErrorKind::Verification), kUsageErrorExit,
      exitStatus(npu::ErrorKind::BadInput)));
  npu::cli::Action action;
  npu::cli::addAsmCommands(app, action);
  npu::cli::addSimCommand(app, action);
  npu::cli::addCosimCommand(app, action);
  npu::cli::addVerifyBundleCommand(app, action);
  npu::cli::addImportCommand(app, action);
  npu::cli::addOpcheckCommand(app, action);
  npu::cli::addBenchCommand(app, action);
  npu::cli::addMergeCommand(app, action);
  npu::cli::addModelCommands(app, action);
  npu::cli::addGenerateCommand(app, action);
  npu::cli::addQuantReportCommand(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "npu: error: {}\n", usageMessage(app, e));
    return kUsageErrorExit;
  }
  npu::installInterruptHandlers();
  try {
    return action ? action() : 0;
  } catch (const npu::Error& e) {
    if (e.kind() == npu::ErrorKind::Interrupted) {
      fmt::print(stderr, "npu: {}\n", e.what());
      return 128 + (npu::pendingInterrupt() != 0 ? npu::pendingInterrupt() : SIGINT);
    }
    fmt::print(stderr, "npu: {}: {}\n",
               e.kind() == npu::ErrorKind::Internal ? "internal error" : "error", e.what());
    return exitStatus(e.kind());
  } catch (const std::exception& e) {
    fmt::print(stderr, "npu: internal error: {}\n", e.what());
  }
  return exitStatus(npu::ErrorKind::Internal);
}
