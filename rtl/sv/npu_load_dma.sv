// The load unit's DMA engine: DDR -> input, weight or parameter SRAM. It issues one burst request
// per cycle on the read port, writes each returning beat (up to W bytes) into the padded tile (or,
// with sram_row_stride, into unpadded rows that far apart), then writes the padding W bytes per
// cycle. With the port's latency of L-1 cycles this takes exactly
// L + beats + ceil(pad_bytes / W) cycles from `go` to `fin` (docs/timing.md).
module npu_load_dma
  import npu_isa_pkg::*, npu_config_pkg::*, npu_rtl_pkg::*;
(
    input logic clk,
    input logic rst,
    input logic go,
    input word_t word,
    // Read side of the DDR data port (docs/rtl.md).
    output logic rd_req_valid,
    input logic rd_req_ready,
    output logic [31:0] rd_req_addr,
    output logic [31:0] rd_req_len,
    input logic rd_valid,
    input logic [8*DDR_BYTES_PER_CYCLE-1:0] rd_data,
    // SRAM write lanes; `wbuf` selects the SRAM (0 input, 1 weight, 2 parameter).
    output logic [1:0] wbuf,
    output logic [DDR_BYTES_PER_CYCLE-1:0] we,
    output logic [31:0] waddr[DDR_BYTES_PER_CYCLE],
    output logic [7:0] wdata[DDR_BYTES_PER_CYCLE],
    output logic fin
);
  localparam int W = DDR_BYTES_PER_CYCLE;
  localparam int B = DDR_BURST_BYTES;

  typedef enum logic [1:0] {
    PH_IDLE,
    PH_DATA,
    PH_PAD
  } phase_e;

  phase_e phase;
  logic [31:0] pad_rem;
  logic [31:0] sram_base;
  logic [7:0] pad_value;
  logic [31:0] pad_total_q;

  // Instruction fields and the geometry of the padded tile.
  logic [15:0] y;
  logic [15:0] x;
  logic [19:0] c;
  logic [31:0] rows_all;
  logic [31:0] cols_all;
  logic [31:0] xc;
  logic [31:0] first;
  logic [31:0] side;
  logic [31:0] bottom;
  logic [63:0] pad_total;
  logic [31:0] stride;  // sram_row_stride: nonzero only without padding (a rule)
  always_comb begin
    y = word[LOAD_Y_SIZE_LSB+:LOAD_Y_SIZE_WIDTH];
    x = word[LOAD_X_SIZE_LSB+:LOAD_X_SIZE_WIDTH];
    c = word[LOAD_C_BYTES_LSB+:LOAD_C_BYTES_WIDTH];
    rows_all = 32'(word[LOAD_PAD_TOP_LSB+:LOAD_PAD_TOP_WIDTH]) + 32'(y) +
        32'(word[LOAD_PAD_BOTTOM_LSB+:LOAD_PAD_BOTTOM_WIDTH]);
    cols_all = 32'(word[LOAD_PAD_LEFT_LSB+:LOAD_PAD_LEFT_WIDTH]) + 32'(x) +
        32'(word[LOAD_PAD_RIGHT_LSB+:LOAD_PAD_RIGHT_WIDTH]);
    xc = 32'(x) * 32'(c);
    stride = 32'(word[LOAD_SRAM_ROW_STRIDE_LSB+:LOAD_SRAM_ROW_STRIDE_WIDTH]);
    // Padding before the first data byte, between two data rows, after the last one.
    first = (32'(word[LOAD_PAD_TOP_LSB+:LOAD_PAD_TOP_WIDTH]) * cols_all +
             32'(word[LOAD_PAD_LEFT_LSB+:LOAD_PAD_LEFT_WIDTH])) * 32'(c);
    side = (32'(word[LOAD_PAD_LEFT_LSB+:LOAD_PAD_LEFT_WIDTH]) +
            32'(word[LOAD_PAD_RIGHT_LSB+:LOAD_PAD_RIGHT_WIDTH])) * 32'(c);
    bottom = (32'(word[LOAD_PAD_RIGHT_LSB+:LOAD_PAD_RIGHT_WIDTH]) +
              32'(word[LOAD_PAD_BOTTOM_LSB+:LOAD_PAD_BOTTOM_WIDTH]) * cols_all) * 32'(c);
    pad_total = (64'(rows_all) * 64'(cols_all) - 64'(y) * 64'(x)) * 64'(c);
  end

  // DDR side: burst requests, and the beats coming back.
  logic req_valid;
  logic req_last;
  logic req_burst_last;
  logic [31:0] req_len;
  npu_dma_runs #(
      .STEP(B),
      .BEATS_PER_BURST(1)
  ) requests (
      .clk,
      .rst,
      .load(go),
      .ld_ddr_addr(word[LOAD_DDR_ADDR_LSB+:LOAD_DDR_ADDR_WIDTH]),
      .ld_rows(y),
      .ld_cols(x),
      .ld_bytes(c),
      .ld_row_stride(word[LOAD_DDR_ROW_STRIDE_LSB+:LOAD_DDR_ROW_STRIDE_WIDTH]),
      .ld_col_stride(word[LOAD_DDR_COL_STRIDE_LSB+:LOAD_DDR_COL_STRIDE_WIDTH]),
      .advance(rd_req_valid && rd_req_ready),
      .valid(req_valid),
      .addr(rd_req_addr),
      .nbytes(req_len),
      .burst_last(req_burst_last),
      .last(req_last)
  );
  assign rd_req_valid = phase == PH_DATA && req_valid;
  assign rd_req_len = req_len;

  logic beat_valid;
  logic beat_last;
  logic beat_burst_last;
  logic [31:0] beat_addr;
  logic [31:0] beat_bytes;
  npu_dma_runs #(
      .STEP(W),
      .BEATS_PER_BURST(B / W)
  ) beats (
      .clk,
      .rst,
      .load(go),
      .ld_ddr_addr(word[LOAD_DDR_ADDR_LSB+:LOAD_DDR_ADDR_WIDTH]),
      .ld_rows(y),
      .ld_cols(x),
      .ld_bytes(c),
      .ld_row_stride(word[LOAD_DDR_ROW_STRIDE_LSB+:LOAD_DDR_ROW_STRIDE_WIDTH]),
      .ld_col_stride(word[LOAD_DDR_COL_STRIDE_LSB+:LOAD_DDR_COL_STRIDE_WIDTH]),
      .advance(phase == PH_DATA && rd_valid),
      .valid(beat_valid),
      .addr(beat_addr),
      .nbytes(beat_bytes),
      .burst_last(beat_burst_last),
      .last(beat_last)
  );

  // SRAM side: data rows inside the padded tile, and the padding around them.
  logic [31:0] data_take;
  logic [31:0] pad_take;
  logic [31:0] data_off[W];
  logic [31:0] pad_off[W];
  assign data_take = phase == PH_DATA && rd_valid ? beat_bytes : 32'd0;
  assign pad_take = phase == PH_PAD ? min32(pad_rem, 32'(W)) : 32'd0;

  npu_seg_walker #(
      .LANES(W)
  ) data_rows (
      .clk,
      .load(go),
      .ld_start(first),
      .ld_first(xc),
      .ld_mid(xc),
      .ld_last(xc),
      // Between two data rows: the side padding, or the rest of a strided SRAM row.
      .ld_gap(stride != 0 ? stride - xc : side),
      .ld_nseg(17'(y)),
      .take(data_take),
      .offset(data_off)
  );

  // Without side padding the data rows form one gap between the top and bottom padding.
  npu_seg_walker #(
      .LANES(W)
  ) padding (
      .clk,
      .load(go),
      .ld_start(32'd0),
      .ld_first(first),
      .ld_mid(side),
      .ld_last(side != 0 ? bottom : 32'(word[LOAD_PAD_BOTTOM_LSB+:LOAD_PAD_BOTTOM_WIDTH]) * cols_all * 32'(c)),
      .ld_gap(side != 0 ? xc : xc * 32'(y)),
      .ld_nseg(side != 0 ? 17'(y) + 17'd1 : 17'd2),
      .take(pad_take),
      .offset(pad_off)
  );

  always_comb begin
    for (int i = 0; i < W; i++) begin
      if (phase == PH_PAD) begin
        we[i] = 32'(i) < pad_take;
        waddr[i] = sram_base + pad_off[i];
        wdata[i] = pad_value;
      end else begin
        we[i] = 32'(i) < data_take;
        waddr[i] = sram_base + data_off[i];
        wdata[i] = rd_data[8*i+:8];
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      phase <= PH_IDLE;
      fin <= 1'b0;
    end else begin
      fin <= 1'b0;
      if (go) begin
        phase <= PH_DATA;
        wbuf <= word[LOAD_BUF_LSB+:2];
        sram_base <= 32'(word[LOAD_SRAM_ADDR_LSB+:LOAD_SRAM_ADDR_WIDTH]);
        pad_value <= word[LOAD_PAD_VALUE_LSB+:LOAD_PAD_VALUE_WIDTH];
        pad_total_q <= 32'(pad_total);
        pad_rem <= 32'(pad_total);
      end else if (phase == PH_DATA && rd_valid && beat_last) begin
        if (pad_total_q != 0) begin
          phase <= PH_PAD;
        end else begin
          phase <= PH_IDLE;
          fin <= 1'b1;
        end
      end else if (phase == PH_PAD) begin
        pad_rem <= pad_rem - pad_take;
        if (pad_rem <= 32'(W)) begin
          phase <= PH_IDLE;
          fin <= 1'b1;
        end
      end
    end
  end

  // Unused: the request walker's own end flags and the beat walker's address (the SRAM side
  // places beats by count), the upper bits of `buf` (always 0..2), and the flag bits.
  logic unused;
  assign unused = ^{req_last, req_burst_last, beat_valid, beat_addr, beat_burst_last,
                    word[LOAD_BUF_LSB+2+:LOAD_BUF_WIDTH-2], word[7:0], pad_total[63:32],
                    word[WORD_BITS-1:LOAD_SRAM_ROW_STRIDE_LSB+LOAD_SRAM_ROW_STRIDE_WIDTH]};
endmodule
