// Shared types and arithmetic of the RTL NPU: instruction-word decode helpers, the
// post-processing bundle, and the fixed-point requant of docs/numerics.md. Unit and token-queue
// numbering, unit_of and the token masks come from the generated npu_isa_pkg.
package npu_rtl_pkg;
  import npu_isa_pkg::*;
  import npu_config_pkg::*;

  typedef logic [WORD_BITS-1:0] word_t;

  // The execution slots of npu_control: the three units (UNIT_*; slot UNIT_COMPUTE is the compute
  // unit's MAC side, CONV and SYNC) and the compute unit's vector side (ELTWISE, POOL, NORM),
  // which may run an overlapped ELTWISE beside the MAC side's CONVs.
  localparam int SLOTS = 4;
  localparam int SIDE_MAC = UNIT_COMPUTE;
  localparam int SIDE_VEC = 3;

  localparam logic signed [31:0] INT32_MAX = 32'sh7FFF_FFFF;
  localparam logic signed [31:0] INT32_MIN = 32'sh8000_0000;

  // The decode helpers read a few bits of a whole word.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [3:0] opcode_of(input word_t w);
    return w[OPCODE_BITS-1:0];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // One MAC_COLS-wide vector entering the post-processing pipeline (stage A), with the controls
  // of the instruction that produced it.
  typedef struct packed {
    logic valid;
    logic last;  // the instruction's final vector: the pipeline signals `fin` after writing it
    logic [MAC_COLS-1:0] mask;  // lanes to write
    logic [MAC_COLS-1:0][31:0] val;  // int32 per lane
    logic [MAC_COLS-1:0][31:0] mult;  // requant multiplier per lane
    logic [MAC_COLS-1:0][31:0] shift;  // requant shift per lane
    logic do_requant;  // stage A: val = requant(val, mult, shift, dbl)
    logic dbl;
    logic do_clamp;  // stage B: val = clamp(val + zp, lo, hi)
    logic [7:0] zp;
    logic [7:0] lo;
    logic [7:0] hi;
    logic use_lut;  // stage C: val = LUT[val]
    logic [19:0] lut_addr;
    logic to_acc;  // stage C: write int32 to the accumulator SRAM, else int8 to the output SRAM
    logic to_inp;  // stage C: the int8 goes to the input SRAM instead (CONV out_buf, a cascade)
    logic [31:0] addr;  // destination of lane 0 (byte address, or accumulator index)
  } pp_bundle_t;

  function automatic logic signed [31:0] sat32(input logic signed [63:0] v);
    if (v > 64'(INT32_MAX)) return INT32_MAX;
    if (v < 64'(INT32_MIN)) return INT32_MIN;
    return v[31:0];
  endfunction

  function automatic logic signed [31:0] sext8(input logic [7:0] v);
    return {{24{v[7]}}, v};
  endfunction

  function automatic logic signed [63:0] sext64(input logic signed [31:0] v);
    return {{32{v[31]}}, v};
  endfunction

  function automatic logic [31:0] min32(input logic [31:0] a, input logic [31:0] b);
    return a < b ? a : b;
  endfunction
endpackage
