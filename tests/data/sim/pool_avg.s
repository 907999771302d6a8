; pool_avg.s: average POOL 3x3, stride 2, padding 1 filled with the zero point 5 (LOAD
; pad_value; count_include_pad) on 1x7x7x6 -> 1x4x4x6; avg_mult/avg_shift are
; QuantizeMultiplier(1/9). Golden: averagePoolInt8 with pads 1 and zero point 5.
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=294 dtype=int8 shape=1x7x7x6 zp=5
.region out kind=output base=0x2000 size=96 dtype=int8 shape=1x4x4x6 zp=5
.data 0x1000 84945f764b735f42246d960fdc40078d4b2b86e6df4783b677f9dbbadca03cb1
.data 0x1020 86e545e1e35a96675bb681beeb868fca42fb787863bb4325dcedc701d9167348
.data 0x1040 fee38151d380b367bf4679fe6c1513b7ae5d97625439735523db13e1af2f0140
.data 0x1060 9f3ed09a8927f0bb1202a3ab4ffef2726a9710c0504a84d96e84d978b67d93db
.data 0x1080 68b3d913a2cbeb2c2317029c61e6f6c7aa1f94de464b1a39bc506f9d9bc69411
.data 0x10a0 b14133b8fbe2de16b3974219a55540027f4c2df5be24b0876d18797ae163c91b
.data 0x10c0 1a3b46bdcb994c98852cbe1a0f5507368a2eaad952941438309dcfc6f1c7894d
.data 0x10e0 4ce69a010e848da9737ebfd550f7d1854feced63c0f3610e11f65b403402449d
.data 0x1100 29fe1c6ddb0d0b49984e1bdb8373f90b307ca104e6ae701ada780633bc4beeb4
.data 0x1120 44b074912f83
LOAD push_next=1 pad_value=5 ddr_addr=0x1000 y_size=7 x_size=7 c_bytes=6 ddr_row_stride=42 ddr_col_stride=6 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1
POOL pop_prev=1 push_next=1 op=1 in_w=9 out_h=4 out_w=4 channels=6 kh=3 kw=3 sh=2 sw=2 avg_mult=1908874354 avg_shift=-3
STORE pop_prev=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=96
END
