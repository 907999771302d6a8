; eltwise_mul.s: ELTWISE mul of two 1x2x4x5 tensors (zero points 5 and -20) with the output
; multiplier of 0.05 * 0.08 / 0.3, output zero point 10, clip [-100, 100], single rounding,
; then a LUT (use_lut) loaded at parameter SRAM 0x20. Golden: mulInt8 with the multiplier and
; the LUT read from DDR.
.hw npu-s
.code 0x0
.region a kind=input base=0x1000 size=40 dtype=int8 shape=1x2x4x5 scale=0.05 zp=5
.region b kind=input base=0x1100 size=40 dtype=int8 shape=1x2x4x5 scale=0.08 zp=-20
.region p kind=weights base=0x2000 size=24
.region lut kind=weights base=0x2100 size=256
.region out kind=output base=0x3000 size=40 dtype=int8 shape=1x2x4x5 zp=10
.data 0x1000 10dbf70769ecfb8e5211faa7267fb816d747b5c3d79186e9599bb944e97ae1c0
.data 0x1020 16027844639bbb7a
.data 0x1100 a0e6dff021a65072d37a1210fe9a24294cc4bf4c3931e25561b2ddd4e47d8c49
.data 0x1120 5b3d88e99a54595a
; a and b multipliers unused by mul; out_mult, out_shift = 0x6d3a06d4, -6
.data 0x2000 00000000000000000000000000000000d4063a6dfaffffff
; LUT[i] = round(255 / (1 + exp(-(i - 128) / 24))) - 128
.data 0x2100 8181818181828282828282828282828282828383838383838383848484848484
.data 0x2120 8585858585868686868787878788888889898a8a8a8b8b8c8c8d8d8e8e8f8f90
.data 0x2140 9191929393949596979798999a9b9c9d9ea0a1a2a3a4a6a7a9aaabadafb0b2b3
.data 0x2160 b5b7b9bbbdbec0c3c5c7c9cbcdd0d2d4d7d9dbdee0e3e5e8eaedf0f2f5f8fafd
.data 0x2180 000205070a0d0f1215171a1c1f212426282b2d2f323436383a3c3f4142444648
.data 0x21a0 4a4c4d4f505254555658595b5c5d5e5f616263646566676868696a6b6c6c6d6e
.data 0x21c0 6e6f70707171727273737474757575767677777778787878797979797a7a7a7a
.data 0x21e0 7a7b7b7b7b7b7b7c7c7c7c7c7c7c7c7d7d7d7d7d7d7d7d7d7d7d7d7d7e7e7e7e
LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=40
LOAD sram_addr=0x28 ddr_addr=0x1100 y_size=1 x_size=1 c_bytes=40
LOAD buf=2 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=24
LOAD push_next=1 buf=2 sram_addr=0x20 ddr_addr=0x2100 y_size=1 x_size=1 c_bytes=256
ELTWISE pop_prev=1 push_next=1 op=1 a_addr=0x0 b_addr=0x28 out_addr=0x80 lut_addr=0x20 count=40 a_zp=5 b_zp=-20 out_zp=10 clip_lo=-100 clip_hi=100 use_lut=1
STORE pop_prev=1 sram_addr=0x80 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=40
END
