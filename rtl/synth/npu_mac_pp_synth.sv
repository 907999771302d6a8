// Synthesis view of the MAC array datapath and the post-processing pipeline, for the yosys cell
// count of docs/performance.md: the R x C cells (npu_mac_cells), the column accumulators and the
// stage-A registers of npu_mac_array, and MAC_COLS post-processing lanes (npu_pp_lane: requant,
// zero point, clip). Loop control, address generation, the SRAMs and the LUT lookup are outside.
module npu_mac_pp_synth #(
    parameter int R = 16,
    parameter int C = 16
) (
    input logic clk,
    input logic [8*R*C-1:0] x,
    input logic [8*R*C-1:0] w,
    input logic [R*C-1:0] ok,
    input logic [7:0] in_zp,
    input logic first,  // first step of an output group: start from `init`
    input logic [32*C-1:0] init,  // bias, or stored partial sums
    input logic [32*C-1:0] mult,
    input logic [32*C-1:0] shift,
    input logic requant,
    input logic dbl,
    input logic clamp,
    input logic [7:0] out_zp,
    input logic [7:0] clip_lo,
    input logic [7:0] clip_hi,
    output logic [32*C-1:0] y
);
  logic [32*C-1:0] sum;
  npu_mac_cells #(
      .R(R),
      .C(C)
  ) cells (
      .x,
      .w,
      .ok,
      .zp(in_zp),
      .sum
  );

  logic [32*C-1:0] acc;
  logic [32*C-1:0] a_val;
  logic [32*C-1:0] a_mult;
  logic [32*C-1:0] a_shift;
  always_ff @(posedge clk) begin
    for (int c = 0; c < C; c++) begin
      acc[32*c+:32] <= (first ? init[32*c+:32] : acc[32*c+:32]) + sum[32*c+:32];
    end
    a_val <= acc;
    a_mult <= mult;
    a_shift <= shift;
  end

  for (genvar c = 0; c < C; c++) begin : g_lane
    npu_pp_lane lane (
        .clk,
        .a_val(a_val[32*c+:32]),
        .a_mult(a_mult[32*c+:32]),
        .a_shift(a_shift[32*c+:32]),
        .a_requant(requant),
        .a_dbl(dbl),
        .b_clamp(clamp),
        .b_zp(out_zp),
        .b_lo(clip_lo),
        .b_hi(clip_hi),
        .c_val(y[32*c+:32])
    );
  end
endmodule
