// Provenance: the FNV-1a 64 hardware hash against published test vectors, the fixed field order,
// and the deterministic stamp leaving out time and host.
#include "npu/support/provenance.h"

#include <gtest/gtest.h>

#include <regex>

namespace npu {
namespace {

TEST(Provenance, HardwareHashIsFnv1a64) {
  // The FNV-1a 64 reference values of "", "a" and "foobar".
  EXPECT_EQ(hardwareConfigHash(""), "fnv1a64:cbf29ce484222325");
  EXPECT_EQ(hardwareConfigHash("a"), "fnv1a64:af63dc4c8601ec8c");
  EXPECT_EQ(hardwareConfigHash("foobar"), "fnv1a64:85944171f73967e8");
  EXPECT_NE(hardwareConfigHash("rows: 16\n"), hardwareConfigHash("rows: 32\n"));
}

TEST(Provenance, ToolVersionNamesTheCommit) {
  const std::string commit(gitCommit());
  EXPECT_TRUE(std::regex_match(commit, std::regex("[0-9a-f]{12}(-dirty)?|unknown"))) << commit;
  EXPECT_EQ(std::string(toolVersion()),
            commit == "unknown" ? "npu " + std::string(projectVersion()) + " (unknown commit)"
                                : "npu " + std::string(projectVersion()) + " (git " + commit + ")");
}

TEST(Provenance, DeterministicStampHasNoTimeOrHost) {
  const Provenance p = deterministicProvenance("rows: 16\n");
  EXPECT_TRUE(p.time.empty());
  EXPECT_TRUE(p.host.empty());
  ASSERT_EQ(p.fields().size(), 3U);
  EXPECT_EQ(p.fields()[0].first, "tool");
  EXPECT_EQ(p.fields()[1].first, "commit");
  EXPECT_EQ(p.fields()[2], std::make_pair(std::string("hardware_hash"), p.hardwareHash));
  EXPECT_EQ(p.line(3), "Schema 3; made by " + p.tool + ", hardware " + p.hardwareHash);
}

TEST(Provenance, ReportStampHasUtcTimeAndHost) {
  const Provenance p = reportProvenance();
  EXPECT_TRUE(p.hardwareHash.empty());
  EXPECT_TRUE(std::regex_match(p.time, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << p.time;
  EXPECT_FALSE(p.host.empty());
  std::vector<std::string> keys;
  for (const auto& [key, value] : p.fields()) {
    keys.push_back(key);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"tool", "commit", "time_utc", "host"}));
  EXPECT_EQ(p.line(1), "Schema 1; made by " + p.tool + " at " + p.time + " on " + p.host);
}

}  // namespace
}  // namespace npu
