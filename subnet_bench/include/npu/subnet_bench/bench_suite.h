// The subnetwork benchmark's suite file (docs/bench.md): which graphs `npu bench` runs, with
// their input shapes, quantization config and tolerances.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace npu::bench {

/// One subnetwork of a suite.
struct SubnetEntry {
  /// Unique in the suite; letters, digits, '_', '-' and '.'; the key of its baseline entry.
  std::string name;
  /// The graph (YAML graph spec or ONNX), resolved against the suite file's folder.
  std::filesystem::path graph;
  /// Expected shape of every graph input, by name, in the order written. The graph must have
  /// exactly these inputs with exactly these shapes (checked when the subnet runs), so a suite
  /// entry documents what it measures and an edited graph cannot change it silently.
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> inputs;
  /// Quantization config YAML (docs/quant-config.md); empty: the defaults.
  std::filesystem::path quantConfig;
  /// The run fails when the cosine similarity of the graph outputs, NPU vs fp32, is below this.
  double minCosine = 0.99;
  /// Cycles may exceed the baseline by this fraction (0.02 = 2%) before the run fails; cycles
  /// that drop by more than it are reported as an improvement.
  double cycleTolerance = 0.02;
  /// Where the entry was written, for messages ("suite.yaml:12").
  std::string location;
};

struct BenchSuite {
  /// The `suite:` name (default: the file's stem).
  std::string name;
  /// The suite file as given.
  std::filesystem::path path;
  /// Folder of the per-hardware baseline files `<hw>.yaml` (`baselines:`, default
  /// `../baselines` relative to the suite file).
  std::filesystem::path baselineDir;
  std::vector<SubnetEntry> subnets;
  /// 16 hex digits of a 64-bit FNV-1a hash of the file's text, recorded in every report so that
  /// a merge refuses shards that read different versions of the suite.
  std::string digest;
};

/// 16 hex digits of the 64-bit FNV-1a hash of `text`.
std::string textDigest(std::string_view text);

/// Parses suite YAML; `source` names it in errors ("<source>:<line>: ..."), `baseDir` resolves
/// the graph, quant and baselines paths. Rejects unknown keys, missing graphs and inputs,
/// duplicate or malformed names, thresholds out of range and graph or quant files that do not
/// exist.
BenchSuite parseSuite(std::string_view text, const std::string& source,
                      const std::filesystem::path& baseDir);

/// Reads and parses a suite file.
BenchSuite loadSuite(const std::filesystem::path& path);

/// The bundled default suite: suites/default.yaml under $NPU_SUBNET_BENCH_DIR when set, else
/// subnet_bench/suites/default.yaml in the data folder (npu::dataFile).
std::filesystem::path defaultSuitePath();

/// "[1, 64, 56, 56]".
std::string shapeText(const std::vector<std::int64_t>& shape);

}  // namespace npu::bench
