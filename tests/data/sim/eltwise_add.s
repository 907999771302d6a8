; eltwise_add.s: ELTWISE add of two 1x4x4x3 tensors (scales 0.05 and 0.08, zero points -10 and
; 7) into scale 0.12, zero point -3, with TFLite's multipliers for left_shift 20, double
; rounding and a fused ReLU (clip_lo = out_zp). a and b sit at input SRAM 0x0 and 0x40, the
; result at output SRAM 0x20. Golden: addInt8 with the multipliers read from `p`.
.hw npu-s
.code 0x0
.region a kind=input base=0x1000 size=48 dtype=int8 shape=1x4x4x3 scale=0.05 zp=-10
.region b kind=input base=0x1100 size=48 dtype=int8 shape=1x4x4x3 scale=0.08 zp=7
.region p kind=weights base=0x2000 size=24
.region out kind=output base=0x3000 size=48 dtype=int8 shape=1x4x4x3 scale=0.12 zp=-3
.data 0x1000 edbf88465f03aded29ab14c256e7d85056791a384320c434956872d72c886bcb
.data 0x1020 8fae166602d21cc1fb470c79d939013e
.data 0x1100 6567a9042a44082bfe65d723cb622f4a58151b8a4c89113ece795216bb2cb138
.data 0x1120 bbe76bcd6509c2a800dd396d71e38aa6
; a_mult, a_shift, b_mult, b_shift, out_mult, out_shift = 0x50000000, -1, 0x40000000, 0, 0x55555555, -19
.data 0x2000 00000050ffffffff000000400000000055555555edffffff
LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=48
LOAD sram_addr=0x40 ddr_addr=0x1100 y_size=1 x_size=1 c_bytes=48
LOAD push_next=1 buf=2 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=24
ELTWISE pop_prev=1 push_next=1 a_addr=0x0 b_addr=0x40 out_addr=0x20 count=48 a_zp=-10 b_zp=7 out_zp=-3 clip_lo=-3 clip_hi=127 left_shift=20 double_round=1
STORE pop_prev=1 sram_addr=0x20 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=48
END
