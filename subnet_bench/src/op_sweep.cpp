// Sweeps over random cases: counting, shrinking failures into repro files, and the summary.
#include "npu/subnet_bench/op_sweep.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "npu/subnet_bench/op_generator.h"
#include "npu/subnet_bench/repro.h"
#include "npu/subnet_bench/rng.h"
#include "npu/support/error.h"
#include "npu/support/interrupt.h"

namespace npu::bench {
namespace {

/// Digits replaced by '#', so reasons differing only in sizes count together.
std::string reasonKey(const std::string& message) {
  std::string key;
  for (const char ch : message) {
    if (std::isdigit(static_cast<unsigned char>(ch)) != 0) {
      if (key.empty() || key.back() != '#') {
        key += '#';
      }
    } else {
      key += ch;
    }
  }
  return key;
}

}  // namespace

SweepCounts SweepReport::total() const {
  SweepCounts all;
  for (const auto& [kind, c] : counts) {
    all.pass += c.pass;
    all.fail += c.fail;
    all.unsupported += c.unsupported;
    for (std::size_t bit = 0; bit < all.features.size(); ++bit) {
      all.features[bit] += c.features[bit];
    }
  }
  return all;
}

OpCase sweepCase(const std::optional<OpFamily>& family, std::uint64_t seed, std::uint64_t index,
                 const GeneratorOptions& generator) {
  const std::uint64_t caseSeed = Rng::mix(Rng::mix(seed) + index * 0x9E3779B97F4A7C15ULL);
  const OpFamily f = family ? *family : sweepFamily(index);
  return randomCase(sweepKind(f, caseSeed >> 11), caseSeed, generator);
}

std::uint64_t shardCases(std::uint64_t count, const Shard& shard) {
  const std::uint64_t first = shard.index - 1;
  return first >= count ? 0 : (count - first + shard.count - 1) / shard.count;
}

SweepReport runSweep(const SweepOptions& options, const SweepProgress& progress) {
  SweepReport report;
  std::uint64_t repros = 0;
  std::uint64_t done = 0;
  const auto start = std::chrono::steady_clock::now();
  const InterruptibleScope interruptible;  // a signal stops the sweep before the next case
  for (std::uint64_t i = options.shard.index - 1; i < options.count; i += options.shard.count) {
    if (pendingInterrupt() != 0) {
      report.interruptedBy = pendingInterruptName();
      break;
    }
    const OpCase opCase = sweepCase(options.family, options.seed, i, options.generator);
    CaseResult result;
    try {
      result = checkCase(opCase, options.check);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Interrupted) {
        throw;
      }
      report.interruptedBy = pendingInterruptName();  // the case in progress did not finish
      break;
    }
    SweepCounts& counts = report.counts[opCase.kind];
    for (unsigned bit = 0; bit < kFeatureCount; ++bit) {
      counts.features[bit] += (result.features >> bit) & 1U;
    }
    switch (result.verdict) {
      case Verdict::Pass:
        ++counts.pass;
        break;
      case Verdict::Unsupported:
        ++counts.unsupported;
        ++report.unsupportedReasons[reasonKey(result.message)];
        break;
      case Verdict::Fail: {
        ++counts.fail;
        SweepFailure failure{i, opCase, result, "", std::nullopt, {}};
        failure.signature =
            fmt::format("{} {}", caseKindName(opCase.kind), failureSignature(result));
        const bool seen =
            std::any_of(report.failures.begin(), report.failures.end(),
                        [&](const SweepFailure& f) { return f.signature == failure.signature; });
        if (!seen && repros < options.maxRepros) {
          ++repros;
          failure.shrunk = shrinkCase(opCase, result, options.check, options.shrinkBudget);
          Repro repro;
          repro.opCase = failure.shrunk->minimal;
          repro.hw = options.hwArgument;
          repro.engine = options.check.engine;
          repro.bug = options.check.bug;
          repro.failure =
              fmt::format("{}: {}", failure.shrunk->result.kind, failure.shrunk->result.message);
          std::filesystem::create_directories(options.outDir);
          failure.repro =
              options.outDir / fmt::format("{}-s{}-{}-{}.yaml",
                                           options.family ? opFamilyName(*options.family) : "all",
                                           options.seed, i, caseKindName(opCase.kind));
          writeRepro(failure.repro, repro);
        }
        report.failures.push_back(std::move(failure));
        break;
      }
    }
    if (progress) {
      report.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      progress(++done, report);
    }
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

std::string formatSweepSummary(const SweepReport& report, const SweepOptions& options) {
  const SweepCounts all = report.total();
  std::string text = fmt::format(
      "opcheck {}: {} cases{}, seed {}, hw {}, {} engine{}, {:.1f} s\n",
      options.family ? opFamilyName(*options.family) : "all", all.total(),
      options.shard.count > 1
          ? fmt::format(" (shard {} of a {}-case sweep)", shardText(options.shard), options.count)
          : "",
      options.seed, options.check.hw.name, engineName(options.check.engine),
      options.check.bug == InjectedBug::None
          ? ""
          : fmt::format(", injected bug {}", bugName(options.check.bug)),
      report.seconds);
  if (!report.interruptedBy.empty()) {
    const std::uint64_t planned = shardCases(options.count, options.shard);
    text += fmt::format("INTERRUPTED by {}: {} of the {} cases were not run\n",
                        report.interruptedBy, planned - all.total(), planned);
  }
  text += fmt::format("  {:<14} {:>9} {:>7} {:>12}\n", "op", "pass", "fail", "unsupported");
  for (const auto& [kind, c] : report.counts) {
    text += fmt::format("  {:<14} {:>9} {:>7} {:>12}\n", caseKindName(kind), c.pass, c.fail,
                        c.unsupported);
  }
  text +=
      fmt::format("  {:<14} {:>9} {:>7} {:>12}\n", "total", all.pass, all.fail, all.unsupported);
  text += "lowering paths reached (cases):\n";
  for (const auto& [kind, c] : report.counts) {
    std::vector<std::string> parts;
    for (unsigned bit = 0; bit < kFeatureCount; ++bit) {
      if (c.features[bit] > 0) {
        parts.push_back(fmt::format("{} {}", featureName(bit), c.features[bit]));
      }
    }
    if (!parts.empty()) {
      text += fmt::format("  {:<14} {}\n", caseKindName(kind), fmt::join(parts, ", "));
    }
  }
  if (!report.unsupportedReasons.empty()) {
    std::vector<std::pair<std::uint64_t, std::string>> reasons;
    for (const auto& [reason, n] : report.unsupportedReasons) {
      reasons.emplace_back(n, reason);
    }
    std::sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    text += "unsupported (codegen limits; # stands for numbers):\n";
    for (const auto& [n, reason] : reasons) {
      text += fmt::format("  {:>7}  {}\n", n, reason);
    }
  }
  if (!report.failures.empty()) {
    // Grouped by signature, in order of first occurrence.
    std::vector<std::pair<std::string, std::vector<std::uint64_t>>> groups;
    for (const SweepFailure& f : report.failures) {
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const auto& g) { return g.first == f.signature; });
      if (it == groups.end()) {
        groups.emplace_back(f.signature, std::vector<std::uint64_t>{});
        it = groups.end() - 1;
      }
      it->second.push_back(f.index);
    }
    text += fmt::format("failures ({}, {} distinct; # stands for numbers):\n",
                        report.failures.size(), groups.size());
    for (const auto& [signature, indices] : groups) {
      const std::size_t shown = std::min<std::size_t>(indices.size(), 8);
      text += fmt::format(
          "  {:>7}  {}\n           cases {}{}\n", indices.size(), signature,
          fmt::join(indices.begin(), indices.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
          indices.size() > shown ? ", ..." : "");
    }
    text += "shrunk repros:\n";
    for (const SweepFailure& f : report.failures) {
      if (!f.shrunk) {
        continue;
      }
      text += fmt::format("  case {}: {}: {}\n    {}\n", f.index, f.result.kind, f.result.message,
                          describeCase(f.original));
      text += fmt::format("    shrunk in {} steps ({} runs) to: {}\n      {}\n    repro: {}\n",
                          f.shrunk->steps, f.shrunk->evaluations, describeCase(f.shrunk->minimal),
                          f.shrunk->result.message, f.repro.string());
    }
  }
  return text;
}

}  // namespace npu::bench
