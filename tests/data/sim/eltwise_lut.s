; eltwise_lut.s: ELTWISE op=2, y = LUT[a], over 64 elements with an arbitrary 256-byte table at
; parameter SRAM 0x100. Golden: applyLut.
.hw npu-s
.code 0x0
.region a kind=input base=0x1000 size=64 dtype=int8 shape=64
.region lut kind=weights base=0x2000 size=256
.region out kind=output base=0x3000 size=64 dtype=int8 shape=64
.data 0x1000 e7eee7615ef35f30e49b482e15cae75007201e12617b0feda7e1647796ff022b
.data 0x1020 ea8ed02a82a175930f2337cd3794c52208006d6b1af0c0cbd625658aac2c9faa
.data 0x2000 07d13c447e33051eeef95a60e56143d6c43bcad76c008a9b0a6b5fc933154a6d
.data 0x2020 e28404a897c525262e6a7c07bcbee841f745c55d4e9f747f615164c6f728d718
.data 0x2040 353713827ac883d7fb9659234074f5258f6c68082389d2e47f1e175a90bc432f
.data 0x2060 b946e6a9471109f3b79f110a26f6229fa3452526e7bc1642aeb42bf227d50fff
.data 0x2080 07c3c20624292e3b83d5a9c6eae1ec2a0f9e2cf60b7539fef88205bc9a496756
.data 0x20a0 afe2ff7ba7cf8065dc666dc470a26b4544feb314208d5639e6f18c6dd3c3fca1
.data 0x20c0 e7a426108e158fb59e0945cfe8610c887948183be437bc276566f3835b05f112
.data 0x20e0 5b738bb151c9722cd2c642e6e86403c0afeda768323f6d7cc72c9ea48608b22a
LOAD sram_addr=0x10 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=64
LOAD push_next=1 buf=2 sram_addr=0x100 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=256
ELTWISE pop_prev=1 push_next=1 op=2 a_addr=0x10 lut_addr=0x100 count=64
STORE pop_prev=1 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=64
END
