; conv_depthwise.s: depthwise 3x3 CONV (each of 12 channels reads only itself, weights
; [12][3][3]), stride 1, padding 1 (LOAD pad_value = in_zp = -7), on 1x5x5x12, single
; rounding, no clip. Golden: conv2dInt8 with groups 12.
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=300 dtype=int8 shape=1x5x5x12 zp=-7
.region w kind=weights base=0x2000 size=108 dtype=int8 shape=12x3x3x1
.region p kind=weights base=0x3000 size=144
.region out kind=output base=0x4000 size=300 dtype=int8 shape=1x5x5x12 zp=6
.data 0x1000 29f88512004af0bfa30b8bfa65d33062872dd9ab2fb9d180e3306495311766b8
.data 0x1020 f9630eb97ddc9bb63d2d653b899f64c2f772466b06605608aa9cbfc1c79440fa
.data 0x1040 1b5ed8cb31e17d2de4e4c227daf19bd12b6288e7f958090b3f80b86083e7a882
.data 0x1060 d2d7f889f3f5fb48c1fe9cefa5bb53c088a3cbf9509403e61d5d0f39bdb9fe1f
.data 0x1080 624f8907d8fb26f07633bdb94a7ca24913313517f4ec230f412a5287e7ff0a46
.data 0x10a0 60e1f5e1e48df42095ba92b8112a8d8f8cf2dce3be102b7f7a1058acbd101a6b
.data 0x10c0 ddaf27503acc45edfd264125b30f5f4c5e904dc6727140d653a27b02c560a6c3
.data 0x10e0 e104cb4577be8b5e4c5444c4261f0614f11e3a33bc101e73d073962ff1271e56
.data 0x1100 e03d395b190fd99282e376676d8e0682a92f10b9bb3b730eb8aedf1ab0470f05
.data 0x1120 ac22f801ed872c8b754340d6
.data 0x2000 0cafbf7b2ae37c19ee11052155fb6ec6c1a4cd6489b243f39b4fae149c736e50
.data 0x2020 8104aa9fa718e5fafd5d5f0845320b504cf9b8582567e4a8466cf65f6a5b83d7
.data 0x2040 ebc1d2a3cadf175b2eddba8248cfae96e9201f45bc6e2597b2e2eaa1416a6a57
.data 0x2060 a6066e758d06074778fd6cde
; {bias, M, shift} per channel: (-17, 0x7b8511e5, -8) (4292, 0x56805b1d, -8) (-930, 0x6bc69886, -8)
;                               (-4309, 0x4c0350a1, -8) (-4727, 0x7f1ae681, -9) (4479, 0x68a92ca7, -8)
;                               (-2861, 0x79bd4bfb, -8) (2896, 0x7fca7bcb, -9) (-3983, 0x7b5a67af, -9)
;                               (-3356, 0x484a8556, -8) (141, 0x438d5582, -8) (-1401, 0x44ef48e8, -8)
.data 0x3000 efffffffe511857bf8ffffffc41000001d5b8056f8ffffff5efcffff8698c66b
.data 0x3020 f8ffffff2befffffa150034cf8ffffff89edffff81e61a7ff7ffffff7f110000
.data 0x3040 a72ca968f8ffffffd3f4fffffb4bbd79f8ffffff500b0000cb7bca7ff7ffffff
.data 0x3060 71f0ffffaf675a7bf7ffffffe4f2ffff56854a48f8ffffff8d00000082558d43
.data 0x3080 f8ffffff87faffffe848ef44f8ffffff
LOAD pad_value=-7 ddr_addr=0x1000 y_size=5 x_size=5 c_bytes=12 ddr_row_stride=60 ddr_col_stride=12 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1
LOAD buf=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=108
LOAD push_next=1 buf=2 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=144
CONV pop_prev=1 push_next=1 out_h=5 out_w=5 in_w=7 in_c=12 out_c=12 kh=3 kw=3 sh=1 sw=1 dh=1 dw=1 in_zp=-7 out_zp=6 clip_lo=-128 clip_hi=127 depthwise=1 acc_init=1 finalize=1
STORE pop_prev=1 ddr_addr=0x4000 y_size=1 x_size=1 c_bytes=300
END
