// Cascaded inverted residuals (docs/cascade.md): chains the compiler keeps on chip run bit-exact
// on both engines, their intermediates never reach DDR, and chains it must not cascade are lowered
// one conv at a time.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compile_run_verify.h"
#include "npu/isa/tokens.h"
#include "npu/simulator/timing.h"

namespace npu::compiler {
namespace {

using testing::compileRunVerify;
using testing::config;

/// CONVs that write the input SRAM (out_buf): the cascade's expand and depthwise CONVs.
int onChipConvs(const CompiledProgram& compiled) {
  int count = 0;
  for (const isa::Instruction& instruction : compiled.program.instructions) {
    if (const auto* conv = std::get_if<isa::Conv>(&instruction)) {
      count += conv->out_buf != 0 ? 1 : 0;
    }
  }
  return count;
}

struct Residual {
  std::int64_t h, w, c, expand, out, kernel, stride;
};

/// expand 1x1 (when `r.expand` > 0) -> depthwise -> project 1x1, plus the residual add where
/// the shapes allow it (MobileNetV2's identity shortcut); returns the intermediates.
std::vector<TensorId> invertedResidual(testing::RandomGraphBuilder& b, const Residual& r) {
  const TensorId x = b.input(r.h, r.w, r.c);
  std::vector<TensorId> intermediates;
  TensorId e = x;
  if (r.expand > 0) {
    e = b.conv(x, r.expand, 0, 1, 1, 1, 0);
    intermediates.push_back(e);
  }
  const TensorId d = b.conv(e, 0, 1, r.kernel, r.stride, 1, r.kernel / 2);
  intermediates.push_back(d);
  const TensorId y = b.conv(d, r.out, 0, 1, 1, 1, 0);
  if (r.expand > 0 && r.stride == 1 && r.c == r.out) {
    intermediates.push_back(y);
    b.graph().outputs = {b.pick(0, 1) == 0 ? b.add(y, x) : b.add(x, y)};  // either operand order
  } else {
    b.graph().outputs = {y};
  }
  return intermediates;
}

TEST(Cascade, InvertedResidualsStayOnChip) {
  // MobileNetV2 and EfficientNet shapes: several bands, several channel blocks, strides 1 and 2,
  // 3x3 and 5x5 kernels, odd sizes, the first block without an expand, residual adds.
  const std::vector<Residual> cases = {{56, 56, 24, 144, 24, 3, 1}, {56, 56, 24, 144, 32, 3, 2},
                                       {28, 28, 32, 192, 32, 3, 1}, {14, 14, 96, 576, 96, 3, 1},
                                       {112, 112, 32, 0, 16, 3, 1}, {29, 31, 16, 96, 24, 5, 2},
                                       {28, 28, 40, 240, 40, 5, 1}, {15, 17, 32, 192, 32, 3, 1}};
  std::uint64_t seed = 300;
  for (const Residual& r : cases) {
    for (const char* hw : {"npu-s", "npu-l"}) {
      testing::RandomGraphBuilder b(++seed);
      const std::vector<TensorId> intermediates = invertedResidual(b, r);
      const std::string what = fmt::format("{}x{}x{} -> {} -> {}x{}/{} -> {} on {}", r.h, r.w, r.c,
                                           r.expand, r.kernel, r.kernel, r.stride, r.out, hw);
      const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
      EXPECT_GT(onChipConvs(compiled), 0) << what;
      for (const TensorId id : intermediates) {
        EXPECT_TRUE(compiled.tensors[id].onChip) << what;
      }
      EXPECT_GT(compileRunVerify(b, config(hw), what), 0U);
    }
  }
}

TEST(Cascade, KeptHaloRowsAreExpandedOnce) {
  // MobileNetV2's features.3 (56x56x24 -> 144 -> 3x3 -> 24, residual) and features.2 (stride 2):
  // bands share depthwise-input rows, which the vector unit keeps beside the MAC array, so the
  // expand CONVs cover every expanded value exactly once (without the kept halo, each band but
  // the first computes its top rows again).
  const std::vector<Residual> cases = {{56, 56, 24, 144, 24, 3, 1}, {112, 112, 16, 96, 24, 3, 2}};
  std::uint64_t seed = 400;
  for (const Residual& r : cases) {
    testing::RandomGraphBuilder b(++seed);
    invertedResidual(b, r);
    const std::string what = fmt::format("{}x{}x{} -> {} -> {}x{}/{}", r.h, r.w, r.c, r.expand,
                                         r.kernel, r.kernel, r.stride);
    const CompiledProgram compiled = generateProgram(b.graph(), config("npu-s"), b.randomInputs());
    std::int64_t expanded = 0;
    int copies = 0;
    for (std::size_t i = 0; i < compiled.program.instructions.size(); ++i) {
      const isa::Instruction& instruction = compiled.program.instructions[i];
      if (const auto* conv = std::get_if<isa::Conv>(&instruction);
          conv != nullptr && compiled.instructionOp[i] == 0) {  // op 0: the expand
        expanded += conv->out_h * conv->out_w * conv->out_c;
      }
      if (const auto* copy = std::get_if<isa::Eltwise>(&instruction);
          copy != nullptr && copy->op == 2 && copy->overlap != 0) {
        ++copies;
      }
    }
    // A copy beside an expand CONV takes no longer than it: the next CONV waits for the
    // vector side, so a longer copy goes in pieces of whole rows.
    for (std::size_t i = 1; i < compiled.program.instructions.size(); ++i) {
      const auto* copy = std::get_if<isa::Eltwise>(&compiled.program.instructions[i]);
      const auto* conv = std::get_if<isa::Conv>(&compiled.program.instructions[i - 1]);
      if (copy != nullptr && copy->op == 2 && conv != nullptr &&
          compiled.instructionOp[i - 1] == 0) {
        EXPECT_LE(sim::instructionCycles(*copy, config("npu-s")),
                  sim::instructionCycles(*conv, config("npu-s")))
            << what << ", instruction " << i;
      }
    }
    EXPECT_GT(copies, 0) << what;
    EXPECT_EQ(expanded, r.h * r.w * r.expand) << what;
    EXPECT_GT(compileRunVerify(b, config("npu-s"), what), 0U);
  }
}

TEST(Cascade, RandomChainsOnSmallAndDefaultSrams) {
  // Random inverted residuals on npu-s and on npu-tiny (an 8x4 array, SRAMs of a few KiB, shallow
  // queues): whatever the compiler chooses (cascaded with constants loaded once or streamed, or
  // conv by conv when nothing fits), the result is bit-exact on both engines.
  const isa::NpuConfig tiny = isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "tests" /
                                                 "data" / "opcheck" / "npu-tiny.yaml");
  std::array<int, 2> cascaded{};  // npu-s, npu-tiny
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    testing::RandomGraphBuilder b(seed + 3100);
    const bool small = seed % 2 == 0;
    const std::int64_t c = b.pick(3, small ? 12 : 40);
    Residual r{b.pick(5, small ? 20 : 60),
               b.pick(5, small ? 24 : 60),
               c,
               seed % 5 == 0 ? 0 : c * b.pick(2, 6),
               seed % 3 == 0 ? c : b.pick(4, 40),
               b.pick(0, 3) == 0 ? 5 : 3,
               b.pick(1, 2)};
    invertedResidual(b, r);
    const isa::NpuConfig& hw = small ? tiny : config("npu-s");
    const std::string what =
        fmt::format("seed {}: {}x{}x{} -> {} -> {}x{}/{} -> {} on {}", seed, r.h, r.w, r.c,
                    r.expand, r.kernel, r.kernel, r.stride, r.out, hw.name);
    cascaded[small ? 1 : 0] +=
        onChipConvs(generateProgram(b.graph(), hw, b.randomInputs())) > 0 ? 1 : 0;
    EXPECT_GT(compileRunVerify(b, hw, what), 0U);
  }
  // The sweep exercises the cascade on both, not only the fallback.
  EXPECT_GT(cascaded[0], 2);
  EXPECT_GT(cascaded[1], 2);
}

