; conv_split.s: a dense 3x3 CONV (padding 1, LOAD pad_value = in_zp = 2) of 20 input channels
; into 7 on 1x4x4x20, split into channel blocks 0..7, 8..15 and 16..19. Each pass loads its
; block of the input (c_bytes = block, ddr_col_stride 20) and of the weights (7 rows of 9 taps,
; c_bytes = block, ddr_row_stride 180, ddr_col_stride 20) into its own SRAM range, then runs
; CONV acc_init=1 finalize=0, acc_init=0 finalize=0, acc_init=0 finalize=1 (double rounding)
; with the partial sums at accumulator entry 0x40. Golden: the unsplit conv2dInt8.
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=320 dtype=int8 shape=1x4x4x20 zp=2
.region w kind=weights base=0x2000 size=1260 dtype=int8 shape=7x3x3x20
.region p kind=weights base=0x3000 size=84
.region out kind=output base=0x4000 size=112 dtype=int8 shape=1x4x4x7 zp=-9
.data 0x1000 74bdc04062162b467e6bcd0febf9e8c7fd62ce2df8770a88d0f2c23a843120c5
.data 0x1020 c1371dad782cfe6a482013fa634be9e392b6da455131a0b6fd659e4cb6912470
.data 0x1040 b07c0697af708811d882c098d559ca3b550d6752993b06c2af57df7647d1e4d0
.data 0x1060 d529239330112b36b84ef94c20610847aec53d99b3a6bb01ff6b1f10585bacdc
.data 0x1080 e23d2a6672fef24fc33e37e740e12ef1c9b8e9731a6519e439376c020bbadd2f
.data 0x10a0 6675a5c46403949728a4ce729728d6bda49ab6973764f8bdc19f6994cbc4b6b9
.data 0x10c0 da64fa29895323ff8ad63b8c958c898dd27db97d7eea7f7764bcfe3639c62b57
.data 0x10e0 da17460b61872c30eceb902f40b721a3132a46bb267612a37197b7a7213ab2de
.data 0x1100 515082c74cdc2133712a965aac65371a1d5a57a7977cf5382a464373a76fd059
.data 0x1120 5645e11fe593d4dfbefabb5f9e88f3418dff946fc845faf33f95c91011be97b1
.data 0x2000 e13388207fa55531849554b0f31573a1457758ed11221578619ce0018b7d1a38
.data 0x2020 28df7d7cdc9c73d2279bfb58ac26bdfbde14d96fe0414feee03f212c8a3da56e
.data 0x2040 362a6427d1908976bc03ddfcdefa10adcea426c54a8649f13eca1630c3f558cc
.data 0x2060 cbe85d00f3292297006628f1d8a315793d9cdd381a2bf5ddf913e3b50c063618
.data 0x2080 ad49a6025389970d4c2b43d0b8a623e7c173624db3759e848af23855b7d2d188
.data 0x20a0 7b823d853da114ce24d0838c51b7d5d25b98ebbd6a59815f7b2f990503b4fc6b
.data 0x20c0 7d4238527cec689ded02a694a6293648744a2b35d97019f0298dc1e9322ab37e
.data 0x20e0 88c99146fdd133aaba8fe65432d0c4cf06c71b86e84cb635323234b7b19d4f46
.data 0x2100 287e5e70487effa83854d1be286996f0d9650254630d300069f75f1d79de1fa4
.data 0x2120 1eabf999b9054cd71d73aa0fbe72b9ed3a2e196cb4d731a11147c593f2d37f13
.data 0x2140 a52abd3919e658866cd1e7dc45d09f9fe32e5c6d2b5cf3ea1a83fdd70d38635d
.data 0x2160 7a6ab485428472351c3101d2e035fc61159b1dad9e8ef2c7950d88b3c0226c94
.data 0x2180 90d6d9e336d16dfd1ba977fe3d4cc7217279657490fb57f81644c0624f0b7c2b
.data 0x21a0 49318f04450327e771f306fa614e2ca97c9f136d1e034f33ac6bd53dcc120c74
.data 0x21c0 e7209ef30eafcda9404b63667ddcdb088f2ee71c75c7936ac00e56377531f9f1
.data 0x21e0 c93472b1fb0d912791225acb92afe69a0da0afb038fdd312bd35b2f1c045e288
.data 0x2200 06dacf9f0705fe138b1699f23bdfc2d5699c9bb260fded12f49a3159a288dba1
.data 0x2220 e4f366d62c066a31ed199d49e2f9752e23eb56a1479339afbdf2b4c71c10572b
.data 0x2240 576c6aa7b77606815164d67d6cde974dab02d210555ceb723acda3b9e16b8418
.data 0x2260 9c67a8b9915a45a925a6ffca606e0ce497f136ca7694e3f26c00f0d6fc3cbcd0
.data 0x2280 677b8c696c152e9b86106a1fdd2735ed843ac37334df8b2721ae20910cfd7175
.data 0x22a0 8e01858e39649ad2a4c0527cdd5963db4e012a0adc5796be7a5f5f256bb103be
.data 0x22c0 c89a216cec88b2869d44e9d1a601c5ba7b8f70d463dc04e24408aa5c1fd37a6c
.data 0x22e0 4b437d232133cea98632c63c5585088c201d4e7dcc0ea5ce640c1ab687a4338b
.data 0x2300 3905431ba2dbc6f23a772cc3d97a7935ce37652fa3def6f27f1e32bb4206632d
.data 0x2320 214e0cd2549609c37613432c815fcad863029ec6848115f832e77c6577752162
.data 0x2340 341508b45a843281a14f21108d64d657d6106c22b947e10f1171b5fef542cce8
.data 0x2360 39724c05166c5fedfe58404a9958e408d3ed6455000ce11b2b90750955614e48
.data 0x2380 2bb34ebc10a9e4ebd2bfc40dd74d01835dcdbdece50ac359fcd690fd20bb5c13
.data 0x23a0 6aaddc77ac5f3caa42bcb15290742c27e21306bb116d639aa12ac3cc89a731fc
.data 0x23c0 95de5b9a1d380408c5475f279e3e152b55a229378d259dd9cada3cc7a44a7530
.data 0x23e0 636a139061252334a942e8838763f1f87edfe8bb2b8fdd182df8d6cd6a0deaa3
.data 0x2400 c577ee9294bad5b23e08e88ff3ccbdcf54d363c7e9908183ee47608927b2bb0c
.data 0x2420 9b4c635795fa1e1e19a3af74f2ff5d372e944d880ec3ca8d0e6eda95c6df025c
.data 0x2440 cff70abcbe9093bbf1d08d599ef0640e67c45fe93a6e2e9ea43442d159ec3039
.data 0x2460 5eda4cfee1fd2efd039355e5d8e2d4eccfcaf9f3813ec093c49422096b148d4d
.data 0x2480 a48961839c1c69b807fff3ccb597ca1060d1cefda85f1ff4da58c4cb63af79e8
.data 0x24a0 48cd883b339f853a76b932e90db813a654a4607d1e9aae6dc3f6f3625eae6c16
.data 0x24c0 c02fe2cfe91e606875eb3188a91d814832f59c57a3db40f49fefc7998a93c924
.data 0x24e0 4f6463b04668ead490ecd68b
; {bias, M, shift} per output channel: (8624, 0x62ba346e, -11) (13576, 0x7600267a, -11) (6925, 0x5f67fec9, -10)
;                                      (-15653, 0x667666eb, -10) (5349, 0x74b12775, -11) (6640, 0x56b88060, -10)
;                                      (1229, 0x448bac59, -10)
.data 0x3000 b02100006e34ba62f5ffffff083500007a260076f5ffffff0d1b0000c9fe675f
.data 0x3020 f6ffffffdbc2ffffeb667666f6ffffffe51400007527b174f5fffffff0190000
.data 0x3040 6080b856f6ffffffcd04000059ac8b44f6ffffff
LOAD buf=2 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=84
LOAD pad_value=2 sram_addr=0x0 ddr_addr=0x1000 y_size=4 x_size=4 c_bytes=8 ddr_row_stride=80 ddr_col_stride=20 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1
LOAD push_next=1 buf=1 sram_addr=0x0 ddr_addr=0x2000 y_size=7 x_size=9 c_bytes=8 ddr_row_stride=180 ddr_col_stride=20
CONV pop_prev=1 inp_addr=0x0 wgt_addr=0x0 acc_addr=0x40 out_h=4 out_w=4 in_w=6 in_c=8 out_c=7 kh=3 kw=3 sh=1 sw=1 dh=1 dw=1 in_zp=2 out_zp=-9 clip_lo=-128 clip_hi=127 acc_init=1
LOAD pad_value=2 sram_addr=0x120 ddr_addr=0x1008 y_size=4 x_size=4 c_bytes=8 ddr_row_stride=80 ddr_col_stride=20 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1
LOAD push_next=1 buf=1 sram_addr=0x1f8 ddr_addr=0x2008 y_size=7 x_size=9 c_bytes=8 ddr_row_stride=180 ddr_col_stride=20
CONV pop_prev=1 inp_addr=0x120 wgt_addr=0x1f8 acc_addr=0x40 out_h=4 out_w=4 in_w=6 in_c=8 out_c=7 kh=3 kw=3 sh=1 sw=1 dh=1 dw=1 in_zp=2 out_zp=-9 clip_lo=-128 clip_hi=127
LOAD pad_value=2 sram_addr=0x240 ddr_addr=0x1010 y_size=4 x_size=4 c_bytes=4 ddr_row_stride=80 ddr_col_stride=20 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1
LOAD push_next=1 buf=1 sram_addr=0x3f0 ddr_addr=0x2010 y_size=7 x_size=9 c_bytes=4 ddr_row_stride=180 ddr_col_stride=20
CONV pop_prev=1 push_next=1 inp_addr=0x240 wgt_addr=0x3f0 out_addr=0x10 acc_addr=0x40 out_h=4 out_w=4 in_w=6 in_c=4 out_c=7 kh=3 kw=3 sh=1 sw=1 dh=1 dw=1 in_zp=2 out_zp=-9 clip_lo=-128 clip_hi=127 finalize=1 double_round=1
STORE pop_prev=1 sram_addr=0x10 ddr_addr=0x4000 y_size=1 x_size=1 c_bytes=112
END
