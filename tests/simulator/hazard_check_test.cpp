// The hazard check against a plain per-byte reference: random streams of strided loads, stores
// and eltwise ops with random tokens report the same first race (instruction, byte, message), or
// none, as a map of every byte's last writer and readers.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "npu/isa/footprint.h"
#include "npu/simulator/sim_fault.h"
#include "npu/simulator/token_analysis.h"
#include "sim_test_util.h"

namespace npu::sim {
namespace {

using testing::smallConfig;

struct ByteState {
  std::int32_t writer = -1;
  std::array<std::int32_t, isa::kLanes> reader{-1, -1, -1, -1};
};

std::string describe(const std::vector<isa::Instruction>& stream, std::size_t i) {
  return fmt::format("instruction {} ({}, {} unit)", i, isa::mnemonicOf(stream[i]),
                     isa::unitName(isa::executingUnit(stream[i])));
}

// One byte at a time, in the order the footprint lists them: the first byte whose last writer
// on another unit, or (for a write) whose last reader on another unit, the tokens do not order
// before the access.
std::string referenceCheck(const std::vector<isa::Instruction>& stream, const TokenOrder& order,
                           const isa::NpuConfig& config) {
  std::map<std::pair<isa::MemorySpace, std::uint64_t>, ByteState> bytes;
  for (std::size_t i = 0; i < stream.size(); ++i) {
    if (order.unit[i] == kEndUnit) {
      continue;
    }
    const std::vector<isa::Access> accesses = isa::footprint(stream[i]);
    for (const isa::Access& access : accesses) {
      if (access.end() > isa::spaceBytes(config, access.space)) {
        return "(no fault)";
      }
    }
    const std::size_t lane = order.lane[i];
    const auto self = static_cast<std::int32_t>(i);
    const auto unordered = [&](std::int32_t other) {
      return other >= 0 && !order.happensBefore(static_cast<std::size_t>(other), i);
    };
    for (const isa::Access& access : accesses) {
      std::string fault;
      access.forEachRun([&](std::uint64_t first, std::uint64_t length) {
        for (std::uint64_t address = first; address < first + length && fault.empty(); ++address) {
          ByteState& state = bytes[{access.space, address}];
          std::int32_t other = -1;
          std::string_view what;
          if (state.writer >= 0 && order.lane[state.writer] != lane && unordered(state.writer)) {
            other = state.writer;
            what = "writes";
          }
          for (std::size_t r = 0; r < isa::kLanes && other < 0 && access.write; ++r) {
            if (r != lane && unordered(state.reader[r])) {
              other = state.reader[r];
              what = "reads";
            }
          }
          if (other >= 0) {
            fault = fmt::format(
                "hazard fault at instruction {}: {} {} {} byte 0x{:x}, which {} {} ({}); {}", i,
                describe(stream, i), access.write ? "writes" : "reads",
                isa::memorySpaceName(access.space), address, describe(stream, other), what,
                other < self ? "earlier in program order" : "later",
                order.unit[static_cast<std::size_t>(other)] == order.unit[i]
                    ? "the overlapped ELTWISE may run beside it"
                    : "no dependency token orders them");
            return;
          }
          if (access.write) {
            state = ByteState{};
            state.writer = self;
          } else {
            state.reader[lane] = self;
          }
        }
      });
      if (!fault.empty()) {
        return fault;
      }
    }
  }
  return "(no fault)";
}

std::string checked(const std::vector<isa::Instruction>& stream, const TokenOrder& order,
                    const isa::NpuConfig& config) {
  try {
    checkHazards(stream, order, config);
  } catch (const SimFault& fault) {
    return fault.what();
  }
  return "(no fault)";
}

// Random streams over a few DDR and SRAM regions that straddle page and chunk boundaries of the
// shadow memory: channel-slice strides that fragment the state byte by byte, overlapping and
// zero strides, whole tiles several pages long, and tokens on some instructions.
class StreamMaker {
 public:
  explicit StreamMaker(std::uint32_t seed) : m_rng(seed) {}

