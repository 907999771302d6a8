// opcheck.json from a sweep; opcheck.md and junit.xml rendered from that JSON; the merge of shard
// folders. Everything past opcheckJson works on the JSON, so a merged sweep and one run of the
// same sweep go through the same rendering.
#include "npu/subnet_bench/op_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "npu/isa/npu_config.h"
#include "npu/subnet_bench/bench_merge.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/markup.h"
#include "npu/support/provenance.h"

namespace npu::bench {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

/// Text for a Markdown table cell: '|' escaped, on one line.
std::string mdCell(std::string text) {
  std::string out;
  for (const char ch : text) {
    out += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
  }
  return out;
}

std::string opName(const SweepOptions& options) {
  return options.family ? std::string(opFamilyName(*options.family)) : "all";
}

/// Unsupported reasons, most frequent first, ties by text (the order of the terminal summary).
Json reasonsJson(const std::map<std::string, std::uint64_t>& reasons) {
  std::vector<std::pair<std::uint64_t, std::string>> sorted;
  for (const auto& [reason, n] : reasons) {
    sorted.emplace_back(n, reason);
  }
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  Json out = Json::array();
  for (const auto& [n, reason] : sorted) {
    out.push_back({{"reason", reason}, {"cases", n}});
  }
  return out;
}

std::uint64_t u64(const Json& j, const char* key) {
  return j.at(key).get<std::uint64_t>();
}

bool isMerged(const Json& j) {
  return j.at("shard").get<std::string>() == "merged";
}

/// The signal that stopped the sweep ("" when it ran to the end, or for reports without the key).
std::string interrupted(const Json& j) {
  return j.contains("interrupted") ? j.at("interrupted").get<std::string>() : std::string();
}

std::string verdictWord(const Json& j) {
  if (j.at("pass").get<bool>()) {
    return "PASS";
  }
  if (u64(j.at("totals"), "fail") > 0) {
    return "FAIL";
  }
  return interrupted(j).empty() ? "INCOMPLETE" : "INTERRUPTED";
}

std::string missingText(const Json& j) {
  if (!interrupted(j).empty()) {
    const std::uint64_t planned =
        shardCases(u64(j, "count"), parseShard(j.at("shard").get<std::string>()));
    return fmt::format("INTERRUPTED by {}: {} of the {} cases were not run", interrupted(j),
                       planned - u64(j, "cases"), planned);
  }
  const Json& missing = j.at("missing_shards");
  if (missing.empty()) {
    return "";
  }
  std::vector<Shard> shards;
  for (const Json& m : missing) {
    shards.push_back(parseShard(m.get<std::string>()));
  }
  return fmt::format("PARTIAL: {} missing; {} of the sweep's {} cases were not run",
                     shardListText(shards), u64(j, "count") - u64(j, "cases"), u64(j, "count"));
}

std::string shardLabel(const Json& j) {
  if (isMerged(j)) {
    const std::size_t merged = j.at("shards").size();
    if (j.at("missing_shards").empty()) {
      return fmt::format(", merged from {} shard{}", merged, merged == 1 ? "" : "s");
    }
    return fmt::format(", merged from {} of {} shards, PARTIAL", merged,
                       merged + j.at("missing_shards").size());
  }
  const Shard shard = parseShard(j.at("shard").get<std::string>());
  return shard.count > 1 ? ", shard " + shardText(shard) : "";
}

std::string shardsLine(const Json& j) {
  const Json& shards = j.at("shards");
  double seconds = 0.0;
  for (const Json& s : shards) {
    seconds += s.at("seconds").get<double>();
  }
  const Shard first = parseShard(shards.front().at("shard").get<std::string>());
  return fmt::format(
      "merged from {} shard{} of {} (shards {} to {}), {:.1f} s of task time; each shard shrank "
      "its own first failures",
      shards.size(), shards.size() == 1 ? "" : "s", first.count,
      shards.front().at("shard").get<std::string>(), shards.back().at("shard").get<std::string>(),
      seconds);
}

std::string summaryLine(const Json& j) {
  const Json& t = j.at("totals");
  const std::string bug = j.at("injected_bug").get<std::string>();
  return fmt::format(
      "opcheck {} on {} ({}{}{}): {} cases, {} pass, {} fail, {} unsupported; seed {}; {:.1f} s",
      j.at("op").get<std::string>(), j.at("hardware").get<std::string>(),
      j.at("engine").get<std::string>(), bug == "none" ? "" : ", injected bug " + bug,
      shardLabel(j), u64(j, "cases"), u64(t, "pass"), u64(t, "fail"), u64(t, "unsupported"),
      u64(j, "seed"), j.at("seconds").get<double>());
}

std::string sweepLine(const Json& j) {
  return fmt::format(
      "Sweep: op `{}`, seed {}, cases 0 to {} of the sweep, hardware {} (`--hw {}`), {} engine, "
      "injected bug {}, field-limit cases {}, up to {} shrunk repros",
      j.at("op").get<std::string>(), u64(j, "seed"), u64(j, "count") - 1,
      j.at("hardware").get<std::string>(), j.at("hw_argument").get<std::string>(),
      j.at("engine").get<std::string>(), j.at("injected_bug").get<std::string>(),
      j.at("field_limits").get<bool>() ? "on" : "off", u64(j, "max_repros"));
}

std::string markdown(const Json& j) {
  std::string out = fmt::format("# npu opcheck: {}\n\n", j.at("op").get<std::string>());
  if (!missingText(j).empty()) {
    out += fmt::format("> **{}**\n\n", missingText(j));
  }
  out += fmt::format("- **{}**\n- {}\n- {}\n- {}\n", verdictWord(j), summaryLine(j), sweepLine(j),
                     provenanceFromJson(j.at("provenance")).line(kOpcheckSchemaVersion));
  if (isMerged(j)) {
    out += fmt::format("- Shards: {}\n", shardsLine(j));
  }
  out += "\n| op | pass | fail | unsupported |\n|---|---:|---:|---:|\n";
  for (const Json& k : j.at("kinds")) {
    out += fmt::format("| {} | {} | {} | {} |\n", k.at("kind").get<std::string>(), u64(k, "pass"),
                       u64(k, "fail"), u64(k, "unsupported"));
  }
  const Json& t = j.at("totals");
  out += fmt::format("| **total** | {} | {} | {} |\n", u64(t, "pass"), u64(t, "fail"),
                     u64(t, "unsupported"));

  out += "\n## Lowering paths reached (cases)\n\n| op |";
  std::string rule = "|---|";
  for (unsigned bit = 0; bit < kFeatureCount; ++bit) {
    out += fmt::format(" {} |", featureName(bit));
    rule += "---:|";
  }
  out += "\n" + rule + "\n";
  for (const Json& k : j.at("kinds")) {
    out += fmt::format("| {} |", k.at("kind").get<std::string>());
    for (const auto& [name, n] : k.at("features").items()) {
      out += fmt::format(" {} |", n.get<std::uint64_t>());
    }
    out += "\n";
  }
  if (!j.at("unsupported_reasons").empty()) {
    out +=
        "\n## Unsupported (codegen limits; # stands for numbers)\n\n| cases | reason |\n"
        "|---:|---|\n";
    for (const Json& r : j.at("unsupported_reasons")) {
      out +=
          fmt::format("| {} | {} |\n", u64(r, "cases"), mdCell(r.at("reason").get<std::string>()));
    }
  }
  const Json& failures = j.at("failures");
  if (!failures.empty()) {
    // Grouped by signature, in order of first occurrence.
    std::vector<std::pair<std::string, std::vector<std::uint64_t>>> groups;
    for (const Json& f : failures) {
      const std::string signature = f.at("signature").get<std::string>();
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const auto& g) { return g.first == signature; });
      if (it == groups.end()) {
        groups.emplace_back(signature, std::vector<std::uint64_t>{});
        it = groups.end() - 1;
      }
      it->second.push_back(u64(f, "index"));
    }
    out += fmt::format(
        "\n## Failures\n\n{} failing cases, {} distinct (# stands for numbers)\n\n| cases | "
        "signature | first cases |\n|---:|---|---|\n",
        failures.size(), groups.size());
    for (const auto& [signature, indices] : groups) {
      std::string first;
      for (std::size_t i = 0; i < std::min<std::size_t>(indices.size(), 8); ++i) {
        first += fmt::format("{}{}", i > 0 ? ", " : "", indices[i]);
      }
      out += fmt::format("| {} | {} | {}{} |\n", indices.size(), mdCell(signature), first,
                         indices.size() > 8 ? ", ..." : "");
    }
    out += "\n### Shrunk repros\n\n";
    for (const Json& f : failures) {
      if (f.at("shrunk").is_null()) {
        continue;
      }
      const Json& s = f.at("shrunk");
      out += fmt::format(
          "- case {}: {}: {}\n  - `{}`\n  - shrunk in {} steps ({} runs) to `{}`: {}\n  - repro: "
          "`{}` (`npu opcheck --repro FILE`)\n",
          u64(f, "index"), f.at("failure").get<std::string>(), f.at("message").get<std::string>(),
          f.at("case").get<std::string>(), u64(s, "steps"), u64(s, "runs"),
          s.at("case").get<std::string>(), s.at("message").get<std::string>(),
          s.at("repro").get<std::string>());
    }
  }
  return out;
}

