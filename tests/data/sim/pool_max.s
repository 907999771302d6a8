; pool_max.s: max POOL 3x3, stride 2, padding 1 (LOAD pad_value -128) on 1x7x7x10 -> 1x4x4x10.
; Golden: maxPoolInt8 with pads 1.
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=490 dtype=int8 shape=1x7x7x10
.region out kind=output base=0x2000 size=160 dtype=int8 shape=1x4x4x10
.data 0x1000 f289b349c305bff78ceb74004ae1bc53ad6b1e6626accf2c091f722ed8e339d8
.data 0x1020 45a0531a572acdd6f0f4c40f2a6285b6b9c59e3a8178abbabe5b0ec3dc100d71
.data 0x1040 da16c66834705b278c12dd8dffb01aebbc6aad90e9f3f67a55edba5d60700389
.data 0x1060 ae5b7b04147e3bb84f0ca58f3c75f4fab586e353e595178ea8e36d91820e010d
.data 0x1080 4388d7467b66def11e8414d5dc2fcf65b1bcc552084f0f1325d466c232b4609f
.data 0x10a0 8afb3f6cc97d24d0b6a52aaa482e9f9f5cdfbb5a0f6bf9e3f85b1daee97aa731
.data 0x10c0 7203b8bb8f67dd97704baa53edc77febeb1974d0cae11a369fb308a4ffb89d57
.data 0x10e0 45f4734480fd17dbba92d190c7a44b408410c1d3d986add0c2fcc4cc5d566982
.data 0x1100 38891bb79c469f6c0c9d15065764536497615e9f0b34baff66e5320340c9f996
.data 0x1120 efb6c6d40e8e0a4ffbbb34dacfbf2442b21f7637d82b1c047f0f390e74f369eb
.data 0x1140 acd8a17bc82cac1eb948983ef8458e0665753ff7dfaecfa2adc3f8af63b92076
.data 0x1160 aec58840e18e81afd6343dfc58b94f8dc1ab9ebfb5a9eb2458cc68a5bbb34897
.data 0x1180 acaacb15a825338053f82e9f57e07590227760648c3e6c5df59eea43f7c8e1ee
.data 0x11a0 c7b88b647af8adb5cc9c450c2695c794f64dd7a05b84d8d31a4819e73b9d7d51
.data 0x11c0 6b3ec2fb9d2f624a74c283bb60406a377a8511e337fa5e1ddf9a0bfcc4b7cc2b
.data 0x11e0 27e8cc04bed4480cab25
LOAD push_next=1 pad_value=-128 ddr_addr=0x1000 y_size=7 x_size=7 c_bytes=10 ddr_row_stride=70 ddr_col_stride=10 pad_top=1 pad_bottom=1 pad_left=1 pad_right=1
POOL pop_prev=1 push_next=1 in_w=9 out_h=4 out_w=4 channels=10 kh=3 kw=3 sh=2 sw=2
STORE pop_prev=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=160
END
