; dma.s: LOAD and STORE shapes: strided column runs, row runs, one block run, padding on
; every side and on some sides only, runs of several bursts; the input SRAM is copied to the
; output SRAM through an identity LUT and stored back with strides (concat and upsample), and
; from SRAM rows sram_row_stride apart: rows shorter and longer than a DDR beat, a row that ends
; mid-beat, rows going back to back in DDR (one run) and strided; and LOADs into SRAM rows
; sram_row_stride apart (rows shorter and longer than a beat, one DDR row read again and again).
.hw npu-s
.region src kind=input base=0x1000 size=1024
.region lut kind=weights base=0x2000 size=256
.region out kind=output base=0x8000 size=8192
.data 0x1000 fae9a07517606a99aeb9064e7c9298d75c931ceefdb3caff2bfbf6afe79c152a
.data 0x1020 c0020e4afb7a6094433e542c2904c2a7501fcd182b85585e55ade9ce9d73dd27
.data 0x1040 66a6d99513389fa95db6a402e9e9e279e2386ef700ffb5d58d4871c9c3ca711e
.data 0x1060 cc9ab5893d138bde33ea3b163883e23898f5a4d2a84f076269aaabcfe39cf398
.data 0x1080 918c846d59fe4a9c06e2c3ec60c1dd219f7fd22cf09587a92a00fa6826a4e554
.data 0x10a0 317bb2cc26e1e9958ae8a78a84cd99f5465d017829075b670c788d59739a19de
.data 0x10c0 65e776c7b18a4fd3d99ecc8638cd081af64c2285bface75b7b9239aa7fbbb05b
.data 0x10e0 440ef0ded4a22580022050442ef8ab88165c7dcf3bbf429d7744f20eb8c1ffe8
.data 0x1100 0a1e8c969e20f5f2cafbedb77a451880e3f11909c8c487a6365ffa7d3f1072d7
.data 0x1120 e65ee5a8903094065750f255222b52b945c4f0f370e1653af0ea7f9b069758af
.data 0x1140 814d9d96f169e5d5d9dc174ebb553059a3e6db5307137a2124b072ec150e2733
.data 0x1160 68d93b439c369af0b246a330aa29485939b3b375df8169ea4b5db219dced523e
.data 0x1180 0b059377d8cc94616e444fc0d7ee9f68f15417c6f1cf7cd2f38e9a2ee77eefa0
.data 0x11a0 a4eba3521729a43add491b6418573a282cf59d6133cf7bceee18c6302a5e4892
.data 0x11c0 89d690ccaeb192dbec9f1d3eca3cc121a1de7154dfbe138613b9da7f15f743b4
.data 0x11e0 5fd353fe16ad8528a31ef18d232f39b5dd9a1ba87421e9a96469baf16b1f1615
.data 0x1200 7c7c15b8657d7422a2c5764d9c85a475f0e570e1ce021dee9827460a5f4ff9db
.data 0x1220 eba3f7ccad10d48d04e581332ab821a2eb76272e59f6d8f0b68960db04295071
.data 0x1240 cd9d5a594018c64ad26f3a6120cb92ff7a2e5bfb2cd87ac939ab955f61cd10bf
.data 0x1260 da1f5b597b943ef95ddcf3b447d8cf272e36894183a3a24427f1db0c0373c1ad
.data 0x1280 0af9b03bedcd6a3e732b35edf8d71411f9936b522a4bb8e419d7d96b1a37b95e
.data 0x12a0 ede8b4e73e400b8aaee380948bc15510fb5841e1fbd1c114f6bd24307abcaec3
.data 0x12c0 c757a34057606fd7b8cc6e3bbb632ccda7b03ff2583c25fac515f0569ec6a611
.data 0x12e0 823c14fa991b3b8d2436a768471771c3e8491056210d6e4b479fc3bd81024be9
.data 0x1300 7af14e0b8a99e07c1c13929d7ff3fec8f21646ca3bbeff16df9507fa88928539
.data 0x1320 8ad9580d6b42ea33f3a3eb1c3951451625325f4091d99f1da8623b28eda8bdf4
.data 0x1340 f09a6bbbcb1f70d11756663c205f50e82a6f0dc2aa579447bc2af6ffbd6d49b8
.data 0x1360 420288402292e9c2b4b077a3faf7459b28c48205cb58a96c51c1a0f17fa6302a
.data 0x1380 0026e9af505cb9fd3b32f98d220fbb6de4955b5f65d99d2b261592bccc0dd571
.data 0x13a0 a8e07ebd2c726b4f53447c2e01553b8075487845ed4b06f4f1cc6db7583cfeee
.data 0x13c0 1ff76a36179822c1a5d82cf2f66d862e649588c29d522efa2aa829e961ecf19d
.data 0x13e0 e7c745c5e6dc2ad649773beeb8e9e8c32dd99108e7811788edecbc91ae379c09
.data 0x2000 808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f
.data 0x2020 a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf
.data 0x2040 c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf
.data 0x2060 e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
.data 0x2080 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
.data 0x20a0 202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f
.data 0x20c0 404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f
.data 0x20e0 606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f
LOAD buf=2 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=256
LOAD pad_value=7 ddr_addr=0x1000 y_size=3 x_size=4 c_bytes=5 ddr_row_stride=40 ddr_col_stride=8 pad_top=2 pad_bottom=1 pad_left=1 pad_right=2
LOAD sram_addr=0x100 ddr_addr=0x1003 y_size=4 x_size=3 c_bytes=10 ddr_row_stride=50 ddr_col_stride=10
LOAD pad_value=-3 sram_addr=0x200 ddr_addr=0x1100 y_size=2 x_size=3 c_bytes=4 ddr_row_stride=12 ddr_col_stride=4 pad_top=2 pad_bottom=3
LOAD pad_value=-128 sram_addr=0x280 ddr_addr=0x1140 y_size=3 x_size=2 c_bytes=3 ddr_row_stride=20 ddr_col_stride=3 pad_left=2
LOAD pad_value=127 sram_addr=0x2c0 ddr_addr=0x1181 y_size=2 x_size=5 c_bytes=2 ddr_row_stride=10 ddr_col_stride=2 pad_right=1
LOAD sram_addr=0x300 ddr_addr=0x11c5 y_size=1 x_size=1 c_bytes=300
LOAD sram_addr=0x440 ddr_addr=0x1300 y_size=5 x_size=1 c_bytes=7 ddr_row_stride=9 ddr_col_stride=100
LOAD pad_value=1 sram_addr=0x480 ddr_addr=0x1380 y_size=1 x_size=6 c_bytes=3 ddr_col_stride=5 pad_top=1
LOAD sram_addr=0x4c0 ddr_addr=0x1200 y_size=6 x_size=1 c_bytes=5 ddr_row_stride=7 sram_row_stride=13
LOAD sram_addr=0x520 ddr_addr=0x1233 y_size=3 x_size=2 c_bytes=11 ddr_row_stride=40 ddr_col_stride=13 sram_row_stride=30
LOAD sram_addr=0x580 ddr_addr=0x1300 y_size=4 x_size=1 c_bytes=24 sram_row_stride=48
LOAD push_next=1 sram_addr=0x601 ddr_addr=0x1345 y_size=3 x_size=4 c_bytes=3 ddr_row_stride=12 ddr_col_stride=3 sram_row_stride=16
ELTWISE pop_prev=1 push_next=1 op=2 count=1584
STORE pop_prev=1 ddr_addr=0x8000 y_size=1 x_size=1 c_bytes=1584
STORE sram_addr=0x10 ddr_addr=0x9000 y_size=3 x_size=4 c_bytes=5 ddr_row_stride=40 ddr_col_stride=7
STORE sram_addr=0x100 ddr_addr=0x9100 y_size=2 x_size=2 c_bytes=4 ddr_row_stride=32 ddr_col_stride=8
STORE sram_addr=0x100 ddr_addr=0x9104 y_size=2 x_size=2 c_bytes=4 ddr_row_stride=32 ddr_col_stride=8
STORE sram_addr=0x100 ddr_addr=0x9110 y_size=2 x_size=2 c_bytes=4 ddr_row_stride=32 ddr_col_stride=8
STORE sram_addr=0x100 ddr_addr=0x9114 y_size=2 x_size=2 c_bytes=4 ddr_row_stride=32 ddr_col_stride=8
STORE sram_addr=0x200 ddr_addr=0x9200 y_size=4 x_size=3 c_bytes=10 ddr_row_stride=64 ddr_col_stride=10
STORE sram_addr=0x300 ddr_addr=0x9400 y_size=5 x_size=1 c_bytes=7 ddr_row_stride=9 ddr_col_stride=1
STORE sram_addr=0x400 ddr_addr=0x9500 y_size=3 x_size=2 c_bytes=65 ddr_row_stride=300 ddr_col_stride=130
STORE sram_addr=0x20 ddr_addr=0x9800 y_size=20 x_size=1 c_bytes=24 ddr_row_stride=24 ddr_col_stride=24 sram_row_stride=48
STORE sram_addr=0x38 ddr_addr=0x9a03 y_size=9 x_size=1 c_bytes=5 ddr_row_stride=5 ddr_col_stride=5 sram_row_stride=13
STORE sram_addr=0x41 ddr_addr=0x9b00 y_size=6 x_size=3 c_bytes=7 ddr_row_stride=40 ddr_col_stride=9 sram_row_stride=37
STORE sram_addr=0x90 ddr_addr=0x9c10 y_size=4 x_size=2 c_bytes=17 ddr_row_stride=34 ddr_col_stride=17 sram_row_stride=100
STORE sram_addr=0x0 ddr_addr=0x9e00 y_size=3 x_size=1 c_bytes=40 ddr_row_stride=40 ddr_col_stride=40 sram_row_stride=16
END
