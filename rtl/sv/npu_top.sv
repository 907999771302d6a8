// The RTL NPU: fetch, three instruction queues, the handshake/arbitration control, the load and
// store DMA engines on one DDR data port, the MAC array and the vector unit sharing the
// post-processing pipeline, and the five SRAMs. Parameters come from npu_config_pkg (generated
// from the hardware YAML), opcodes and fields from npu_isa_pkg. Ports are described in docs/rtl.md.
module npu_top
  import npu_isa_pkg::*, npu_config_pkg::*, npu_rtl_pkg::*;
(
    input logic clk,
    input logic rst,
    input logic [31:0] code_addr,
    // Instruction port.
    output logic if_req_valid,
    output logic [31:0] if_req_addr,
    input logic if_valid,
    input word_t if_data,
    output logic if_ready,
    // DDR data port: reads.
    output logic rd_req_valid,
    input logic rd_req_ready,
    output logic [31:0] rd_req_addr,
    output logic [31:0] rd_req_len,
    input logic rd_valid,
    input logic [8*DDR_BYTES_PER_CYCLE-1:0] rd_data,
    // DDR data port: writes.
    output logic wr_valid,
    input logic wr_ready,
    output logic [31:0] wr_addr,
    output logic [31:0] wr_bytes,
    output logic wr_last,
    output logic [8*DDR_BYTES_PER_CYCLE-1:0] wr_data,
    input logic wr_ack,
    // Trace and status.
    output logic [2:0] trace_end_valid,  // unit u finishes instruction trace_end_idx[32u+:32]
    output logic [95:0] trace_end_idx,
    output logic trace_fetch_end,  // fetch reached END, instruction trace_fetch_idx
    output logic [31:0] trace_fetch_idx,
    output logic done,
    output logic illegal
);
  localparam int R = MAC_ROWS;
  localparam int C = MAC_COLS;
  localparam int W = DDR_BYTES_PER_CYCLE;

  // Fetch and queues.
  logic fb_valid, fb_end, dispatch, fetch_done;
  word_t fb_word;
  logic [31:0] fb_idx;
  logic [1:0] fb_unit;
  logic [2:0] q_nonempty, q_full, q_push, q_pop;
  word_t q_head_word[3];
  logic [31:0] q_head_idx[3];

  npu_fetch fetch (
      .clk,
      .rst,
      .code_addr,
      .if_req_valid,
      .if_req_addr,
      .if_valid,
      .if_data,
      .if_ready,
      .fb_valid,
      .fb_word,
      .fb_idx,
      .fb_unit,
      .fb_end,
      .dispatch,
      .end_valid(trace_fetch_end),
      .end_idx(trace_fetch_idx),
      .done(fetch_done),
      .illegal
  );

  for (genvar u = 0; u < 3; u++) begin : g_queue
    npu_inst_queue #(
        .DEPTH(INSTRUCTION_QUEUE_DEPTH)
    ) queue (
        .clk,
        .rst,
        .push(q_push[u]),
        .push_word(fb_word),
        .push_idx(fb_idx),
        .pop(q_pop[u]),
        .head_word(q_head_word[u]),
        .head_idx(q_head_idx[u]),
        .nonempty(q_nonempty[u]),
        .full(q_full[u])
    );
  end

  // Control.
  logic go_load, go_store, go_mac, go_vector, go_norm, units_idle;
  word_t go_word[3];
  logic [2:0] eng_fin;
  logic [31:0] end_idx[3];
  logic load_fin, store_fin, pp_fin;

  npu_control control (
      .clk,
      .rst,
      .fb_valid,
      .fb_word,
      .fb_idx,
      .fb_unit,
      .fb_end,
      .dispatch,
      .q_nonempty,
      .q_full,
      .q_head_word,
      .q_head_idx,
      .q_push,
      .q_pop,
      .go_load,
      .go_store,
      .go_mac,
      .go_vector,
      .go_norm,
      .go_word,
      .eng_fin,
      .end_valid(trace_end_valid),
      .end_idx,
      .units_idle
  );
  assign eng_fin = {store_fin, pp_fin, load_fin};
  assign trace_end_idx = {end_idx[2], end_idx[1], end_idx[0]};
  assign done = fetch_done && units_idle;

  // SRAM ports.
  logic [1:0] load_buf;
  logic [W-1:0] load_we;
  logic [31:0] load_waddr[W];
  logic [7:0] load_wdata[W];
  logic [31:0] store_raddr[W];
  logic [7:0] store_rdata[W];

  logic [31:0] inp_raddr[R*C+2*C];
  logic [7:0] inp_rdata[R*C+2*C];
  logic [31:0] wgt_raddr[R*C];
  logic [7:0] wgt_rdata[R*C];
  logic [31:0] prm_raddr[12*C+24+C];
  logic [7:0] prm_rdata[12*C+24+C];
  logic [31:0] acc_raddr[C];
  logic [31:0] acc_rdata[C];
  logic [C-1:0] acc_we, out_we, inp_we;
  logic [31:0] acc_waddr[C], acc_wdata[C], out_waddr[C];
  logic [7:0] out_wdata[C];

  // Engines.
  npu_load_dma load_dma (
      .clk,
      .rst,
      .go(go_load),
      .word(go_word[UNIT_LOAD]),
      .rd_req_valid,
      .rd_req_ready,
      .rd_req_addr,
      .rd_req_len,
      .rd_valid,
      .rd_data,
      .wbuf(load_buf),
      .we(load_we),
      .waddr(load_waddr),
      .wdata(load_wdata),
      .fin(load_fin)
  );

  npu_store_dma store_dma (
      .clk,
      .rst,
      .go(go_store),
      .word(go_word[UNIT_STORE]),
      .wr_valid,
      .wr_ready,
      .wr_addr,
      .wr_bytes,
      .wr_last,
      .wr_data,
      .wr_ack,
      .raddr(store_raddr),
      .rdata(store_rdata),
      .fin(store_fin)
  );

  pp_bundle_t mac_pp, vec_pp, norm_pp, pp_in;
  logic [31:0] mac_inp_raddr[R*C], mac_wgt_raddr[R*C], mac_prm_raddr[12*C];
  logic [7:0] mac_inp_rdata[R*C], mac_prm_rdata[12*C];
  logic [31:0] vec_inp_raddr[2*C], vec_prm_raddr[24], lut_raddr[C];
  logic [7:0] vec_inp_rdata[2*C], vec_prm_rdata[24], lut_rdata[C];
  logic [31:0] norm_inp_raddr[C], norm_prm_raddr[12*C];
  logic [7:0] norm_inp_rdata[C], norm_prm_rdata[12*C];
  logic norm_busy;

  npu_mac_array mac_array (
      .clk,
      .rst,
      .go(go_mac),
      .word(go_word[UNIT_COMPUTE]),
      .inp_raddr(mac_inp_raddr),
      .inp_rdata(mac_inp_rdata),
      .wgt_raddr(mac_wgt_raddr),
      .wgt_rdata,
      .prm_raddr(mac_prm_raddr),
      .prm_rdata(mac_prm_rdata),
      .acc_raddr,
      .acc_rdata,
      .pp(mac_pp)
  );

  npu_vector vector (
      .clk,
      .rst,
      .go(go_vector),
      .word(go_word[UNIT_COMPUTE]),
      .inp_raddr(vec_inp_raddr),
      .inp_rdata(vec_inp_rdata),
      .prm_raddr(vec_prm_raddr),
      .prm_rdata(vec_prm_rdata),
      .pp(vec_pp)
  );

  npu_norm norm (
      .clk,
      .rst,
      .go(go_norm),
      .word(go_word[UNIT_COMPUTE]),
      .inp_raddr(norm_inp_raddr),
      .inp_rdata(norm_inp_rdata),
      .prm_raddr(norm_prm_raddr),
      .prm_rdata(norm_prm_rdata),
      .busy(norm_busy),
      .pp(norm_pp)
  );

  // One compute instruction runs at a time: at most one producer's vector is valid.
  assign pp_in = vec_pp.valid ? vec_pp : (norm_pp.valid ? norm_pp : mac_pp);

  npu_postproc postproc (
      .clk,
      .rst,
      .in(pp_in),
      .lut_raddr,
      .lut_rdata,
      .out_we,
      .inp_we,
      .out_waddr,
      .out_wdata,
      .acc_we,
      .acc_waddr,
      .acc_wdata,
      .fin(pp_fin)
  );

  // Read port maps: addresses and data in separate blocks (no false combinational loop). NORM
  // borrows the vector unit's first C input ports and the MAC array's 12C parameter ports while
  // it runs: the compute unit runs one instruction at a time, and neither reads after its last
  // step (the post-processing's LUT ports are its own).
  always_comb begin
    for (int i = 0; i < R * C; i++) inp_raddr[i] = mac_inp_raddr[i];
    for (int i = 0; i < 2 * C; i++) inp_raddr[R*C+i] = vec_inp_raddr[i];
    for (int i = 0; i < 12 * C; i++) prm_raddr[i] = mac_prm_raddr[i];
    for (int i = 0; i < 24; i++) prm_raddr[12*C+i] = vec_prm_raddr[i];
    for (int i = 0; i < C; i++) prm_raddr[12*C+24+i] = lut_raddr[i];
    if (norm_busy) begin
      for (int i = 0; i < C; i++) inp_raddr[R*C+i] = norm_inp_raddr[i];
      for (int i = 0; i < 12 * C; i++) prm_raddr[i] = norm_prm_raddr[i];
    end
  end
  assign wgt_raddr = mac_wgt_raddr;

  always_comb begin
    for (int i = 0; i < R * C; i++) mac_inp_rdata[i] = inp_rdata[i];
    for (int i = 0; i < 2 * C; i++) vec_inp_rdata[i] = inp_rdata[R*C+i];
    for (int i = 0; i < 12 * C; i++) mac_prm_rdata[i] = prm_rdata[i];
    for (int i = 0; i < 24; i++) vec_prm_rdata[i] = prm_rdata[12*C+i];
    for (int i = 0; i < C; i++) lut_rdata[i] = prm_rdata[12*C+24+i];
    for (int i = 0; i < C; i++) norm_inp_rdata[i] = inp_rdata[R*C+i];
    for (int i = 0; i < 12 * C; i++) norm_prm_rdata[i] = prm_rdata[i];
  end

  // The input SRAM's write ports: the load DMA's W, then the post-processing's C for a CONV
  // whose out_buf sends its tile there (a cascade); the tokens keep their addresses apart.
  logic [W+C-1:0] inp_sram_we;
  logic [31:0] inp_sram_waddr[W+C];
  logic [7:0] inp_sram_wdata[W+C];
  always_comb begin
    inp_sram_we = {inp_we, load_buf == 2'd0 ? load_we : '0};
    for (int i = 0; i < W; i++) begin
      inp_sram_waddr[i] = load_waddr[i];
      inp_sram_wdata[i] = load_wdata[i];
    end
    for (int i = 0; i < C; i++) begin
      inp_sram_waddr[W+i] = out_waddr[i];
      inp_sram_wdata[W+i] = out_wdata[i];
    end
  end

  // SRAMs.
  npu_sram #(
      .DW(8),
      .DEPTH(INPUT_SRAM_BYTES),
      .NR(R * C + 2 * C),
      .NW(W + C)
  ) input_sram (
      .clk,
      .raddr(inp_raddr),
      .rdata(inp_rdata),
      .we(inp_sram_we),
      .waddr(inp_sram_waddr),
      .wdata(inp_sram_wdata)
  );

  npu_sram #(
      .DW(8),
      .DEPTH(WEIGHT_SRAM_BYTES),
      .NR(R * C),
      .NW(W)
  ) weight_sram (
      .clk,
      .raddr(wgt_raddr),
      .rdata(wgt_rdata),
      .we(load_buf == 2'd1 ? load_we : '0),
      .waddr(load_waddr),
      .wdata(load_wdata)
  );

  npu_sram #(
      .DW(8),
      .DEPTH(PARAM_SRAM_BYTES),
      .NR(12 * C + 24 + C),
      .NW(W)
  ) param_sram (
      .clk,
      .raddr(prm_raddr),
      .rdata(prm_rdata),
      .we(load_buf == 2'd2 ? load_we : '0),
      .waddr(load_waddr),
      .wdata(load_wdata)
  );

  npu_sram #(
      .DW(32),
      .DEPTH(ACC_SRAM_BYTES / 4),
      .NR(C),
      .NW(C)
  ) acc_sram (
      .clk,
      .raddr(acc_raddr),
      .rdata(acc_rdata),
      .we(acc_we),
      .waddr(acc_waddr),
      .wdata(acc_wdata)
  );

  npu_sram #(
      .DW(8),
      .DEPTH(OUTPUT_SRAM_BYTES),
      .NR(W),
      .NW(C)
  ) output_sram (
      .clk,
      .raddr(store_raddr),
      .rdata(store_rdata),
      .we(out_we),
      .waddr(out_waddr),
      .wdata(out_wdata)
  );
endmodule
