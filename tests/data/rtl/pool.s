; pool.s: max pooling over a tile padded with -128 and average pooling over one padded with
; the zero point, 20 channels (two channel blocks); results stored with column strides.
.hw npu-s
.region in kind=input base=0x1000 size=600
.region out kind=output base=0x4000 size=1024
.data 0x1000 edba4654f03171ac527a71d966ac418824e3a54879cb0aa1ccb69e3c3cc5e4d2
.data 0x1020 05f9ad660807a3bef734593a1be38d290e657f261eabb0c4a0f951fb8c1ef4ef
.data 0x1040 7e1dcde5f2513c57a896cc3be45d9851b6b41ccc8c247ef1e09161f421209522
.data 0x1060 5cca333f5d5ef8a57962e07fc20fb29c3dfb1430e3bc82a8363562f9d9e63342
.data 0x1080 0eb440c7e5aad938c2f0d540255d78e3668d4c6c00aaba2c54a3d5994570c006
.data 0x10a0 364e7121514bfd93c62de19326c4e2fedfabf7779e16340ab9d90684bd155a21
.data 0x10c0 f91a081a33a3467fb9b5b72a7b607a8f32d60f620b39d0a14b89731da7b6c253
.data 0x10e0 a49b510a8a081697489a6a0d471543b48be385b19a45baeae375a32b840093af
.data 0x1100 3b8b0700efcd6607004119abaa70c069fae897cfd9fb30c6a5d9ffc01f657751
.data 0x1120 c6d4a27c86ac059978d6c885f6aa1ff87558b7565276611fc27533408496114d
.data 0x1140 f728ba32883a421939b192b38c461f51cf040ce0efbcce741cb8efab99d24489
.data 0x1160 db232673a862cf1ce496789da58dd11e0004da1062743528f3445de2fc260f84
.data 0x1180 9319b3298abc9ded777b1f2474e19e183ade86d03a46a0d6b2fac0f9f825c8ae
.data 0x11a0 c2a6d69d92f1e5007e25872619461004376efce496692c93a19bf94fe6b38695
.data 0x11c0 5dce980e3d0970d16e4a47325a84ebe55b7ec39cd1d50e5000e83745b5e73ddd
.data 0x11e0 8d301224915ed3a61fd6ab150347f242e64286f0c689a2a394af086c53c89a5f
.data 0x1200 2e9f981554f08545e3db4c64d3a19b158f66d752ee286a2d063b40886b11d64f
.data 0x1220 ffb09ad0690dccded6990ad075beea8628e13e15ee5fa26faa4043bb81522a09
.data 0x1240 a4ef2611b3164dfc5f40c352b440b2bb15ac2268f7fba952
LOAD pad_value=-128 ddr_addr=0x1000 y_size=5 x_size=6 c_bytes=20 ddr_row_stride=120 ddr_col_stride=20 pad_top=1 pad_left=1 pad_right=1
LOAD push_next=1 sram_addr=0x400 ddr_addr=0x1000 y_size=5 x_size=6 c_bytes=20 ddr_row_stride=120 ddr_col_stride=20 pad_bottom=1 pad_left=2
POOL pop_prev=1 in_addr=0x0 out_addr=0x0 in_w=8 out_h=2 out_w=3 channels=20 kh=3 kw=3 sh=2 sw=2
POOL push_next=1 op=1 in_addr=0x400 out_addr=0x100 in_w=8 out_h=5 out_w=3 channels=20 kh=2 kw=3 sh=1 sw=2 avg_mult=1431655765 avg_shift=-2
STORE pop_prev=1 ddr_addr=0x4000 y_size=2 x_size=3 c_bytes=20 ddr_row_stride=200 ddr_col_stride=24
STORE sram_addr=0x100 ddr_addr=0x4200 y_size=5 x_size=3 c_bytes=20 ddr_row_stride=60 ddr_col_stride=20
END
