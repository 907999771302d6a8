// The streams of --quiet, --verbose and --json.
#include "console.h"

#include <fmt/format.h>

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

}  // namespace npu::cli