TEST(Cascade, SharedIntermediatesAreNotCascaded) {
  // The expand's output also feeds the graph output: it must reach DDR, so only the depthwise
  // and the project may cascade.
  testing::RandomGraphBuilder b(41);
  const TensorId x = b.input(28, 28, 24);
  const TensorId e = b.conv(x, 144, 0, 1, 1, 1, 0);
  const TensorId d = b.conv(e, 0, 1, 3, 1, 1, 1);
  const TensorId y = b.conv(d, 24, 0, 1, 1, 1, 0);
  b.graph().outputs = {y, e};
  const CompiledProgram compiled = generateProgram(b.graph(), config("npu-s"), b.randomInputs());
  EXPECT_FALSE(compiled.tensors[e].onChip);
  EXPECT_EQ(compiled.tensors[d].onChip, onChipConvs(compiled) > 0);
  EXPECT_GT(compileRunVerify(b, config("npu-s"), "shared expand output"), 0U);
}

TEST(Cascade, ChainsTooLargeForTheSramsStreamTheirConstants) {
  // 160 -> 960 -> 160 (MobileNetV2's last stage): 307 KB of weights, more than npu-s's weight
  // SRAM, so each block's weights and parameters are loaded per band into two slots.
  testing::RandomGraphBuilder b(42);
  const std::vector<TensorId> intermediates = invertedResidual(b, {7, 7, 160, 960, 160, 3, 1});
  const CompiledProgram compiled = generateProgram(b.graph(), config("npu-s"), b.randomInputs());
  EXPECT_GT(onChipConvs(compiled), 0);
  int weightLoads = 0;
  for (const isa::Instruction& instruction : compiled.program.instructions) {
    if (const auto* load = std::get_if<isa::Load>(&instruction)) {
      weightLoads += load->buf == 1 ? 1 : 0;
    }
  }
  EXPECT_GT(weightLoads, 3);  // more than one blob per conv
  EXPECT_GT(compileRunVerify(b, config("npu-s"), "7x7x160 -> 960 -> 160"), 0U);
}

