// One lane of the post-processing pipeline: stage A requantizes (when asked) into the stage B
// register, stage B adds the zero point and clips (when asked) into the stage C register, as
// std::clamp does: min(max(v + zp, lo), hi). Plain Verilog types so that yosys can synthesize it.
module npu_pp_lane (
    input logic clk,
    // Stage A.
    input logic [31:0] a_val,
    input logic [31:0] a_mult,
    input logic [31:0] a_shift,
    input logic a_requant,
    input logic a_dbl,
    // Stage B.
    input logic b_clamp,
    input logic [7:0] b_zp,
    input logic [7:0] b_lo,
    input logic [7:0] b_hi,
    output logic [31:0] c_val
);
  logic [31:0] b_val;
  logic [31:0] requantized;
  npu_requant requant (
      .acc(a_val),
      .mult(a_mult),
      .shift(a_shift),
      .dbl(a_dbl),
      .y(requantized)
  );

  logic signed [33:0] x;
  logic signed [33:0] lo;
  logic signed [33:0] hi;
  logic [31:0] clamped;
  always_comb begin
    x = $signed({{2{b_val[31]}}, b_val}) + $signed({{26{b_zp[7]}}, b_zp});
    lo = $signed({{26{b_lo[7]}}, b_lo});
    hi = $signed({{26{b_hi[7]}}, b_hi});
    if (x < lo) x = lo;
    if (x > hi) x = hi;
    clamped = x[31:0];
  end

  always_ff @(posedge clk) begin
    b_val <= a_requant ? requantized : a_val;
    c_val <= b_clamp ? clamped : b_val;
  end

  logic unused;
  assign unused = ^x[33:32];
endmodule
