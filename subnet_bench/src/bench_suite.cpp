// Suite files: reading them with errors that name the file and line.
#include "npu/subnet_bench/bench_suite.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <set>

#include "npu/support/data_dir.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/yaml_reader.h"

namespace npu::bench {
namespace {

namespace fs = std::filesystem;

/// The per-entry settings `defaults:` may set.
struct Defaults {
  double minCosine = 0.99;
  double cycleTolerance = 0.02;
};

class SuiteParser {
 public:
  SuiteParser(std::string source, fs::path baseDir)
      : m_source(std::move(source)), m_baseDir(std::move(baseDir)) {}

  BenchSuite run(const YAML::Node& root) {
    if (!root.IsMap()) {
      fail("{}: a suite file is a map with 'subnets:' (see docs/bench.md)", at(root));
    }
    reader(root).expectMap("the suite", {"suite", "baselines", "defaults", "subnets"});
    BenchSuite suite;
    suite.name = fs::path(m_source).stem().string();
    suite.baselineDir = m_baseDir / "../baselines";
    Defaults defaults;
    // A node handle, not a pointer: the iterator's pairs are temporaries.
    std::optional<YAML::Node> subnets;
    for (const auto& entry : root) {
      const std::string key = entry.first.as<std::string>();
      const YAML::Node& value = entry.second;
      if (key == "suite") {
        suite.name = name(value, "suite");
      } else if (key == "baselines") {
        suite.baselineDir = m_baseDir / text(value, "baselines");
      } else if (key == "defaults") {
        readDefaults(value, defaults);
      } else if (key == "subnets") {
        subnets = entry.second;
      }
    }
    if (!subnets) {
      fail("{}: no 'subnets:' list", at(root));
    }
    if (!subnets->IsSequence() || subnets->size() == 0) {
      fail("{}: 'subnets' must be a non-empty list", at(*subnets));
    }
    std::set<std::string> names;
    for (const YAML::Node& node : *subnets) {
      SubnetEntry entry = readEntry(node, defaults);
      if (!names.insert(entry.name).second) {
        fail("{}: subnet '{}' is listed twice", entry.location, entry.name);
      }
      suite.subnets.push_back(std::move(entry));
    }
    suite.baselineDir = suite.baselineDir.lexically_normal();
    return suite;
  }

 private:
  /// `value` as a node of the shared reader, for its key checks.
  [[nodiscard]] yaml::Node reader(const YAML::Node& value) const { return {value, m_source}; }

  std::string at(const YAML::Node& node) const {
    return fmt::format("{}:{}", m_source, std::max(node.Mark().line, 0) + 1);
  }

  std::string text(const YAML::Node& node, std::string_view key) const {
    if (!node.IsScalar() || node.Scalar().empty()) {
      fail("{}: '{}' must be a non-empty string", at(node), key);
    }
    return node.Scalar();
  }

  std::string name(const YAML::Node& node, std::string_view key) const {
    std::string value = text(node, key);
    const bool ok = std::all_of(value.begin(), value.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
    });
    if (!ok) {
      fail("{}: '{}' = '{}' may hold only letters, digits, '_', '-' and '.'", at(node), key, value);
    }
    return value;
  }

  double number(const YAML::Node& node, std::string_view key) const {
    if (node.IsScalar()) {
      try {
        return node.as<double>();
      } catch (const YAML::Exception&) {
      }
    }
    fail("{}: '{}' must be a number", at(node), key);
  }

  double cosine(const YAML::Node& node) const {
    const double v = number(node, "cosine");
    if (!(v >= 0.0 && v <= 1.0)) {
      fail("{}: 'cosine' must be in [0, 1], got {}", at(node), node.Scalar());
    }
    return v;
  }

  /// A fraction in [0, 1] or a percentage "2%".
  double tolerance(const YAML::Node& node) const {
    double v = -1.0;
    if (node.IsScalar() && !node.Scalar().empty() && node.Scalar().back() == '%') {
      const std::string digits = node.Scalar().substr(0, node.Scalar().size() - 1);
      char* end = nullptr;
      const double percent = std::strtod(digits.c_str(), &end);
      if (!digits.empty() && end == digits.c_str() + digits.size()) {
        v = percent / 100.0;
      }
    } else if (node.IsScalar()) {
      try {
        v = node.as<double>();
      } catch (const YAML::Exception&) {
      }
    }
    if (!(v >= 0.0 && v <= 1.0)) {
      fail(
          "{}: 'cycle_tolerance' must be a fraction in [0, 1] or a percentage in [0%, 100%], got "
          "'{}'",
          at(node), node.IsScalar() ? node.Scalar() : std::string("(not a scalar)"));
    }
    return v;
  }

