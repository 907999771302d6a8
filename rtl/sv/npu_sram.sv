// An on-chip SRAM as a plain array: NR asynchronous read ports and NW write ports (written at
// the clock edge, lower port numbers first). Addresses outside DEPTH read as zero and are not
// written. Verilator needs NW <= its unroll count (64) for the write loop.
module npu_sram #(
    parameter int DW = 8,
    parameter int DEPTH = 1024,
    parameter int NR = 1,
    parameter int NW = 1
) (
    input logic clk,
    // Only the low $clog2(DEPTH) address bits index the array once the range check has passed.
    /* verilator lint_off UNUSEDSIGNAL */
    input logic [31:0] raddr[NR],
    output logic [DW-1:0] rdata[NR],
    input logic [NW-1:0] we,
    input logic [31:0] waddr[NW],
    /* verilator lint_on UNUSEDSIGNAL */
    input logic [DW-1:0] wdata[NW]
);
  localparam int AW = $clog2(DEPTH);

  logic [DW-1:0] mem[DEPTH];

  always_comb begin
    for (int i = 0; i < NR; i++) begin
      rdata[i] = raddr[i] < 32'(DEPTH) ? mem[raddr[i][AW-1:0]] : '0;
    end
  end

  always_ff @(posedge clk) begin
    for (int i = 0; i < NW; i++) begin
      if (we[i] && waddr[i] < 32'(DEPTH)) mem[waddr[i][AW-1:0]] <= wdata[i];
    end
  end

endmodule
