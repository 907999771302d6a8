// The R x C multiply-accumulate cells of the MAC array: cell (r, c) multiplies input byte
// x[r*C+c] minus the zero point by weight byte w[r*C+c], and each column sums its R products.
// (A dense conv feeds every cell of a row the same input byte; depthwise gives each cell its
// own.) Plain Verilog types so that Debian's yosys can synthesize it.
module npu_mac_cells #(
    parameter int R = 16,
    parameter int C = 16
) (
    input logic [8*R*C-1:0] x,
    input logic [8*R*C-1:0] w,
    input logic [R*C-1:0] ok,  // cells outside the tile contribute 0
    input logic [7:0] zp,
    output logic [32*C-1:0] sum
);
  always_comb begin
    for (int c = 0; c < C; c++) begin
      logic [31:0] s;
      s = '0;
      for (int r = 0; r < R; r++) begin
        logic signed [8:0] xv;
        logic signed [16:0] p;
        xv = $signed({x[8*(r*C+c)+7], x[8*(r*C+c)+:8]}) - $signed({zp[7], zp});
        p = xv * $signed({w[8*(r*C+c)+7], w[8*(r*C+c)+:8]});
        if (ok[r*C+c]) s = s + {{15{p[16]}}, p};
      end
      sum[32*c+:32] = s;
    end
  end
endmodule
