// Walks the DDR side of a LOAD or STORE block (rows x cols x c_bytes with strides) as
// docs/timing.md splits it: abutting runs merge (a whole row when ddr_col_stride == c_bytes or
// x_size == 1, the whole block when the rows abut too), and each run is cut at the aligned bursts
// of BURST = STEP * BEATS_PER_BURST bytes it touches. Every burst is walked in BEATS_PER_BURST
// steps of STEP bytes: step j of a burst piece starting at `lo` is at address lo + j*STEP and
// carries the piece's bytes from there (up to STEP; 0 once the piece is used up, because DDR
// moves whole bursts). With STEP = burst bytes a step is one burst request; with STEP = the DDR
// width it is one data beat, and `burst_last` marks the last beat of each burst.
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
  localparam int BURST = STEP * BEATS_PER_BURST;

  logic [31:0] run_len;
  logic [15:0] nrows;
  logic [15:0] ncols;
  logic [31:0] row_stride;
  logic [31:0] col_stride;
  logic [31:0] row_base;
  logic [31:0] run_addr;
  logic [31:0] off;  // offset of the current burst piece in the run
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

  // The current burst piece: from run_addr + off to the end of its aligned burst or of the run.
  logic [31:0] lo;
  logic [31:0] to_burst_end;
  logic [31:0] piece;
  logic [31:0] done;  // bytes of the piece handed out before this step
  always_comb begin
    lo = run_addr + off;
    to_burst_end = 32'(BURST) - (lo & 32'(BURST - 1));
    piece = run_len - off < to_burst_end ? run_len - off : to_burst_end;
    done = 32'(beat) * 32'(STEP);
  end

  assign burst_last = beat == BW'(BEATS_PER_BURST - 1);
  assign run_end = burst_last && run_len - off == piece;
  assign addr = lo + done;
  assign nbytes = piece <= done ? 32'd0 : (piece - done < 32'(STEP) ? piece - done : 32'(STEP));
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
      if (!burst_last) begin
        beat <= beat + 1'b1;
      end else if (!run_end) begin
        beat <= '0;
        off <= off + piece;
      end else begin
        beat <= '0;
        off <= '0;
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
      end
    end
  end
endmodule
