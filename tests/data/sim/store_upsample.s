; store_upsample.s: nearest upsample by 2 vertically and 3 horizontally as repeated strided
; STOREs. `in` (1x3x4x6) passes through a 1x1 max POOL (the identity); six STOREs, one per
; (dy, dx) in 2x3, write the tile at `out` + (dy*12 + dx)*6 with the strides multiplied by the
; factors (ddr_row_stride 2*72, ddr_col_stride 3*6). Golden: upsampleNearestInt8(in, 2, 3).
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=72 dtype=int8 shape=1x3x4x6
.region out kind=output base=0x2000 size=432 dtype=int8 shape=1x6x12x6
.data 0x1000 7942bdf22106f0847762f0f3cb4d764dc7072051159a0f89f2c6dacae344bb31
.data 0x1020 1245fd6f84df9ad7c5b3d076ac0e8f53a7356c88913f20f6f72db022d24d0a96
.data 0x1040 dad43c1617c1a98e
LOAD push_next=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=72
POOL pop_prev=1 push_next=1 in_w=4 out_h=3 out_w=4 channels=6 kh=1 kw=1 sh=1 sw=1
STORE pop_prev=1 ddr_addr=0x2000 y_size=3 x_size=4 c_bytes=6 ddr_row_stride=144 ddr_col_stride=18
STORE ddr_addr=0x2006 y_size=3 x_size=4 c_bytes=6 ddr_row_stride=144 ddr_col_stride=18
STORE ddr_addr=0x200c y_size=3 x_size=4 c_bytes=6 ddr_row_stride=144 ddr_col_stride=18
STORE ddr_addr=0x2048 y_size=3 x_size=4 c_bytes=6 ddr_row_stride=144 ddr_col_stride=18
STORE ddr_addr=0x204e y_size=3 x_size=4 c_bytes=6 ddr_row_stride=144 ddr_col_stride=18
STORE ddr_addr=0x2054 y_size=3 x_size=4 c_bytes=6 ddr_row_stride=144 ddr_col_stride=18
END
