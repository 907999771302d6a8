// The ONNX structure-aware mutator (fuzz/mutators/onnx_mutator.h) on a committed model: what it
// writes is a ModelProto, differs from its input, often still imports, is the same for the same
// seed, and stays within the size it is given.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <set>
#include <vector>

#include "npu/compiler/frontend/onnx_import.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "onnx_mutator.h"

namespace npu::fuzz {
namespace {

constexpr std::uint32_t kSeeds = 1000;

std::vector<std::uint8_t> convnet() {
  return readBinaryFile(std::filesystem::path(NPU_SOURCE_DIR) /
                        "tests/compiler/models/convnet.onnx");
}

TEST(OnnxMutator, OutputsAreModelsThatDifferAndOftenStillImport) {
  const std::vector<std::uint8_t> model = convnet();
  const std::size_t maxSize = model.size() * 2;
  std::size_t produced = 0;
  std::size_t changed = 0;
  std::size_t imported = 0;
  std::set<std::vector<std::uint8_t>> distinct;
  for (std::uint32_t seed = 0; seed < kSeeds; ++seed) {
    const auto out = mutateOnnx(model, seed, maxSize);
    if (!out) {
      continue;
    }
    ++produced;
    ASSERT_LE(out->size(), maxSize) << "seed " << seed;
    onnx::ModelProto parsed;
    ASSERT_TRUE(parsed.ParseFromArray(out->data(), static_cast<int>(out->size())))
        << "seed " << seed;
    changed += *out != model ? 1 : 0;
    distinct.insert(*out);
    try {
      (void)compiler::importOnnxBytes(*out, "mutated.onnx", ".");
      ++imported;
    } catch (const Error&) {
      // The mutation broke the model, as it is meant to now and then.
    }
  }
  // Every seed finds something to edit in a model with nodes, attributes and initializers.
  EXPECT_GE(produced, kSeeds * 99 / 100);
  EXPECT_GE(changed, produced * 9 / 10);
  EXPECT_GE(distinct.size(), produced * 3 / 4);
  // Structure-aware: a good share gets past the importer's checks (bytes alone almost never do)
  // and a good share is refused, so both sides of the checks are reached.
  EXPECT_GE(imported, produced / 8) << imported << " of " << produced << " imported";
  EXPECT_LE(imported, produced * 9 / 10) << imported << " of " << produced << " imported";
}

TEST(OnnxMutator, SameSeedSameOutput) {
  const std::vector<std::uint8_t> model = convnet();
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    EXPECT_EQ(mutateOnnx(model, seed, model.size() * 2), mutateOnnx(model, seed, model.size() * 2))
        << "seed " << seed;
  }
  EXPECT_NE(mutateOnnx(model, 1, model.size() * 2), mutateOnnx(model, 2, model.size() * 2));
}

TEST(OnnxMutator, NeverExceedsMaxSize) {
  const std::vector<std::uint8_t> model = convnet();
  std::size_t produced = 0;
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    const auto out = mutateOnnx(model, seed, model.size());
    if (out) {
      ++produced;
      EXPECT_LE(out->size(), model.size()) << "seed " << seed;
    }
    EXPECT_FALSE(mutateOnnx(model, seed, model.size() / 4)) << "seed " << seed;
  }
  EXPECT_GT(produced, 0U);  // shrinking and same-size edits still fit
}

TEST(OnnxMutator, ChainedMutationsKeepWorking) {
  // libFuzzer feeds a mutation's output back in: the mutator must keep reading its own output.
  std::vector<std::uint8_t> model = convnet();
  std::size_t steps = 0;
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    if (auto out = mutateOnnx(model, seed, 1 << 20)) {
      model = std::move(*out);
      ++steps;
    }
  }
  EXPECT_GE(steps, 290U);
}

TEST(OnnxMutator, BytesThatAreNotAModelAreLeftToTheByteMutator) {
  const std::vector<std::uint8_t> garbage = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  EXPECT_FALSE(mutateOnnx(garbage, 7, 4096));
}

}  // namespace
}  // namespace npu::fuzz
