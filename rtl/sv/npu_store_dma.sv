// The store unit's DMA engine: output SRAM -> DDR. From the cycle after `go` it sends one write
// beat per cycle (the SRAM block read in order, its rows dense or sram_row_stride apart, placed at
// each run's DDR address), then waits
// for the acknowledgement of the last burst, which the port gives L-1 cycles after that burst's
// last beat. That is exactly L + beats cycles from `go` to `fin` (docs/timing.md).
module npu_store_dma
  import npu_isa_pkg::*, npu_config_pkg::*, npu_rtl_pkg::*;
(
    input logic clk,
    input logic rst,
    input logic go,
    input word_t word,
    // Write side of the DDR data port (docs/rtl.md).
    output logic wr_valid,
    input logic wr_ready,
    output logic [31:0] wr_addr,
    output logic [31:0] wr_bytes,
    output logic wr_last,
    output logic [8*DDR_BYTES_PER_CYCLE-1:0] wr_data,
    input logic wr_ack,
    // Output SRAM read lanes.
    output logic [31:0] raddr[DDR_BYTES_PER_CYCLE],
    input logic [7:0] rdata[DDR_BYTES_PER_CYCLE],
    output logic fin
);
  localparam int W = DDR_BYTES_PER_CYCLE;
  localparam int B = DDR_BURST_BYTES;

  logic active;
  logic sent_all;
  logic [31:0] outstanding;  // bursts sent and not yet acknowledged
  // The next beat's first byte in the output SRAM: the start of its block row and the offset in
  // it; a row is x_size * c_bytes bytes, rows `src_stride` apart (that, or sram_row_stride).
  logic [31:0] src_row, src_off, src_len, src_stride;
  // Lane i's byte: lane_row[i] + lane_off[i], each lane one byte on in the block (a row's end
  // steps to the next row); entry W is where the beat after a full one starts.
  logic [31:0] lane_row[W+1];
  logic [31:0] lane_off[W+1];

  logic beat_valid;
  logic beat_last;
  npu_dma_runs #(
      .STEP(W),
      .BEATS_PER_BURST(B / W)
  ) beats (
      .clk,
      .rst,
      .load(go),
      .ld_ddr_addr(word[STORE_DDR_ADDR_LSB+:STORE_DDR_ADDR_WIDTH]),
      .ld_rows(word[STORE_Y_SIZE_LSB+:STORE_Y_SIZE_WIDTH]),
      .ld_cols(word[STORE_X_SIZE_LSB+:STORE_X_SIZE_WIDTH]),
      .ld_bytes(word[STORE_C_BYTES_LSB+:STORE_C_BYTES_WIDTH]),
      .ld_row_stride(word[STORE_DDR_ROW_STRIDE_LSB+:STORE_DDR_ROW_STRIDE_WIDTH]),
      .ld_col_stride(word[STORE_DDR_COL_STRIDE_LSB+:STORE_DDR_COL_STRIDE_WIDTH]),
      .advance(wr_valid && wr_ready),
      .valid(beat_valid),
      .addr(wr_addr),
      .nbytes(wr_bytes),
      .burst_last(wr_last),
      .last(beat_last)
  );

  assign wr_valid = active && beat_valid;
  always_comb begin
    lane_row[0] = src_row;
    lane_off[0] = src_off;
    for (int i = 0; i < W; i++) begin
      raddr[i] = lane_row[i] + lane_off[i];
      if (lane_off[i] + 32'd1 == src_len) begin
        lane_row[i+1] = lane_row[i] + src_stride;
        lane_off[i+1] = '0;
      end else begin
        lane_row[i+1] = lane_row[i];
        lane_off[i+1] = lane_off[i] + 32'd1;
      end
    end
  end
  always_comb begin
    for (int i = 0; i < W; i++) wr_data[8*i+:8] = rdata[i];
  end

  // A block row's bytes (x_size * c_bytes).
  logic [31:0] s_len;
  assign s_len = 32'(word[STORE_X_SIZE_LSB+:STORE_X_SIZE_WIDTH]) *
      32'(word[STORE_C_BYTES_LSB+:STORE_C_BYTES_WIDTH]);

  logic fire;
  logic sent_all_next;
  logic [31:0] outstanding_next;
  always_comb begin
    fire = wr_valid && wr_ready;
    sent_all_next = sent_all || (fire && beat_last);
    outstanding_next = outstanding + 32'(fire && wr_last) - 32'(wr_ack);
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      active <= 1'b0;
      fin <= 1'b0;
    end else begin
      fin <= 1'b0;
      if (go) begin
        active <= 1'b1;
        sent_all <= 1'b0;
        outstanding <= '0;
        src_row <= 32'(word[STORE_SRAM_ADDR_LSB+:STORE_SRAM_ADDR_WIDTH]);
        src_off <= '0;
        src_len <= s_len;
        src_stride <= word[STORE_SRAM_ROW_STRIDE_LSB+:STORE_SRAM_ROW_STRIDE_WIDTH] != '0 ?
            32'(word[STORE_SRAM_ROW_STRIDE_LSB+:STORE_SRAM_ROW_STRIDE_WIDTH]) : s_len;
      end else if (active) begin
        sent_all <= sent_all_next;
        outstanding <= outstanding_next;
        if (fire) begin
          src_row <= lane_row[wr_bytes];
          src_off <= lane_off[wr_bytes];
        end
        if (sent_all_next && outstanding_next == 0) begin
          active <= 1'b0;
          fin <= 1'b1;
        end
      end
    end
  end

  logic unused;
  assign unused = ^{word[19:0], word[WORD_BITS-1:STORE_SRAM_ROW_STRIDE_LSB+STORE_SRAM_ROW_STRIDE_WIDTH]};
endmodule
