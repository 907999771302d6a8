; conv_stride_pad.s: dense 3x3 CONV, stride 2, padding 1 on every side (written by the LOAD
; with pad_value = in_zp = -5), 8 -> 6 channels on a 1x7x7x8 input, single rounding, ReLU as
; clip_lo = out_zp = -12. Golden: conv2dInt8 with pads 1 and strides 2.
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=392 dtype=int8 shape=1x7x7x8 zp=-5
.region w kind=weights base=0x2000 size=432 dtype=int8 shape=6x3x3x8
.region p kind=weights base=0x3000 size=72
.region out kind=output base=0x4000 size=96 dtype=int8 shape=1x4x4x6 zp=-12
.data 0x1000 789b34caf54f2e220acd941e71b88d5836866d0d858b63549e94be2cacc67f5b
.data 0x1020 7ef28f2d9903959f63d3d893dce752779c84162917ec8ff1af4a6422d367e18d
.data 0x1040 5eb6dfa465a5331f758e793ea95a94eb0d15b62a92a709a593a44ed2279662e3
.data 0x1060 954580c351a904ba16e856bab99431e06ad96a3a1e1f1c564c14fb7fa4123e95
.data 0x1080 d166f4677be0d2fb1270d7e37fdb6eff60101282817c6a76d58548a61aa13bce
.data 0x10a0 14fdc62fdc6b54ac97f1a1d76e89adc8fe268f6116ca41891e55edf1cec76f01
.data 0x10c0 6c5006833bcac3711b6752a9f1e10d281139fa834715b9280598b1262be8c369
.data 0x10e0 9fc677f9cc30273abbded4e322649af5d83c55be535a4ca7fdad840256029f3d
.data 0x1100 38f9f7267dd296b6755c001ba0ef9ce1e2c84880b9ae44dd2a495a92be65b32f
.data 0x1120 27ce5ba8bea759990b0a2db732515dfd273b58f5719bcf79fa719ebc75a7e7cc
.data 0x1140 cda091e0d206805eeabacec60e4f22eab19f2e84f771f4214c7a2399431853cb
.data 0x1160 86097d50316910a2293e8a1f93584cd44229ba014fd24e6e98f722c0565383c8
.data 0x1180 9bcda857c61fd80e
.data 0x2000 c8612e85ce764ba896a99e5a1c5384bcbc0e83fb6a3809b06354f43c355f6c2f
.data 0x2020 7033e2d759ad560817b19cfa1f686adccf6f265566ea1a3d8a5322b7c2155c4e
.data 0x2040 2a18cf4966fb2156d74f569665bd65d1639b297a338a1bd307fa7d75db6e95ae
.data 0x2060 378c00050c541a37c08ab42e93d7491b69a433cf9e027b6454540357819359ba
.data 0x2080 20c7207585643c7a8983fb33a6b7ddc0643e40d9517ccd5ce4221be889adeaff
.data 0x20a0 7a9142035d03cd1031c94ab63535f0d3adb785fb64f06f79c7d54269e974216e
.data 0x20c0 58e9d3411fb6c2c8039788e8c41cca2d6b25a21d43d197707d49ab1f9834b770
.data 0x20e0 6fc12cb8642500449e26d883f5127eb5ab98bf0558999e4d79d1cc5f12152aa7
.data 0x2100 6940942a597fae6738408742454eaf2eb5c48918d422d53d7c461c59de7d7eaa
.data 0x2120 ac42b88d758e74aa30717b6e8f2d68c4356c2c2c58ff9b59b44da4e5fb1a0cff
.data 0x2140 0bd3ddef3fe8578a436c8aafa8dcb9ccbdde135eb271202ed9e3de0a369d72ba
.data 0x2160 b17fdab07c09b786879fb1cc54313cd3710b00718b74cf4d394ee5aaa47fe11f
.data 0x2180 f7dadc82f333a3f3883f496d3c38ecb79ed5cc190f8e6695fcaa7a2d0790af56
.data 0x21a0 1ebe1ad61a863a2a86e2f0bc4d16a420
; {bias, M, shift} per output channel: (-13881, 0x5cb8ca87, -10) (4550, 0x6e46de29, -10) (-1021, 0x517324b3, -9)
;                                      (2446, 0x4b568690, -9) (-9706, 0x50def75b, -9) (15139, 0x4dbb7614, -9)
.data 0x3000 c7c9ffff87cab85cf6ffffffc611000029de466ef6ffffff03fcffffb3247351
.data 0x3020 f7ffffff8e0900009086564bf7ffffff16daffff5bf7de50f7ffffff233b0000
.data 0x3040 1476bb4df7ffffff
LOAD pad_value=-5 ddr_addr=0x1000 y_size=7 x_size=7 c_bytes=8 ddr_row_stride=56 ddr_col_stride=8 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1
LOAD buf=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=432
LOAD push_next=1 buf=2 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=72
CONV pop_prev=1 push_next=1 out_h=4 out_w=4 in_w=9 in_c=8 out_c=6 kh=3 kw=3 sh=2 sw=2 dh=1 dw=1 in_zp=-5 out_zp=-12 clip_lo=-12 clip_hi=127 acc_init=1 finalize=1
STORE pop_prev=1 ddr_addr=0x4000 y_size=1 x_size=1 c_bytes=96
END
