// The streams of --quiet, --verbose and --json.
#include "console.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "npu/support/error.h"

namespace npu::cli {

void addOutputOptions(CLI::App* command, OutputOptions& options) {
  CLI::Option* quiet = command->add_flag("--quiet,-q", options.quiet, "Print nothing but errors");
  command
      ->add_flag("--verbose,-v", options.verbose,
                 "Print details too (per layer, per case, per input)")
      ->excludes(quiet);
  command
      ->add_flag("--json", options.json,
                 "Print one JSON summary on standard output (every other line goes to stderr)")
      ->excludes(quiet);
}

nlohmann::ordered_json summaryJson(std::string_view command, const Provenance& provenance) {
  nlohmann::ordered_json j;
  j["schema_version"] = kSummarySchemaVersion;
  j["provenance"] = provenanceJson<nlohmann::ordered_json>(provenance);
  j["command"] = command;
  return j;
}

std::FILE* Console::sink() {
  static std::FILE* const devNull = std::fopen("/dev/null", "w");
  return devNull;
}

Console::Console(const OutputOptions& options, bool dataOnStdout) : m_json(options.json) {
  if (options.json && dataOnStdout) {
    fail(ErrorKind::Usage,
         "--json prints its summary on standard output, which an output file ('-') also uses; "
         "give the file a name");
  }
  if (sink() == nullptr) {
    fail(ErrorKind::Internal, "cannot open /dev/null for writing");
  }
  m_out = options.quiet ? sink() : (options.json || dataOnStdout ? stderr : stdout);
  m_detail = options.verbose ? m_out : sink();
  m_progress = options.quiet ? sink() : stderr;
}

void Console::printJson(const std::string& text) const {
  if (m_json) {
    std::fflush(stderr);
    fmt::print(stdout, "{}", text);
    std::fflush(stdout);
  }
}

/// A progress bar with the estimated time left on a terminal, a line per 10% otherwise; both on
/// stderr (`stream`: stderr, or a sink with --quiet). The estimate is the mean time per input
/// since the first one finished, times the inputs left.
void printProgress(std::FILE* stream, std::size_t done, std::size_t total, std::string_view unit) {
  if (stream != stderr) {
    return;
  }
  static const bool tty = isatty(fileno(stderr)) != 0;
  static const auto first = std::chrono::steady_clock::now();
  const double since =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - first).count();
  const std::string left =
      done > 1 ? fmt::format("{:.0f} s left", since / static_cast<double>(done - 1) *
                                                  static_cast<double>(total - done))
               : std::string("estimating");
  if (tty) {
    const std::size_t width = 40;
    const std::size_t filled = done * width / total;
    fmt::print(stderr, "\r[{}{}] {}/{} {}, {}  ", std::string(filled, '#'),
               std::string(width - filled, ' '), done, total, unit, left);
    if (done == total) {
      fmt::print(stderr, "\n");
    }
  } else if (total >= 20 && (done * 10 / total != (done - 1) * 10 / total || done == total)) {
    fmt::print(stderr, "  {}/{} {}, {}\n", done, total, unit, left);
  }
}

}  // namespace npu::cli