TEST(Cascade, ExpandAndDepthwiseWithoutAProject) {
  // EfficientNet's MBConv: the squeeze-excitation reads the depthwise's output, so only the
  // expand -> depthwise pair cascades and the depthwise's output goes to DDR, block by block.
  for (const char* hw : {"npu-s", "npu-l"}) {
    testing::RandomGraphBuilder b(44);
    const TensorId x = b.input(56, 56, 24);
    const TensorId e = b.conv(x, 144, 0, 1, 1, 1, 0);
    const TensorId d = b.conv(e, 0, 1, 5, 2, 1, 2);
    b.graph().outputs = {d, b.globalPool(d)};
    const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
    EXPECT_GT(onChipConvs(compiled), 0) << hw;
    EXPECT_TRUE(compiled.tensors[e].onChip) << hw;
    EXPECT_FALSE(compiled.tensors[d].onChip) << hw;
    EXPECT_GT(compileRunVerify(b, config(hw), std::string("expand -> depthwise on ") + hw), 0U);
  }
}

TEST(Cascade, PoolOfTheDepthwiseIsSummedInsideTheCascade) {
  // EfficientNet's squeeze: the global average pool of the depthwise's output joins the expand
  // -> depthwise cascade (each block summed where the depthwise wrote it in SRAM, the vector
  // unit copying it out for its STORE) instead of a pass over the whole tensor, where the cost
  // model finds it cheaper. Several bands and blocks, strides 1 and 2, odd sizes, 1152 channels
  // (an accumulator entry each).
  struct Case {
    std::int64_t h, w, c, e, kernel, stride;
  };
  std::uint64_t seed = 700;
  int fused = 0;
  for (const Case& k :
       {Case{56, 56, 24, 144, 3, 1}, Case{56, 56, 24, 144, 5, 2}, Case{28, 28, 40, 240, 5, 1},
        Case{7, 7, 192, 1152, 3, 1}, Case{15, 17, 16, 96, 3, 2}, Case{14, 14, 80, 480, 3, 1}}) {
    for (const char* hw : {"npu-s", "npu-l"}) {
      testing::RandomGraphBuilder b(++seed);
      const TensorId x = b.input(k.h, k.w, k.c);
      const TensorId e = b.conv(x, k.e, 0, 1, 1, 1, 0);
      const TensorId d = b.conv(e, 0, 1, k.kernel, k.stride, 1, k.kernel / 2);
      const TensorId pooled = b.globalPool(d);
      b.graph().outputs = {b.conv(pooled, 16, 0, 1, 1, 1, 0), d};
      const std::string what = fmt::format("{}x{}x{} -> {} -> {}x{}/{} + pool on {}", k.h, k.w, k.c,
                                           k.e, k.kernel, k.kernel, k.stride, hw);
      const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
      EXPECT_TRUE(compiled.tensors[e].onChip) << what;
      // Fused: the pool's first instruction comes before the depthwise's last one, and no
      // LOAD of the pool's reads the depthwise's output back from DDR.
      std::size_t poolFirst = compiled.instructionOp.size(), depthwiseLast = 0;
      const std::uint64_t dBegin = compiled.tensors[d].address;
      const auto& ds = b.at(d).shape;
      const std::uint64_t dEnd = dBegin + static_cast<std::uint64_t>(ds[1] * ds[2] * ds[3]);
      for (std::size_t i = 0; i < compiled.instructionOp.size(); ++i) {
        if (compiled.instructionOp[i] == 2) {
          poolFirst = std::min(poolFirst, i);
          if (const auto* load = std::get_if<isa::Load>(&compiled.program.instructions[i])) {
            const auto at = static_cast<std::uint64_t>(load->ddr_addr);
            EXPECT_FALSE(at >= dBegin && at < dEnd) << what << ": instruction " << i;
          }
        } else if (compiled.instructionOp[i] == 1) {
          depthwiseLast = i;
        }
      }
      fused += poolFirst < depthwiseLast ? 1 : 0;
      EXPECT_GT(compileRunVerify(b, config(hw), what), 0U);
    }
  }
  EXPECT_GE(fused, 8);  // the cost model may keep a few pools apart; most must fuse
}

