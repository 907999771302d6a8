// The output-pixel walk the MAC array and the vector unit share: output pixels in raster order,
// the input offset advancing by one horizontal stride step per pixel and by `pix_wrap` at each row
// end, the output offset by `pidx_step` (the channels of a pixel). `start` puts it on the first
// pixel; `advance` steps to the next one unless it is on the last (`px_last`).
module npu_pixel_walker (
    input logic clk,
    input logic start,
    input logic advance,
    input logic [11:0] out_h,
    input logic [11:0] out_w,
    input logic [31:0] pix_dx,
    input logic [31:0] pix_wrap,
    input logic [31:0] pidx_step,
    output logic [31:0] pix_off,
    output logic [31:0] pidx_off,
    output logic px_last
);
  logic [11:0] oy, ox;
  assign px_last = oy == out_h - 1 && ox == out_w - 1;

  always_ff @(posedge clk) begin
    if (start) begin
      oy <= '0;
      ox <= '0;
      pix_off <= '0;
      pidx_off <= '0;
    end else if (advance && !px_last) begin
      pidx_off <= pidx_off + pidx_step;
      if (ox != out_w - 1) begin
        ox <= ox + 1;
        pix_off <= pix_off + pix_dx;
      end else begin
        ox <= '0;
        oy <= oy + 1;
        pix_off <= pix_off + pix_wrap;
      end
    end
  end
endmodule