  std::vector<isa::Instruction> make() {
    std::vector<isa::Instruction> stream;
    // One stream in four opens with a long run of loads (one unit: no races, no deadlocks),
    // so that pages go through many states and drop the unused ones before the mixed tail.
    if (pick(0, 3) == 0) {
      const std::int64_t loads = pick(60, 200);
      for (std::int64_t k = 0; k < loads; ++k) {
        isa::Instruction quiet = load();
        std::get<isa::Load>(quiet).pop_next = 0;
        std::get<isa::Load>(quiet).push_next = 0;
        std::get<isa::Load>(quiet).ddr_addr = 0x3f80 + pick(0, 300);
        stream.push_back(quiet);
      }
    }
    const std::int64_t count = pick(2, 24);
    for (std::int64_t k = 0; k < count; ++k) {
      switch (pick(0, 7)) {
        case 0:
        case 1:
          stream.push_back(load());
          break;
        case 2:
        case 3:
          stream.push_back(store());
          break;
        case 4:
        case 5:
          stream.push_back(eltwise());
          break;
        case 6:
          stream.push_back(conv());
          break;
        default:
          stream.push_back(isa::Sync{.pop_prev = bit(),
                                     .pop_next = bit(),
                                     .push_prev = bit(),
                                     .push_next = bit(),
                                     .unit = pick(0, 2)});
          break;
      }
    }
    stream.push_back(isa::End{});
    return stream;
  }

 private:
  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(m_rng);
  }
  std::int64_t bit() { return pick(0, 3) == 0 ? 1 : 0; }

  // A DDR address at or across a page boundary (0x1000, 0x4000, 0x10000) or a chunk
  // boundary (0x100000) of the shadow pages.
  std::int64_t ddrAddress() {
    constexpr std::array<std::int64_t, 4> kBases{0x1000, 0x3f80, 0xfff00, 0x10000};
    return kBases[static_cast<std::size_t>(pick(0, 3))] + pick(0, 300);
  }
  std::int64_t sramAddress() { return pick(0, 1) == 0 ? pick(0, 200) : 4096 - pick(0, 200); }

  // A strided block: small channel slices at a wider stride, or one long run.
  void shape(std::int64_t& y, std::int64_t& x, std::int64_t& c, std::int64_t& rowStride,
             std::int64_t& colStride) {
    if (pick(0, 4) == 0) {
      y = 1;
      x = pick(1, 3);
      c = pick(1, 9000);
      colStride = c;
      rowStride = 0;
      return;
    }
    y = pick(1, 6);
    x = pick(1, 12);
    c = pick(1, 24);
    colStride = pick(0, 3) == 0 ? pick(0, 2 * c) : c * pick(1, 4);
    rowStride = pick(0, 3) == 0 ? x * colStride : pick(0, 700);
  }

  isa::Instruction load() {
    isa::Load load{.pop_next = bit(), .push_next = bit(), .buf = pick(0, 2)};
    shape(load.y_size, load.x_size, load.c_bytes, load.ddr_row_stride, load.ddr_col_stride);
    load.ddr_addr = ddrAddress();
    const std::int64_t bytes = load.y_size * load.x_size * load.c_bytes;
    const std::int64_t reach = load.buf == 2 ? 16384 : 131072;
    load.sram_addr = std::min(sramAddress(), reach - bytes);
    if (load.sram_addr < 0) {
      load.sram_addr = 0;  // too big for the SRAM: the analysis stops there
    }
    return load;
  }

  isa::Instruction store() {
    isa::Store store{.pop_prev = bit(), .push_prev = bit()};
    shape(store.y_size, store.x_size, store.c_bytes, store.ddr_row_stride, store.ddr_col_stride);
    store.ddr_addr = ddrAddress();
    store.sram_addr = std::max<std::int64_t>(
        0, std::min(sramAddress(), 65536 - store.y_size * store.x_size * store.c_bytes));
    return store;
  }

  isa::Instruction eltwise() {
    isa::Eltwise eltwise{.pop_prev = bit(),
                         .pop_next = bit(),
                         .push_prev = bit(),
                         .push_next = bit(),
                         .op = pick(0, isa::fieldMax<&isa::Eltwise::op>())};
    eltwise.count = pick(1, 5000);
    eltwise.a_addr = sramAddress();
    eltwise.b_addr = sramAddress();
    eltwise.out_addr = sramAddress();
    eltwise.out_buf = bit();
    eltwise.param_addr = pick(0, 300);
    eltwise.lut_addr = pick(0, 4096);
    eltwise.use_lut = bit();
    eltwise.clip_lo = -128;
    eltwise.clip_hi = 127;
    // Beside the CONVs before it (it then pushes nothing).
    if (pick(0, 1) == 0) {
      eltwise.overlap = 1;
      eltwise.push_prev = eltwise.push_next = 0;
    }
    return eltwise;
  }

  // A 1x1 CONV on the MAC side, so that overlapped ELTWISEs have something to run beside.
  isa::Instruction conv() {
    isa::Conv conv{.pop_prev = bit(), .pop_next = bit(), .push_prev = bit(), .push_next = bit()};
    conv.out_h = pick(1, 4);
    conv.out_w = pick(1, 8);
    conv.in_w = conv.out_w;
    conv.in_c = pick(1, 32);
    conv.out_c = pick(1, 32);
    conv.kh = conv.kw = conv.sh = conv.sw = conv.dh = conv.dw = 1;
    conv.inp_addr = sramAddress();
    conv.out_addr = sramAddress();
    conv.out_buf = bit();
    conv.wgt_addr = pick(0, 300);
    conv.param_addr = pick(0, 300);
    conv.acc_init = 1;
    conv.finalize = 1;
    conv.clip_lo = -128;
    conv.clip_hi = 127;
    return conv;
  }