TEST(Cascade, KeptHaloBesideThePoolIsCopiedBeforeItsRowsAreOverwritten) {
  // With the squeeze pool the vector unit is busy beside each depthwise, so a block's halo copy
  // out waits for the next block's first expand CONV; it must still run before anything writes
  // those rows: the last band's padding (54 rows in bands of 9: the last band nearly full) and,
  // in bands of one row, the next block's first expand CONV itself (wide blocks, little SRAM).
  struct Case {
    std::int64_t h, w, c, e, kernel, stride;
  };
  std::uint64_t seed = 800;
  for (const Case& k : {Case{54, 56, 24, 144, 3, 1}, Case{53, 56, 24, 144, 3, 1},
                        Case{56, 56, 256, 256, 3, 1}, Case{56, 56, 192, 384, 3, 1}}) {
    testing::RandomGraphBuilder b(++seed);
    const TensorId x = b.input(k.h, k.w, k.c);
    const TensorId e = b.conv(x, k.e, 0, 1, 1, 1, 0);
    const TensorId d = b.conv(e, 0, 1, k.kernel, k.stride, 1, k.kernel / 2);
    b.graph().outputs = {b.globalPool(d), d};
    const std::string what = fmt::format("{}x{}x{} -> {} -> {}x{}/{} + pool", k.h, k.w, k.c, k.e,
                                         k.kernel, k.kernel, k.stride);
    EXPECT_GT(compileRunVerify(b, config("npu-s"), what), 0U);
  }
}

