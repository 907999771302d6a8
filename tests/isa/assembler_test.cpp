// Assembler and disassembler: exact error messages and exact text round trips.
#include <gtest/gtest.h>

#include "npu/isa/assembly.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "test_paths.h"

namespace npu::isa {
namespace {

std::string assembleError(std::string_view text) {
  try {
    assemble(text, "t.s", "");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

/// The source with comments, trailing blanks and empty lines removed.
std::string withoutComments(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line(text.substr(start, end - start));
    line = line.substr(0, line.find_first_of(";#"));
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) {
      line.pop_back();
    }
    if (!line.empty()) {
      out += line + "\n";
    }
    start = end + 1;
  }
  return out;
}

TEST(Assembler, SmokeProgramRoundTripsExactly) {
  const auto path = testing::sourcePath("examples/asm/smoke.s");
  const std::string source = readTextFile(path);
  const Program program = assembleFile(path);
  EXPECT_EQ(disassemble(program), withoutComments(source));
  // And through the binary container.
  EXPECT_EQ(parseProgram(serializeProgram(program), "mem"), program);
}

TEST(Assembler, ProgramWithEveryOpcodeRoundTrips) {
  const std::string text =
      ".hw npu-s\n"
      ".code 0x100\n"
      ".region in kind=input base=0x1000 size=64 dtype=int8 shape=1x4x4x4 scale=0.125 zp=-3\n"
      ".data 0x1000 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n"
      ".data 0x1020 ff\n"
      "LOAD push_next=1 buf=2 pad_value=-128 sram_addr=0x10 ddr_addr=0x1000 y_size=4 x_size=4 "
      "c_bytes=4 ddr_row_stride=16 ddr_col_stride=4 pad_top=1 pad_bottom=1 pad_left=1 "
      "pad_right=1\n"
      "CONV pop_prev=1 push_next=1 out_h=2 out_w=2 in_w=4 in_c=4 out_c=4 kh=3 kw=3 sh=1 sw=1 dh=1 "
      "dw=1 in_zp=-3 clip_lo=-128 clip_hi=127 acc_init=1 finalize=1\n"
      "ELTWISE op=1 count=16 clip_lo=-5 clip_hi=5 double_round=1\n"
      "POOL op=1 in_w=4 out_h=1 out_w=1 channels=4 kh=4 kw=4 sh=1 sw=1 avg_mult=1073741824 "
      "avg_shift=-3\n"
      "SYNC pop_next=1 unit=1\n"
      "STORE pop_prev=1 ddr_addr=0x2000 y_size=2 x_size=2 c_bytes=4 ddr_row_stride=8 "
      "ddr_col_stride=4\n"
      "END\n";
  const Program program = assemble(text, "t.s", "");
  EXPECT_EQ(disassemble(program), text);
  EXPECT_EQ(program.segments.size(), 1U);  // contiguous .data lines merge
  EXPECT_EQ(program.segments[0].bytes.size(), 33U);
}

TEST(Assembler, OutOfRangeFieldNamesLineAndField) {
  EXPECT_EQ(assembleError(".hw npu-s\n\nLOAD y_size=70000 x_size=1 c_bytes=1\nEND\n"),
            "t.s:3: LOAD: field 'y_size' = 70000 is out of range [1, 65535]");
  EXPECT_EQ(assembleError(".hw npu-s\nCONV in_zp=128 out_h=1 out_w=1 in_w=1 in_c=1 out_c=1 kh=1 "
                          "kw=1 sh=1 sw=1 dh=1 dw=1\nEND\n"),
            "t.s:2: CONV: field 'in_zp' = 128 is out of range [-128, 127]");
}

TEST(Assembler, RejectsUnknownThings) {
  EXPECT_EQ(assembleError(".hw npu-s\nFROB x=1\nEND\n"), "t.s:2: unknown mnemonic 'FROB'");
  EXPECT_EQ(assembleError(".hw npu-s\nSYNC unit=1 colour=3\nEND\n"),
            "t.s:2: SYNC has no field 'colour'");
  EXPECT_EQ(assembleError(".hw npu-s\nSYNC unit=1 unit=2\nEND\n"),
            "t.s:2: SYNC: field 'unit' given twice");
  EXPECT_EQ(assembleError(".hw npu-s\nSYNC unit=x1\nEND\n"),
            "t.s:2: SYNC.unit: 'x1' is not an integer");
  EXPECT_EQ(assembleError(".hw npu-s\n.frob 1\nEND\n"),
            "t.s:2: unknown directive '.frob' (.hw, .code, .region, .data)");
  EXPECT_EQ(assembleError(".hw npu-s\nLOAD x_size=1 c_bytes=1\nEND\n"),
            "t.s:2: LOAD: field 'y_size' is required (range [1, 65535])");
}

TEST(Assembler, RejectsCrossFieldViolations) {
  EXPECT_EQ(assembleError(".hw npu-s\nSYNC pop_prev=1\nEND\n"),
            "t.s:2: SYNC: SYNC on the load unit cannot use pop_prev or push_prev (load has no "
            "previous unit)");
  EXPECT_EQ(assembleError(".hw npu-s\nCONV out_h=1 out_w=1 in_w=1 in_c=2 out_c=4 kh=1 kw=1 sh=1 "
                          "sw=1 dh=1 dw=1 depthwise=1\nEND\n"),
            "t.s:2: CONV: depthwise CONV needs in_c == out_c (in_c = 2, out_c = 4)");
  EXPECT_EQ(assembleError(".hw npu-s\nCONV out_h=1 out_w=4 in_w=5 in_c=1 out_c=1 kh=3 kw=3 sh=1 "
                          "sw=1 dh=1 dw=1\nEND\n"),
            "t.s:2: CONV: in_w = 5 is narrower than the window needs (6)");
}

TEST(Assembler, WeightsInKnOrderOnlyForADense1x1Conv) {
  const std::string conv = ".hw npu-s\nCONV out_h=1 out_w=2 in_c=3 out_c=4 sh=1 sw=1 dh=1 dw=1 ";
  EXPECT_EQ(assembleError(conv + "in_w=2 kh=1 kw=1 wgt_kn=1\nEND\n"), "(no error)");
  EXPECT_EQ(assembleError(conv + "in_w=3 kh=1 kw=2 wgt_kn=1\nEND\n"),
            "t.s:2: CONV: wgt_kn needs a dense 1x1 CONV (kh = 1, kw = 2, depthwise = 0)");
}

TEST(Assembler, OutGapOnlyWhenTheConvFinalizes) {
  const std::string conv =
      ".hw npu-s\nCONV out_h=1 out_w=2 in_w=2 in_c=3 out_c=4 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 ";
  EXPECT_EQ(assembleError(conv + "finalize=1 out_gap=3\nEND\n"), "(no error)");
  EXPECT_EQ(assembleError(conv + "finalize=0 out_gap=1\nEND\n"),
            "t.s:2: CONV: out_gap = 1 needs finalize = 1 (it spaces the int8 output pixels)");
}

TEST(Assembler, StridedSramRowsOnlyUnpaddedAndApart) {
  const std::string load = ".hw npu-s\nLOAD y_size=3 x_size=2 c_bytes=5 ";
  EXPECT_EQ(assembleError(load + "sram_row_stride=10\nEND\n"), "(no error)");
  EXPECT_EQ(assembleError(load + "sram_row_stride=16 pad_left=1\nEND\n"),
            "t.s:2: LOAD: sram_row_stride = 16 needs no padding (pad_top = 0, pad_bottom = 0, "
            "pad_left = 1, pad_right = 0)");
  EXPECT_EQ(assembleError(load + "sram_row_stride=9\nEND\n"),
            "t.s:2: LOAD: sram_row_stride = 9 is shorter than a row (x_size * c_bytes = 10)");
}

TEST(Assembler, ProgramLevelChecks) {
  EXPECT_EQ(assembleError("SYNC unit=1\nEND\n"),
            "t.s: missing '.hw PRESET' (the hardware the program is for)");
  EXPECT_EQ(assembleError(".hw npu-s\nSYNC unit=1\n"), "t.s: the last instruction (0) is not END");
  EXPECT_EQ(assembleError(".hw npu-s\nEND\nEND\n"),
            "t.s: instruction 0: END before the last instruction (1 follow)");
  EXPECT_EQ(assembleError(".hw npu-s\n.region a kind=input base=0x0 size=16\nEND\n"),
            "t.s: region 'a' [0x0, 0x10) overlaps the instruction stream [0x0, 0x20)");
  EXPECT_EQ(assembleError(".hw npu-s\n.code 0x100\n.region a kind=input base=0x0 size=16\n"
                          ".region b kind=output base=0x8 size=16\nEND\n"),
            "t.s: region 'b' [0x8, 0x18) overlaps region 'a' [0x0, 0x10)");
  EXPECT_EQ(assembleError(".hw npu-s\n.data 0x4000000 00\nEND\n"),
            "t.s: DDR segment 0 [0x4000000, +1) lies outside DDR (67108864 bytes)");
  EXPECT_EQ(assembleError(".hw npu-zz\nEND\n").substr(0, 45),
            "t.s:1: hardware config 'npu-zz' not found (lo");
}

}  // namespace
}  // namespace npu::isa
