; load_strided.s: width concat by LOADs into strided SRAM rows. `a` (1x3x4x5, rows of 20
; bytes) is loaded with sram_row_stride 30 at input SRAM 0x0 and `b` (1x3x2x5, rows of 10
; bytes) with the same stride at 0x14, so each 30-byte SRAM row holds a's row then b's; a 1x1
; max POOL (the identity) moves the 3x6x5 tile to the output SRAM and one STORE writes it out.
; Golden: concatInt8 on axis 2.
.hw npu-s
.code 0x0
.region a kind=input base=0x1000 size=60 dtype=int8 shape=1x3x4x5
.region b kind=input base=0x1100 size=30 dtype=int8 shape=1x3x2x5
.region out kind=output base=0x2000 size=90 dtype=int8 shape=1x3x6x5
.data 0x1000 eb3a3007c9c7b81d77b731fd61f789b8173f74d2d6d7ad542caa7263d90f495d
.data 0x1020 c0c1849e717389f1bf6b1f61752b242c30b93a03c90397cebda55416
.data 0x1100 70346a6fc1d5ccf718bda518cddcea1e12dcf05e1fcdfd1d9b86d341a6f9
LOAD ddr_addr=0x1000 y_size=3 x_size=4 c_bytes=5 ddr_row_stride=20 ddr_col_stride=5 sram_row_stride=30
LOAD push_next=1 sram_addr=0x14 ddr_addr=0x1100 y_size=3 x_size=1 c_bytes=10 ddr_row_stride=10 sram_row_stride=30
POOL pop_prev=1 push_next=1 in_w=6 out_h=3 out_w=6 channels=5 kh=1 kw=1 sh=1 sw=1
STORE pop_prev=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=90
END