TEST(Cascade, ExpandAndDepthwiseEndingTheGraph) {
  // The pair is the graph's last two ops and its constants stream (960 expanded channels with a
  // LUT): every instruction belongs to an op of the graph. The shared records' load was once
  // attributed to the op after the depthwise, here past the end of the graph, which crashed
  // the layer table (DeepLabV3-MobileNetV3 with a project conv placed on the host).
  testing::RandomGraphBuilder b(45);
  const TensorId x = b.input(14, 14, 160);
  const TensorId e = b.conv(x, 960, 0, 1, 1, 1, 0);
  const TensorId d = b.conv(e, 0, 1, 3, 2, 1, 1);
  b.graph().outputs = {d};
  const CompiledProgram compiled = generateProgram(b.graph(), config("npu-s"), b.randomInputs());
  EXPECT_TRUE(compiled.tensors[e].onChip);
  for (const std::int64_t op : compiled.instructionOp) {
    EXPECT_LT(op, static_cast<std::int64_t>(b.graph().ops.size()));
  }
  EXPECT_GT(compileRunVerify(b, config("npu-s"), "expand -> depthwise ending the graph"), 0U);
}

TEST(Cascade, GatedProjectKeepsTheGatedTensorOnChip) {
  // EfficientNet's MBConv tail: the squeeze-excitation gate multiply writes the input SRAM
  // (ELTWISE out_buf) for the project CONV, and a residual add after the project runs on the
  // band; with 7x7x1152 -> 192 the project's weights (221 KB) are streamed per block. The gate
  // is replicated over a band's pixels by doubling copies of each block's one LOAD.
  struct Case {
    std::int64_t h, w, c, out;
    bool residual;
  };
  std::uint64_t seed = 500;
  for (const Case& k : {Case{28, 28, 96, 40, false}, Case{28, 28, 96, 40, true},
                        Case{7, 7, 1152, 192, true}, Case{13, 11, 48, 16, false}}) {
    for (const char* hw : {"npu-s", "npu-l"}) {
      testing::RandomGraphBuilder b(++seed);
      const TensorId x = b.input(k.h, k.w, k.c);
      const TensorId squeezed = b.conv(b.globalPool(x), 24, 0, 1, 1, 1, 0);
      const TensorId gate = b.lut(b.conv(squeezed, k.c, 0, 1, 1, 1, 0));
      const TensorId gated = b.mul(x, gate);
      const TensorId y = b.conv(gated, k.out, 0, 1, 1, 1, 0);
      b.graph().outputs = {k.residual ? b.add(y, b.input(k.h, k.w, k.out)) : y};
      const std::string what = fmt::format("gate {}x{}x{} -> {}{} on {}", k.h, k.w, k.c, k.out,
                                           k.residual ? " + residual" : "", hw);
      const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
      int gatedOnChip = 0;
      int gateCopies = 0;
      for (const isa::Instruction& instruction : compiled.program.instructions) {
        if (const auto* eltwise = std::get_if<isa::Eltwise>(&instruction)) {
          gatedOnChip += eltwise->out_buf != 0 && eltwise->op == 1 ? 1 : 0;
          gateCopies += eltwise->op == 2 ? 1 : 0;
        }
        // The gate is loaded once per block and replicated over the band's pixels by the
        // vector unit, never read again from DDR for each pixel (a LOAD with column stride 0).
        if (const auto* load = std::get_if<isa::Load>(&instruction)) {
          EXPECT_FALSE(load->x_size > 1 && load->ddr_col_stride == 0) << what;
        }
      }
      EXPECT_GT(gatedOnChip, 0) << what;
      EXPECT_GT(gateCopies, 0) << what;
      EXPECT_TRUE(compiled.tensors[gated].onChip) << what;
      EXPECT_EQ(compiled.tensors[y].onChip, k.residual) << what;
      EXPECT_GT(compileRunVerify(b, config(hw), what), 0U);
    }
  }
}

