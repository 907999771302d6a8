; A .region name whose bytes are not UTF-8 (found by fuzz_asm): a one-line error, not a crash.
.hw npu-s
.region sÍ-rc kind=input base=0x10000 size=4096
END
