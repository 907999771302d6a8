; sync_chain.s: two layers chained through DDR with SYNC. A 1x1 CONV (8 -> 8 channels on
; 1x4x4x8, in_zp 4, out_zp -2) whose input loads hand compute their token through a
; `SYNC unit=0 push_next=1`; its STORE writes `mid` and signals compute (push_prev); a
; `SYNC unit=1 pop_next=1 push_prev=1` passes that on to load, whose LOAD (pop_next) reads
; `mid` back into the same input SRAM, padded with -128, for a 3x3 stride-2 max POOL written
; over the CONV's output SRAM and stored to `out`. Golden: maxPoolInt8(conv2dInt8(in)), and
; `mid` holds the conv.
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=128 dtype=int8 shape=1x4x4x8 zp=4
.region w kind=weights base=0x1100 size=64 dtype=int8 shape=8x1x1x8
.region p kind=weights base=0x1200 size=96
.region mid kind=scratch base=0x2000 size=128 dtype=int8 shape=1x4x4x8 zp=-2
.region out kind=output base=0x3000 size=32 dtype=int8 shape=1x2x2x8 zp=-2
.data 0x1000 b9f0f691d574e402d184797105979aab489e0b70810a4e0eede997729eb984d7
.data 0x1020 2cb2fdd8589616902a03bf78fa4f9e9ba2ebe82154f606e3fb07f33ee828ff0b
.data 0x1040 4976cfbd1016cca3f42474a3332f3e7c04c9173a18c94e827a5b057a7d3b354b
.data 0x1060 89c6d013cfedeeeb85131e0f65da82c4346e3ad437913be9de48cc794043cedd
.data 0x1100 01bae6b0dd2bff54ad5de9b629ee5986fdce13cc7aa05994417f4acf3d00be09
.data 0x1120 25f9b617f201a3fe0e9544227e2c9c3a2ad18ff7954f003b428e04d609ac9a37
; {bias, M, shift} per output channel: (876, 0x5cdaf84a, -8) (1316, 0x7f10094d, -9) (-1967, 0x6159183d, -8)
;                                      (-4879, 0x70b72f3b, -8) (-1462, 0x56d77e6b, -8) (4849, 0x7006bbf1, -8)
;                                      (-4185, 0x514b4f3c, -8) (-4718, 0x5b73b87d, -8)
.data 0x1200 6c0300004af8da5cf8ffffff240500004d09107ff7ffffff51f8ffff3d185961
.data 0x1220 f8fffffff1ecffff3b2fb770f8ffffff4afaffff6b7ed756f8fffffff1120000
.data 0x1240 f1bb0670f8ffffffa7efffff3c4f4b51f8ffffff92edffff7db8735bf8ffffff
LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=128
LOAD buf=1 ddr_addr=0x1100 y_size=1 x_size=1 c_bytes=64
LOAD buf=2 ddr_addr=0x1200 y_size=1 x_size=1 c_bytes=96
SYNC push_next=1 unit=0
CONV pop_prev=1 push_next=1 out_h=4 out_w=4 in_w=4 in_c=8 out_c=8 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 in_zp=4 out_zp=-2 clip_lo=-128 clip_hi=127 acc_init=1 finalize=1
STORE pop_prev=1 push_prev=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=128
SYNC pop_next=1 push_prev=1 unit=1
LOAD pop_next=1 push_next=1 pad_value=-128 ddr_addr=0x2000 y_size=4 x_size=4 c_bytes=8 ddr_row_stride=32 ddr_col_stride=8 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1
POOL pop_prev=1 push_next=1 in_w=6 out_h=2 out_w=2 channels=8 kh=3 kw=3 sh=2 sw=2
STORE pop_prev=1 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=32
END
