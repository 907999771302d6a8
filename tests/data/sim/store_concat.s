; store_concat.s: channel concat by strided STOREs. `a` (1x3x4x5) and `b` (1x3x4x3) pass
; through 1x1 max POOLs (the identity) to output SRAM 0x0 and 0x100; two STOREs write them at
; channel offsets 0 and 5 of `out` (1x3x4x8) with ddr_col_stride 8 (the total channels) and
; ddr_row_stride 32. Golden: concatInt8 on axis 3.
.hw npu-s
.code 0x0
.region a kind=input base=0x1000 size=60 dtype=int8 shape=1x3x4x5
.region b kind=input base=0x1100 size=36 dtype=int8 shape=1x3x4x3
.region out kind=output base=0x2000 size=96 dtype=int8 shape=1x3x4x8
.data 0x1000 1c2e2bb8569d806c1251dcc9bee389120ebaeea3c2d8545a78760c5aa65845b8
.data 0x1020 5de4d4bab5b9e452ccec7ffa8effb5e8ecb3e9f971a65589f59e9bd0
.data 0x1100 9f6afabb26ae0461361e198b743645887d6b1ed8101db9b8587f0c2a3a220c14
.data 0x1120 0abf8241
LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=60
LOAD push_next=1 sram_addr=0x100 ddr_addr=0x1100 y_size=1 x_size=1 c_bytes=36
POOL pop_prev=1 in_w=4 out_h=3 out_w=4 channels=5 kh=1 kw=1 sh=1 sw=1
POOL push_next=1 in_addr=0x100 out_addr=0x100 in_w=4 out_h=3 out_w=4 channels=3 kh=1 kw=1 sh=1 sw=1
STORE pop_prev=1 ddr_addr=0x2000 y_size=3 x_size=4 c_bytes=5 ddr_row_stride=32 ddr_col_stride=8
STORE sram_addr=0x100 ddr_addr=0x2005 y_size=3 x_size=4 c_bytes=3 ddr_row_stride=32 ddr_col_stride=8
END
