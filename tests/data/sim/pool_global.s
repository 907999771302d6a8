; pool_global.s: global pooling as a window the size of the 4x5 tile: an average POOL (avg_mult
; and avg_shift = QuantizeMultiplier(1/20)) and a max POOL over the same 1x4x5x16 input, to
; output SRAM 0x0 and 0x10, stored to `avg` and `max`. Golden: globalAveragePoolInt8 and
; maxPoolInt8 with a 4x5 kernel.
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=320 dtype=int8 shape=1x4x5x16
.region avg kind=output base=0x2000 size=16 dtype=int8 shape=1x1x1x16
.region max kind=output base=0x2100 size=16 dtype=int8 shape=1x1x1x16
.data 0x1000 367e8a829525e69beecbc93c8672a1b785b84c528c5405233eac0e2a8c68c3ce
.data 0x1020 e03039ba5c30f9638ae76ff89082343e2d8e8f3c0e52d23a2fd9f556c5e99ef8
.data 0x1040 ebdfd53083f2c978e6fa2249fa88e109cfd80ab1bcf186b69a6015f08330c632
.data 0x1060 11629f0c0090b7803a114a65007580875d7f6aa995bc105165bbfbc47dc6a0f9
.data 0x1080 107edbf0ad2d863442661b486c84f9e540c21a3683bcd9d641e3712e4b584b08
.data 0x10a0 71b417d0ef88f0a527bb1f3123da3a1a5722009c1645c24c02e6effd0a97298a
.data 0x10c0 7f90007803b7393fcbc3e496b1aa0e8146909f6ee20d23e0aec4d880d6660fc0
.data 0x10e0 f37dc63d71786382267e2ee8190e6190d9eb7322265ebeeb67c436baf26fb2aa
.data 0x1100 fe9f1959eb448cf39c184e1c0f9df8ba97bc59430c6b2243749ecef3b35ab37e
.data 0x1120 b4abdd3807149c8b579965663a73c690e239c539e0277b1e69c0632943baf43c
LOAD push_next=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=320
POOL pop_prev=1 op=1 in_w=5 out_h=1 out_w=1 channels=16 kh=4 kw=5 sh=1 sw=1 avg_mult=1717986918 avg_shift=-4
POOL push_next=1 out_addr=0x10 in_w=5 out_h=1 out_w=1 channels=16 kh=4 kw=5 sh=1 sw=1
STORE pop_prev=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=16
STORE sram_addr=0x10 ddr_addr=0x2100 y_size=1 x_size=1 c_bytes=16
END