std::string junit(const Json& j) {
  const std::string op = j.at("op").get<std::string>();
  const std::string shard = j.at("shard").get<std::string>();
  const bool sharded = !isMerged(j) && parseShard(shard).count > 1;
  const std::string suiteName = fmt::format(
      "opcheck.{}.{}{}", op, j.at("hardware").get<std::string>(), sharded ? " shard " + shard : "");
  std::size_t failures = 0;
  for (const Json& k : j.at("kinds")) {
    failures += u64(k, "fail") > 0 ? 1 : 0;
  }
  // An interrupted sweep is one error too: the cases it did not reach were never checked.
  const std::size_t errors = j.at("missing_shards").size() + (interrupted(j).empty() ? 0 : 1);
  const std::size_t tests = j.at("kinds").size() + errors;
  const double seconds = j.at("seconds").get<double>();
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format(
      "<testsuites name=\"npu opcheck\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "time=\"{:.3f}\">\n",
      tests, failures, errors, seconds);
  xml += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
      "time=\"{:.3f}\">\n    <properties>\n",
      escapeMarkup(suiteName), tests, failures, errors, seconds);
  for (const char* key : {"op", "seed", "count", "shard", "hardware", "hw_argument", "engine",
                          "injected_bug", "field_limits", "tool_version", "schema_version"}) {
    const Json& v = j.at(key);
    xml += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", key,
                       escapeMarkup(v.is_string() ? v.get<std::string>() : v.dump()));
  }
  for (const auto& [key, value] : provenanceFromJson(j.at("provenance")).fields()) {
    xml += fmt::format("      <property name=\"provenance.{}\" value=\"{}\"/>\n", key,
                       escapeMarkup(value));
  }
  xml += "    </properties>\n";
  for (const Json& k : j.at("kinds")) {
    const std::string kind = k.at("kind").get<std::string>();
    xml += fmt::format("    <testcase classname=\"opcheck.{}\" name=\"{}\" time=\"0.000\">\n",
                       escapeMarkup(op), escapeMarkup(kind));
    if (u64(k, "fail") > 0) {
      // Every failing case of the kind, one line each; the type is the first one's failure kind
      // ("mismatch", "fault", ...).
      std::string text;
      std::string first;
      std::string type;
      for (const Json& f : j.at("failures")) {
        if (f.at("kind").get<std::string>() != kind) {
          continue;
        }
        const std::string line =
            fmt::format("case {}: {}: {}", u64(f, "index"), f.at("failure").get<std::string>(),
                        f.at("message").get<std::string>());
        if (first.empty()) {
          first = line;
          type = f.at("failure").get<std::string>();
        }
        text += line + "\n";
      }
      xml += fmt::format(
          "      <failure message=\"{} of {} cases failed; {}\" type=\"{}\">{}</failure>\n",
          u64(k, "fail"), u64(k, "pass") + u64(k, "fail") + u64(k, "unsupported"),
          escapeMarkup(first), escapeMarkup(type), escapeMarkup(text));
    }
    xml += fmt::format("      <system-out>{} pass, {} fail, {} unsupported</system-out>\n",
                       u64(k, "pass"), u64(k, "fail"), u64(k, "unsupported"));
    xml += "    </testcase>\n";
  }
  if (!interrupted(j).empty()) {
    xml += fmt::format(
        "    <testcase classname=\"opcheck.{}\" name=\"interrupted\" time=\"0.000\">\n"
        "      <error message=\"{}\" type=\"interrupted\"/>\n    </testcase>\n",
        escapeMarkup(op), escapeMarkup(missingText(j)));
  }
  for (const Json& m : j.at("missing_shards")) {
    const std::string s = m.get<std::string>();
    xml += fmt::format(
        "    <testcase classname=\"opcheck.{}\" name=\"missing shard {}\" time=\"0.000\">\n"
        "      <error message=\"shard {} missing: its cases did not run\" type=\"missing "
        "shard\">{}</error>\n    </testcase>\n",
        escapeMarkup(op), s, s, escapeMarkup(missingText(j)));
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

Json readShardJson(const fs::path& dir) {
  checkFinished(dir, kOpcheckPartialMarker);
  const fs::path file = dir / "opcheck.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    fail("{}: no opcheck.json (not the --report folder of a finished `npu opcheck` run)",
         dir.string());
  }
  Json j;
  try {
    j = Json::parse(readTextFile(file));
  } catch (const Json::exception& e) {
    fail("{}: not JSON (truncated or damaged): {}", file.string(), e.what());
  }
  if (!j.is_object() || !j.contains("schema_version") ||
      !j.at("schema_version").is_number_integer()) {
    fail("{}: not an `npu opcheck` report of schema {} (no \"schema_version\"; written by: {})",
         file.string(), kOpcheckSchemaVersion, j.value("tool_version", std::string("unknown")));
  }
  if (j.at("schema_version").get<int>() != kOpcheckSchemaVersion) {
    fail(
        "{}: report schema_version {}, these tools read schema_version {} (written by other "
        "tools: {})",
        file.string(), j.at("schema_version").dump(), kOpcheckSchemaVersion,
        j.value("tool_version", std::string("unknown")));
  }
  if (j.value("shard", std::string()) == "merged") {
    fail("{}: a merged report; merge the shards' own folders", file.string());
  }
  return j;
}

}  // namespace

