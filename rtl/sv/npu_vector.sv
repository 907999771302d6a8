// The vector unit: ELTWISE and POOL, MAC_COLS lanes. ELTWISE takes MAC_COLS elements per step
// (ceil(count/C) steps); its input rescales happen in the step, the output requant, clip and LUT in
// the post-processing pipeline. POOL takes one window position of MAC_COLS channels per step
// (out_h*out_w*kh*kw*ceil(channels/C) steps), keeping the running max or sum per lane; the last
// position of a window sends it to the pipeline (average: requant by avg_mult/avg_shift, clip to
// int8).
module npu_vector
  import npu_isa_pkg::*, npu_config_pkg::*, npu_rtl_pkg::*;
(
    input logic clk,
    input logic rst,
    input logic go,
    input word_t word,
    // Input SRAM reads: lanes 0..C-1 operand a (pool: the window position), C..2C-1 operand b.
    output logic [31:0] inp_raddr[2*MAC_COLS],
    input logic [7:0] inp_rdata[2*MAC_COLS],
    // ELTWISE parameters {a_mult, a_shift, b_mult, b_shift, out_mult, out_shift}.
    output logic [31:0] prm_raddr[24],
    input logic [7:0] prm_rdata[24],
    output pp_bundle_t pp
);
  localparam int C = MAC_COLS;

  logic running;
  logic is_pool;
  logic [1:0] op;
  // ELTWISE.
  logic [31:0] a_addr, b_addr, out_addr, prm_addr, count, i0;
  logic [19:0] lut_addr;
  logic [7:0] a_zp, b_zp, out_zp, clip_lo, clip_hi;
  logic [4:0] left_shift;
  logic use_lut, dbl, out_buf;
  // POOL.
  logic [31:0] in_addr, channels, pix_dx, pix_wrap, tap_wrap;
  logic [11:0] out_h, out_w, n_cb, cb;
  logic [7:0] kh, kw, ky, kx;
  logic [31:0] avg_mult, avg_shift;
  logic [31:0] pix_off, tap_off, pidx_off, cb_c;
  logic [31:0] acc[C];

  logic [31:0] prm[6];
  always_comb begin
    for (int k = 0; k < 24; k++) prm_raddr[k] = prm_addr + 32'(k);
  end
  always_comb begin
    for (int k = 0; k < 6; k++) begin
      prm[k] = {prm_rdata[4*k+3], prm_rdata[4*k+2], prm_rdata[4*k+1], prm_rdata[4*k]};
    end
  end

  logic elt_last, tap_first, tap_last, cb_last, px_last;
  always_comb begin
    elt_last = i0 + 32'(C) >= count;
    tap_first = ky == 0 && kx == 0;
    tap_last = ky == kh - 1 && kx == kw - 1;
    cb_last = cb == n_cb - 1;
  end
  npu_pixel_walker walker (
      .clk,
      .start(!rst && go),
      .advance(!rst && !go && running && is_pool && tap_last && cb_last),
      .out_h,
      .out_w,
      .pix_dx,
      .pix_wrap,
      .pidx_step(channels),
      .pix_off,
      .pidx_off,
      .px_last
  );

  logic [31:0] val[C];
  logic [C-1:0] lane_ok;
  always_comb begin
    for (int l = 0; l < C; l++) begin
      if (is_pool) begin
        inp_raddr[l] = in_addr + pix_off + tap_off + cb_c + 32'(l);
        inp_raddr[C+l] = '0;
        lane_ok[l] = cb_c + 32'(l) < channels;
      end else begin
        inp_raddr[l] = a_addr + i0 + 32'(l);
        inp_raddr[C+l] = b_addr + i0 + 32'(l);
        lane_ok[l] = i0 + 32'(l) < count;
      end
    end
  end

  // Operands with their zero points removed, and the ELTWISE add's input rescales.
  logic signed [31:0] da[C];
  logic signed [31:0] db[C];
  logic [31:0] scaled_a[C];
  logic [31:0] scaled_b[C];
  always_comb begin
    for (int l = 0; l < C; l++) begin
      da[l] = sext8(inp_rdata[l]) - sext8(a_zp);
      db[l] = sext8(inp_rdata[C+l]) - sext8(b_zp);
    end
  end

  for (genvar l = 0; l < C; l++) begin : g_rescale
    npu_requant rescale_a (
        .acc(da[l] <<< left_shift),
        .mult(prm[0]),
        .shift(prm[1]),
        .dbl,
        .y(scaled_a[l])
    );
    npu_requant rescale_b (
        .acc(db[l] <<< left_shift),
        .mult(prm[2]),
        .shift(prm[3]),
        .dbl,
        .y(scaled_b[l])
    );
  end

  always_comb begin
    for (int l = 0; l < C; l++) begin
      logic signed [31:0] x;
      x = sext8(inp_rdata[l]);
      if (is_pool) begin
        if (tap_first) val[l] = x;
        else if (op == 2'd0) val[l] = x > $signed(acc[l]) ? x : acc[l];
        else val[l] = acc[l] + x;
      end else begin
        case (op)
          2'd0: val[l] = sat32(sext64(scaled_a[l]) + sext64(scaled_b[l]));
          2'd1: val[l] = da[l] * db[l];
          2'd3: val[l] = sat32(sext64(scaled_a[l]) - sext64(scaled_b[l]));
          default: val[l] = x;
        endcase
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      pp.valid <= 1'b0;
    end else begin
      for (int l = 0; l < C; l++) begin
        acc[l] <= val[l];
        pp.val[l] <= val[l];
        pp.mult[l] <= is_pool ? avg_mult : prm[4];
        pp.shift[l] <= is_pool ? avg_shift : prm[5];
      end
      pp.mask <= lane_ok;
      if (is_pool) begin
        pp.valid <= running && tap_last;
        pp.last <= cb_last && px_last;
        pp.do_requant <= op == 2'd1;
        pp.dbl <= 1'b0;
        pp.do_clamp <= 1'b1;
        pp.zp <= 8'd0;
        pp.lo <= 8'h80;
        pp.hi <= 8'h7F;
        pp.use_lut <= 1'b0;
        pp.addr <= out_addr + pidx_off + cb_c;
      end else begin
        pp.valid <= running;
        pp.last <= elt_last;
        pp.do_requant <= op != 2'd2;
        pp.dbl <= dbl;
        pp.do_clamp <= op != 2'd2;
        pp.zp <= out_zp;
        pp.lo <= clip_lo;
        pp.hi <= clip_hi;
        pp.use_lut <= op == 2'd2 || use_lut;
        pp.addr <= out_addr + i0;
      end
      pp.lut_addr <= lut_addr;
      pp.to_acc <= 1'b0;
      pp.to_inp <= !is_pool && out_buf;

      if (go) begin
        running <= 1'b1;
        is_pool <= opcode_of(word) == OP_POOL;
        i0 <= '0;
        cb <= '0;
        ky <= '0;
        kx <= '0;
        tap_off <= '0;
        cb_c <= '0;
        if (opcode_of(word) == OP_POOL) begin
          op <= word[POOL_OP_LSB+:POOL_OP_WIDTH];
          in_addr <= 32'(word[POOL_IN_ADDR_LSB+:POOL_IN_ADDR_WIDTH]);
          out_addr <= 32'(word[POOL_OUT_ADDR_LSB+:POOL_OUT_ADDR_WIDTH]);
          channels <= 32'(word[POOL_CHANNELS_LSB+:POOL_CHANNELS_WIDTH]);
          out_h <= word[POOL_OUT_H_LSB+:POOL_OUT_H_WIDTH];
          out_w <= word[POOL_OUT_W_LSB+:POOL_OUT_W_WIDTH];
          n_cb <= 12'((32'(word[POOL_CHANNELS_LSB+:POOL_CHANNELS_WIDTH]) + 32'(C - 1)) / 32'(C));
          kh <= word[POOL_KH_LSB+:POOL_KH_WIDTH];
          kw <= word[POOL_KW_LSB+:POOL_KW_WIDTH];
          pix_dx <= 32'(word[POOL_SW_LSB+:POOL_SW_WIDTH]) *
              32'(word[POOL_CHANNELS_LSB+:POOL_CHANNELS_WIDTH]);
          pix_wrap <= (32'(word[POOL_SH_LSB+:POOL_SH_WIDTH]) *
                       32'(word[POOL_IN_W_LSB+:POOL_IN_W_WIDTH]) -
                       (32'(word[POOL_OUT_W_LSB+:POOL_OUT_W_WIDTH]) - 1) *
                       32'(word[POOL_SW_LSB+:POOL_SW_WIDTH])) *
              32'(word[POOL_CHANNELS_LSB+:POOL_CHANNELS_WIDTH]);
          tap_wrap <= (32'(word[POOL_IN_W_LSB+:POOL_IN_W_WIDTH]) -
                       (32'(word[POOL_KW_LSB+:POOL_KW_WIDTH]) - 1)) *
              32'(word[POOL_CHANNELS_LSB+:POOL_CHANNELS_WIDTH]);
          avg_mult <= word[POOL_AVG_MULT_LSB+:POOL_AVG_MULT_WIDTH];
          avg_shift <= 32'($signed(word[POOL_AVG_SHIFT_LSB+:POOL_AVG_SHIFT_WIDTH]));
        end else begin
          op <= word[ELTWISE_OP_LSB+:ELTWISE_OP_WIDTH];
          a_addr <= 32'(word[ELTWISE_A_ADDR_LSB+:ELTWISE_A_ADDR_WIDTH]);
          b_addr <= 32'(word[ELTWISE_B_ADDR_LSB+:ELTWISE_B_ADDR_WIDTH]);
          out_addr <= 32'(word[ELTWISE_OUT_ADDR_LSB+:ELTWISE_OUT_ADDR_WIDTH]);
          prm_addr <= 32'(word[ELTWISE_PARAM_ADDR_LSB+:ELTWISE_PARAM_ADDR_WIDTH]);
          lut_addr <= word[ELTWISE_LUT_ADDR_LSB+:ELTWISE_LUT_ADDR_WIDTH];
          count <= 32'(word[ELTWISE_COUNT_LSB+:ELTWISE_COUNT_WIDTH]);
          a_zp <= word[ELTWISE_A_ZP_LSB+:ELTWISE_A_ZP_WIDTH];
          b_zp <= word[ELTWISE_B_ZP_LSB+:ELTWISE_B_ZP_WIDTH];
          out_zp <= word[ELTWISE_OUT_ZP_LSB+:ELTWISE_OUT_ZP_WIDTH];
          clip_lo <= word[ELTWISE_CLIP_LO_LSB+:ELTWISE_CLIP_LO_WIDTH];
          clip_hi <= word[ELTWISE_CLIP_HI_LSB+:ELTWISE_CLIP_HI_WIDTH];
          left_shift <= word[ELTWISE_LEFT_SHIFT_LSB+:ELTWISE_LEFT_SHIFT_WIDTH];
          use_lut <= word[ELTWISE_USE_LUT_LSB];
          dbl <= word[ELTWISE_DOUBLE_ROUND_LSB];
          out_buf <= word[ELTWISE_OUT_BUF_LSB];
        end
      end else if (running) begin
        if (!is_pool) begin
          i0 <= i0 + 32'(C);
          if (elt_last) running <= 1'b0;
        end else if (!tap_last) begin
          if (kx != kw - 1) begin
            kx <= kx + 1;
            tap_off <= tap_off + channels;
          end else begin
            kx <= '0;
            ky <= ky + 1;
            tap_off <= tap_off + tap_wrap;
          end
        end else begin
          kx <= '0;
          ky <= '0;
          tap_off <= '0;
          if (!cb_last) begin
            cb <= cb + 1;
            cb_c <= cb_c + 32'(C);
          end else begin
            cb <= '0;
            cb_c <= '0;
            if (px_last) begin
              running <= 1'b0;
            end
          end
        end
      end
    end
  end

  logic unused;
  assign unused = ^{word[7:4], word[WORD_BITS-1:ELTWISE_OUT_BUF_LSB+1]};
endmodule
