// The RTL NPU: fetch, three instruction queues, the handshake/arbitration control, the load and
// store DMA engines on one DDR data port, the compute unit's two sides (the MAC array, and the
// vector unit with NORM, each with its own post-processing pipeline), and the five SRAMs.
// Parameters come from npu_config_pkg (generated from the hardware YAML), opcodes and fields from
// npu_isa_pkg. Ports are described in docs/rtl.md.
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
    // Slot s (0 load, 1 compute's MAC side, 2 store, 3 compute's vector side) finishes
    // instruction trace_end_idx[32s+:32].
    output logic [SLOTS-1:0] trace_end_valid,
    output logic [32*SLOTS-1:0] trace_end_idx,
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
  logic [2:0] q_nonempty, q_full, q_push, q_pop, q_two;
  logic q_pop2;  // the compute queue's second entry leaves too
  word_t q_head_word[3], q_second_word[3];
  logic [31:0] q_head_idx[3], q_second_idx[3];

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
        .pop2(u == UNIT_COMPUTE && q_pop2),
        .head_word(q_head_word[u]),
        .head_idx(q_head_idx[u]),
        .second_word(q_second_word[u]),
        .second_idx(q_second_idx[u]),
        .nonempty(q_nonempty[u]),
        .two(q_two[u]),
        .full(q_full[u])
    );
  end

  // Control.
  logic go_load, go_store, go_mac, go_vector, go_norm, units_idle;
  word_t go_word[SLOTS];
  logic [SLOTS-1:0] eng_fin;
  logic [31:0] end_idx[SLOTS];
  logic load_fin, store_fin;
  logic [1:0] pp_fin;  // the MAC side's post-processing (0), the vector side's (1)

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
      .q_two(q_two[UNIT_COMPUTE]),
      .q_second_word(q_second_word[UNIT_COMPUTE]),
      .q_second_idx(q_second_idx[UNIT_COMPUTE]),
      .q_push,
      .q_pop,
      .q_pop2,
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
  assign eng_fin = {pp_fin[1], store_fin, pp_fin[0], load_fin};
  assign trace_end_idx = {end_idx[3], end_idx[2], end_idx[1], end_idx[0]};
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
  logic [31:0] prm_raddr[12*C+24+2*C];
  logic [7:0] prm_rdata[12*C+24+2*C];
  logic [31:0] acc_raddr[C];
  logic [31:0] acc_rdata[C];
  // The two post-processing pipelines' writes (index 0 the MAC side's, 1 the vector side's);
  // only the MAC side's writes the accumulator (partial sums).
  logic [C-1:0] out_we[2], inp_we[2], acc_we;
  logic [31:0] out_waddr[2][C], acc_waddr[C], acc_wdata[C];
  logic [7:0] out_wdata[2][C];

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

  pp_bundle_t mac_pp, vec_pp, norm_pp, side_pp[2];
  logic [31:0] mac_inp_raddr[R*C], mac_wgt_raddr[R*C], mac_prm_raddr[12*C];
  logic [7:0] mac_inp_rdata[R*C], mac_prm_rdata[12*C];
  logic [31:0] vec_inp_raddr[2*C], vec_prm_raddr[24], lut_raddr[2][C];
  logic [7:0] vec_inp_rdata[2*C], vec_prm_rdata[24], lut_rdata[2][C];
  logic [31:0] norm_inp_raddr[C], norm_prm_raddr[12*C];
  logic [7:0] norm_inp_rdata[C], norm_prm_rdata[12*C];
  logic norm_busy;

  npu_mac_array mac_array (
      .clk,
      .rst,
      .go(go_mac),
      .word(go_word[SIDE_MAC]),
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
      .word(go_word[SIDE_VEC]),
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
      .word(go_word[SIDE_VEC]),
      .inp_raddr(norm_inp_raddr),
      .inp_rdata(norm_inp_rdata),
      .prm_raddr(norm_prm_raddr),
      .prm_rdata(norm_prm_rdata),
      .busy(norm_busy),
      .pp(norm_pp)
  );

  // Each side of the compute unit has its own post-processing pipeline, so an overlapped ELTWISE
  // drains beside a CONV; each pipeline's `fin` ends its side's instruction. The vector side runs
  // one instruction at a time: at most one of the vector unit and NORM has a valid vector.
  assign side_pp[0] = mac_pp;
  assign side_pp[1] = vec_pp.valid ? vec_pp : norm_pp;

  npu_postproc mac_postproc (
      .clk,
      .rst,
      .in(side_pp[0]),
      .lut_raddr(lut_raddr[0]),
      .lut_rdata(lut_rdata[0]),
      .out_we(out_we[0]),
      .inp_we(inp_we[0]),
      .out_waddr(out_waddr[0]),
      .out_wdata(out_wdata[0]),
      .acc_we,
      .acc_waddr,
      .acc_wdata,
      .fin(pp_fin[0])
  );

  // The vector unit and NORM never send partial sums (their bundles' to_acc is 0): this
  // pipeline's accumulator outputs stay unconnected.
  /* verilator lint_off PINCONNECTEMPTY */
  npu_postproc vec_postproc (
      .clk,
      .rst,
      .in(side_pp[1]),
      .lut_raddr(lut_raddr[1]),
      .lut_rdata(lut_rdata[1]),
      .out_we(out_we[1]),
      .inp_we(inp_we[1]),
      .out_waddr(out_waddr[1]),
      .out_wdata(out_wdata[1]),
      .acc_we(),
      .acc_waddr(),
      .acc_wdata(),
      .fin(pp_fin[1])
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // Read port maps: addresses and data in separate blocks (no false combinational loop). NORM
  // borrows the vector unit's first C input ports and the MAC array's 12C parameter ports while
  // it runs: NORM (never overlapped) starts only with the MAC side free and nothing else starts
  // until it ends, so no CONV runs beside it, and neither reads after its last step (each
  // post-processing pipeline's LUT ports are its own).
  always_comb begin
    for (int i = 0; i < R * C; i++) inp_raddr[i] = mac_inp_raddr[i];
    for (int i = 0; i < 2 * C; i++) inp_raddr[R*C+i] = vec_inp_raddr[i];
    for (int i = 0; i < 12 * C; i++) prm_raddr[i] = mac_prm_raddr[i];
    for (int i = 0; i < 24; i++) prm_raddr[12*C+i] = vec_prm_raddr[i];
    for (int p = 0; p < 2; p++) begin
      for (int i = 0; i < C; i++) prm_raddr[12*C+24+p*C+i] = lut_raddr[p][i];
    end
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
    for (int p = 0; p < 2; p++) begin
      for (int i = 0; i < C; i++) lut_rdata[p][i] = prm_rdata[12*C+24+p*C+i];
    end
    for (int i = 0; i < C; i++) norm_inp_rdata[i] = inp_rdata[R*C+i];
    for (int i = 0; i < 12 * C; i++) norm_prm_rdata[i] = prm_rdata[i];
  end

  // The input SRAM's write ports: the load DMA's W, then each post-processing pipeline's C for a
  // CONV or ELTWISE whose out_buf sends its tile there (a cascade); the tokens (and, for an
  // overlapped ELTWISE, the hazard check) keep their addresses apart. The output SRAM has C write
  // ports per pipeline, the accumulator SRAM the MAC side's C.
  logic [W+2*C-1:0] inp_sram_we;
  logic [31:0] inp_sram_waddr[W+2*C];
  logic [7:0] inp_sram_wdata[W+2*C];
  logic [2*C-1:0] out_sram_we;
  logic [31:0] out_sram_waddr[2*C];
  logic [7:0] out_sram_wdata[2*C];
  always_comb begin
    inp_sram_we = {inp_we[1], inp_we[0], load_buf == 2'd0 ? load_we : '0};
    out_sram_we = {out_we[1], out_we[0]};
    for (int i = 0; i < W; i++) begin
      inp_sram_waddr[i] = load_waddr[i];
      inp_sram_wdata[i] = load_wdata[i];
    end
    for (int p = 0; p < 2; p++) begin
      for (int i = 0; i < C; i++) begin
        inp_sram_waddr[W+p*C+i] = out_waddr[p][i];
        inp_sram_wdata[W+p*C+i] = out_wdata[p][i];
        out_sram_waddr[p*C+i] = out_waddr[p][i];
        out_sram_wdata[p*C+i] = out_wdata[p][i];
      end
    end
  end

  // SRAMs.
  npu_sram #(
      .DW(8),
      .DEPTH(INPUT_SRAM_BYTES),
      .NR(R * C + 2 * C),
      .NW(W + 2 * C)
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
      .NR(12 * C + 24 + 2 * C),
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
      .NW(2 * C)
  ) output_sram (
      .clk,
      .raddr(store_raddr),
      .rdata(store_rdata),
      .we(out_sram_we),
      .waddr(out_sram_waddr),
      .wdata(out_sram_wdata)
  );
endmodule
