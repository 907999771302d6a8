// The data folder: $NPU_DATA_DIR, else the nearest share/npu above the running code.
#include "npu/support/data_dir.h"

#include "npu/support/error.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <system_error>
#include <vector>

namespace npu {
namespace {

constexpr const char* kDataSubdir = "share/npu";

/// The files the running code was loaded from: the executable, and the shared object holding
/// this function when it is not the executable (a Python extension module, a consumer's .so).
std::vector<std::filesystem::path> codeLocations() {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && !exe.empty()) {
    out.push_back(exe);
  }
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&codeLocations), &info) != 0 &&
      info.dli_fname != nullptr && *info.dli_fname != '\0') {
    const std::filesystem::path object = std::filesystem::weakly_canonical(info.dli_fname, ec);
    if (!ec && (out.empty() || object != out.front())) {
      out.push_back(object);
    }
  }
  return out;
}

}  // namespace

std::filesystem::path dataDir() {
  if (const char* dir = std::getenv("NPU_DATA_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  std::error_code ec;
  for (const std::filesystem::path& code : codeLocations()) {
    for (std::filesystem::path dir = code.parent_path(); !dir.empty(); dir = dir.parent_path()) {
      const std::filesystem::path candidate = dir / kDataSubdir;
      if (std::filesystem::is_directory(candidate, ec)) {
        return candidate;
      }
      if (dir == dir.root_path()) {
        break;
      }
    }
  }
  return {};
}

std::filesystem::path dataFile(const std::filesystem::path& relative) {
  const std::filesystem::path dir = dataDir();
  if (dir.empty()) {
    fail("{}: no data folder found (looked for {})", relative.string(), dataDirSearchText());
  }
  std::error_code ec;
  // The real path, for messages and reports: the build tree's data folder links into the source
  // tree, an installed one is already real.
  std::filesystem::path path = std::filesystem::weakly_canonical(dir / relative, ec);
  if (ec) {
    path = dir / relative;
  }
  if (!std::filesystem::exists(path, ec)) {
    fail("{}: not found in the data folder {}", relative.string(), dir.string());
  }
  return path;
}

std::string dataDirSearchText() {
  if (const char* dir = std::getenv("NPU_DATA_DIR"); dir != nullptr && *dir != '\0') {
    return std::string("$NPU_DATA_DIR=") + dir;
  }
  std::vector<std::string> folders;
  for (const std::filesystem::path& code : codeLocations()) {
    folders.push_back(code.parent_path().string());
  }
  return fmt::format(
      "share/npu above {} (set NPU_DATA_DIR to the folder holding configs/, examples/, "
      "subnet_bench/)",
      fmt::join(folders, ", "));
}

}  // namespace npu
