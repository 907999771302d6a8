; smoke.s: a 1x1 convolution of a 4x4x16 tile with a fused ReLU (clip to the output zero
; point), exercising LOAD into all three buffers, CONV, STORE and the dependency tokens.
; Canonical form: `npu disasm` prints exactly these lines, comments aside.
.hw npu-s
.code 0x0
.region input kind=input base=0x1000 size=256 dtype=int8 shape=1x4x4x16 scale=0.05 zp=-3
.region weights kind=weights base=0x2000 size=256 dtype=int8 shape=16x1x1x16
.region params kind=weights base=0x3000 size=192
.region output kind=output base=0x4000 size=256 dtype=int8 shape=1x4x4x16 scale=0.1 zp=-20
; input activations, NHWC
.data 0x1000 4420823cfde6f1c26b30f90ec7dd01e4887534a20f0b0d04c36ed80e71e0fd77
.data 0x1020 b07670eb940bd5335f973daad8619b91ffc911f57cced458bbbf2ce03753c9bd
.data 0x1040 fa0ff0169dc9575674066676cfb0b4eb8902c44269da1cf6ba66d3f8b6d4b100
.data 0x1060 a9ea0e755a5c2e8210242a08e7078f7f89385eb09423555182568b96e8a4fef2
.data 0x1080 3a0c9fc5afd7608437816bdd0a7309cb4a1252e4da70e6720fcaa4da1e98406c
.data 0x10a0 189c24279e9851d5814204136feb5713c166b13269dd63fc35c797ff08a6cd90
.data 0x10c0 095066a745addb6d8831c2b0f87821142b4456556d89aa82bcadae3a9578fa45
.data 0x10e0 35a414d025c24b40ae3ac127722988ba973aea8d37179706072ed33a14607ad7
; weights [out_c][kh][kw][in_c]
.data 0x2000 aa9ef4ab2fbea93f599bf06a77e14f790b6952cc0dc137fbd19ab627d28b8783
.data 0x2020 4a7c6dcc3a19d2f4e5d1e791916ad2791a79f59dc1b8491f487b650b5f31f92a
.data 0x2040 dcc3af0bb6cfb3c0dd9552c8977c41f398271425d771bbe478cf8bd4b0d24b59
.data 0x2060 15656ccebfd69a0c1d154f1998bfb9864fbfe793c50e5f933b94862383cb414b
.data 0x2080 dcfff95d5ca89a01484cd49403742badae47a77da5535ed2cf9c3604566c1bcc
.data 0x20a0 a165b5a50c6a398948d15368204e2d690e5872407d31b5aecdef0aa98d375d2b
.data 0x20c0 c0c148912f77f34fef0dc10bf15a0af583e657d7acc3fd874c266feb7a138590
.data 0x20e0 32db15a418a1a4c37c55c7e611e7ad1d97bcfd82ae08d20165276cf16f30243c
; per-channel {bias, multiplier, shift}, int32 little-endian
.data 0x3000 f3feffff9a79825af9ffffff00ffffffdabb915af9ffffff4cffffff1afea05a
.data 0x3020 f9ffffff060000005a40b05af9ffffffcb0000009a82bf5af9fffffff6ffffff
.data 0x3040 dac4ce5af9ffffffdf0100001a07de5af9fffffff2feffff5a49ed5af9ffffff
.data 0x3060 e50000009a8bfc5af9ffffffb2ffffffdacd0b5bf9ffffff65ffffff1a101b5b
.data 0x3080 f9ffffff490000005a522a5bf9ffffff7d0000009a94395bf9ffffffac010000
.data 0x30a0 dad6485bf9fffffff50000001a19585bf9ffffffb70100005a5b675bf9ffffff
; load input, weights and parameters; the last load hands a token to compute
LOAD ddr_addr=0x1000 y_size=4 x_size=4 c_bytes=16 ddr_row_stride=64 ddr_col_stride=16
LOAD buf=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=256
LOAD push_next=1 buf=2 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=192
; conv + bias + requant + ReLU, then hand the tile to store
CONV pop_prev=1 push_next=1 out_h=4 out_w=4 in_w=4 in_c=16 out_c=16 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 in_zp=-3 out_zp=-20 clip_lo=-20 clip_hi=127 acc_init=1 finalize=1
STORE pop_prev=1 ddr_addr=0x4000 y_size=4 x_size=4 c_bytes=16 ddr_row_stride=64 ddr_col_stride=16
END
