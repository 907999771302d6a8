// Provenance of an output: which tools (version, git commit), on which hardware config, and for
// reports when and where it was made; every report, summary and manifest records it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace npu {

/// The project version, "0.1.0". Taken at build time.
std::string_view projectVersion();

/// The git commit the tools were built from, 12 hex digits, with "-dirty" after it when the tree
/// had uncommitted changes; "unknown" outside a git checkout. Taken at build time.
std::string_view gitCommit();

/// "npu 0.1.0 (git 0123456789ab)", or "npu 0.1.0 (unknown commit)": what `npu --version` prints
/// and what a farm compares so that outputs of different builds are never mixed.
std::string_view toolVersion();

/// A stable hash of a hardware config's canonical text (isa::toYaml): "fnv1a64:" and 16 hex
/// digits of the 64-bit FNV-1a hash of its bytes. Equal configs give equal hashes on any host.
std::string hardwareConfigHash(std::string_view canonicalText);

/// Where an output comes from. The deterministic fields (tool version, commit, hardware hash) may
/// go where outputs are compared byte for byte; time and host only into reports.
struct Provenance {
  /// toolVersion().
  std::string tool;
  /// gitCommit().
  std::string commit;
  /// hardwareConfigHash() of the config the output is about; empty when none.
  std::string hardwareHash;
  /// UTC time the output was made, "2026-11-25T16:12:38Z"; empty in a deterministic stamp.
  std::string time;
  /// The host's name; empty in a deterministic stamp.
  std::string host;

  /// The non-empty fields as (key, value) in a fixed order: tool, commit, hardware_hash,
  /// time_utc, host. JSON writers put them in a "provenance" object, JUnit in properties named
  /// "provenance.<key>".
  std::vector<std::pair<std::string, std::string>> fields() const;

  /// One line for Markdown and HTML reports: "Schema 1; made by npu 0.1.0 (git 0123456789ab),
  /// hardware fnv1a64:..., at 2026-11-25T16:12:38Z on host" (the parts that are set).
  std::string line(int schemaVersion) const;
};

/// The "provenance" object of a JSON output (nlohmann::json or ordered_json): fields() as keys.
template <typename Json>
Json provenanceJson(const Provenance& provenance) {
  Json object = Json::object();
  for (const auto& [key, value] : provenance.fields()) {
    object[key] = value;
  }
  return object;
}

/// The Provenance a "provenance" object of provenanceJson holds (missing keys stay empty).
template <typename Json>
Provenance provenanceFromJson(const Json& object) {
  Provenance p;
  p.tool = object.value("tool", std::string());
  p.commit = object.value("commit", std::string());
  p.hardwareHash = object.value("hardware_hash", std::string());
  p.time = object.value("time_utc", std::string());
  p.host = object.value("host", std::string());
  return p;
}

/// The provenance of a report made now on this host: tools, commit, the hash of
/// `canonicalHardware` (none when empty), UTC time and host name.
Provenance reportProvenance(std::string_view canonicalHardware = {});

/// The deterministic part only (no time, no host), for outputs compared byte for byte.
Provenance deterministicProvenance(std::string_view canonicalHardware = {});

}  // namespace npu
