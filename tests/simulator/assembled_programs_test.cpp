// Hand-written assembly programs, one per opcode behaviour (tests/data/sim/*.s), on both engines:
// each output region of the final DDR equals what the golden ops compute from the program's
// initial DDR, and no byte outside the output regions changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "npu/golden/int8_ops.h"
#include "npu/support/file_io.h"
#include "sim_test_util.h"

namespace npu::sim {
namespace {

namespace g = npu::golden;
namespace fs = std::filesystem;

fs::path dataDir() {
  return fs::path(NPU_SOURCE_DIR) / "tests/data/sim";
}

const isa::Region& regionNamed(const isa::Program& program, const std::string& name) {
  for (const isa::Region& region : program.regions) {
    if (region.name == name) {
      return region;
    }
  }
  throw std::runtime_error("no manifest region '" + name + "'");
}

/// The program's initial DDR, read by manifest region name in the layouts of docs/isa.md.
class InitialDdr {
 public:
  InitialDdr(const isa::Program& program, const isa::DdrImage& ddr)
      : m_program(program), m_ddr(ddr) {}

  /// The int8 tensor a region holds, shaped as the manifest says.
  [[nodiscard]] g::Int8Tensor tensor(const std::string& name) const {
    const isa::Region& region = regionNamed(m_program, name);
    g::Int8Tensor t;
    t.shape = region.shape;
    std::uint64_t elements = 1;
    for (const std::int64_t d : t.shape) {
      elements *= static_cast<std::uint64_t>(d);
    }
    if (region.dtype != "int8" || elements != region.size) {
      throw std::runtime_error("region '" + name + "' is not an int8 tensor of its size");
    }
    const auto bytes = m_ddr.readRange(region.base, region.size);
    t.data.assign(bytes.begin(), bytes.end());
    return t;
  }

  /// The little-endian int32 at byte `offset` of a region.
  [[nodiscard]] std::int32_t int32At(const std::string& name, std::uint64_t offset) const {
    const isa::Region& region = regionNamed(m_program, name);
    if (offset + 4 > region.size) {
      throw std::runtime_error("int32 at " + std::to_string(offset) + " past region '" + name +
                               "'");
    }
    std::int32_t value = 0;
    const auto bytes = m_ddr.readRange(region.base + offset, 4);
    std::memcpy(&value, bytes.data(), 4);
    return value;
  }

  /// The multiplier and shift stored as two int32s at byte `offset` of a region.
  [[nodiscard]] g::QuantizedMultiplier multiplierAt(const std::string& name,
                                                    std::uint64_t offset) const {
    return {int32At(name, offset), int32At(name, offset + 4)};
  }

  /// A 256-byte LUT region.
  [[nodiscard]] g::Lut lut(const std::string& name) const {
    const isa::Region& region = regionNamed(m_program, name);
    if (region.size != 256) {
      throw std::runtime_error("LUT region '" + name + "' is not 256 bytes");
    }
    g::Lut table{};
    const auto bytes = m_ddr.readRange(region.base, 256);
    std::memcpy(table.data(), bytes.data(), 256);
    return table;
  }

  /// CONV parameter records {bias, M, shift} (int32 each) of `outC` output channels.
  void convRecords(const std::string& name, std::int64_t outC, g::Conv2dInt8Params& p) const {
    for (std::int64_t oc = 0; oc < outC; ++oc) {
      const auto record = static_cast<std::uint64_t>(12 * oc);
      p.bias.push_back(int32At(name, record));
      p.multipliers.push_back(multiplierAt(name, record + 4));
    }
  }

