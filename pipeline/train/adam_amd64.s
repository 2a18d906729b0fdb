#include "textflag.h"

// func adamUpdate8(n int, wp, gp, mp, vp *float32, cp *adamConsts)
// The update of adam.step for n values, n a multiple of 8, in AVX: the
// same float32 operations in the same order as the Go loop (no fused
// multiply-add), so the same bits. c holds, as float32: scale, b1, 1-b1,
// b2, 1-b2, keep, stepSize, bc2Sqrt, eps.
TEXT ·adamUpdate8(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ wp+8(FP), DI
	MOVQ gp+16(FP), SI
	MOVQ mp+24(FP), R8
	MOVQ vp+32(FP), R9
	MOVQ cp+40(FP), AX
	VBROADCASTSS 0(AX), Y8   // scale
	VBROADCASTSS 4(AX), Y9   // b1
	VBROADCASTSS 8(AX), Y10  // 1-b1
	VBROADCASTSS 12(AX), Y11 // b2
	VBROADCASTSS 16(AX), Y12 // 1-b2
	VBROADCASTSS 20(AX), Y13 // keep
	VBROADCASTSS 24(AX), Y14 // stepSize
	VBROADCASTSS 28(AX), Y15 // bc2Sqrt
	VBROADCASTSS 32(AX), Y7  // eps
	SHRQ $3, CX
	JZ   done

loop:
	VMOVUPS (SI), Y0       // g
	VMULPS  Y8, Y0, Y0     // gj = g*scale
	VMOVUPS (R8), Y1       // m
	VMULPS  Y9, Y1, Y1     // b1*m
	VMULPS  Y10, Y0, Y2    // (1-b1)*gj
	VADDPS  Y2, Y1, Y1     // m = b1*m + (1-b1)*gj
	VMOVUPS Y1, (R8)
	VMOVUPS (R9), Y3       // v
	VMULPS  Y11, Y3, Y3    // b2*v
	VMULPS  Y12, Y0, Y4    // (1-b2)*gj
	VMULPS  Y0, Y4, Y4     // (1-b2)*gj*gj
	VADDPS  Y4, Y3, Y3     // v = b2*v + (1-b2)*gj*gj
	VMOVUPS Y3, (R9)
	VSQRTPS Y3, Y5         // sqrt(v)
	VDIVPS  Y15, Y5, Y5    // sqrt(v)/bc2Sqrt
	VADDPS  Y7, Y5, Y5     // + eps
	VMULPS  Y14, Y1, Y6    // stepSize*m
	VDIVPS  Y5, Y6, Y6     // stepSize*m/(...)
	VMOVUPS (DI), Y2       // w
	VMULPS  Y13, Y2, Y2    // keep*w
	VSUBPS  Y6, Y2, Y2     // w = keep*w - stepSize*m/(...)
	VMOVUPS Y2, (DI)
	ADDQ    $32, SI
	ADDQ    $32, R8
	ADDQ    $32, R9
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET
