// NORM on the vector unit: integer softmax (op 0), LayerNorm (op 1) or RMSNorm (op 2) of `rows`
// rows of `length` int8 values (docs/isa.md "NORM", docs/numerics.md "Softmax and LayerNorm over
// rows" and "RMSNorm over rows"), MAC_COLS lanes. RMSNorm is LayerNorm with the row sum held at 0
// and pass 1 skipped. Each row, back to back:
//   pass 1, ceil(length/C) cycles: softmax the row max m, LayerNorm the sum of v = x - in_zp;
//   pass 2, ceil(length/C) cycles: softmax S += T[m - x] (the uint16 exp table, two parameter
//     bytes per lane), LayerNorm V += d^2 with d = length*v - sum(v);
//   serial: softmax a restoring divider, R = floor(2^39 / S), one quotient bit per cycle (40);
//     LayerNorm W = V + E (1 cycle, E the uint64 at param_addr without its top two bits), the
//     digit-by-digit root r = floor(sqrt(W)), two radicand bits per cycle (32), and the same
//     divider for R = floor(2^46 / r) (47): 80 cycles. A zero divisor gives R = 0;
//   pass 3, ceil(length/C) cycles: the input is read again (e and d are recomputed, not stored),
//     softmax (e*R + 2^30) >> 31, LayerNorm t = (d*R + 2^21) >>> 22 then
//     ((t*M + 2^(k-1)) >>> k) + B with the position's record {M, shift, B} (or the one record when one_record), k = 31 - shift;
//     each C-wide vector goes to the post-processing pipeline saturated to int32, which adds
//     out_zp and clips (no requant, no LUT).
// So a row takes 3*ceil(length/C) + 40 (or + 80; RMSNorm 2*ceil(length/C) + 80) cycles and the last vector drains through the
// pipeline's four cycles: the formula of docs/timing.md emerges from the passes.
module npu_norm
  import npu_isa_pkg::*, npu_config_pkg::*, npu_rtl_pkg::*;
