// Tool version, hardware config hash and the provenance stamp of outputs.
#include "npu/support/provenance.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <ctime>

namespace npu {

std::string_view toolVersion() {
  static const std::string version =
      gitCommit() == "unknown" ? fmt::format("npu {} (unknown commit)", projectVersion())
                               : fmt::format("npu {} (git {})", projectVersion(), gitCommit());
  return version;
}

std::string hardwareConfigHash(std::string_view canonicalText) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis
  for (const char c : canonicalText) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;  // FNV-1a 64 prime
  }
  return fmt::format("fnv1a64:{:016x}", hash);
}

std::vector<std::pair<std::string, std::string>> Provenance::fields() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"tool", &tool},
                                   {"commit", &commit},
                                   {"hardware_hash", &hardwareHash},
                                   {"time_utc", &time},
                                   {"host", &host}}) {
    if (!value->empty()) {
      out.emplace_back(key, *value);
    }
  }
  return out;
}

std::string Provenance::line(int schemaVersion) const {
  std::string text = fmt::format("Schema {}; made by {}", schemaVersion, tool);
  if (!hardwareHash.empty()) {
    text += ", hardware " + hardwareHash;
  }
  if (!time.empty()) {
    text += " at " + time;
  }
  if (!host.empty()) {
    text += " on " + host;
  }
  return text;
}

Provenance deterministicProvenance(std::string_view canonicalHardware) {
  Provenance p;
  p.tool = std::string(toolVersion());
  p.commit = std::string(gitCommit());
  if (!canonicalHardware.empty()) {
    p.hardwareHash = hardwareConfigHash(canonicalHardware);
  }
  return p;
}

Provenance reportProvenance(std::string_view canonicalHardware) {
  Provenance p = deterministicProvenance(canonicalHardware);
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> time{};
  p.time =
      std::string(time.data(), std::strftime(time.data(), time.size(), "%Y-%m-%dT%H:%M:%SZ", &utc));
  std::array<char, 256> host{};
  p.host = gethostname(host.data(), host.size() - 1) == 0 ? std::string(host.data()) : "unknown";
  return p;
}

}  // namespace npu
