// Replays inputs through a fuzz target without libFuzzer: every file named, and every file in
// every directory named, in sorted order. The ordinary build runs the seed corpora and
// tests/fuzz/regressions/<target>/ this way (ctest fuzz.*), so a fixed bug stays fixed.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "npu/support/error.h"
#include "npu/support/file_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path path(argv[i]);
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::directory_iterator(path)) {
        if (entry.is_regular_file() && entry.path().filename() != ".keep") {
          files.push_back(entry.path());
        }
      }
    } else {
      files.push_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::vector<std::uint8_t> bytes;
    try {
      bytes = npu::readBinaryFile(file);
    } catch (const npu::Error& e) {
      std::fprintf(stderr, "replay: %s\n", e.what());
      return 1;
    }
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return files.empty() ? 1 : 0;
}
