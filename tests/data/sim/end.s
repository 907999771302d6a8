; end.s: a program that is only END. It stops fetching at once, no unit runs, and DDR keeps its
; initial contents, including the data below.
.hw npu-s
.code 0x0
.region in kind=input base=0x1000 size=64
.data 0x1000 d49bbb94598e380d7fc4d681a2cd461f47644d6ba93f239ed129f248d1ac09dd
.data 0x1020 be1ab519f4bf02cf7a3b6d7fb81d88208d6242809db2a357aa308bab0419b209
END