std::string opcheckJson(const SweepReport& report, const SweepOptions& options) {
  const SweepCounts all = report.total();
  Json j;
  j["schema_version"] = kOpcheckSchemaVersion;
  j["provenance"] = provenanceJson<Json>(reportProvenance(isa::toYaml(options.check.hw)));
  j["tool_version"] = std::string(toolVersion());
  j["op"] = opName(options);
  j["seed"] = options.seed;
  j["count"] = options.count;
  j["shard"] = shardText(options.shard);
  j["missing_shards"] = Json::array();
  j["interrupted"] = report.interruptedBy;
  j["hardware"] = options.check.hw.name;
  j["hw_argument"] = options.hwArgument;
  j["engine"] = std::string(engineName(options.check.engine));
  j["injected_bug"] = std::string(bugName(options.check.bug));
  j["field_limits"] = options.generator.fieldLimits;
  j["max_repros"] = options.maxRepros;
  j["pass"] = report.failures.empty() && report.interruptedBy.empty();
  j["seconds"] = report.seconds;
  j["cases"] = all.total();
  j["totals"] = {{"pass", all.pass}, {"fail", all.fail}, {"unsupported", all.unsupported}};
  Json kinds = Json::array();
  for (const auto& [kind, c] : report.counts) {
    Json features = Json::object();
    for (unsigned bit = 0; bit < kFeatureCount; ++bit) {
      features[std::string(featureName(bit))] = c.features[bit];
    }
    kinds.push_back({{"kind", std::string(caseKindName(kind))},
                     {"pass", c.pass},
                     {"fail", c.fail},
                     {"unsupported", c.unsupported},
                     {"features", features}});
  }
  j["kinds"] = kinds;
  j["unsupported_reasons"] = reasonsJson(report.unsupportedReasons);
  Json failures = Json::array();
  for (const SweepFailure& f : report.failures) {
    Json shrunk;  // null
    if (f.shrunk) {
      shrunk = {{"steps", f.shrunk->steps},
                {"runs", f.shrunk->evaluations},
                {"case", describeCase(f.shrunk->minimal)},
                {"message", f.shrunk->result.message},
                {"repro", f.repro.string()}};
    }
    failures.push_back({{"index", f.index},
                        {"kind", std::string(caseKindName(f.original.kind))},
                        {"failure", f.result.kind},
                        {"message", f.result.message},
                        {"signature", f.signature},
                        {"case", describeCase(f.original)},
                        {"shrunk", shrunk}});
  }
  j["failures"] = failures;
  return j.dump(2) + "\n";
}

