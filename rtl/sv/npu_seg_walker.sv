// Walks SRAM byte offsets through a sequence of contiguous segments separated by a fixed gap:
// segment 0 is `first` bytes long, the last one (index nseg-1) `last_len` bytes, the others
// `mid` bytes. Each cycle it hands out the next `take` offsets, one per lane; the lanes of one
// cycle may cross several segment boundaries. A LOAD uses it twice: for the rows of unpadded data
// inside the padded tile, and for the padding around them.
module npu_seg_walker #(
    parameter int LANES = 16
) (
    input logic clk,
    input logic load,
    input logic [31:0] ld_start,
    input logic [31:0] ld_first,
    input logic [31:0] ld_mid,
    input logic [31:0] ld_last,
    input logic [31:0] ld_gap,
    input logic [16:0] ld_nseg,
    input logic [31:0] take,
    output logic [31:0] offset[LANES]
);
  logic [31:0] p;  // offset of the next byte
  logic [31:0] rem;  // bytes left in the current segment
  logic [16:0] seg;
  logic [31:0] mid;
  logic [31:0] last_len;
  logic [31:0] gap;
  logic [16:0] nseg;

  logic [31:0] p_next;
  logic [31:0] rem_next;
  logic [16:0] seg_next;

  always_comb begin
    p_next = p;
    rem_next = rem;
    seg_next = seg;
    for (int i = 0; i < LANES; i++) begin
      offset[i] = p_next;
      if (32'(i) < take) begin
        p_next = p_next + 1;
        rem_next = rem_next - 1;
        if (rem_next == 0) begin
          seg_next = seg_next + 1;
          p_next = p_next + gap;
          rem_next = seg_next == nseg - 1 ? last_len : mid;
        end
      end
    end
  end

  always_ff @(posedge clk) begin
    if (load) begin
      mid <= ld_mid;
      last_len <= ld_last;
      gap <= ld_gap;
      nseg <= ld_nseg;
      if (ld_first == 0) begin
        // An empty first segment: start at the second one.
        p <= ld_start + ld_gap;
        seg <= 17'd1;
        rem <= ld_nseg == 17'd2 ? ld_last : ld_mid;
      end else begin
        p <= ld_start;
        seg <= '0;
        rem <= ld_first;
      end
    end else begin
      p <= p_next;
      rem <= rem_next;
      seg <= seg_next;
    end
  end
endmodule
