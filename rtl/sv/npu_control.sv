// The handshakes of docs/timing.md: dispatch from fetch into the three instruction queues, each
// unit's start (pop tokens, leave the queue), end and token pushes, the four token counters, and
// the per-instruction DDR port arbitration between load and store.
//
// The compute unit has two sides, each with its own running instruction: the MAC side (CONV on
// the MAC array, SYNC) and the vector side (ELTWISE, POOL, NORM on the vector unit). They share
// the compute queue, so the per-unit state below is kept per slot: slots 0..2 are the units
// (slot 1 the compute unit's MAC side) and slot 3 is the compute unit's vector side. The queue
// head starts on the side its opcode names when that side is free and, unless it is an ELTWISE
// with overlap = 1, the other side is free too: every other compute instruction runs alone, as
// before the overlap bit. An instruction that leaves the queue makes the next one the head in the
// same cycle (as in the simulator, whose compute unit takes its next command at once), so two
// compute instructions may start in one cycle: one on the MAC side, then an overlapped ELTWISE
// behind it (the queue's second entry, or the word fetch dispatches into a one-entry queue), its
// tokens counted after the first one's pops. No third can follow: both sides are then busy.
//
// Every event of a cycle (fetch dispatches, a unit starts, a token is pushed) may enable another
// one in the same cycle (zero-cycle hand-offs: a token pushed at cycle t can be popped at t, an
// entry leaving a full queue at t lets fetch dispatch at t, a unit that ends at t can start its
// next instruction at t). The events of a cycle are the least fixed point of these monotone
// rules, computed by iterating them from "nothing happens" once per event (EVENTS below: every
// iteration that changes something adds an event, so EVENTS iterations reach the fixed point);
// all inputs of the iteration are registers, so it is an acyclic network. The DDR port grant is decided after it: a grant
// only starts an instruction, and no instruction ends in the cycle it starts (every duration is
// at least one cycle).
module npu_control
  import npu_isa_pkg::*, npu_config_pkg::*, npu_rtl_pkg::*;