 public:
  /// Compute instructions only and no tokens: the races are those of overlapped ELTWISEs with
  /// the CONVs they run beside.
  std::vector<isa::Instruction> makeCompute() {
    std::vector<isa::Instruction> stream;
    const std::int64_t count = pick(2, 16);
    for (std::int64_t k = 0; k < count; ++k) {
      isa::Instruction instruction = pick(0, 1) == 0 ? eltwise() : conv();
      std::visit(
          [](auto& typed) {
            if constexpr (requires { typed.push_prev + typed.push_next; }) {
              typed.pop_prev = typed.pop_next = typed.push_prev = typed.push_next = 0;
            }
          },
          instruction);
      stream.push_back(instruction);
    }
    stream.push_back(isa::End{});
    return stream;
  }

 private:
  std::mt19937 m_rng;
};

TEST(HazardCheck, AgreesWithAPerByteReferenceOnRandomStridedStreams) {
  const isa::NpuConfig config = smallConfig();
  int analysed = 0;
  int racy = 0;
  for (std::uint32_t seed = 1; seed <= 2000; ++seed) {
    const std::vector<isa::Instruction> stream = StreamMaker(seed).make();
    TokenOrder order;
    try {
      order = analyzeTokens(stream, config);
    } catch (const SimFault&) {
      continue;  // a deadlock: no order to check against
    }
    ++analysed;
    const std::string expected = referenceCheck(stream, order, config);
    racy += expected != "(no fault)" ? 1 : 0;
    ASSERT_EQ(checked(stream, order, config), expected) << "seed " << seed;
  }

  // The sweep must exercise both outcomes.
  EXPECT_GT(analysed, 250);
  EXPECT_GT(racy, 50);
  EXPECT_GT(analysed - racy, 50);
}

TEST(HazardCheck, AgreesWithAPerByteReferenceOnRandomComputeStreams) {
  const isa::NpuConfig config = smallConfig();
  int beside = 0;
  for (std::uint32_t seed = 1; seed <= 1000; ++seed) {
    const std::vector<isa::Instruction> stream = StreamMaker(seed).makeCompute();
    const TokenOrder order = analyzeTokens(stream, config);
    const std::string expected = referenceCheck(stream, order, config);
    beside += expected.find("may run beside it") != std::string::npos ? 1 : 0;
    ASSERT_EQ(checked(stream, order, config), expected) << "seed " << seed;
  }
  // Both outcomes: races of an overlapped ELTWISE with a CONV beside it, and streams without.
  EXPECT_GT(beside, 100);
  EXPECT_LT(beside, 900);
}

TEST(HazardCheck, AStridedStoreThenAnUnorderedLoadOfOneSliceNamesItsFirstByte) {
  // Sixteen stores each write one 4-byte channel slice of every 64-byte pixel (the pattern of a
  // channel-tiled depthwise layer, which fragments the DDR state byte by byte); a load of the
  // tenth slice with no token from the store unit races with the tenth store at its first byte.
  const isa::NpuConfig config = smallConfig();
  std::vector<isa::Instruction> stream;
  for (std::int64_t slice = 0; slice < 16; ++slice) {
    stream.push_back(isa::Store{.sram_addr = 0,
                                .ddr_addr = 0x10000 + 4 * slice,
                                .y_size = 64,
                                .x_size = 64,
                                .c_bytes = 4,
                                .ddr_row_stride = 64 * 64,
                                .ddr_col_stride = 64});
  }
  stream.push_back(isa::Load{.ddr_addr = 0x10000 + 4 * 9,
                             .y_size = 64,
                             .x_size = 64,
                             .c_bytes = 4,
                             .ddr_row_stride = 64 * 64,
                             .ddr_col_stride = 64});
  stream.push_back(isa::End{});
  const TokenOrder order = analyzeTokens(stream, config);
  const std::string expected =
      "hazard fault at instruction 16: instruction 16 (LOAD, load unit) reads DDR byte 0x10024, "
      "which instruction 9 (STORE, store unit) writes (earlier in program order); no dependency "
      "token orders them";
  EXPECT_EQ(referenceCheck(stream, order, config), expected);
  EXPECT_EQ(checked(stream, order, config), expected);
}

}  // namespace
}  // namespace npu::sim
