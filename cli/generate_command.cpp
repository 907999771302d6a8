// npu generate DECODE.onnx [--prefill PREFILL.onnx] --prompt IDS.npy --max-new-tokens N
//   [--max-context L] [--sample greedy|top-k] [--top-k K] [--seed S] [--kv-pairs P=Q,...]
//   [--hw] [--calib] [--config] [--mode] [--rtl] --out DIR
// A decoder-only language model's token loop, every step verified against golden (docs/llm.md).
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "console.h"
#include "npu/compiler/frontend/npy.h"
#include "npu/isa/npu_config.h"
#include "npu/runtime/generate.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/staged_directory.h"

namespace npu::cli {

namespace {

namespace fs = std::filesystem;

struct GenerateCommandOptions {
  std::string decode;
  std::string prefill;
  std::string prompt;
  std::size_t maxNewTokens = 16;
  std::size_t maxContext = 0;
  std::string sample = "greedy";
  std::size_t topK = 40;
  std::uint64_t seed = 0;
  std::vector<std::string> kvPairs;
  std::string hw = "npu-s";
  std::string calib;
  std::string calibPrompt;
  std::string config;
  std::string mode = "timed";
  bool rtl = false;
  std::string out = "out/generate";
  OutputOptions output;
};

/// The prompt's token ids: an int64 or int32 .npy of shape [n] or [1, n].
std::vector<std::int64_t> readPrompt(const fs::path& path) {
  const compiler::Tensor ids = compiler::readNpy(path);
  if (ids.data.dtype() != compiler::DType::Int64 && ids.data.dtype() != compiler::DType::Int32) {
    fail(ErrorKind::Usage, "{}: token ids must be an int64 or int32 array of shape [n] or [1, n]",
         path.string());
  }
  if (ids.shape.size() > 2 || (ids.shape.size() == 2 && ids.shape[0] != 1)) {
    fail(ErrorKind::Usage, "{}: token ids have shape {}; expected [n] or [1, n]", path.string(),
         compiler::formatShape(ids.shape));
  }
  return ids.data.toInt64();
}

std::vector<runtime::KvPair> parseKvPairs(const std::vector<std::string>& texts) {
  std::vector<runtime::KvPair> pairs;
  for (const std::string& text : texts) {
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
      fail(ErrorKind::Usage, "--kv-pairs '{}': expected PAST=PRESENT (graph input=graph output)",
           text);
    }
    pairs.push_back({text.substr(0, eq), text.substr(eq + 1)});
  }
  return pairs;
}

runtime::GenerateOptions generateOptions(const GenerateCommandOptions& o) {
  runtime::GenerateOptions g;
  g.decode = o.decode;
  g.prefill = o.prefill;
  g.hw = isa::resolveConfigPath(o.hw, fs::current_path());
  g.prompt = readPrompt(o.prompt);
  g.maxNewTokens = o.maxNewTokens;
  g.maxContext = o.maxContext;
  g.sampling = o.sample == "greedy" ? runtime::Sampling::Greedy : runtime::Sampling::TopK;
  g.topK = o.topK;
  g.seed = o.seed;
  g.kvPairs = parseKvPairs(o.kvPairs);
  g.calib = o.calib;
  if (!o.calibPrompt.empty()) {
    g.calibrationPrompt = readPrompt(o.calibPrompt);
  }
  g.quantConfig = o.config;
  g.engine = *runtime::parseEngine(o.mode);  // CLI11 admits functional and timed only
  g.rtl = o.rtl;
  return g;
}

void addOptions(CLI::App* command, GenerateCommandOptions& o) {
  command->add_option("DECODE", o.decode, "The decode-step graph (ONNX)")->required();
  command->add_option("--prefill", o.prefill,
                      "The prefill graph (ONNX); without it the prompt runs through the decode "
                      "step one token at a time");
  command->add_option("--prompt", o.prompt, "Prompt token ids: an int64 .npy of [n] or [1, n]")
      ->required();
  command->add_option("--max-new-tokens", o.maxNewTokens, "Tokens to generate (default 16)")
      ->check(CLI::Range(1, 1'000'000));
  command
      ->add_option("--max-context", o.maxContext,
                   "Tokens the cache holds; binds a dynamic past axis (default: the graph's "
                   "own, or prompt + new tokens)")
      ->check(CLI::Range(2, 1'000'000));
  command->add_option("--sample", o.sample, "greedy (default) or top-k")
      ->check(CLI::IsMember({"greedy", "top-k"}));
  command->add_option("--top-k", o.topK, "k of --sample top-k (default 40)")
      ->check(CLI::Range(1, 1'000'000));
  command->add_option("--seed", o.seed, "Seed of --sample top-k (default 0)");
  command
      ->add_option("--kv-pairs", o.kvPairs,
                   "Cache pairs PAST=PRESENT (default: past_key_values.N.* with present.N.*)")
      ->delimiter(',');
  command->add_option("--hw", o.hw, "Hardware config: a name (npu-s, npu-l) or a YAML file");
  CLI::Option* calib = command->add_option(
      "--calib", o.calib,
      "Decode-step calibration data (folders or .npz; default: the fp32 model's own greedy "
      "generation from the prompt)");
  command
      ->add_option("--calib-prompt", o.calibPrompt,
                   "Calibrate on the fp32 model's generation from these token ids (.npy) "
                   "instead of the prompt")
      ->excludes(calib);
  command->add_option("--config", o.config, "Quantization config YAML (docs/quant-config.md)");
  command->add_option("--mode", o.mode, "Simulator engine: timed (default) or functional")
      ->check(CLI::IsMember({"timed", "functional"}));
  command->add_flag("--rtl", o.rtl, "Also co-simulate the first decode step on the RTL");
  command->add_option("--out", o.out, "Report directory (default: out/generate)");
  addOutputOptions(command, o.output);
}

}  // namespace

void addGenerateCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<GenerateCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "generate",
      "Generate tokens with a decoder-only language model, every step verified against golden");
  addOptions(command, *o);
  command->callback([&action, o] {
    action = [o] {
      const Console console(o->output, false);
      // The report folder appears whole, or not at all.
      StagedDirectory staged(o->out, {"report.md", "report.json", "report.html"});
      runtime::GenerateOptions options = generateOptions(*o);
      options.progress = [stream = console.progress()](std::size_t done, std::size_t total) {
        printProgress(stream, done, total, "steps");
      };
      fmt::print(console.out(), "npu generate: {} on {} ({} mode)\n", o->decode,
                 options.hw.string(), o->mode);
      std::fflush(console.out());
      const runtime::GenerateReport report = runtime::runGenerate(options);
      fmt::print(console.out(), "{}", runtime::formatGenerateSummary(report));
      const std::string json = runtime::generateReportJson(report);
      writeTextFile(staged.path() / "report.md", runtime::generateReportMarkdown(report));
      writeTextFile(staged.path() / "report.json", json);
      writeTextFile(staged.path() / "report.html", runtime::generateReportHtml(report));
      staged.commit();
      fmt::print(console.out(), "reports: {0}/report.md, {0}/report.json, {0}/report.html\n",
                 staged.target().string());
      console.printJson(json);
      return report.pass() ? 0 : 1;
    };
  });
}

}  // namespace npu::cli
