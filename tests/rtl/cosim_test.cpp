// Co-simulation of the RTL against the SystemC timed model: every opcode on small assembled
// programs (examples/asm/smoke.s and tests/data/rtl/*.s), and random hazard-free conv, eltwise
// and pool programs. Each must end with the same whole DDR and the same end cycle for every
// instruction.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "npu/compiler/codegen/codegen.h"
#include "npu/isa/assembly.h"
#include "npu/runtime/cosim.h"
#include "npu/support/error.h"
#include "random_graph.h"
#include "random_program.h"

namespace npu::runtime {
namespace {

const std::filesystem::path kSource = NPU_SOURCE_DIR;

void expectMatch(const isa::Program& program, const std::string& what) {
  const CosimReport report = cosimulate(program);
  EXPECT_TRUE(report.matches()) << what << ":\n" << report.summary(program);
}

class AssembledPrograms : public ::testing::TestWithParam<std::string> {};

TEST_P(AssembledPrograms, MatchSystemC) {
  const std::filesystem::path path = kSource / GetParam();
  expectMatch(isa::assembleFile(path), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Rtl, AssembledPrograms,
                         ::testing::Values("examples/asm/smoke.s", "tests/data/rtl/eltwise.s",
                                           "tests/data/rtl/pool.s", "tests/data/rtl/conv_dw.s",
                                           "tests/data/rtl/conv_split.s", "tests/data/rtl/tokens.s",
                                           "tests/data/rtl/token_full.s", "tests/data/rtl/dma.s",
                                           "tests/data/rtl/ddr_end.s"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return std::filesystem::path(info.param).stem().string();
                         });

isa::Program randomProgram(std::uint64_t seed, int tiles) {
  return sim::testing::randomTileProgram(rtl::rtlConfig(), seed, tiles);
}

// Four shards of 40 programs each (ctest runs them in parallel), 2 to 9 tiles per program.
class RandomPrograms : public ::testing::TestWithParam<int> {};

TEST_P(RandomPrograms, MatchSystemC) {
  for (int k = 0; k < 40; ++k) {
    const auto seed = static_cast<std::uint64_t>(40 * GetParam() + k + 1);
    expectMatch(randomProgram(seed, 2 + static_cast<int>(seed % 8)),
                "random program seed " + std::to_string(seed));
  }
}

INSTANTIATE_TEST_SUITE_P(Rtl, RandomPrograms, ::testing::Range(0, 4));

TEST(RtlCodegen, ColumnTilesPhasesKernelPartsAndPadFillsAreCycleExact) {
  // Issue 21's lowerings as codegen emits them for the RTL's config (npu-s): a layer whose
  // 1100-column rows no input half holds (column tiles), a dilation of 24 (phases over strided
  // sub-grids), a 17x17 kernel (parts accumulating), and padding of 70 (fills from pad runs).
  compiler::testing::RandomGraphBuilder b(2124);
  const compiler::TensorId wide = b.input(4, 1100, 64);
  const compiler::TensorId small = b.input(33, 33, 8);
  b.graph().outputs = {b.conv(wide, 16, 0, 3, 1, 1, 1), b.conv(small, 8, 0, 3, 1, 24, 24),
                       b.conv(small, 8, 1, 17, 2, 1, 8), b.conv(small, 4, 0, 3, 2, 1, 70)};
  const compiler::CompiledProgram compiled =
      compiler::generateProgram(b.graph(), rtl::rtlConfig(), b.randomInputs());
  expectMatch(compiled.program, "issue 21 lowerings");
}

TEST(RtlConfig, RejectsAnotherHardwareConfig) {
  isa::Program program = isa::assembleFile(kSource / "examples/asm/smoke.s");
  program.config.name = "npu-wide";
  program.config.macCols = 32;
  try {
    (void)rtl::runRtl(program);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "the program targets hardware config 'npu-wide', but the RTL model was built for "
                 "'npu-s'");
  }
}

}  // namespace
}  // namespace npu::runtime
