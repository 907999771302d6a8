; params_reload.s: parameter loads between two 1x1 CONVs of the same 1x4x4x8 input and weights
; (8 -> 8 channels, in_zp -1). The first CONV uses the records `p1` at parameter SRAM 0x0; the
; second LOAD of parameters overwrites them with `p2` once the first CONV has released the
; buffers (push_prev -> pop_next), and another LOAD puts a LUT at 0x100 for the second CONV.
; The results go to `out1` and `out2`. Golden: two conv2dInt8, the second with the LUT.
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=128 dtype=int8 shape=1x4x4x8 zp=-1
.region w kind=weights base=0x1100 size=64 dtype=int8 shape=8x1x1x8
.region p1 kind=weights base=0x1200 size=96
.region p2 kind=weights base=0x1300 size=96
.region lut kind=weights base=0x1400 size=256
.region out1 kind=output base=0x2000 size=128 dtype=int8 shape=1x4x4x8 zp=0
.region out2 kind=output base=0x2100 size=128 dtype=int8 shape=1x4x4x8 zp=0
.data 0x1000 6a0512507a081c4bbc7a3badeeb68fc886b07569b5a0729cd776e9d6fa28ecb8
.data 0x1020 e0a1e6cf21fb096447580892fd4d333bca1825ef97cd765bb528789e9f54a2c6
.data 0x1040 f3ace2258bf2483bfcc7c007852f932015e61e8251fff6ff161ff229ec76e582
.data 0x1060 2b041caac2deb11c9ae49f0fdcc507b2c60149807fffa9a67ca1fba301b573ae
.data 0x1100 6d905bad255d023b739c7d563a14e7d660655ca1d69ad1d8f63d1e0d1ffc1369
.data 0x1120 a0e56e4a15829a4959a83628f757a928b3150c0d1f41d3dfe8bc7b0f2606219e
; p1 {bias, M, shift}: (3591, 0x78bf20c7, -8) (4527, 0x477e75fb, -8) (457, 0x61d1942b, -8)
;                      (4811, 0x47d3ea78, -7) (1588, 0x78c58d66, -9) (428, 0x45306707, -8)
;                      (-621, 0x58ec932b, -8) (-2034, 0x7e4e47e3, -9)
.data 0x1200 070e0000c720bf78f8ffffffaf110000fb757e47f8ffffffc90100002b94d161
.data 0x1220 f8ffffffcb12000078ead347f9ffffff34060000668dc578f7ffffffac010000
.data 0x1240 07673045f8ffffff93fdffff2b93ec58f8ffffff0ef8ffffe3474e7ef7ffffff
; p2 {bias, M, shift}: (4467, 0x61fe8007, -7) (-3467, 0x63273208, -8) (-966, 0x75cb3407, -8)
;                      (-3934, 0x62b08312, -7) (2182, 0x51333e85, -7) (-1336, 0x42cc2e4a, -7)
;                      (4962, 0x678181aa, -7) (-4181, 0x45eb1e5d, -7)
.data 0x1300 731100000780fe61f9ffffff75f2ffff08322763f8ffffff3afcffff0734cb75
.data 0x1320 f8ffffffa2f0ffff1283b062f9ffffff86080000853e3351f9ffffffc8faffff
.data 0x1340 4a2ecc42f9ffffff62130000aa818167f9ffffffabefffff5d1eeb45f9ffffff
; LUT[i] = round(127 * tanh((127 - i) / 40)): a decreasing table
.data 0x1400 7f7f7f7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7d7d7d7d7d7d7d
.data 0x1420 7d7d7d7c7c7c7c7c7c7c7b7b7b7b7b7a7a7a7a79797979787878777776767675
.data 0x1440 7574747372727170706f6e6d6d6c6b6a69686766646362615f5e5c5b59585654
.data 0x1460 53514f4d4b49464442403d3b383633302e2b2825221f1c191613100d0a060300
.data 0x1480 fdfaf6f3f0edeae7e4e1dedbd8d5d2d0cdcac8c5c3c0bebcbab7b5b3b1afadac
.data 0x14a0 aaa8a7a5a4a2a19f9e9d9c9a9998979695949393929190908f8e8e8d8c8c8b8b
.data 0x14c0 8a8a8a8989888888878787878686868685858585858484848484848483838383
.data 0x14e0 8383838383838282828282828282828282828282828282828282828281818181
LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=128
LOAD buf=1 ddr_addr=0x1100 y_size=1 x_size=1 c_bytes=64
LOAD push_next=1 buf=2 ddr_addr=0x1200 y_size=1 x_size=1 c_bytes=96
CONV pop_prev=1 push_prev=1 push_next=1 out_h=4 out_w=4 in_w=4 in_c=8 out_c=8 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 in_zp=-1 clip_lo=-128 clip_hi=127 acc_init=1 finalize=1
STORE pop_prev=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=128
LOAD pop_next=1 buf=2 ddr_addr=0x1300 y_size=1 x_size=1 c_bytes=96
LOAD push_next=1 buf=2 sram_addr=0x100 ddr_addr=0x1400 y_size=1 x_size=1 c_bytes=256
CONV pop_prev=1 push_next=1 out_addr=0x80 lut_addr=0x100 out_h=4 out_w=4 in_w=4 in_c=8 out_c=8 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 in_zp=-1 clip_lo=-128 clip_hi=127 acc_init=1 finalize=1 use_lut=1
STORE pop_prev=1 sram_addr=0x80 ddr_addr=0x2100 y_size=1 x_size=1 c_bytes=128
END
