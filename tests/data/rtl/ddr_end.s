; ddr_end.s: LOAD and STORE runs in the last bytes of DDR: their bursts' unused (masked) beats
; lie past the end of DDR, which the port must not mistake for an access; misaligned strided
; runs there too, and a store that ends exactly on the last byte.
.hw npu-s
.region lut kind=weights base=0x2000 size=256
.region src kind=input base=0x3ffffc0 size=64
.region out kind=output base=0x3ffff80 size=64
.data 0x2000 808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f
.data 0x2020 a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf
.data 0x2040 c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf
.data 0x2060 e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
.data 0x2080 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
.data 0x20a0 202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f
.data 0x20c0 404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f
.data 0x20e0 606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f
.data 0x3ffffc0 edbf88465f03aded29ab14c256e7d85056791a384320c434956872d72c886bcb
.data 0x3ffffe0 8fae166602d21cc1fb470c79d939013e6567a9042a44082bfe65d723cb622f4a
LOAD buf=2 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=256
LOAD pad_value=5 ddr_addr=0x3fffffc y_size=1 x_size=1 c_bytes=4 pad_right=3
LOAD push_next=1 sram_addr=0x20 ddr_addr=0x3ffffc5 y_size=2 x_size=3 c_bytes=5 ddr_row_stride=20 ddr_col_stride=6
ELTWISE pop_prev=1 push_next=1 op=2 count=64
STORE pop_prev=1 ddr_addr=0x3fffff3 y_size=1 x_size=1 c_bytes=13
STORE sram_addr=0x20 ddr_addr=0x3ffff81 y_size=3 x_size=2 c_bytes=5 ddr_row_stride=21 ddr_col_stride=9
END
