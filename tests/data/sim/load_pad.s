; load_pad.s: LOAD of a strided window framed by asymmetric padding. The window is rows 1..4,
; columns 2..5 and channels 2..6 of the 1x5x6x8 tensor `in` (ddr_row_stride 48,
; ddr_col_stride 8, c_bytes 5), framed by 2 rows above, 1 below, 1 column left and 3 right of
; pad_value 7. A 1x1 max POOL (the identity) moves the 7x8x5 tile to the output SRAM and one
; STORE writes it out. Golden: padInt8 of the cropped window with the value 7.
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=240 dtype=int8 shape=1x5x6x8
.region out kind=output base=0x2000 size=280 dtype=int8 shape=1x7x8x5
.data 0x1000 4420823cfde6f1c26b30f90ec7dd01e4887534a20f0b0d04c36ed80e71e0fd77
.data 0x1020 b07670eb940bd5335f973daad8619b91ffc911f57cced458bbbf2ce03753c9bd
.data 0x1040 fa0ff0169dc9575674066676cfb0b4eb8902c44269da1cf6ba66d3f8b6d4b100
.data 0x1060 a9ea0e755a5c2e8210242a08e7078f7f89385eb09423555182568b96e8a4fef2
.data 0x1080 3a0c9fc5afd7608437816bdd0a7309cb4a1252e4da70e6720fcaa4da1e98406c
.data 0x10a0 189c24279e9851d5814204136feb5713c166b13269dd63fc35c797ff08a6cd90
.data 0x10c0 095066a745addb6d8831c2b0f87821142b4456556d89aa82bcadae3a9578fa45
.data 0x10e0 35a414d025c24b40ae3ac127722988ba
LOAD push_next=1 pad_value=7 ddr_addr=0x1042 y_size=4 x_size=4 c_bytes=5 ddr_row_stride=48 ddr_col_stride=8 pad_top=2 pad_bottom=1 pad_left=1 pad_right=3
POOL pop_prev=1 push_next=1 in_w=8 out_h=7 out_w=8 channels=5 kh=1 kw=1 sh=1 sw=1
STORE pop_prev=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=280
END
