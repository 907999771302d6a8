; conv_dilation.s: dense 3x3 CONV with dilation 2 vertically and 1 horizontally, stride 1
; vertically and 2 horizontally, asymmetric padding (top 2, left 1, bottom 0, right 1; LOAD
; pad_value = in_zp = 9), 5 -> 4 channels on 1x8x10x5, double rounding, clip [-100, 90].
; Weights in [-2, 2] keep the accumulators small, so the requant shifts right by only 3 bits
; and single rounding would give different results on some outputs.
; Golden: conv2dInt8 with Rounding::Double.
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=400 dtype=int8 shape=1x8x10x5 zp=9
.region w kind=weights base=0x2000 size=180 dtype=int8 shape=4x3x3x5
.region p kind=weights base=0x3000 size=48
.region out kind=output base=0x4000 size=120 dtype=int8 shape=1x6x5x4 zp=3
.data 0x1000 82b70eee7f1a5039bef07ec2347f066ed08f5dc7512447e3404300026b6e5455
.data 0x1020 94a065685d64c4980bb8d4544a8721a99a01ad219eb59cf6a15ef6f15a1d830b
.data 0x1040 b7ce09d6bbc004e7175c643c7decb0b580ec37bc9712dd2e6aaeb94bae8d2f9f
.data 0x1060 a29c5a284c9ef7521829cf1079b080e9d74a1c10fcab6a4243d33656debe4c1e
.data 0x1080 d79648e856e8f9a2f58c95f0ce4b39c15bffad5c2dfb8bb820b6119cba8ff887
.data 0x10a0 96ae5b05f280a68ced93b6b28cb0d1b358e6baab485565b9f49028d557d79a8a
.data 0x10c0 0e6451e15c705c15f173541b4438a25cf76312d4eeb3c2246879bf00b3cf8ed1
.data 0x10e0 3abf129a3097ad96b442d6d1bdef4850c3f465442eb300c337a648a6c0dbdd73
.data 0x1100 fc95f5c2c451859afe80d40aa39dfb9249f40c3ee37d961445c806f58c7cf212
.data 0x1120 7dfa894f9296fcf33c08409990ac970dedb3b843120181e9376107dbdaf6c5f3
.data 0x1140 c86497ee219b01dd92f19f4954f4fea94ed9182375882b200daadb23cff9193f
.data 0x1160 3e70384495e04c5d5ed352226d1637c2248f1d3ccc4405dd2ea1fafab4bf1c46
.data 0x1180 964d947086207882914478bee8c75b43
.data 0x2000 fe00fe02fefefe020201ff01010100fe02fe0201feff01fffefe01ffff020100
.data 0x2020 ff000002000101ff0000010002fe0202ffff01fefefefefffffffe010100fe01
.data 0x2040 01000201000101fefffffffe000101ff0200fe00ff00fffe01fe000000fefe01
.data 0x2060 01fffe000001fffffefffe02fffe02010000ff010000fe01fffffffffe020100
.data 0x2080 fe01fe0101fffefe02020200fefeff01fe01fefffe0101fefe00010100fefeff
.data 0x20a0 ff0201ff02fffe00fefe02ff02feff02fe010200
; {bias, M, shift} per output channel: (16, 0x40932ab8, -3) (160, 0x7ba21a13, -4)
;                                      (87, 0x5ebb3b28, -4) (-227, 0x5d98e3df, -3)
.data 0x3000 10000000b82a9340fdffffffa0000000131aa27bfcffffff57000000283bbb5e
.data 0x3020 fcffffff1dffffffdfe3985dfdffffff
LOAD pad_value=9 ddr_addr=0x1000 y_size=8 x_size=10 c_bytes=5 ddr_row_stride=50 ddr_col_stride=5 pad_top=2 pad_left=1 pad_right=1
LOAD buf=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=180
LOAD push_next=1 buf=2 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=48
CONV pop_prev=1 push_next=1 out_h=6 out_w=5 in_w=12 in_c=5 out_c=4 kh=3 kw=3 sh=1 sw=2 dh=2 dw=1 in_zp=9 out_zp=3 clip_lo=-100 clip_hi=90 acc_init=1 finalize=1 double_round=1
STORE pop_prev=1 ddr_addr=0x4000 y_size=1 x_size=1 c_bytes=120
END
