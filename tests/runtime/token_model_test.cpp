// Transformer embeddings in the token layout ([1, T, D] as [1, D, T, 1]) on the NPU: a class
// token concatenated along H, whole-shape constants added and multiplied, a constant channel
// block, and a reshape of a conv's map into tokens compile to one NPU segment under the default
// strategy (and the aggressive one, today the same) and run bit-exact against golden in both
// simulator modes, close to fp32 (tests/data/tokens/).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "npu/runtime/main_job.h"

namespace npu::runtime {
namespace {

struct TokenCase {
  std::string graph;
  bool aggressive = false;
  Engine engine = Engine::Functional;
  /// Layers that must run on the NPU, with their kind in the report.
  std::vector<std::pair<std::string, std::string>> npuLayers;
};

class TokenModel : public ::testing::TestWithParam<TokenCase> {};

TEST_P(TokenModel, IsOneNpuSegmentBitExact) {
  const std::filesystem::path data = std::filesystem::path(NPU_SOURCE_DIR) / "tests/data/tokens";
  MainJobOptions options;
  options.model = data / (GetParam().graph + ".yaml");
  options.hw = std::filesystem::path(NPU_SOURCE_DIR) / "configs" / "npu-s.yaml";
  if (GetParam().aggressive) {
    options.quantConfig = data / "aggressive.yaml";
  }
  options.engine = GetParam().engine;
  options.maxInputs = 2;
  const MainJobReport r = runMainJob(options);
  EXPECT_TRUE(r.pass());
  EXPECT_EQ(r.inputs, 2U);
  EXPECT_EQ(r.bitExactInputs, r.inputs);
  EXPECT_EQ(r.npuSegments, 1);
  EXPECT_EQ(r.hostSegments, 0);
  EXPECT_GT(r.outputCosine, 0.99);
  for (const auto& [layer, kind] : GetParam().npuLayers) {
    const auto row = std::find_if(r.layers.begin(), r.layers.end(),
                                  [&](const LayerRow& l) { return l.layer == layer; });
    ASSERT_NE(row, r.layers.end()) << layer;
    EXPECT_EQ(row->device, "npu") << layer;
    EXPECT_EQ(row->kind, kind) << layer;
  }
  // Constants take the parameters they are read with: nothing is requantized, nothing copied.
  for (const LayerRow& l : r.layers) {
    EXPECT_EQ(l.layer.find("#requant"), std::string::npos) << l.layer;
    EXPECT_EQ(l.layer.find("#copy"), std::string::npos) << l.layer;
  }
}

const std::vector<std::pair<std::string, std::string>> kVit{{"with_cls", "concat"},
                                                            {"embedded", "add"}};
const std::vector<std::pair<std::string, std::string>> kBert{
    {"embedded", "add"}, {"gated", "mul"}, {"with_sep", "concat"}, {"widened", "concat"}};

INSTANTIATE_TEST_SUITE_P(
    Graphs, TokenModel,
    ::testing::Values(TokenCase{"vit_tokens", false, Engine::Functional, kVit},
                      TokenCase{"vit_tokens", false, Engine::Timed, kVit},
                      TokenCase{"vit_tokens", true, Engine::Functional, kVit},
                      TokenCase{"bert_embeddings", false, Engine::Functional, kBert},
                      TokenCase{"bert_embeddings", false, Engine::Timed, kBert}),
    [](const ::testing::TestParamInfo<TokenCase>& info) {
      return info.param.graph + (info.param.aggressive ? "_aggressive" : "") +
             (info.param.engine == Engine::Timed ? "_timed" : "_functional");
    });

}  // namespace
}  // namespace npu::runtime
