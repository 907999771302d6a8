// CONV on the MAC_ROWS x MAC_COLS array. One step per cycle: the columns take MAC_COLS output
// channels; the rows take MAC_ROWS input channels of one kernel tap (or, depthwise, MAC_ROWS kernel
// taps of each column's own channel). Steps run output pixel by output pixel, channel block by
// channel block, then over taps and input-channel blocks, so a (pixel, channel block) group takes
// kh*kw*ceil(in_c/R) steps (depthwise ceil(kh*kw/R)) and the whole tile the step count of
// docs/timing.md. The column sums start from the bias (or the stored partial sums) and, on a
// group's last step, go to the post-processing pipeline with that group's multipliers and shifts.
module npu_mac_array
  import npu_isa_pkg::*, npu_config_pkg::*, npu_rtl_pkg::*;
(
    input logic clk,
    input logic rst,
    input logic go,
    input word_t word,
    // Input and weight SRAM reads, one per MAC cell (index r*C + c).
    output logic [31:0] inp_raddr[MAC_ROWS*MAC_COLS],
    input logic [7:0] inp_rdata[MAC_ROWS*MAC_COLS],
    output logic [31:0] wgt_raddr[MAC_ROWS*MAC_COLS],
    input logic [7:0] wgt_rdata[MAC_ROWS*MAC_COLS],
    // Parameter records {bias, multiplier, shift}: 12 bytes per column.
    output logic [31:0] prm_raddr[12*MAC_COLS],
    input logic [7:0] prm_rdata[12*MAC_COLS],
    // Stored partial sums (acc_init = 0).
    output logic [31:0] acc_raddr[MAC_COLS],
    input logic [31:0] acc_rdata[MAC_COLS],
    output pp_bundle_t pp
);
  localparam int R = MAC_ROWS;
  localparam int C = MAC_COLS;

  // Instruction fields.
  logic [31:0] f_inp, f_wgt, f_out, f_acc, f_prm;
  logic [19:0] f_lut;
  logic [11:0] out_h, out_w, in_c, out_c;
  logic [3:0] kw;
  logic signed [7:0] in_zp;
  logic [7:0] out_zp, clip_lo, clip_hi;
  logic depthwise, acc_init, finalize, use_lut, dbl, out_buf, wgt_kn;
  // Loop bounds and address steps.
  logic [7:0] ntap;
  logic [11:0] n_icb, n_ocb;
  logic [7:0] n_tb;
  logic [31:0] pix_dx, pix_wrap, tap_dx, tap_wrap, ocb_wstep;
  logic [31:0] wcol[C];  // c * (weight bytes per output channel)
  // wgt_kn (weights [in_c][out_c]): r * out_c, and the row offset of the input-channel block.
  logic [31:0] kn_row[R];
  logic [31:0] kn_icb, kn_istep;

  // Loop state.
  logic running;
  logic [11:0] ocb, icb;
  logic [31:0] pix_off, pidx_off, ocb_c, w_ocb, prm_ocb, icb_r;
  // The int8 output's pixel offset: pixels out_c * (1 + out_gap) bytes apart (pidx_off, the
  // accumulator's, keeps them out_c apart).
  logic [31:0] pout_off, out_pitch;
  logic px_step;  // the group is the pixel's last: the walker moves on
  logic [7:0] tap, tb;
  logic [3:0] kx, tb_kx;
  logic [31:0] tap_off, t_in, tb_r, tb_off;
  logic [31:0] acc[C];

  // Setup values, from the word at `go`.
  logic [7:0] s_ntap;
  logic [31:0] s_in_c, s_in_w, s_wstride;
  always_comb begin
    s_ntap = 8'(word[CONV_KH_LSB+:CONV_KH_WIDTH]) * 8'(word[CONV_KW_LSB+:CONV_KW_WIDTH]);
    s_in_c = 32'(word[CONV_IN_C_LSB+:CONV_IN_C_WIDTH]);
    s_in_w = 32'(word[CONV_IN_W_LSB+:CONV_IN_W_WIDTH]);
    s_wstride = word[CONV_DEPTHWISE_LSB] ? 32'(s_ntap) : 32'(s_ntap) * s_in_c;
  end

  // The step's position in the loop nest.
  logic grp_first, grp_last, px_last, ocb_last;
  always_comb begin
    grp_first = depthwise ? tb == 0 : tap == 0 && icb == 0;
    grp_last = depthwise ? tb == n_tb - 1 : tap == ntap - 1 && icb == n_icb - 1;
    ocb_last = ocb == n_ocb - 1;
  end
  assign px_step = !rst && !go && running && grp_last && ocb_last;
  npu_pixel_walker walker (
      .clk,
      .start(!rst && go),
      .advance(px_step),
      .out_h,
      .out_w,
      .pix_dx,
      .pix_wrap,
      .pidx_step(32'(out_c)),
      .pix_off,
      .pidx_off,
      .px_last
  );

  always_ff @(posedge clk) begin
    if (!rst && go) begin
      pout_off <= '0;
      out_pitch <= 32'(word[CONV_OUT_C_LSB+:CONV_OUT_C_WIDTH]) *
          (32'd1 + 32'(word[CONV_OUT_GAP_LSB+:CONV_OUT_GAP_WIDTH]));
    end else if (px_step && !px_last) begin
      pout_off <= pout_off + out_pitch;
    end
  end

  // Depthwise: kernel tap offsets of the R taps of this block (and where the next block starts).
  logic [31:0] row_off[R+1];
  logic [3:0] row_kx[R+1];
  always_comb begin
    row_off[0] = tb_off;
    row_kx[0] = tb_kx;
    for (int r = 0; r < R; r++) begin
      if (row_kx[r] + 4'd1 < kw) begin
        row_kx[r+1] = row_kx[r] + 4'd1;
        row_off[r+1] = row_off[r] + tap_dx;
      end else begin
        row_kx[r+1] = 4'd0;
        row_off[r+1] = row_off[r] + tap_wrap;
      end
    end
  end

  // The array: addresses (one block), then products and column sums (another, so the SRAM read
  // path is not a combinational loop).
  logic [31:0] partial[C];
  logic [C-1:0] col_ok;
  logic [R*C-1:0] cell_ok;
  always_comb begin
    for (int c = 0; c < C; c++) begin
      logic [31:0] oc;
      oc = ocb_c + 32'(c);
      col_ok[c] = oc < 32'(out_c);
      for (int r = 0; r < R; r++) begin
        if (depthwise) begin
          cell_ok[r*C+c] = col_ok[c] && tb_r + 32'(r) < 32'(ntap);
          inp_raddr[r*C+c] = f_inp + pix_off + row_off[r] + oc;
          wgt_raddr[r*C+c] = f_wgt + w_ocb + wcol[c] + tb_r + 32'(r);
        end else begin
          cell_ok[r*C+c] = col_ok[c] && icb_r + 32'(r) < 32'(in_c);
          inp_raddr[r*C+c] = f_inp + pix_off + tap_off + icb_r + 32'(r);
          wgt_raddr[r*C+c] = wgt_kn ? f_wgt + kn_icb + kn_row[r] + oc :
              f_wgt + w_ocb + wcol[c] + t_in + icb_r + 32'(r);
        end
      end
    end
  end

  logic [8*R*C-1:0] cell_x;
  logic [8*R*C-1:0] cell_w;
  logic [32*C-1:0] col_sum;
  always_comb begin
    for (int i = 0; i < R * C; i++) begin
      cell_x[8*i+:8] = inp_rdata[i];
      cell_w[8*i+:8] = wgt_rdata[i];
    end
    for (int c = 0; c < C; c++) partial[c] = col_sum[32*c+:32];
  end

  npu_mac_cells #(
      .R(R),
      .C(C)
  ) cells (
      .x(cell_x),
      .w(cell_w),
      .ok(cell_ok),
      .zp(in_zp),
      .sum(col_sum)
  );

  // Bias, multiplier and shift of each column; stored partial sums.
  logic [31:0] bias[C], mult[C], shift[C], acc_next[C];
  always_comb begin
    for (int c = 0; c < C; c++) begin
      for (int k = 0; k < 12; k++) prm_raddr[12*c+k] = f_prm + prm_ocb + 32'(12 * c + k);
      acc_raddr[c] = f_acc + pidx_off + ocb_c + 32'(c);
    end
  end

  always_comb begin
    for (int c = 0; c < C; c++) begin
      bias[c] = {prm_rdata[12*c+3], prm_rdata[12*c+2], prm_rdata[12*c+1], prm_rdata[12*c]};
      mult[c] = {prm_rdata[12*c+7], prm_rdata[12*c+6], prm_rdata[12*c+5], prm_rdata[12*c+4]};
      shift[c] = {prm_rdata[12*c+11], prm_rdata[12*c+10], prm_rdata[12*c+9], prm_rdata[12*c+8]};
      acc_next[c] = (grp_first ? (acc_init ? bias[c] : acc_rdata[c]) : acc[c]) + partial[c];
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      pp.valid <= 1'b0;
    end else begin
      pp.valid <= running && grp_last;
      pp.last <= px_last && ocb_last;
      pp.mask <= col_ok;
      for (int c = 0; c < C; c++) begin
        pp.val[c] <= acc_next[c];
        pp.mult[c] <= mult[c];
        pp.shift[c] <= shift[c];
        acc[c] <= acc_next[c];
      end
      pp.do_requant <= finalize;
      pp.dbl <= dbl;
      pp.do_clamp <= finalize;
      pp.zp <= out_zp;
      pp.lo <= clip_lo;
      pp.hi <= clip_hi;
      pp.use_lut <= finalize && use_lut;
      pp.lut_addr <= f_lut;
      pp.to_acc <= !finalize;
      pp.to_inp <= finalize && out_buf;
      pp.addr <= (finalize ? f_out + pout_off : f_acc + pidx_off) + ocb_c;

      if (go) begin
        running <= 1'b1;
        f_inp <= 32'(word[CONV_INP_ADDR_LSB+:CONV_INP_ADDR_WIDTH]);
        f_wgt <= 32'(word[CONV_WGT_ADDR_LSB+:CONV_WGT_ADDR_WIDTH]);
        f_out <= 32'(word[CONV_OUT_ADDR_LSB+:CONV_OUT_ADDR_WIDTH]);
        f_acc <= 32'(word[CONV_ACC_ADDR_LSB+:CONV_ACC_ADDR_WIDTH]);
        f_prm <= 32'(word[CONV_PARAM_ADDR_LSB+:CONV_PARAM_ADDR_WIDTH]);
        f_lut <= word[CONV_LUT_ADDR_LSB+:CONV_LUT_ADDR_WIDTH];
        out_h <= word[CONV_OUT_H_LSB+:CONV_OUT_H_WIDTH];
        out_w <= word[CONV_OUT_W_LSB+:CONV_OUT_W_WIDTH];
        in_c <= word[CONV_IN_C_LSB+:CONV_IN_C_WIDTH];
        out_c <= word[CONV_OUT_C_LSB+:CONV_OUT_C_WIDTH];
        kw <= word[CONV_KW_LSB+:CONV_KW_WIDTH];
        in_zp <= word[CONV_IN_ZP_LSB+:CONV_IN_ZP_WIDTH];
        out_zp <= word[CONV_OUT_ZP_LSB+:CONV_OUT_ZP_WIDTH];
        clip_lo <= word[CONV_CLIP_LO_LSB+:CONV_CLIP_LO_WIDTH];
        clip_hi <= word[CONV_CLIP_HI_LSB+:CONV_CLIP_HI_WIDTH];
        depthwise <= word[CONV_DEPTHWISE_LSB];
        acc_init <= word[CONV_ACC_INIT_LSB];
        finalize <= word[CONV_FINALIZE_LSB];
        use_lut <= word[CONV_USE_LUT_LSB];
        dbl <= word[CONV_DOUBLE_ROUND_LSB];
        out_buf <= word[CONV_OUT_BUF_LSB];
        wgt_kn <= word[CONV_WGT_KN_LSB];
        for (int r = 0; r < R; r++) kn_row[r] <= 32'(r) * 32'(word[CONV_OUT_C_LSB+:CONV_OUT_C_WIDTH]);
        kn_istep <= 32'(R) * 32'(word[CONV_OUT_C_LSB+:CONV_OUT_C_WIDTH]);
        kn_icb <= '0;
        ntap <= s_ntap;
        n_icb <= 12'((s_in_c + 32'(R - 1)) / 32'(R));
        n_ocb <= 12'((32'(word[CONV_OUT_C_LSB+:CONV_OUT_C_WIDTH]) + 32'(C - 1)) / 32'(C));
        n_tb <= 8'((32'(s_ntap) + 32'(R - 1)) / 32'(R));
        pix_dx <= 32'(word[CONV_SW_LSB+:CONV_SW_WIDTH]) * s_in_c;
        pix_wrap <= 32'(word[CONV_SH_LSB+:CONV_SH_WIDTH]) * s_in_w * s_in_c -
            (32'(word[CONV_OUT_W_LSB+:CONV_OUT_W_WIDTH]) - 1) *
            32'(word[CONV_SW_LSB+:CONV_SW_WIDTH]) * s_in_c;
        tap_dx <= 32'(word[CONV_DW_LSB+:CONV_DW_WIDTH]) * s_in_c;
        tap_wrap <= 32'(word[CONV_DH_LSB+:CONV_DH_WIDTH]) * s_in_w * s_in_c -
            (32'(word[CONV_KW_LSB+:CONV_KW_WIDTH]) - 1) * 32'(word[CONV_DW_LSB+:CONV_DW_WIDTH]) *
            s_in_c;
        ocb_wstep <= 32'(C) * s_wstride;
        for (int c = 0; c < C; c++) wcol[c] <= 32'(c) * s_wstride;
        ocb <= '0;
        icb <= '0;
        tap <= '0;
        tb <= '0;
        kx <= '0;
        tb_kx <= '0;
        ocb_c <= '0;
        w_ocb <= '0;
        prm_ocb <= '0;
        icb_r <= '0;
        tap_off <= '0;
        t_in <= '0;
        tb_r <= '0;
        tb_off <= '0;
      end else if (running) begin
        if (!grp_last) begin
          if (depthwise) begin
            tb <= tb + 1;
            tb_r <= tb_r + 32'(R);
            tb_kx <= row_kx[R];
            tb_off <= row_off[R];
          end else if (icb != n_icb - 1) begin
            icb <= icb + 1;
            icb_r <= icb_r + 32'(R);
            kn_icb <= kn_icb + kn_istep;
          end else begin
            icb <= '0;
            icb_r <= '0;
            kn_icb <= '0;
            tap <= tap + 1;
            t_in <= t_in + 32'(in_c);
            if (kx + 4'd1 < kw) begin
              kx <= kx + 4'd1;
              tap_off <= tap_off + tap_dx;
            end else begin
              kx <= '0;
              tap_off <= tap_off + tap_wrap;
            end
          end
        end else begin
          // Next output-channel block, or next pixel.
          icb <= '0;
          icb_r <= '0;
          kn_icb <= '0;
          tap <= '0;
          t_in <= '0;
          kx <= '0;
          tap_off <= '0;
          tb <= '0;
          tb_r <= '0;
          tb_kx <= '0;
          tb_off <= '0;
          if (!ocb_last) begin
            ocb <= ocb + 1;
            ocb_c <= ocb_c + 32'(C);
            w_ocb <= w_ocb + ocb_wstep;
            prm_ocb <= prm_ocb + 32'(12 * C);
          end else begin
            ocb <= '0;
            ocb_c <= '0;
            w_ocb <= '0;
            prm_ocb <= '0;
            if (px_last) begin
              running <= 1'b0;
            end
          end
        end
      end
    end
  end

  logic unused;
  assign unused = ^word[7:0];
endmodule
