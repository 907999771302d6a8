// An in-order instruction queue between fetch and one unit: DEPTH entries of an instruction word
// and its index in the stream. `head` is valid whenever `count` is non-zero; push and pop may
// happen in the same cycle (also on an empty queue, where the word passes straight through).
// The entry behind the head (`second`, valid with `two`) may leave in the same cycle as the head
// (`pop2` with `pop`): the compute unit starts an overlapped ELTWISE in the cycle the CONV in
// front of it starts; with one entry, `pop2` takes the word pushed in that cycle.
module npu_inst_queue
  import npu_isa_pkg::*, npu_rtl_pkg::*;
#(
    parameter int DEPTH = 4
) (
    input logic clk,
    input logic rst,
    input logic push,
    input word_t push_word,
    input logic [31:0] push_idx,
    input logic pop,
    input logic pop2,
    output word_t head_word,
    output logic [31:0] head_idx,
    output word_t second_word,
    output logic [31:0] second_idx,
    output logic nonempty,
    output logic two,
    output logic full
);
  localparam int PW = DEPTH > 1 ? $clog2(DEPTH) : 1;

  word_t words[DEPTH];
  logic [31:0] idxs[DEPTH];
  logic [PW-1:0] rd;
  logic [PW-1:0] wr;
  logic [PW:0] count;

  function automatic logic [PW-1:0] next_ptr(input logic [PW-1:0] p);
    return p == PW'(DEPTH - 1) ? '0 : p + 1'b1;
  endfunction

  assign head_word = words[rd];
  assign head_idx = idxs[rd];
  assign second_word = words[next_ptr(rd)];
  assign second_idx = idxs[next_ptr(rd)];
  assign nonempty = count != 0;
  assign two = count > (PW + 1)'(1);
  assign full = count == (PW + 1)'(DEPTH);

  always_ff @(posedge clk) begin
    if (rst) begin
      rd <= '0;
      wr <= '0;
      count <= '0;
    end else begin
      if (push) begin
        words[wr] <= push_word;
        idxs[wr] <= push_idx;
        wr <= next_ptr(wr);
      end
      if (pop) rd <= pop2 ? next_ptr(next_ptr(rd)) : next_ptr(rd);
      count <= count + (PW + 1)'(push) - (PW + 1)'(pop) - (PW + 1)'(pop2);
    end
  end
endmodule
