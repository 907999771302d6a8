// Fetch: streams the instruction words from the instruction port into a one-word buffer and
// offers that word to its unit's queue; `dispatch` (from npu_control) says it was taken this
// cycle. The first word reaches the buffer at cycle L (the port answers L-1 cycles after the
// request of cycle 0), then one word per cycle while nothing stalls. END stops fetching.
module npu_fetch
  import npu_isa_pkg::*, npu_rtl_pkg::*;
(
    input logic clk,
    input logic rst,
    input logic [31:0] code_addr,
    // Instruction port (docs/rtl.md).
    output logic if_req_valid,
    output logic [31:0] if_req_addr,
    input logic if_valid,
    input word_t if_data,
    output logic if_ready,
    // The buffered word.
    output logic fb_valid,
    output word_t fb_word,
    output logic [31:0] fb_idx,
    output logic [1:0] fb_unit,
    output logic fb_end,
    input logic dispatch,
    // END reached (pulse, with its index), fetching finished, illegal opcode seen.
    output logic end_valid,
    output logic [31:0] end_idx,
    output logic done,
    output logic illegal
);
  logic requested;
  logic [31:0] next_idx;

  assign if_req_valid = !requested;
  assign if_req_addr = code_addr;
  assign fb_unit = unit_of(fb_word);
  assign fb_end = opcode_of(fb_word) == OP_END;
  // A word other than END whose opcode names no unit is illegal.
  assign illegal = fb_valid && !fb_end && fb_unit == 2'(UNIT_NONE);
  assign end_valid = fb_valid && fb_end;
  assign end_idx = fb_idx;
  assign if_ready = !done && (!fb_valid || dispatch);

  always_ff @(posedge clk) begin
    if (rst) begin
      requested <= 1'b0;
      fb_valid <= 1'b0;
      done <= 1'b0;
      next_idx <= '0;
    end else begin
      requested <= 1'b1;
      if (fb_valid && (fb_end || illegal)) begin
        fb_valid <= 1'b0;
        done <= 1'b1;
      end else if (if_valid && if_ready) begin
        fb_valid <= 1'b1;
        fb_word <= if_data;
        fb_idx <= next_idx;
        next_idx <= next_idx + 1;
      end else if (dispatch) begin
        fb_valid <= 1'b0;
      end
    end
  end
endmodule