(
    input logic clk,
    input logic rst,
    // The fetch buffer.
    input logic fb_valid,
    input word_t fb_word,
    input logic [31:0] fb_idx,
    input logic [1:0] fb_unit,
    input logic fb_end,
    output logic dispatch,
    // The instruction queues (index: UNIT_*).
    input logic [2:0] q_nonempty,
    input logic [2:0] q_full,
    input word_t q_head_word[3],
    input logic [31:0] q_head_idx[3],
    // The compute queue's entry behind its head.
    input logic q_two,
    input word_t q_second_word,
    input logic [31:0] q_second_idx,
    output logic [2:0] q_push,
    output logic [2:0] q_pop,
    output logic q_pop2,
    // Engines: a start pulse with the instruction word, and the finish pulse of the cycle the
    // instruction ends (a register in the engine).
    output logic go_load,
    output logic go_store,
    output logic go_mac,
    output logic go_vector,
    output logic go_norm,
    output word_t go_word[SLOTS],  // per slot: the word of its running (or starting) instruction
    input logic [SLOTS-1:0] eng_fin,
    // Trace: the instruction each slot finishes this cycle (two compute instructions may end in
    // the same cycle, one per side).
    output logic [SLOTS-1:0] end_valid,
    output logic [31:0] end_idx[SLOTS],
    output logic units_idle
);
  typedef enum logic [1:0] {
    ST_IDLE,
    ST_WAIT_PORT,  // tokens popped, waiting for the DDR port (load and store only)
    ST_RUN,
    ST_PUSH_WAIT  // finished, some pushed token queue still full
  } unit_state_e;

  localparam int TD = TOKEN_QUEUE_DEPTH;
  localparam int TW = $clog2(TD + 1);
  // The events of a cycle, one iteration of the fixed point each: fetch's dispatch, each unit's
  // start (the compute unit's first), the compute unit's second start, and a push to each token
  // queue (9). The build runs Verilator without --assert and rtl/sv has no assertions, so that
  // one more iteration changes nothing is argued here (the rules are monotone) rather than
  // checked in simulation.
  localparam int EVENTS = 1 + UNITS + 1 + TOKEN_QUEUES;
  // The unit (instruction queue, token masks) a slot belongs to.
  function automatic int unit_of_slot(input int s);
    return s == SIDE_VEC ? UNIT_COMPUTE : s;
  endfunction

  unit_state_e st[SLOTS];
  word_t cur_word[SLOTS];
  logic [31:0] cur_idx[SLOTS];
  logic [SLOTS-1:0] sync_run;  // running a SYNC: it finishes the cycle after it started
  logic [2:0] xfer;  // running a LOAD/STORE that holds the DDR port
  logic [3:0] pend[SLOTS];  // token queues still to push (ST_PUSH_WAIT)
  logic [63:0] req_cycle[3];  // cycle the DDR port was requested (ST_WAIT_PORT)
  logic [TW-1:0] tokens[4];
  logic [63:0] cycle;

  // Per-cycle view of each slot.
  logic [SLOTS-1:0] fin;
  logic [SLOTS-1:0] push_phase;
  logic [3:0] want[SLOTS];  // token queues this slot pushes now
  logic [3:0] want_any;
  // Per-cycle view of each queue head.
  logic [2:0] headv;
  word_t hword[3];
  logic [31:0] hidx[3];
  logic [3:0] hpop[3];
  logic h_vec;  // the compute head runs on the vector side
  logic h_overlap;  // the compute head is an ELTWISE with overlap = 1
  logic [1:0] start_slot[3];  // the slot a queue's head starts in
  // The compute instruction behind the head, which may start in the same cycle (an overlapped
  // ELTWISE behind a MAC-side head): its word from the queue, or from fetch when the queue holds
  // only the head and fetch dispatches to compute in this cycle.
  word_t sword;
  logic [31:0] sidx;
  logic [3:0] spop;
  logic s_overlap;

  // The events of the cycle.
  logic ev_dispatch;
  logic [2:0] ev_start;
  logic ev_start2;  // the compute queue's second entry starts too (on the vector side)
  logic [3:0] ev_push;
  logic [SLOTS-1:0] all_pushed;

  always_comb begin
    for (int s = 0; s < SLOTS; s++) begin
      fin[s] = st[s] == ST_RUN && (sync_run[s] || eng_fin[s]);
      push_phase[s] = fin[s] || st[s] == ST_PUSH_WAIT;
      want[s] = fin[s] ? push_mask(cur_word[s], 2'(unit_of_slot(s))) :
          (st[s] == ST_PUSH_WAIT ? pend[s] : 4'b0);
    end
    for (int u = 0; u < UNITS; u++) begin
      headv[u] = q_nonempty[u] || (fb_valid && !fb_end && fb_unit == 2'(u));
      hword[u] = q_nonempty[u] ? q_head_word[u] : fb_word;
      hidx[u] = q_nonempty[u] ? q_head_idx[u] : fb_idx;
      hpop[u] = pop_mask(hword[u], 2'(u));
      start_slot[u] = 2'(u);
    end
    // As the simulator's isa::onMacSide: CONV and SYNC run on the MAC side, the rest on the vector
    // side.
    h_vec = !(opcode_of(hword[UNIT_COMPUTE]) == OP_CONV ||
              opcode_of(hword[UNIT_COMPUTE]) == OP_SYNC);
    h_overlap = opcode_of(hword[UNIT_COMPUTE]) == OP_ELTWISE &&
        hword[UNIT_COMPUTE][ELTWISE_OVERLAP_LSB];
    if (h_vec) start_slot[UNIT_COMPUTE] = 2'(SIDE_VEC);
    sword = q_two ? q_second_word : fb_word;
    sidx = q_two ? q_second_idx : fb_idx;
    spop = pop_mask(sword, 2'(UNIT_COMPUTE));
    s_overlap = opcode_of(sword) == OP_ELTWISE && sword[ELTWISE_OVERLAP_LSB];
    // At most one slot pushes a given queue: an overlapped ELTWISE pushes nothing, and every
    // other compute instruction started with the other side free.
    want_any = want[0] | want[1] | want[2] | want[3];
  end

  // The least fixed point of the cycle's events.
  always_comb begin
    logic nd;
    logic [2:0] ns;
    logic [3:0] np;
    logic [3:0] avail;
    logic room;
    logic [SLOTS-1:0] free;
    logic other_free;
    logic ns2;
    logic [3:0] avail2;
    logic [3:0] pop_now;
    ev_dispatch = 1'b0;
    ev_start = '0;
    ev_start2 = 1'b0;
    ev_push = '0;
    all_pushed = '0;
    for (int it = 0; it < EVENTS; it++) begin
      for (int q = 0; q < 4; q++) avail[q] = tokens[q] != 0 || ev_push[q];
      for (int s = 0; s < SLOTS; s++) begin
        all_pushed[s] = (want[s] & ~ev_push) == 4'b0;
        free[s] = st[s] == ST_IDLE || (push_phase[s] && all_pushed[s]);
      end
      for (int u = 0; u < UNITS; u++) begin
        // The compute head also needs the other side free, except an overlapped ELTWISE.
        other_free = u != UNIT_COMPUTE || h_overlap || free[h_vec ? SIDE_MAC : SIDE_VEC];
        ns[u] = free[start_slot[u]] && other_free && headv[u] && (hpop[u] & ~avail) == 4'b0;
      end
      // The second compute start: behind a MAC-side head that starts, an overlapped ELTWISE
      // whose tokens are there after the head's pops (a token pushed this cycle counts once).
      // The vector side is free then: a MAC-side head starts only with the other side free.
      for (int q = 0; q < 4; q++) begin
        avail2[q] = (TW + 1)'(tokens[q]) + (TW + 1)'(ev_push[q]) >
            (TW + 1)'(hpop[UNIT_COMPUTE][q]);
      end
      ns2 = ev_start[UNIT_COMPUTE] && !h_vec && q_nonempty[UNIT_COMPUTE] &&
          (q_two || (ev_dispatch && fb_unit == 2'(UNIT_COMPUTE))) && s_overlap &&
          (spop & ~avail2) == 4'b0;
      for (int q = 0; q < 4; q++) begin
        pop_now[q] = (ev_start[tq_consumer(q)] && hpop[tq_consumer(q)][q]) ||
            (tq_consumer(q) == UNIT_COMPUTE && ev_start2 && spop[q]);
        room = tokens[q] != TW'(TD) || pop_now[q];
        // Compute pushes to load before it pushes to store (the simulator's order). Only a slot
        // in its push phase wants a queue, and only its producer's slots can want it.
        np[q] = want_any[q] && room && (q != TQ_C2S || !want_any[TQ_C2L] || ev_push[TQ_C2L]);
      end
      nd = fb_valid && !fb_end && fb_unit != 2'd3 && (!q_full[fb_unit] || ev_start[fb_unit]);
      ev_dispatch = nd;
      ev_start = ns;
      ev_start2 = ns2;
      ev_push = np;
    end
    for (int s = 0; s < SLOTS; s++) all_pushed[s] = (want[s] & ~ev_push) == 4'b0;
  end

  // DDR port: a request is served in the order of the cycle it was made; the store wins a tie.
  logic req_load;
  logic req_store;
  logic [63:0] cyc_load;
  logic [63:0] cyc_store;
  logic port_busy;
  logic grant_load;
  logic grant_store;
  logic [2:0] start_xfer;

  always_comb begin
    for (int u = 0; u < UNITS; u++) begin
      start_xfer[u] = ev_start[u] && opcode_of(hword[u]) != OP_SYNC && u != UNIT_COMPUTE;
    end
    req_load = st[UNIT_LOAD] == ST_WAIT_PORT || start_xfer[UNIT_LOAD];
    req_store = st[UNIT_STORE] == ST_WAIT_PORT || start_xfer[UNIT_STORE];
    cyc_load = st[UNIT_LOAD] == ST_WAIT_PORT ? req_cycle[UNIT_LOAD] : cycle;
    cyc_store = st[UNIT_STORE] == ST_WAIT_PORT ? req_cycle[UNIT_STORE] : cycle;
    port_busy = (st[UNIT_LOAD] == ST_RUN && xfer[UNIT_LOAD] && !fin[UNIT_LOAD]) ||
        (st[UNIT_STORE] == ST_RUN && xfer[UNIT_STORE] && !fin[UNIT_STORE]);
    grant_store = !port_busy && req_store && (!req_load || cyc_store <= cyc_load);
    grant_load = !port_busy && req_load && !grant_store;
  end

  assign dispatch = ev_dispatch;
  assign q_pop = ev_start;
  assign q_pop2 = ev_start2;
  always_comb begin
    for (int u = 0; u < UNITS; u++) q_push[u] = ev_dispatch && fb_unit == 2'(u);
  end

  // A slot starts when its queue's head starts into it; the DMA slots may then wait for the port.
  logic [SLOTS-1:0] slot_start;
  logic [SLOTS-1:0] slot_xfer;
  logic [SLOTS-1:0] slot_grant;
  always_comb begin
    for (int s = 0; s < SLOTS; s++) begin
      slot_start[s] = ev_start[unit_of_slot(s)] && start_slot[unit_of_slot(s)] == 2'(s);
    end
    slot_start[SIDE_VEC] |= ev_start2;
    slot_xfer = '0;
    slot_xfer[UNIT_LOAD] = start_xfer[UNIT_LOAD];
    slot_xfer[UNIT_STORE] = start_xfer[UNIT_STORE];
    slot_grant = '0;
    slot_grant[UNIT_LOAD] = grant_load;
    slot_grant[UNIT_STORE] = grant_store;
  end

  assign go_load = grant_load;
  assign go_store = grant_store;
  assign go_mac = ev_start[UNIT_COMPUTE] && opcode_of(hword[UNIT_COMPUTE]) == OP_CONV;
  assign go_vector = ev_start2 || (ev_start[UNIT_COMPUTE] && (opcode_of(
      hword[UNIT_COMPUTE]
  ) == OP_ELTWISE || opcode_of(
      hword[UNIT_COMPUTE]
  ) == OP_POOL));
  assign go_norm = ev_start[UNIT_COMPUTE] && opcode_of(hword[UNIT_COMPUTE]) == OP_NORM;
  // Each engine latches its fields at `go` from its side's word, so the two sides' instructions
  // never see each other's word. A starting slot takes the word and index of its queue's head,
  // or, for the second start (the vector side), those of the entry behind it.
  logic [31:0] go_idx[SLOTS];
  always_comb begin
    for (int s = 0; s < SLOTS; s++) begin
      go_word[s] = slot_start[s] ? hword[unit_of_slot(s)] : cur_word[s];
      go_idx[s] = slot_start[s] ? hidx[unit_of_slot(s)] : cur_idx[s];
    end
    if (ev_start2) begin
      go_word[SIDE_VEC] = sword;
      go_idx[SIDE_VEC] = sidx;
    end
  end

  assign end_valid = fin;
  assign end_idx = cur_idx;
  always_comb begin
    units_idle = st[SIDE_VEC] == ST_IDLE;
    for (int u = 0; u < UNITS; u++) units_idle &= st[u] == ST_IDLE && !q_nonempty[u];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      for (int s = 0; s < SLOTS; s++) begin
        st[s] <= ST_IDLE;
        pend[s] <= '0;
      end
      for (int q = 0; q < 4; q++) tokens[q] <= '0;
      sync_run <= '0;
      xfer <= '0;
      cycle <= '0;
    end else begin
      cycle <= cycle + 1;
      for (int q = 0; q < 4; q++) begin
        tokens[q] <= tokens[q] + TW'(ev_push[q]) -
            TW'(ev_start[tq_consumer(q)] && hpop[tq_consumer(q)][q]) -
            TW'(tq_consumer(q) == UNIT_COMPUTE && ev_start2 && spop[q]);
      end
      for (int u = 0; u < UNITS; u++) begin
        if (ev_start[u]) begin
          req_cycle[u] <= cycle;
          xfer[u] <= start_xfer[u];
        end
      end
      for (int s = 0; s < SLOTS; s++) begin
        if (slot_start[s]) begin
          cur_word[s] <= go_word[s];
          cur_idx[s] <= go_idx[s];
          sync_run[s] <= opcode_of(go_word[s]) == OP_SYNC;
          if (slot_xfer[s] && !slot_grant[s]) begin
            st[s] <= ST_WAIT_PORT;
          end else begin
            st[s] <= ST_RUN;
          end
        end else if (st[s] == ST_WAIT_PORT && slot_grant[s]) begin
          st[s] <= ST_RUN;
        end else if (push_phase[s]) begin
          sync_run[s] <= 1'b0;
          if (all_pushed[s]) begin
            st[s] <= ST_IDLE;
          end else begin
            st[s] <= ST_PUSH_WAIT;
            pend[s] <= want[s] & ~ev_push;
          end
        end
      end
    end
  end
endmodule
