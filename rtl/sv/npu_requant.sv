// requant(acc, M, shift, double_round) of docs/numerics.md, combinational: single rounding
// (acc*M + 2^(t-1)) >> t with t = 31 - shift, saturated to int32; or gemmlowp double rounding
// (saturating rounding doubling high multiply, then a rounding divide by 2^-shift). The shift is
// first clamped to [-31, 30], as a 6-bit shifter saturates. Plain Verilog types (no packages) so
// that Debian's yosys can synthesize it.
module npu_requant (
    input logic [31:0] acc,
    input logic [31:0] mult,
    input logic [31:0] shift,
    input logic dbl,
    output logic [31:0] y
);
  localparam logic signed [63:0] MAX32 = 64'sh0000_0000_7FFF_FFFF;
  localparam logic signed [63:0] MIN32 = -64'sh0000_0000_8000_0000;

  logic signed [31:0] s;
  logic [5:0] t;
  logic [5:0] left;
  logic [5:0] right;
  logic signed [63:0] acc64;
  logic signed [63:0] shifted64;
  logic signed [31:0] shifted;
  logic signed [31:0] operand;
  logic signed [63:0] prod;
  logic signed [63:0] rounded;
  logic signed [63:0] nudged;
  logic signed [63:0] high;
  logic signed [63:0] mask;
  logic signed [63:0] rem;
  logic signed [63:0] thr;
  logic signed [63:0] rounded_once;
  logic signed [63:0] rounded_twice;

  always_comb begin
    s = $signed(shift) < -32'sd31 ? -32'sd31 : ($signed(shift) > 32'sd30 ? 32'sd30 : $signed(shift));
    t = 6'(32'sd31 - s);
    left = s > 0 ? 6'(s) : 6'd0;
    right = s > 0 ? 6'd0 : 6'(-s);
    acc64 = {{32{acc[31]}}, acc};
    shifted64 = acc64 <<< left;
    shifted = shifted64 > MAX32 ? 32'sh7FFF_FFFF :
        (shifted64 < MIN32 ? 32'sh8000_0000 : shifted64[31:0]);

    // One 32 x 32 multiplier serves both modes: acc * M, or sat(acc * 2^left) * M.
    operand = dbl ? shifted : $signed(acc);
    prod = 64'(operand) * 64'($signed(mult));

    // Single rounding.
    rounded = (prod + (64'sd1 <<< (t - 6'd1))) >>> t;
    rounded_once = rounded > MAX32 ? MAX32 : (rounded < MIN32 ? MIN32 : rounded);

    // Double rounding: rounding doubling high multiply, then rounding divide by 2^right.
    nudged = prod + (prod >= 0 ? 64'sd1073741824 : -64'sd1073741823);
    // Division by 2^31 truncating toward zero; the one overflowing product saturates.
    high = (nudged < 0 ? nudged + 64'sd2147483647 : nudged) >>> 31;
    if (shifted == 32'sh8000_0000 && mult == 32'h8000_0000) high = MAX32;
    mask = (64'sd1 <<< right) - 64'sd1;
    rem = high & mask;
    thr = (mask >>> 1) + (high < 0 ? 64'sd1 : 64'sd0);
    rounded_twice = (high >>> right) + (rem > thr ? 64'sd1 : 64'sd0);

    y = dbl ? rounded_twice[31:0] : rounded_once[31:0];
  end

  // Both results are saturated to int32: only the low word leaves.
  logic unused;
  assign unused = ^{rounded_twice[63:32], rounded_once[63:32], shifted64[63:32]};
endmodule
