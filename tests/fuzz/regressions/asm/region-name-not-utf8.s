; token_full.s: every token queue runs full. Cpopeut mushes 20 tokens to load and to store
; in one SYNC each while load runs a long LOAD (compute->load fills, so the push to store waits
; behind it); store pushes 20 tokens to compute while compute runs a long POOL (store->compute fills).
.hw npu-s
.region sòc kind=input base=0x10000 size=4096
SYNC pop_next=1 unit=0
LOAD sram_addr=0x8000 ddr_addr=0x10000 y_size=1 x_size=1 c_bytes=4096
POOL in_addr=0x0 out_addr=0x0 in_w=12 out_h=8 out_w=8 channels=4 kh=5 kw=5 sh=1 sw=1
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC push_prev=1 unit=2
SYNC  push_next=1 unit=1
SYNC pop_next=1 push_prev=1 push_next=1 unit=1
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_next=1 unit=0
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
SYNC pop_prev=1 unit=2
END
