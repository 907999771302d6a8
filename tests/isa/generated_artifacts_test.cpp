// Artefacts generated from the instruction and hardware config tables must match their committed
// copies; regenerate with scripts/regen-isa.sh after editing instructions.def or npu_config.def.
#include <gtest/gtest.h>

#include "npu/isa/generators.h"
#include "npu/support/file_io.h"
#include "test_paths.h"

namespace npu::isa {
namespace {

TEST(GeneratedArtifacts, IsaDocFieldTablesMatchTheTable) {
  const std::string doc = readTextFile(testing::sourcePath("docs/isa.md"));
  EXPECT_EQ(spliceGeneratedTables(doc, generateIsaMarkdownTables()), doc)
      << "docs/isa.md is stale: run scripts/regen-isa.sh";
}

TEST(GeneratedArtifacts, VerilogIsaPackageMatchesTheTable) {
  EXPECT_EQ(readTextFile(testing::sourcePath("rtl/generated/npu_isa_pkg.sv")),
            generateIsaSvPackage())
      << "rtl/generated/npu_isa_pkg.sv is stale: run scripts/regen-isa.sh";
}

TEST(GeneratedArtifacts, HardwareConfigDocTableMatchesTheTable) {
  const std::string doc = readTextFile(testing::sourcePath("docs/hardware-config.md"));
  EXPECT_EQ(
      spliceGeneratedTables(doc, generateConfigMarkdownTable(), kConfigTableBegin, kConfigTableEnd),
      doc)
      << "docs/hardware-config.md is stale: run scripts/regen-isa.sh";
}

TEST(GeneratedArtifacts, ConfigPackageCarriesTheConfig) {
  const NpuConfig config = loadNpuConfig(testing::sourcePath("configs/npu-l.yaml"));
  const std::string package = generateConfigSvPackage(config);
  EXPECT_NE(package.find("localparam int MAC_ROWS = 32;"), std::string::npos);
  EXPECT_NE(package.find("localparam int DDR_BURST_BYTES = 128;"), std::string::npos);
}

}  // namespace
}  // namespace npu::isa
