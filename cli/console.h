// --quiet, --verbose and --json of the long commands: where each kind of line goes.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "npu/support/provenance.h"

namespace npu::cli {

/// What the output flags asked for.
struct OutputOptions {
  bool quiet = false;
  bool verbose = false;
  bool json = false;
};

/// Adds --quiet/-q, --verbose/-v and --json to `command`; --quiet excludes the other two.
void addOutputOptions(CLI::App* command, OutputOptions& options);

/// The schema version of the --json summaries that are not a report file's own JSON (compile,
/// export, cosim, merge; docs/architecture.md, "Output conventions").
inline constexpr int kSummarySchemaVersion = 1;

/// The start of such a summary: {"schema_version", "provenance", "command"}.
nlohmann::ordered_json summaryJson(std::string_view command, const Provenance& provenance);

/// The streams of one command run (docs/architecture.md, "Output conventions"):
/// - human lines (summaries, tables, "wrote ...") go to standard output, or to stderr when
///   standard output carries data (`-o -`, `--stats -`) or the JSON summary (--json); none with
///   --quiet;
/// - detail lines (per layer, per case) only with --verbose, where human lines go;
/// - progress and notes always to stderr, none with --quiet;
/// - the JSON summary (--json) alone on standard output.
/// Errors are not printed here: the CLI prints them once (cli/main.cpp), quiet or not.
class Console {
 public:
  /// `dataOnStdout`: some output file of the command is standard output. With --json too that is
  /// a usage error (two things cannot share standard output).
  Console(const OutputOptions& options, bool dataOnStdout);

  /// Human-readable lines.
  std::FILE* out() const { return m_out; }
  /// Detail lines: out() with --verbose, else a sink.
  std::FILE* detail() const { return m_detail; }
  /// Progress and notes: stderr, a sink with --quiet.
  std::FILE* progress() const { return m_progress; }
  bool json() const { return m_json; }
  bool verbose() const { return m_detail != sink(); }
  /// Prints `text` (one JSON document, ending in a newline) on standard output with --json.
  void printJson(const std::string& text) const;

 private:
  /// A stream that discards what is written to it (/dev/null).
  static std::FILE* sink();

  std::FILE* m_out;
  std::FILE* m_detail;
  std::FILE* m_progress;
  bool m_json;
};

/// A progress bar with the estimated time left on a terminal, a line per 10% otherwise (when
/// total >= 20); `stream` is Console::progress() (nothing is printed unless it is stderr).
/// `unit` names what is counted ("inputs", "steps").
void printProgress(std::FILE* stream, std::size_t done, std::size_t total, std::string_view unit);

}  // namespace npu::cli