  void readDefaults(const YAML::Node& node, Defaults& defaults) const {
    if (!node.IsMap()) {
      fail("{}: 'defaults' must be a map of cosine and cycle_tolerance", at(node));
    }
    reader(node).expectMap("'defaults'", {"cosine", "cycle_tolerance"});
    for (const auto& entry : node) {
      const std::string key = entry.first.as<std::string>();
      if (key == "cosine") {
        defaults.minCosine = cosine(entry.second);
      } else if (key == "cycle_tolerance") {
        defaults.cycleTolerance = tolerance(entry.second);
      }
    }
  }

  std::vector<std::int64_t> shape(const YAML::Node& node, const std::string& what) const {
    std::vector<std::int64_t> dims;
    bool ok = node.IsSequence() && node.size() > 0;
    for (std::size_t i = 0; ok && i < node.size(); ++i) {
      try {
        ok = node[i].IsScalar();
        dims.push_back(ok ? node[i].as<std::int64_t>() : 0);
        ok = ok && dims.back() > 0;
      } catch (const YAML::Exception&) {
        ok = false;
      }
    }
    if (!ok) {
      fail("{}: {} must be a shape: a list of positive integers, e.g. [1, 64, 56, 56]", at(node),
           what);
    }
    return dims;
  }

  std::vector<std::pair<std::string, std::vector<std::int64_t>>> inputs(
      const YAML::Node& node) const {
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> out;
    if (node.IsMap() && node.size() > 0) {
      for (const auto& entry : node) {
        const std::string input = entry.first.as<std::string>();
        out.emplace_back(input, shape(entry.second, fmt::format("input '{}'", input)));
      }
      return out;
    }
    if (node.IsSequence()) {
      // One shape: the graph's only input, whatever its name.
      out.emplace_back("", shape(node, "'input'"));
      return out;
    }
    fail("{}: 'input' must be a shape ([1, 64, 56, 56]) or a map of input name to shape", at(node));
  }

  fs::path existingFile(const YAML::Node& node, std::string_view key) const {
    const fs::path path = (m_baseDir / text(node, key)).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      fail("{}: {} file '{}' does not exist", at(node), key, path.string());
    }
    return path;
  }

  SubnetEntry readEntry(const YAML::Node& node, const Defaults& defaults) const {
    if (!node.IsMap()) {
      fail("{}: a subnet is a map with name, graph and input", at(node));
    }
    reader(node).expectMap("a subnet",
                           {"name", "graph", "input", "quant", "cosine", "cycle_tolerance"});
    SubnetEntry entry;
    entry.location = at(node);
    entry.minCosine = defaults.minCosine;
    entry.cycleTolerance = defaults.cycleTolerance;
    for (const auto& item : node) {
      const std::string key = item.first.as<std::string>();
      const YAML::Node& value = item.second;
      if (key == "name") {
        entry.name = name(value, "name");
      } else if (key == "graph") {
        entry.graph = existingFile(value, "graph");
      } else if (key == "input") {
        entry.inputs = inputs(value);
      } else if (key == "quant") {
        entry.quantConfig = existingFile(value, "quant");
      } else if (key == "cosine") {
        entry.minCosine = cosine(value);
      } else if (key == "cycle_tolerance") {
        entry.cycleTolerance = tolerance(value);
      }
    }
    for (const auto& [key, missing] :
         {std::pair{"name", entry.name.empty()}, std::pair{"graph", entry.graph.empty()},
          std::pair{"input", entry.inputs.empty()}}) {
      if (missing) {
        fail("{}: subnet{} has no '{}'", entry.location,
             entry.name.empty() ? "" : fmt::format(" '{}'", entry.name), key);
      }
    }
    return entry;
  }

  std::string m_source;
  fs::path m_baseDir;
};

}  // namespace

BenchSuite parseSuite(std::string_view text, const std::string& source,
                      const std::filesystem::path& baseDir) {
  const YAML::Node root = yaml::parse(text, source).raw();  // syntax errors FILE:LINE:COL
  try {
    return SuiteParser(source, baseDir).run(root);
  } catch (const YAML::Exception& e) {
    yaml::failOnYamlException(e, source);
  }
}

BenchSuite loadSuite(const std::filesystem::path& path) {
  const std::string text = readTextFile(path);
  BenchSuite suite = parseSuite(text, path.string(), path.parent_path());
  suite.path = path;
  suite.digest = textDigest(text);
  return suite;
}

std::string textDigest(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char ch : text) {
    hash = (hash ^ static_cast<unsigned char>(ch)) * 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", hash);
}

std::filesystem::path defaultSuitePath() {
  if (const char* dir = std::getenv("NPU_SUBNET_BENCH_DIR"); dir != nullptr && *dir != '\0') {
    return std::filesystem::path(dir) / "suites" / "default.yaml";
  }
  return dataFile(std::filesystem::path("subnet_bench") / "suites" / "default.yaml");
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

}  // namespace npu::bench
