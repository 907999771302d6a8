// Replays inputs through a fuzz target without libFuzzer: every file named, and every file in
// every directory named, in sorted order. The ordinary build runs the seed corpora and
// tests/fuzz/regressions/<target>/ this way (ctest fuzz.*), so a fixed bug stays fixed, and checks
// the shape of every rejection's message (message_shape.h): a failure is also a misshapen message.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_target.h"
#include "message_shape.h"
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
  std::size_t rejected = 0;
  std::size_t misshapen = 0;
  for (const auto& file : files) {
    std::vector<std::uint8_t> bytes;
    try {
      bytes = npu::readBinaryFile(file);
    } catch (const npu::Error& e) {
      std::fprintf(stderr, "replay: %s\n", e.what());
      return 1;
    }
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    const std::string& message = npu::fuzz::lastRejection();
    if (message.empty()) {
      continue;
    }
    ++rejected;
    if (const std::string_view problem = npu::fuzz::messageShapeProblem(message);
        !problem.empty()) {
      std::fprintf(stderr, "replay: %s: the rejection %s: %s\n", file.c_str(),
                   std::string(problem).c_str(), message.c_str());
      ++misshapen;
    }
  }
  std::printf("replayed %zu inputs (%zu rejected, %zu with a misshapen message)\n", files.size(),
              rejected, misshapen);
  return files.empty() || misshapen != 0 ? 1 : 0;
}
