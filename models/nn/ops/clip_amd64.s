#include "textflag.h"

DATA clipOne<>+0(SB)/4, $0x3f800000 // 1.0
GLOBL clipOne<>(SB), RODATA|NOPTR, $4

// func clip01x8(n int, x *float32)
// x[i] = min(max(x[i], 0), 1) for n values, n a multiple of 8: VMAXPS
// with +0 second gives +0 for -0, as Go's max does; a NaN stays a NaN.
TEXT ·clip01x8(SB), NOSPLIT, $0-16
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), DI
	VXORPS       Y1, Y1, Y1
	VBROADCASTSS clipOne<>(SB), Y2
	SHRQ         $3, CX
	JZ           clipdone

cliploop:
	VMOVUPS  (DI), Y0
	VMAXPS   Y1, Y0, Y3         // x > 0 ? x : +0
	VMINPS   Y2, Y3, Y3         // that < 1 ? that : 1
	VCMPPS   $3, Y0, Y0, Y4     // x is NaN
	VBLENDVPS Y4, Y0, Y3, Y3    // NaN: x itself
	VMOVUPS  Y3, (DI)
	ADDQ     $32, DI
	DECQ     CX
	JNZ      cliploop

clipdone:
	VZEROUPPER
	RET

// func clipGrad8(n int, gp, y, dout *float32)
// g[i] = dout[i] where 0 < y[i] < 1, else +0, for n values, n a multiple
// of 8.
TEXT ·clipGrad8(SB), NOSPLIT, $0-32
	MOVQ         n+0(FP), CX
	MOVQ         gp+8(FP), DI
	MOVQ         y+16(FP), SI
	MOVQ         dout+24(FP), DX
	VXORPS       Y1, Y1, Y1
	VBROADCASTSS clipOne<>(SB), Y2
	SHRQ         $3, CX
	JZ           graddone

gradloop:
	VMOVUPS (SI), Y0
	VCMPPS  $0x1e, Y1, Y0, Y3   // y > 0 (ordered)
	VCMPPS  $0x11, Y2, Y0, Y4   // y < 1 (ordered)
	VANDPS  Y4, Y3, Y3
	VANDPS  (DX), Y3, Y3        // dout where both, +0 elsewhere
	VMOVUPS Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     gradloop

graddone:
	VZEROUPPER
	RET

// func mulVec8(n int, dst, x, y *float32)
// dst[i] = x[i] * y[i] for n values, n a multiple of 8.
TEXT ·mulVec8(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ x+16(FP), SI
	MOVQ y+24(FP), DX
	SHRQ $3, CX
	JZ   muldone

mulloop:
	VMOVUPS (SI), Y0
	VMULPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     mulloop

muldone:
	VZEROUPPER
	RET