TEST(Cascade, FusedOpsNeverStoreOverTheirInputs) {
  // MobileNetV3's block 6 then 7: a depthwise whose output (an intermediate in the shared DDR
  // arena) is gated, projected and added band by band, then an expand -> depthwise/2 -> project
  // cascade. The add's output was once placed over the depthwise's output, whose last reader
  // (the multiply) had run by op count while the fused lowering still loaded its later bands:
  // DeepLabV3-MobileNetV3 lost bit-exactness from its sixth block on.
  for (const char* hw : {"npu-s", "npu-l"}) {
    testing::RandomGraphBuilder b(46);
    const TensorId x = b.input(32, 32, 120);
    const TensorId d = b.conv(x, 0, 1, 5, 1, 1, 2);
    const TensorId gate =
        b.lut(b.conv(b.conv(b.globalPool(d), 32, 0, 1, 1, 1, 0), 120, 0, 1, 1, 1, 0));
    const TensorId projected = b.conv(b.mul(d, gate), 40, 0, 1, 1, 1, 0);
    const TensorId y = b.add(projected, b.input(32, 32, 40));
    const TensorId e = b.conv(y, 240, 0, 1, 1, 1, 0);
    b.graph().outputs = {b.conv(b.conv(e, 0, 1, 3, 2, 1, 1), 80, 0, 1, 1, 1, 0)};
    // The cascade puts its weights at the end of the weight SRAM the gated project's CONVs do
    // not read, so that they load while the gated project still computes.
    const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
    std::int64_t expandOp = -1;
    std::int64_t projectOp = -1;
    for (std::size_t i = 0; i < b.graph().ops.size(); ++i) {
      expandOp = opOutput(b.graph().ops[i]) == e ? static_cast<std::int64_t>(i) : expandOp;
      projectOp =
          opOutput(b.graph().ops[i]) == projected ? static_cast<std::int64_t>(i) : projectOp;
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> projectWeights;  // [begin, end)
    int cascadeWeightLoads = 0;
    for (std::size_t i = 0; i < compiled.program.instructions.size(); ++i) {
      const isa::Instruction& instruction = compiled.program.instructions[i];
      const std::int64_t op = compiled.instructionOp[i];
      if (const auto* conv = std::get_if<isa::Conv>(&instruction);
          conv != nullptr && op == projectOp) {
        projectWeights.emplace_back(
            conv->wgt_addr, conv->wgt_addr + conv->out_c * conv->in_c * conv->kh * conv->kw);
      }
      const auto* load = std::get_if<isa::Load>(&instruction);
      if (load != nullptr && load->buf == 1 && op >= expandOp) {
        ++cascadeWeightLoads;
        const std::int64_t end = load->sram_addr + load->y_size * load->x_size * load->c_bytes;
        for (const auto& [begin, stop] : projectWeights) {
          EXPECT_TRUE(end <= begin || stop <= load->sram_addr) << hw << ", instruction " << i;
        }
      }
    }
    EXPECT_GT(cascadeWeightLoads, 0) << hw;
    EXPECT_GT(compileRunVerify(b, config(hw), std::string("gated block, then cascade, on ") + hw),
              0U);
  }
}

TEST(Cascade, OtherChainsAreLoweredConvByConv) {
  // A dilated depthwise is not cascaded: the chain runs as three separate convs.
  testing::RandomGraphBuilder b(43);
  const TensorId x = b.input(20, 20, 16);
  const TensorId e = b.conv(x, 96, 0, 1, 1, 1, 0);
  const TensorId d = b.conv(e, 0, 1, 3, 1, 2, 2);
  b.graph().outputs = {b.conv(d, 16, 0, 1, 1, 1, 0)};
  const CompiledProgram compiled = generateProgram(b.graph(), config("npu-s"), b.randomInputs());
  EXPECT_EQ(onChipConvs(compiled), 0);
  EXPECT_FALSE(compiled.tensors[e].onChip);
  EXPECT_FALSE(compiled.tensors[d].onChip);
  EXPECT_GT(compileRunVerify(b, config("npu-s"), "dilated depthwise"), 0U);
}

}  // namespace
}  // namespace npu::compiler
