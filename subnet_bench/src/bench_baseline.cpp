// Baseline files: reading, writing, and the cycle comparison.
#include "npu/subnet_bench/bench_baseline.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>

#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/yaml_reader.h"

namespace npu::bench {
namespace {

/// A non-negative number of type T.
template <typename T>
T read(const yaml::Node& node, std::string_view key) {
  if (node.raw().IsScalar()) {
    try {
      const T v = node.raw().as<T>();
      if (v >= T{0}) {
        return v;
      }
    } catch (const YAML::Exception&) {
    }
  }
  node.fail("'{}' must be a non-negative number", key);
}

BaselineEntry readEntry(const yaml::Node& node, const std::string& name) {
  node.expectMap(fmt::format("the baseline of '{}'", name),
                 {"cycles", "macs", "utilization", "cosine"});
  BaselineEntry entry;
  const std::optional<yaml::Node> cycles = node.optional("cycles");
  if (!cycles) {
    node.fail("the baseline of '{}' has no 'cycles'", name);
  }
  entry.cycles = read<std::uint64_t>(*cycles, "cycles");
  if (entry.cycles == 0) {
    cycles->fail("the baseline of '{}' has 0 cycles (a run takes at least one)", name);
  }
  if (const std::optional<yaml::Node> macs = node.optional("macs")) {
    entry.macs = read<std::uint64_t>(*macs, "macs");
  }
  if (const std::optional<yaml::Node> utilization = node.optional("utilization")) {
    entry.utilization = read<double>(*utilization, "utilization");
  }
  if (const std::optional<yaml::Node> cosine = node.optional("cosine")) {
    entry.cosine = read<double>(*cosine, "cosine");
  }
  return entry;
}

Baselines parseRoot(const yaml::Node& root) {
  if (!root.raw().IsMap()) {
    root.fail("a baseline file is a map with 'hardware:' and 'subnets:'");
  }
  root.expectMap("a baseline file", {"hardware", "subnets"});
  const std::optional<yaml::Node> hardware = root.optional("hardware");
  const std::optional<yaml::Node> subnets = root.optional("subnets");
  if (!hardware || !subnets) {
    root.fail("a baseline file needs 'hardware:' and 'subnets:'");
  }
  Baselines baselines;
  if (!hardware->raw().IsScalar() || hardware->raw().Scalar().empty()) {
    hardware->fail("'hardware' must be a hardware config name");
  }
  baselines.hardware = hardware->raw().Scalar();
  if (subnets->raw().IsNull()) {
    return baselines;
  }
  if (!subnets->raw().IsMap()) {
    subnets->fail("'subnets' must be a map of subnet name to its figures");
  }
  for (const auto& subnet : subnets->raw()) {
    const std::string name = subnet.first.as<std::string>();
    const yaml::Node figures(subnet.second, root.source(), fmt::format("subnets.{}", name));
    if (!baselines.subnets.emplace(name, readEntry(figures, name)).second) {
      yaml::Node(subnet.first, root.source()).fail("subnet '{}' has a second baseline entry", name);
    }
  }
  return baselines;
}

/// An exclusive fcntl (POSIX record) lock on a lock file, held for the object's lifetime.
///
/// fcntl, not flock: POSIX locks are what NFS carries to the server (NLM on NFSv3, the protocol's
/// own locks on NFSv4), so tasks on different machines exclude each other; flock() is local to
/// one machine on some systems and NFS mounts (`local_lock=flock`). POSIX locks belong to the
/// process, so threads of one process are excluded by a mutex first. The lock file is a file of
/// its own, never replaced: the baseline file itself is replaced by a rename on every update, and
/// a lock on its old inode would not exclude a writer that opened the new one.
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& path) : m_threads(processMutex()) {
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (m_fd < 0) {
      fail("{}: cannot open the lock file: {}", path.string(), std::strerror(errno));
    }
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file
    int rc = 0;
    while ((rc = ::fcntl(m_fd, F_SETLKW, &lock)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
      const int error = errno;
      ::close(m_fd);
      fail(
          "{}: cannot lock: {} (a file system without working locks: run the shards without "
          "--update-baselines and apply their figures once with `npu merge --update-baselines`, "
          "docs/bench.md)",
          path.string(), std::strerror(error));
    }
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock() {
    ::close(m_fd);  // releases the lock
  }

 private:
  static std::mutex& processMutex() {
    static std::mutex mutex;
    return mutex;
  }

  std::lock_guard<std::mutex> m_threads;
  int m_fd = -1;
};

}  // namespace

Baselines updateBaselineFile(const std::filesystem::path& path, const std::string& hardware,
                             const std::map<std::string, BaselineEntry>& entries) {
  const std::filesystem::path parent = path.parent_path().empty() ? "." : path.parent_path();
  createDirectories(parent);
  std::filesystem::path lockPath = path;
  lockPath += ".lock";
  const FileLock lock(lockPath);
  // Read under the lock: whatever another writer renamed into place before we got it is kept.
  std::error_code ec;
  Baselines baselines{hardware, {}};
  if (std::filesystem::exists(path, ec)) {
    baselines = loadBaselines(path);
    if (baselines.hardware != hardware) {
      fail("{}: the baselines are for hardware '{}', not '{}' (give --baseline or --hw)",
           path.string(), baselines.hardware, hardware);
    }
  }
  for (const auto& [name, entry] : entries) {
    baselines.subnets[name] = entry;
  }
  writeTextFile(path, baselinesYaml(baselines));  // a synced temporary renamed into place
  return baselines;
}

Baselines parseBaselines(std::string_view text, const std::string& source) {
  const yaml::Node root = yaml::parse(text, source);
  try {
    return parseRoot(root);
  } catch (const YAML::Exception& e) {
    yaml::failOnYamlException(e, source);
  }
}

Baselines loadBaselines(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    fail(
        "{}: no baseline file (create it with `npu bench --update-baselines` on this hardware, or "
        "name one with --baseline)",
        path.string());
  }
  return parseBaselines(readTextFile(path), path.string());
}