(
    input logic clk,
    input logic rst,
    input logic go,
    input word_t word,
    // Input SRAM reads: lane l reads the row's value j0 + l.
    output logic [31:0] inp_raddr[MAC_COLS],
    input logic [7:0] inp_rdata[MAC_COLS],
    // Parameter SRAM reads: softmax, ports 2l and 2l+1 the table entry of lane l; LayerNorm,
    // ports 12l..12l+11 the record of lane l (pass 3), ports 0..7 the epsilon term (serial).
    output logic [31:0] prm_raddr[12*MAC_COLS],
    input logic [7:0] prm_rdata[12*MAC_COLS],
    output logic busy,  // running: the read ports above are NORM's (npu_top shares them)
    output pp_bundle_t pp
);
  localparam int C = MAC_COLS;
  // Serial cycles per row.
  localparam logic [6:0] SOFTMAX_SERIAL = 7'd40;
  localparam logic [6:0] LAYERNORM_SERIAL = 7'd80;
  // LayerNorm's serial phase: cycle 0 forms W, cycles 1..32 take the root, 33..79 divide.
  localparam logic [6:0] DIV_FIRST_LN = 7'd33;

  typedef enum logic [1:0] {
    PH_PASS1,
    PH_PASS2,
    PH_SERIAL,
    PH_PASS3
  } phase_e;

  logic running;
  phase_e phase;
  logic ln;  // LayerNorm or RMSNorm (op 1 or 2), else softmax
  logic rms;  // RMSNorm (op 2): no pass 1, the row sum stays 0
  logic one_record;  // LayerNorm: every position reads the record at param_addr + 8
  logic [31:0] prm_addr, length, row_in, row_out, j0;
  logic [15:0] rows_left;  // rows after the current one
  logic [7:0] in_zp, out_zp, clip_lo, clip_hi;
  logic [6:0] ser;  // cycle of the serial phase

  // Row state.
  logic signed [7:0] row_max;  // softmax pass 1
  logic signed [31:0] vsum;  // LayerNorm pass 1: sum of v (|sum| < 2^21)
  logic [63:0] acc;  // pass 2: S (softmax, < 2^28) or V (LayerNorm, < 2^54)
  // Serial datapath.
  logic [63:0] radicand;  // W, shifted left two bits per root step
  logic [31:0] root;  // floor(sqrt(W)) < 2^32
  logic [39:0] rest;  // root remainder, <= 2*root
  logic [39:0] rem;  // divider remainder, < divisor
  logic [47:0] quo;  // quotient bits so far

  assign busy = running;

  logic pass_last, row_last;
  logic [C-1:0] lane_ok;
  always_comb begin
    pass_last = j0 + 32'(C) >= length;
    row_last = rows_left == 16'd0;
    for (int l = 0; l < C; l++) lane_ok[l] = j0 + 32'(l) < length;
  end

  // Input reads and the per-lane values.
  logic signed [7:0] x[C];
  always_comb begin
    for (int l = 0; l < C; l++) begin
      inp_raddr[l] = row_in + j0 + 32'(l);
      x[l] = inp_rdata[l];
    end
  end

  // Softmax: table index m - x (0..255 on a valid lane) and the entry read.
  logic [7:0] tab_idx[C];
  logic [15:0] e[C];
  // LayerNorm: v, d and the lane's record.
  logic signed [31:0] v[C];
  logic signed [31:0] d[C];
  logic signed [31:0] rec_m[C];
  logic signed [31:0] rec_shift[C];
  logic signed [31:0] rec_b[C];
  always_comb begin
    for (int l = 0; l < C; l++) begin
      tab_idx[l] = row_max - x[l];  // modulo 256; 0..255 on a valid lane
      e[l] = {prm_rdata[2*l+1], prm_rdata[2*l]};
      v[l] = sext8(inp_rdata[l]) - sext8(in_zp);
      d[l] = $signed(length) * v[l] - vsum;
      rec_m[l] = {prm_rdata[12*l+3], prm_rdata[12*l+2], prm_rdata[12*l+1], prm_rdata[12*l]};
      rec_shift[l] = {prm_rdata[12*l+7], prm_rdata[12*l+6], prm_rdata[12*l+5], prm_rdata[12*l+4]};
      rec_b[l] = {prm_rdata[12*l+11], prm_rdata[12*l+10], prm_rdata[12*l+9], prm_rdata[12*l+8]};
    end
  end

  always_comb begin
    for (int l = 0; l < C; l++) begin
      for (int b = 0; b < 12; b++) begin
        if (!ln) begin
          // Ports beyond lane 2C-1 of the table are unused for softmax.
          prm_raddr[12*l+b] = '0;
        end else if (phase == PH_SERIAL) begin
          prm_raddr[12*l+b] = prm_addr + 32'(12 * l + b);
        end else begin
          prm_raddr[12*l+b] = prm_addr + 32'd8 + (one_record ? 32'd0 : 32'd12 * (j0 + 32'(l))) + 32'(b);
        end
      end
    end
    if (!ln) begin
      for (int l = 0; l < C; l++) begin
        prm_raddr[2*l] = prm_addr + {23'd0, tab_idx[l], 1'b0};
        prm_raddr[2*l+1] = prm_addr + {23'd0, tab_idx[l], 1'b1};
      end
    end
  end

  // Pass 1 and pass 2 reductions over the valid lanes.
  logic signed [7:0] max_next;
  logic signed [31:0] vsum_next;
  logic [63:0] acc_next;
  always_comb begin
    max_next = row_max;
    vsum_next = vsum;
    acc_next = acc;
    for (int l = 0; l < C; l++) begin
      if (lane_ok[l]) begin
        if (x[l] > max_next) max_next = x[l];
        vsum_next = vsum_next + v[l];
        if (ln) begin
          acc_next = acc_next + 64'($signed(64'(d[l])) * $signed(64'(d[l])));
        end else begin
          acc_next = acc_next + 64'(e[l]);
        end
      end
    end
  end

  // The serial datapath: one root step (two radicand bits) and one divider step (one quotient
  // bit); the dividend 2^39 or 2^46 enters as a single 1 on the first step.
  logic [63:0] eps_term;
  logic [39:0] divisor;
  logic div_first;
  logic [39:0] rem_shifted;
  logic [39:0] rest_shifted;
  logic [39:0] trial;
  always_comb begin
    for (int b = 0; b < 8; b++) eps_term[8*b+:8] = prm_rdata[b];
    eps_term[63:62] = 2'b00;
    divisor = ln ? {8'd0, root} : acc[39:0];
    div_first = ln ? ser == DIV_FIRST_LN : ser == 7'd0;
    rem_shifted = {rem[38:0], div_first};
    rest_shifted = {rest[37:0], radicand[63:62]};
    trial = {6'd0, root, 2'b01};
  end

  // Pass 3: the row's reciprocal and each lane's output before out_zp and the clip.
  logic [47:0] recip;
  logic signed [31:0] y[C];
  always_comb begin
    recip = divisor == '0 ? '0 : quo;
    for (int l = 0; l < C; l++) begin
      logic signed [63:0] t;
      logic signed [31:0] sh;
      logic [5:0] k;
      logic signed [63:0] scaled;
      if (ln) begin
        t = (64'(d[l]) * $signed({16'd0, recip}) + 64'sd2097152) >>> 22;
        sh = rec_shift[l] < -32'sd31 ? -32'sd31 : (rec_shift[l] > 32'sd30 ? 32'sd30 : rec_shift[l]);
        k = 6'(32'sd31 - sh);
        scaled = (t * 64'(rec_m[l]) + (64'sd1 <<< (k - 6'd1))) >>> k;
        y[l] = sat32(scaled + 64'(rec_b[l]));
      end else begin
        // e*R < 2^56: the rounded quotient is below 2^25.
        y[l] = $signed(32'((64'(e[l]) * {16'd0, recip} + 64'h4000_0000) >> 31));
        t = '0;
        sh = '0;
        k = '0;
        scaled = '0;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      pp.valid <= 1'b0;
    end else begin
      pp.valid <= running && phase == PH_PASS3;
      pp.last <= pass_last && row_last;
      pp.mask <= lane_ok;
      for (int l = 0; l < C; l++) begin
        pp.val[l] <= y[l];
        pp.mult[l] <= '0;
        pp.shift[l] <= '0;
      end
      pp.do_requant <= 1'b0;
      pp.dbl <= 1'b0;
      pp.do_clamp <= 1'b1;
      pp.zp <= out_zp;
      pp.lo <= clip_lo;
      pp.hi <= clip_hi;
      pp.use_lut <= 1'b0;
      pp.lut_addr <= '0;
      pp.to_acc <= 1'b0;
      pp.to_inp <= 1'b0;
      pp.addr <= row_out + j0;

      if (go) begin
        running <= 1'b1;
        ln <= word[NORM_OP_LSB+:NORM_OP_WIDTH] != '0;
        rms <= word[NORM_OP_LSB+:NORM_OP_WIDTH] == 2'd2;
        phase <= word[NORM_OP_LSB+:NORM_OP_WIDTH] == 2'd2 ? PH_PASS2 : PH_PASS1;
        row_in <= 32'(word[NORM_IN_ADDR_LSB+:NORM_IN_ADDR_WIDTH]);
        row_out <= 32'(word[NORM_OUT_ADDR_LSB+:NORM_OUT_ADDR_WIDTH]);
        prm_addr <= 32'(word[NORM_PARAM_ADDR_LSB+:NORM_PARAM_ADDR_WIDTH]);
        rows_left <= word[NORM_ROWS_LSB+:NORM_ROWS_WIDTH] - 16'd1;
        length <= 32'(word[NORM_LENGTH_LSB+:NORM_LENGTH_WIDTH]);
        in_zp <= word[NORM_IN_ZP_LSB+:NORM_IN_ZP_WIDTH];
        out_zp <= word[NORM_OUT_ZP_LSB+:NORM_OUT_ZP_WIDTH];
        clip_lo <= word[NORM_CLIP_LO_LSB+:NORM_CLIP_LO_WIDTH];
        clip_hi <= word[NORM_CLIP_HI_LSB+:NORM_CLIP_HI_WIDTH];
        one_record <= word[NORM_ONE_RECORD_LSB];
        j0 <= '0;
        row_max <= -8'sd128;
        vsum <= '0;
        acc <= '0;
      end else if (running) begin
        case (phase)
          PH_PASS1: begin
            row_max <= max_next;
            vsum <= vsum_next;
            j0 <= pass_last ? '0 : j0 + 32'(C);
            if (pass_last) phase <= PH_PASS2;
          end
          PH_PASS2: begin
            acc <= acc_next;
            j0 <= pass_last ? '0 : j0 + 32'(C);
            if (pass_last) begin
              phase <= PH_SERIAL;
              ser <= '0;
              rem <= '0;
              quo <= '0;
              root <= '0;
              rest <= '0;
            end
          end
          PH_SERIAL: begin
            ser <= ser + 7'd1;
            if (ln && ser == 7'd0) begin
              radicand <= acc + eps_term;
            end else if (ln && ser < DIV_FIRST_LN) begin
              radicand <= {radicand[61:0], 2'b00};
              if (rest_shifted >= trial) begin
                rest <= rest_shifted - trial;
                root <= {root[30:0], 1'b1};
              end else begin
                rest <= rest_shifted;
                root <= {root[30:0], 1'b0};
              end
            end else begin
              if (rem_shifted >= divisor) begin
                rem <= rem_shifted - divisor;
                quo <= {quo[46:0], 1'b1};
              end else begin
                rem <= rem_shifted;
                quo <= {quo[46:0], 1'b0};
              end
            end
            if (ser == (ln ? LAYERNORM_SERIAL : SOFTMAX_SERIAL) - 7'd1) phase <= PH_PASS3;
          end
          default: begin  // PH_PASS3
            j0 <= pass_last ? '0 : j0 + 32'(C);
            if (pass_last) begin
              if (row_last) begin
                running <= 1'b0;
              end else begin
                phase <= rms ? PH_PASS2 : PH_PASS1;
                rows_left <= rows_left - 16'd1;
                row_in <= row_in + length;
                row_out <= row_out + length;
                row_max <= -8'sd128;
                vsum <= '0;
                acc <= '0;
              end
            end
          end
        endcase
      end
    end
  end

  logic unused;
  assign unused = ^{word[7:0], word[WORD_BITS-1:NORM_ONE_RECORD_LSB+NORM_ONE_RECORD_WIDTH], rem[39],
                    rest[39:38]};
endmodule
