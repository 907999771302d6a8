// StagedDirectory: build a folder under a hidden name, rename it into place when complete.
#include "npu/support/staged_directory.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>

#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu {
namespace {

std::filesystem::path siblingName(const std::filesystem::path& target, std::string_view role) {
  const std::filesystem::path parent = target.parent_path();
  return (parent.empty() ? std::filesystem::path(".") : parent) /
         fmt::format(".{}.{}-{}", target.filename().string(), role, ::getpid());
}

std::filesystem::path normalTarget(std::filesystem::path target) {
  // "out/" names the folder "out": drop a trailing separator so the sibling names are right.
  if (!target.has_filename()) {
    target = target.parent_path();
  }
  if (target.empty() || target.filename() == "." || target.filename() == "..") {
    fail("{}: cannot be used as an output folder name", target.string());
  }
  return target;
}

}  // namespace

StagedDirectory::StagedDirectory(std::filesystem::path target,
                                 std::initializer_list<std::filesystem::path> outputMarkers)
    : m_target(normalTarget(std::move(target))), m_staging(siblingName(m_target, "partial")) {
  std::error_code ec;
  if (std::filesystem::exists(m_target, ec)) {
    if (!std::filesystem::is_directory(m_target, ec)) {
      fail("{}: exists and is not a folder", m_target.string());
    }
    const bool empty = std::filesystem::is_empty(m_target, ec);
    const bool earlierOutput = std::any_of(
        outputMarkers.begin(), outputMarkers.end(),
        [&](const std::filesystem::path& m) { return std::filesystem::exists(m_target / m, ec); });
    if (!empty && !earlierOutput) {
      fail(
          "{}: exists and is not an earlier output of this command (it would be replaced); "
          "remove it or choose another folder",
          m_target.string());
    }
  }
  std::filesystem::remove_all(m_staging, ec);  // left by an earlier process of the same pid
  createDirectories(m_staging);
}

StagedDirectory::~StagedDirectory() {
  if (!m_committed) {
    std::error_code ec;
    std::filesystem::remove_all(m_staging, ec);  // best effort: never throw from a destructor
  }
}

void StagedDirectory::commit() {
  std::error_code ec;
  const std::filesystem::path old = siblingName(m_target, "old");
  const bool replacing = std::filesystem::exists(m_target, ec);
  if (replacing) {
    std::filesystem::remove_all(old, ec);
    std::filesystem::rename(m_target, old, ec);
    if (ec) {
      fail("{}: cannot move the previous contents aside: {}", m_target.string(), ec.message());
    }
  }
  std::filesystem::rename(m_staging, m_target, ec);
  if (ec) {
    const std::string reason = ec.message();
    if (replacing) {
      std::filesystem::rename(old, m_target, ec);  // put the previous output back
    }
    fail("{}: cannot move the finished output into place: {}", m_target.string(), reason);
  }
  m_committed = true;
  if (replacing) {
    std::filesystem::remove_all(old, ec);
  }
}

}  // namespace npu
