// Fuzz target: bring-up bundle manifests (`npu cosim BUNDLE`, `npu verify-bundle BUNDLE`): the
// input is a manifest.yaml, read beside the files of a real bundle (a private copy of the bundle
// NPU_FUZZ_BUNDLE names, default the one the build exports into fuzz-seeds/bundle), so mutated
// fields reach every check behind the YAML parse: file names, CRCs, sizes, regions, layers.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "../fuzz_target.h"
#include "npu/runtime/export_bundle.h"
#include "npu/support/file_io.h"

namespace {

/// A copy of the template bundle in a folder of this process, made once; the manifest is
/// overwritten per input, the other files are only read.
const std::filesystem::path& bundleCopy() {
  static const std::filesystem::path dir = [] {
    const char* given = std::getenv("NPU_FUZZ_BUNDLE");
    const std::filesystem::path source = given != nullptr ? given : NPU_FUZZ_DEFAULT_BUNDLE;
    if (!std::filesystem::exists(source / "manifest.yaml")) {
      std::fprintf(stderr, "bundle_manifest: no bundle at %s (set NPU_FUZZ_BUNDLE)\n",
                   source.c_str());
      std::abort();
    }
    std::filesystem::path copy =
        std::filesystem::temp_directory_path() / ("npu-fuzz-bundle-" + std::to_string(::getpid()));
    std::filesystem::remove_all(copy);
    std::filesystem::copy(source, copy, std::filesystem::copy_options::recursive);
    return copy;
  }();
  return dir;
}

/// Removes the copy when the process ends normally (libFuzzer's -runs, the replay).
struct CopyCleanup {
  ~CopyCleanup() {
    std::error_code ec;
    std::filesystem::remove_all(bundleCopy(), ec);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const CopyCleanup cleanup;
  const std::filesystem::path& dir = bundleCopy();
  return npu::fuzz::runTarget(data, size, [&dir](std::span<const std::uint8_t> bytes) {
    npu::writeBinaryFile(dir / "manifest.yaml", bytes);
    (void)npu::runtime::readBundle(dir);
  });
}
