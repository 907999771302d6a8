; eltwise.s: ELTWISE add (with and without LUT, both roundings), mul and lut, over 100
; elements (a partial last vector), then one store of the four results.
.hw npu-s
.region ab kind=input base=0x1000 size=200
.region params kind=weights base=0x2000 size=304
.region out kind=output base=0x3000 size=400
.data 0x1000 515082c74cdc2133712a965aac65371a1d5a57a7977cf5382a464373a76fd059
.data 0x1020 5645e11fe593d4dfbefabb5f9e88f3418dff946fc845faf33f95c91011be97b1
.data 0x1040 c00e4907285ee541d937be14bcb736a334f45678f4bab1bedbbf1348a01f1077
.data 0x1060 b8f7bbf3589a47880be19385e89794cefee42dffe0ae4537b9e9b9f0c468584a
.data 0x1080 112d9f6f4bcd81653b0712e26ca2a00e0208419a9f05166da8a22fd478003167
.data 0x10a0 f6d739d94b264ab1df1981d1650e9120f9a152731ccb9e869d8d0bcf6a6c6039
.data 0x10c0 fd4fa17a2adeb1ff
.data 0x2000 cdcccc4cffffffff33333373ffffffff00000040f0ffffff74bdc04062162b46
.data 0x2020 7e6bcd0febf9e8c7fd62ce2df8770a88d0f2c23a843120c5c1371dad782cfe6a
.data 0x2040 482013fa634be9e392b6da455131a0b6fd659e4cb6912470b07c0697af708811
.data 0x2060 d882c098d559ca3b550d6752993b06c2af57df7647d1e4d0d529239330112b36
.data 0x2080 b84ef94c20610847aec53d99b3a6bb01ff6b1f10585bacdce23d2a6672fef24f
.data 0x20a0 c33e37e740e12ef1c9b8e9731a6519e439376c020bbadd2f6675a5c464039497
.data 0x20c0 28a4ce729728d6bda49ab6973764f8bdc19f6994cbc4b6b9da64fa29895323ff
.data 0x20e0 8ad63b8c958c898dd27db97d7eea7f7764bcfe3639c62b57da17460b61872c30
.data 0x2100 eceb902f40b721a3132a46bb267612a37197b7a7213ab2de0000000000000000
.data 0x2120 00000000000000001f85eb51faffffff
LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=200
LOAD push_next=1 buf=2 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=304
ELTWISE pop_prev=1 a_addr=0x0 b_addr=0x64 out_addr=0x0 param_addr=0x0 lut_addr=0x18 count=100 a_zp=3 b_zp=-7 out_zp=5 clip_lo=-100 clip_hi=90 left_shift=20 use_lut=1 double_round=1
ELTWISE op=1 a_addr=0x0 b_addr=0x64 out_addr=0x64 param_addr=0x118 lut_addr=0x18 count=100 a_zp=-2 b_zp=11 out_zp=-4 clip_lo=-128 clip_hi=127
ELTWISE op=2 a_addr=0x0 out_addr=0xc8 lut_addr=0x18 count=37
ELTWISE push_next=1 a_addr=0x0 b_addr=0x64 out_addr=0x12c param_addr=0x0 count=100 a_zp=-1 b_zp=2 out_zp=0 clip_lo=-128 clip_hi=127 left_shift=20
STORE pop_prev=1 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=400
END
