#include "textflag.h"

// func prefetchBucket(addr *ttBucket)
TEXT ·prefetchBucket(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ       addr+0(FP), AX
	PREFETCHT0 (AX)
	RET