std::string baselinesYaml(const Baselines& baselines) {
  std::string out = fmt::format(
      "# Subnetwork benchmark baselines for hardware {}: per subnet, NPU cycles per inference\n"
      "# (compared, within each suite entry's cycle_tolerance), MACs, MAC utilization and the\n"
      "# output cosine vs fp32 (context). Written by `npu bench --update-baselines`.\n"
      "hardware: {}\nsubnets:\n",
      baselines.hardware, baselines.hardware);
  for (const auto& [name, e] : baselines.subnets) {
    out += fmt::format("  {}: {{cycles: {}, macs: {}, utilization: {:.4f}, cosine: {:.5f}}}\n",
                       name, e.cycles, e.macs, e.utilization, e.cosine);
  }
  return out;
}

std::string_view cycleVerdictName(CycleVerdict verdict) {
  switch (verdict) {
    case CycleVerdict::NoBaseline:
      return "no baseline";
    case CycleVerdict::Within:
      return "within";
    case CycleVerdict::Regression:
      return "regression";
    case CycleVerdict::Improvement:
      return "improvement";
  }
  return "?";
}

CycleComparison compareCycles(std::uint64_t cycles, std::optional<std::uint64_t> baseline,
                              double tolerance) {
  CycleComparison c;
  if (!baseline) {
    return c;
  }
  c.baseline = *baseline;
  if (*baseline == 0) {
    c.change = cycles == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  } else {
    c.change = (static_cast<double>(cycles) - static_cast<double>(*baseline)) /
               static_cast<double>(*baseline);
  }
  // The slack keeps a change of exactly the tolerance within it despite rounding ("2%" and
  // 20 / 1000 need not be the same double).
  constexpr double kSlack = 1e-9;
  if (c.change > tolerance + kSlack) {
    c.verdict = CycleVerdict::Regression;
  } else if (c.change < -tolerance - kSlack) {
    c.verdict = CycleVerdict::Improvement;
  } else {
    c.verdict = CycleVerdict::Within;
  }
  return c;
}

}  // namespace npu::bench
