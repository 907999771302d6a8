// The bring-up bundle: written from a compiled graph, reloaded with every CRC re-checked; a
// corrupted file is caught; the expected regions equal what the simulator produces.
#include "npu/runtime/export_bundle.h"

#include <gtest/gtest.h>

#include "../codegen/random_graph.h"
#include "npu/runtime/verify.h"
#include "npu/simulator/simulate.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::runtime {
namespace {

TEST(ExportBundle, WritesReloadsAndChecksCrcs) {
  compiler::testing::RandomGraphBuilder b(42);
  const compiler::TensorId x = b.input(8, 8, 16);
  const compiler::TensorId y = b.conv(x, 16, 0, 3, 1, 1, 1);
  b.graph().outputs = {b.add(x, y)};
  const auto inputs = b.randomInputs();
  const isa::NpuConfig hw =
      isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs/npu-s.yaml");
  const compiler::CompiledProgram compiled = compiler::generateProgram(b.graph(), hw, inputs);
  const auto values = compiler::runQuantizedGraphGolden(b.graph(), inputs);
  const isa::DdrImage expected = expectedDdr(compiled, b.graph(), values);
  const sim::SimResult run = sim::simulate(compiled.program, {});
  ASSERT_FALSE(run.fault);
  ASSERT_FALSE(verifyDdr(compiled, b.graph(), expected, run.ddr));

  const auto dir = std::filesystem::temp_directory_path() / "npu_bundle_test";
  std::filesystem::remove_all(dir);
  writeBundle(dir, compiled, b.graph(), values, expected, run.stats.totalCycles);
  const Bundle bundle = readBundle(dir);
  EXPECT_EQ(bundle.hardware, "npu-s");
  EXPECT_EQ(bundle.expectedCycles, run.stats.totalCycles);
  EXPECT_EQ(bundle.layerDumps.size(), 2U);
  // Every region's expected file holds exactly what the simulator left in DDR there.
  for (const BundleRegion& region : bundle.regions) {
    EXPECT_EQ(readBinaryFile(dir / region.expectedFile),
              run.ddr.readRange(region.base, region.size))
        << region.name;
  }
  EXPECT_TRUE(std::any_of(bundle.regions.begin(), bundle.regions.end(),
                          [](const BundleRegion& r) { return r.kind == "program"; }));

  // Corrupt one byte of the output region's expected file: the reload names it.
  const auto output = std::find_if(bundle.regions.begin(), bundle.regions.end(),
                                   [](const BundleRegion& r) { return r.kind == "output"; });
  ASSERT_NE(output, bundle.regions.end());
  std::vector<std::uint8_t> bytes = readBinaryFile(dir / output->expectedFile);
  bytes[0] ^= 1;
  writeBinaryFile(dir / output->expectedFile, bytes);
  try {
    readBundle(dir);
    FAIL() << "expected a CRC error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(output->expectedFile + ": CRC-32"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(ExportBundle, MismatchReportNamesLayerTensorAndInstruction) {
  compiler::testing::RandomGraphBuilder b(43);
  const compiler::TensorId x = b.input(6, 6, 8);
  const compiler::TensorId y = b.conv(x, 8, 0, 3, 1, 1, 1);
  b.graph().outputs = {b.pool(y, false, 2, 2, 0)};
  const auto inputs = b.randomInputs();
  const isa::NpuConfig hw =
      isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs/npu-s.yaml");
  compiler::CompiledProgram compiled = compiler::generateProgram(b.graph(), hw, inputs);
  const auto values = compiler::runQuantizedGraphGolden(b.graph(), inputs);
  const isa::DdrImage expected = expectedDdr(compiled, b.graph(), values);
  // Corrupt one instruction: the first CONV's output zero point.
  for (auto& instruction : compiled.program.instructions) {
    if (auto* conv = std::get_if<isa::Conv>(&instruction)) {
      conv->out_zp = conv->out_zp == 127 ? 126 : conv->out_zp + 1;
      conv->clip_lo = std::min(conv->clip_lo, conv->out_zp);
      break;
    }
  }
  const sim::SimResult run = sim::simulate(compiled.program, {});
  ASSERT_FALSE(run.fault);
  // The corrupted conv also shifted the pool's input, but the first difference in DDR order is
  // in the conv's output (placed first in the activation arena or right after the pinned
  // output), and the report must name the layer that produced it.
  const auto mismatch = verifyDdr(compiled, b.graph(), expected, run.ddr);
  ASSERT_TRUE(mismatch);
  EXPECT_TRUE(mismatch->layer == "conv0" || mismatch->layer == "maxpool1") << mismatch->message;
  EXPECT_GE(mismatch->instruction, 0);
  EXPECT_NE(mismatch->message.find("layer '"), std::string::npos);
  EXPECT_NE(mismatch->message.find("last written by instruction"), std::string::npos);
}

}  // namespace
}  // namespace npu::runtime
