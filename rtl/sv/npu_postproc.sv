// A post-processing pipeline (npu_top has one per compute side: the MAC array's, and the vector
// unit's, which ELTWISE, POOL and NORM share): MAC_COLS lanes, three stages after the producer's
// register. Stage A requantizes (single or double rounding), stage B adds the output zero point
// and clips, stage C maps through the LUT and writes the output SRAM (or, for partial sums, the
// accumulator SRAM; only the MAC side's pipeline has its accumulator outputs connected). A vector
// produced in cycle t is written at the end of cycle t+3, so an instruction whose last vector is
// produced in cycle s+N ends at s+N+4: the "+ 4" of docs/timing.md. `fin` pulses in that cycle.
module npu_postproc
  import npu_config_pkg::*, npu_rtl_pkg::*;
(
    input logic clk,
    input logic rst,
    input pp_bundle_t in,  // stage A (registered by the producer)
    // LUT reads from the parameter SRAM.
    output logic [31:0] lut_raddr[MAC_COLS],
    input logic [7:0] lut_rdata[MAC_COLS],
    // Output SRAM writes (or, for a CONV with out_buf, input SRAM writes at the same address
    // and data: inp_we instead of out_we).
    output logic [MAC_COLS-1:0] out_we,
    output logic [MAC_COLS-1:0] inp_we,
    output logic [31:0] out_waddr[MAC_COLS],
    output logic [7:0] out_wdata[MAC_COLS],
    // Accumulator SRAM writes.
    output logic [MAC_COLS-1:0] acc_we,
    output logic [31:0] acc_waddr[MAC_COLS],
    output logic [31:0] acc_wdata[MAC_COLS],
    output logic fin
);
  localparam int C = MAC_COLS;

  // The controls of stages B and C (their values go through the lanes); each stage reads only
  // the fields it needs.
  /* verilator lint_off UNUSEDSIGNAL */
  pp_bundle_t b;
  pp_bundle_t c;
  /* verilator lint_on UNUSEDSIGNAL */
  // Values through the lanes; the controls travel in the bundles.
  logic [31:0] c_val[C];
  for (genvar l = 0; l < C; l++) begin : g_lane
    npu_pp_lane lane (
        .clk,
        .a_val(in.val[l]),
        .a_mult(in.mult[l]),
        .a_shift(in.shift[l]),
        .a_requant(in.valid && in.do_requant),
        .a_dbl(in.dbl),
        .b_clamp(b.valid && b.do_clamp),
        .b_zp(b.zp),
        .b_lo(b.lo),
        .b_hi(b.hi),
        .c_val(c_val[l])
    );
  end

  always_comb begin
    // LUT[v] is the byte at lut_addr + v + 128.
    for (int l = 0; l < C; l++) lut_raddr[l] = 32'(c.lut_addr) + 32'({~c_val[l][7], c_val[l][6:0]});
  end

  always_comb begin
    for (int l = 0; l < C; l++) begin
      out_we[l] = c.valid && c.mask[l] && !c.to_acc && !c.to_inp;
      inp_we[l] = c.valid && c.mask[l] && !c.to_acc && c.to_inp;
      out_waddr[l] = c.addr + 32'(l);
      out_wdata[l] = c.use_lut ? lut_rdata[l] : c_val[l][7:0];
      acc_we[l] = c.valid && c.mask[l] && c.to_acc;
      acc_waddr[l] = c.addr + 32'(l);
      acc_wdata[l] = c_val[l];
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      b.valid <= 1'b0;
      c.valid <= 1'b0;
      fin <= 1'b0;
    end else begin
      b <= in;
      c <= b;
      fin <= c.valid && c.last;
    end
  end
endmodule
