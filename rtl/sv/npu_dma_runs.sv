// Walks the DDR side of a LOAD or STORE block (rows x cols x c_bytes with strides) as
// docs/timing.md splits it: abutting runs merge (a whole row when ddr_col_stride == c_bytes or
// x_size == 1, the whole block when the rows abut too), and each run is cut into pieces of at most
// STEP bytes from its start. With STEP = burst bytes a piece is one burst request; with STEP = the
// DDR width it is one data beat, and `burst_last` marks the last beat of each burst.
module npu_dma_runs #(
    parameter int STEP = 16,
    parameter int BEATS_PER_BURST = 1
) (
    input logic clk,
    input logic rst,
    input logic load,
    input logic [31:0] ld_ddr_addr,
    input logic [15:0] ld_rows,
    input logic [15:0] ld_cols,
    input logic [19:0] ld_bytes,
    input logic [31:0] ld_row_stride,
    input logic [23:0] ld_col_stride,
    input logic advance,
    output logic valid,
    output logic [31:0] addr,
    output logic [31:0] nbytes,
    output logic burst_last,
    output logic last
);
  localparam int BW = BEATS_PER_BURST > 1 ? $clog2(BEATS_PER_BURST) : 1;

  logic [31:0] run_len;
  logic [15:0] nrows;
  logic [15:0] ncols;
  logic [31:0] row_stride;
  logic [31:0] col_stride;
  logic [31:0] row_base;
  logic [31:0] run_addr;
  logic [31:0] off;
  logic [15:0] r;
  logic [15:0] k;
  logic [BW-1:0] beat;
  logic run_end;

  // Run structure of the block, from the instruction fields.
  logic [63:0] row_bytes;
  logic col_merge;
  logic row_merge;
  always_comb begin
    row_bytes = 64'(ld_cols) * 64'(ld_bytes);
    col_merge = 24'(ld_bytes) == ld_col_stride || ld_cols == 16'd1;
    row_merge = col_merge && (64'(ld_row_stride) == row_bytes || ld_rows == 16'd1);
  end

  assign run_end = run_len - off <= 32'(STEP);
  assign addr = run_addr + off;
  assign nbytes = run_end ? run_len - off : 32'(STEP);
  assign burst_last = run_end || beat == BW'(BEATS_PER_BURST - 1);
  assign last = run_end && k == ncols - 1 && r == nrows - 1;

  always_ff @(posedge clk) begin
    if (rst) begin
      valid <= 1'b0;
    end else if (load) begin
      valid <= 1'b1;
      row_base <= ld_ddr_addr;
      run_addr <= ld_ddr_addr;
      off <= '0;
      r <= '0;
      k <= '0;
      beat <= '0;
      row_stride <= ld_row_stride;
      col_stride <= 32'(ld_col_stride);
      if (row_merge) begin
        run_len <= 32'(row_bytes * 64'(ld_rows));
        nrows <= 16'd1;
        ncols <= 16'd1;
      end else if (col_merge) begin
        run_len <= 32'(row_bytes);
        nrows <= ld_rows;
        ncols <= 16'd1;
      end else begin
        run_len <= 32'(ld_bytes);
        nrows <= ld_rows;
        ncols <= ld_cols;
      end
    end else if (valid && advance) begin
      if (run_end) begin
        off <= '0;
        beat <= '0;
        if (last) begin
          valid <= 1'b0;
        end else if (k != ncols - 1) begin
          k <= k + 1;
          run_addr <= run_addr + col_stride;
        end else begin
          k <= '0;
          r <= r + 1;
          row_base <= row_base + row_stride;
          run_addr <= row_base + row_stride;
        end
      end else begin
        off <= off + 32'(STEP);
        beat <= burst_last ? '0 : beat + 1'b1;
      end
    end
  end
endmodule