 private:
  const isa::Program& m_program;
  const isa::DdrImage& m_ddr;
};

g::OutputStage stage(std::int32_t zeroPoint, std::int32_t clipLo, std::int32_t clipHi,
                     g::Rounding rounding = g::Rounding::Single,
                     std::optional<g::Lut> lut = std::nullopt) {
  g::OutputStage s;
  s.zeroPoint = zeroPoint;
  s.clipLo = clipLo;
  s.clipHi = clipHi;
  s.rounding = rounding;
  s.lut = lut;
  return s;
}

g::PoolInt8Params poolWindow(std::array<std::int64_t, 2> kernel,
                             std::array<std::int64_t, 2> strides,
                             std::array<std::int64_t, 4> pads) {
  g::PoolInt8Params p;
  p.kernel = kernel;
  p.strides = strides;
  p.pads = pads;
  return p;
}

/// Golden contents of every region a program writes, by region name.
using Expected = std::map<std::string, g::Int8Tensor>;

/// One .s file and the golden computation of the layer it implements. The layer's attributes
/// (strides, padding, zero points, clip, rounding) are stated here; tensors, parameter records
/// and LUTs come from the initial DDR.
struct AsmCase {
  std::string file;
  std::function<Expected(const InitialDdr&)> golden;
};

const std::vector<AsmCase>& asmCases() {
  static const std::vector<AsmCase> cases = {
      {"load_pad.s",
       [](const InitialDdr& d) {
         // Rows 1..4, columns 2..5, channels 2..6 of 1x5x6x8 (ONNX pads, negative crops), then
         // the frame: 2 rows above, 1 below, 1 column left, 3 right.
         const std::array<std::int64_t, 8> window{0, -1, -2, -2, 0, 0, 0, -1};
         const std::array<std::int64_t, 8> frame{0, 2, 1, 0, 0, 1, 3, 0};
         return Expected{{"out", g::padInt8(g::padInt8(d.tensor("in"), window, 0), frame, 7)}};
       }},
      {"load_strided.s",
       [](const InitialDdr& d) {
         const g::Int8Tensor a = d.tensor("a");
         const g::Int8Tensor b = d.tensor("b");
         return Expected{{"out", g::concatInt8({a, b}, 2)}};
       }},
      {"store_concat.s",
       [](const InitialDdr& d) {
         const g::Int8Tensor a = d.tensor("a");
         const g::Int8Tensor b = d.tensor("b");
         return Expected{{"out", g::concatInt8({a, b}, 3)}};
       }},
      {"store_upsample.s",
       [](const InitialDdr& d) {
         return Expected{{"out", g::upsampleNearestInt8(d.tensor("in"), 2, 3)}};
       }},
      {"conv_stride_pad.s",
       [](const InitialDdr& d) {
         g::Conv2dInt8Params p;
         p.strides = {2, 2};
         p.pads = {1, 1, 1, 1};
         p.inputZeroPoint = -5;
         d.convRecords("p", 6, p);
         p.output = stage(-12, -12, 127);
         return Expected{{"out", g::conv2dInt8(d.tensor("in"), d.tensor("w"), p)}};
       }},
      {"conv_dilation.s",
       [](const InitialDdr& d) {
         g::Conv2dInt8Params p;
         p.strides = {1, 2};
         p.dilations = {2, 1};
         p.pads = {2, 1, 0, 1};
         p.inputZeroPoint = 9;
         d.convRecords("p", 4, p);
         p.output = stage(3, -100, 90, g::Rounding::Double);
         const g::Int8Tensor out = g::conv2dInt8(d.tensor("in"), d.tensor("w"), p);
         p.output.rounding = g::Rounding::Single;
         const g::Int8Tensor single = g::conv2dInt8(d.tensor("in"), d.tensor("w"), p);
         const auto differing =
             std::inner_product(out.data.begin(), out.data.end(), single.data.begin(),
                                std::size_t{0}, std::plus<>(), std::not_equal_to<>());
         EXPECT_GE(differing, 2U)
             << "conv_dilation.s: the data hardly makes the rounding mode matter";
         return Expected{{"out", out}};
       }},
      {"conv_depthwise.s",
       [](const InitialDdr& d) {
         g::Conv2dInt8Params p;
         p.pads = {1, 1, 1, 1};
         p.groups = 12;
         p.inputZeroPoint = -7;
         d.convRecords("p", 12, p);
         p.output = stage(6, -128, 127);
         return Expected{{"out", g::conv2dInt8(d.tensor("in"), d.tensor("w"), p)}};
       }},
      {"conv_lut.s",
       [](const InitialDdr& d) {
         g::Conv2dInt8Params p;
         p.strides = {2, 2};
         p.inputZeroPoint = 17;
         d.convRecords("p", 10, p);
         p.output = stage(-4, -128, 127, g::Rounding::Single, d.lut("lut"));
         return Expected{{"out", g::conv2dInt8(d.tensor("in"), d.tensor("w"), p)}};
       }},
      {"conv_split.s",
       [](const InitialDdr& d) {
         // The three channel passes together are one conv over all 20 input channels.
         g::Conv2dInt8Params p;
         p.pads = {1, 1, 1, 1};
         p.inputZeroPoint = 2;
         d.convRecords("p", 7, p);
         p.output = stage(-9, -128, 127, g::Rounding::Double);
         return Expected{{"out", g::conv2dInt8(d.tensor("in"), d.tensor("w"), p)}};
       }},
      {"eltwise_add.s",
       [](const InitialDdr& d) {
         g::AddInt8Params p;
         p.zeroPointA = -10;
         p.zeroPointB = 7;
         p.leftShift = 20;
         p.multiplierA = d.multiplierAt("p", 0);
         p.multiplierB = d.multiplierAt("p", 8);
         p.multiplierOut = d.multiplierAt("p", 16);
         p.output = stage(-3, -3, 127, g::Rounding::Double);
         return Expected{{"out", g::addInt8(d.tensor("a"), d.tensor("b"), p)}};
       }},
      {"eltwise_mul.s",
       [](const InitialDdr& d) {
         g::MulInt8Params p;
         p.zeroPointA = 5;
         p.zeroPointB = -20;
         p.multiplierOut = d.multiplierAt("p", 16);
         p.output = stage(10, -100, 100, g::Rounding::Single, d.lut("lut"));
         return Expected{{"out", g::mulInt8(d.tensor("a"), d.tensor("b"), p)}};
       }},
      {"eltwise_lut.s",
       [](const InitialDdr& d) {
         return Expected{{"out", g::applyLut(d.tensor("a"), d.lut("lut"))}};
       }},
      {"pool_max.s",
       [](const InitialDdr& d) {
         return Expected{
             {"out", g::maxPoolInt8(d.tensor("in"), poolWindow({3, 3}, {2, 2}, {1, 1, 1, 1}))}};
       }},
      {"pool_avg.s",
       [](const InitialDdr& d) {
         return Expected{{"out", g::averagePoolInt8(d.tensor("in"),
                                                    poolWindow({3, 3}, {2, 2}, {1, 1, 1, 1}), 5)}};
       }},
      {"pool_global.s",
       [](const InitialDdr& d) {
         const g::Int8Tensor x = d.tensor("in");
         return Expected{{"avg", g::globalAveragePoolInt8(x)},
                         {"max", g::maxPoolInt8(x, poolWindow({4, 5}, {1, 1}, {0, 0, 0, 0}))}};
       }},
      {"params_reload.s",
       [](const InitialDdr& d) {
         g::Conv2dInt8Params first;
         first.inputZeroPoint = -1;
         d.convRecords("p1", 8, first);
         first.output = stage(0, -128, 127);
         g::Conv2dInt8Params second;
         second.inputZeroPoint = -1;
         d.convRecords("p2", 8, second);
         second.output = stage(0, -128, 127, g::Rounding::Single, d.lut("lut"));
         const g::Int8Tensor x = d.tensor("in");
         const g::Int8Tensor w = d.tensor("w");
         return Expected{{"out1", g::conv2dInt8(x, w, first)},
                         {"out2", g::conv2dInt8(x, w, second)}};
       }},
      {"sync_chain.s",
       [](const InitialDdr& d) {
         g::Conv2dInt8Params p;
         p.inputZeroPoint = 4;
         d.convRecords("p", 8, p);
         p.output = stage(-2, -128, 127);
         const g::Int8Tensor mid = g::conv2dInt8(d.tensor("in"), d.tensor("w"), p);
         return Expected{{"mid", mid},
                         {"out", g::maxPoolInt8(mid, poolWindow({3, 3}, {2, 2}, {1, 1, 1, 1}))}};
       }},
      {"end.s", [](const InitialDdr&) { return Expected{}; }},
  };
  return cases;
}

std::vector<std::string> caseFiles() {
  std::vector<std::string> files;
  for (const AsmCase& c : asmCases()) {
    files.push_back(c.file);
  }
  return files;
}

const AsmCase& caseFor(const std::string& file) {
  for (const AsmCase& c : asmCases()) {
    if (c.file == file) {
      return c;
    }
  }
  throw std::runtime_error("no golden case for " + file);
}

class AssembledPrograms : public ::testing::TestWithParam<std::tuple<std::string, SimMode>> {};

TEST_P(AssembledPrograms, OutputRegionsMatchGoldenAndNothingElseChanges) {
  const auto& [file, mode] = GetParam();
  const isa::Program program = isa::assembleFile(dataDir() / file);
  const isa::DdrImage initial = isa::DdrImage::fromProgram(program);
  const Expected expected = caseFor(file).golden(InitialDdr(program, initial));

  // The case covers exactly the regions the manifest says the program writes.
  for (const isa::Region& region : program.regions) {
    const bool written =
        region.kind == isa::RegionKind::Output || region.kind == isa::RegionKind::Scratch;
    EXPECT_EQ(written, expected.contains(region.name))
        << file << ": region '" << region.name << "' is " << isa::regionKindName(region.kind)
        << (written ? " but has" : " and has") << (expected.contains(region.name) ? " a" : " no")
        << " golden result";
  }

  const SimResult result = testing::run(program, mode);
  ASSERT_FALSE(result.fault) << file << ": " << result.fault->what();
  isa::DdrImage outside = result.ddr;
  for (const auto& [name, golden] : expected) {
    const isa::Region& region = regionNamed(program, name);
    EXPECT_EQ(golden.shape, region.shape) << file << ": golden shape of region '" << name << "'";
    ASSERT_EQ(golden.data.size(), region.size)
        << file << ": golden size of region '" << name << "'";
    const std::vector<std::uint8_t> actual = result.ddr.readRange(region.base, region.size);
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
      const auto simulated = static_cast<std::int8_t>(actual[i]);
      if (simulated != golden.data[i] && ++mismatches <= 8) {
        ADD_FAILURE() << file << ": region '" << name << "' byte " << i << " (DDR 0x" << std::hex
                      << region.base + i << std::dec << "): simulator " << int{simulated}
                      << ", golden " << int{golden.data[i]};
      }
    }
    EXPECT_EQ(mismatches, 0U) << file << ": region '" << name << "': " << mismatches << " of "
                              << actual.size() << " bytes differ";
    const std::set<std::int8_t> values(golden.data.begin(), golden.data.end());
    EXPECT_GT(values.size(), std::min<std::size_t>(golden.data.size() / 4, 8))
        << file << ": golden region '" << name << "' is too uniform to test much";
    outside.write(region.base, initial.readRange(region.base, region.size));
  }
  if (const auto stray = outside.firstDifference(initial)) {
    ADD_FAILURE() << file << ": byte at DDR 0x" << std::hex << *stray << std::dec
                  << " outside the output regions changed from " << int{initial.readByte(*stray)}
                  << " to " << int{result.ddr.readByte(*stray)};
  }
}

INSTANTIATE_TEST_SUITE_P(BothModes, AssembledPrograms,
                         ::testing::Combine(::testing::ValuesIn(caseFiles()),
                                            ::testing::Values(SimMode::Functional, SimMode::Timed)),
                         [](const auto& info) {
                           const std::string stem =
                               fs::path(std::get<0>(info.param)).stem().string();
                           return stem + (std::get<1>(info.param) == SimMode::Functional
                                              ? "_functional"
                                              : "_timed");
                         });

// Every program in tests/data/sim has a golden case and a line in the folder's README, and every
// case has its program.
TEST(AssembledProgramsData, EveryFileHasAGoldenCaseAndAReadmeEntry) {
  std::set<std::string> onDisk;
  for (const auto& entry : fs::directory_iterator(dataDir())) {
    if (entry.path().extension() == ".s") {
      onDisk.insert(entry.path().filename().string());
    }
  }
  const std::vector<std::string> files = caseFiles();
  EXPECT_EQ(onDisk, std::set<std::string>(files.begin(), files.end()));
  const std::string readme = readTextFile(dataDir() / "README.md");
  for (const std::string& file : onDisk) {
    EXPECT_NE(readme.find("`" + file + "`"), std::string::npos)
        << "tests/data/sim/README.md does not describe " << file;
  }
}

}  // namespace
}  // namespace npu::sim