void writeOpcheckReports(const fs::path& dir, const std::string& json) {
  const Json j = Json::parse(json);
  writeTextFile(dir / "opcheck.md", markdown(j));
  writeTextFile(dir / "junit.xml", junit(j));
  writeTextFile(dir / "opcheck.json", j.dump(2) + "\n");
}

std::string opcheckSummaryLine(const std::string& json) {
  return summaryLine(Json::parse(json));
}

bool opcheckPassed(const std::string& json) {
  return Json::parse(json).at("pass").get<bool>();
}

std::string mergeOpcheckOutputs(const std::vector<fs::path>& dirs, bool allowPartial) {
  if (dirs.empty()) {
    fail("merge: no shard outputs given");
  }
  std::vector<Json> shards;
  for (const fs::path& dir : dirs) {
    shards.push_back(readShardJson(dir));
  }
  const Json& first = shards.front();
  std::vector<std::pair<Shard, std::string>> split;
  try {
    for (std::size_t i = 0; i < shards.size(); ++i) {
      for (const char* key : {"tool_version", "op", "seed", "count", "hardware", "hw_argument",
                              "engine", "injected_bug", "field_limits", "max_repros"}) {
        if (shards[i].at(key) != first.at(key)) {
          fail("{}: {} {} differs from {} of {} (shards of different sweeps)", dirs[i].string(),
               key, shards[i].at(key).dump(), first.at(key).dump(), dirs.front().string());
        }
      }
      const Json& hash = shards[i].at("provenance").at("hardware_hash");
      if (hash != first.at("provenance").at("hardware_hash")) {
        fail("{}: hardware config (hash) {} differs from {} of {} (shards of different sweeps)",
             dirs[i].string(), hash.dump(), first.at("provenance").at("hardware_hash").dump(),
             dirs.front().string());
      }
      split.emplace_back(parseShard(shards[i].at("shard").get<std::string>()), dirs[i].string());
    }
  } catch (const Json::exception& e) {
    fail("{}: not a complete `npu opcheck` report: {}", dirs.front().string(), e.what());
  }
  if (first.at("tool_version").get<std::string>() != toolVersion()) {
    fail("{}: written by {}, but this is {} (merge with the tools that ran the shards)",
         dirs.front().string(), first.at("tool_version").get<std::string>(), toolVersion());
  }
  const std::vector<Shard> missing = missingShards(split);
  if (!missing.empty() && !allowPartial) {
    fail("{} missing (of {}; give every shard's folder, or --allow-partial)",
         shardListText(missing), split.front().first.count);
  }
  std::vector<std::size_t> order(shards.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return split[a].first.index < split[b].first.index;
  });

  Json merged = first;
  merged["shard"] = "merged";
  // The merge's own time and host; the hardware config every shard ran on.
  Provenance provenance = reportProvenance();
  provenance.hardwareHash = first.at("provenance").at("hardware_hash").get<std::string>();
  merged["provenance"] = provenanceJson<Json>(provenance);
  Json shardList = Json::array();
  Json missingList = Json::array();
  for (const Shard& m : missing) {
    missingList.push_back(shardText(m));
  }
  std::uint64_t cases = 0;
  double seconds = 0.0;
  std::map<CaseKind, Json> kinds;
  std::map<std::string, std::uint64_t> reasons;
  std::vector<Json> failures;
  std::uint64_t pass = 0;
  std::uint64_t failed = 0;
  std::uint64_t unsupported = 0;
  try {
    for (const std::size_t i : order) {
      const Json& s = shards[i];
      shardList.push_back(
          {{"shard", s.at("shard")}, {"from", dirs[i].string()}, {"seconds", s.at("seconds")}});
      cases += u64(s, "cases");
      seconds += s.at("seconds").get<double>();
      pass += u64(s.at("totals"), "pass");
      failed += u64(s.at("totals"), "fail");
      unsupported += u64(s.at("totals"), "unsupported");
      for (const Json& k : s.at("kinds")) {
        const std::string name = k.at("kind").get<std::string>();
        const std::optional<CaseKind> kind = parseCaseKind(name);
        if (!kind) {
          fail("{}: unknown op kind '{}'", dirs[i].string(), name);
        }
        auto [it, added] = kinds.emplace(*kind, k);
        if (!added) {
          for (const char* key : {"pass", "fail", "unsupported"}) {
            it->second[key] = u64(it->second, key) + u64(k, key);
          }
          for (const auto& [feature, n] : k.at("features").items()) {
            it->second["features"][feature] =
                it->second["features"].value(feature, std::uint64_t{0}) + n.get<std::uint64_t>();
          }
        }
      }
      for (const Json& r : s.at("unsupported_reasons")) {
        reasons[r.at("reason").get<std::string>()] += u64(r, "cases");
      }
      for (const Json& f : s.at("failures")) {
        failures.push_back(f);
      }
    }
  } catch (const Json::exception& e) {
    fail("merge: a shard's opcheck.json is not complete: {}", e.what());
  }
  std::stable_sort(failures.begin(), failures.end(),
                   [](const Json& a, const Json& b) { return u64(a, "index") < u64(b, "index"); });
  merged["shards"] = shardList;
  merged["missing_shards"] = missingList;
  merged["pass"] = failed == 0 && missing.empty();
  merged["seconds"] = seconds;
  merged["cases"] = cases;
  merged["totals"] = {{"pass", pass}, {"fail", failed}, {"unsupported", unsupported}};
  Json kindList = Json::array();
  for (auto& [kind, k] : kinds) {
    kindList.push_back(k);
  }
  merged["kinds"] = kindList;
  merged["unsupported_reasons"] = reasonsJson(reasons);
  merged["failures"] = failures;
  if (missing.empty() && cases != u64(merged, "count")) {
    fail("the shards ran {} cases, but the sweep has {}", cases, u64(merged, "count"));
  }
  // "shards" goes after "shard", as in a merged bench.json.
  Json ordered;
  for (const auto& [key, value] : merged.items()) {
    if (key == "shards") {
      continue;
    }
    ordered[key] = value;
    if (key == "shard") {
      ordered["shards"] = shardList;
    }
  }
  return ordered.dump(2) + "\n";
}

}  // namespace npu::bench
