; tokens.s: 40 small loads each handing compute a token while compute runs a long POOL (the
; load queue fills and stalls fetch; load->compute fills up), SYNCs on all three units,
; compute pushing to load and store in one instruction, and a store -> load dependency
; through a compute SYNC.
.hw npu-s
.region in kind=input base=0x1000 size=64
.region lut kind=weights base=0x2000 size=256
.region out kind=output base=0x3000 size=128
.data 0x1000 80a4362798bebd0e759477a8814bb7502250dee565157bfc384fa331ecf4bd82
.data 0x1020 48a5c22d17f0cb6b13f20c53cbfd6c019679325773c7e5caa12d05d1eefd25a4
.data 0x2000 808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f
.data 0x2020 a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf
.data 0x2040 c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf
.data 0x2060 e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
.data 0x2080 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
.data 0x20a0 202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f
.data 0x20c0 404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f
.data 0x20e0 606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f
LOAD buf=2 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=256
POOL in_addr=0x1000 out_addr=0x100 in_w=12 out_h=8 out_w=8 channels=4 kh=5 kw=5 sh=1 sw=1
LOAD push_next=1 sram_addr=0x0 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x10 ddr_addr=0x1010 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x20 ddr_addr=0x1020 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x30 ddr_addr=0x1030 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x0 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x10 ddr_addr=0x1010 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x20 ddr_addr=0x1020 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x30 ddr_addr=0x1030 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x0 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x10 ddr_addr=0x1010 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x20 ddr_addr=0x1020 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x30 ddr_addr=0x1030 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x0 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x10 ddr_addr=0x1010 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x20 ddr_addr=0x1020 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x30 ddr_addr=0x1030 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x0 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x10 ddr_addr=0x1010 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x20 ddr_addr=0x1020 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x30 ddr_addr=0x1030 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x0 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x10 ddr_addr=0x1010 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x20 ddr_addr=0x1020 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x30 ddr_addr=0x1030 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x0 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x10 ddr_addr=0x1010 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x20 ddr_addr=0x1020 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x30 ddr_addr=0x1030 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x0 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x10 ddr_addr=0x1010 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x20 ddr_addr=0x1020 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x30 ddr_addr=0x1030 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x0 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x10 ddr_addr=0x1010 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x20 ddr_addr=0x1020 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x30 ddr_addr=0x1030 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x0 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x10 ddr_addr=0x1010 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x20 ddr_addr=0x1020 y_size=1 x_size=1 c_bytes=16
LOAD push_next=1 sram_addr=0x30 ddr_addr=0x1030 y_size=1 x_size=1 c_bytes=16
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
SYNC pop_prev=1 unit=1
ELTWISE pop_prev=1 push_next=1 op=2 count=64
SYNC push_next=1 unit=1
STORE pop_prev=1 push_prev=1 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=64
SYNC pop_prev=1 push_prev=1 unit=2
SYNC pop_next=1 push_prev=1 unit=1
SYNC pop_next=1 unit=1
SYNC pop_next=1 unit=0
LOAD push_next=1 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=64
SYNC pop_prev=1 push_prev=1 push_next=1 unit=1
SYNC pop_next=1 unit=0
ELTWISE push_next=1 op=2 out_addr=0x40 count=64
SYNC pop_prev=1 unit=2
STORE pop_prev=1 sram_addr=0x40 ddr_addr=0x3040 y_size=1 x_size=1 c_bytes=64
END
