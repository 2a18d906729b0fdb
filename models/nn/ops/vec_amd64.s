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

// func relu8(n int, v *float32)
// v[i] = max(v[i], 0) for n values, n a multiple of 8, as Go's max does:
// -0 becomes +0, a NaN stays a NaN.
TEXT ·relu8(SB), NOSPLIT, $0-16
	MOVQ   n+0(FP), CX
	MOVQ   v+8(FP), DI
	VXORPS Y1, Y1, Y1
	SHRQ   $3, CX
	JZ     reludone

reluloop:
	VMOVUPS   (DI), Y0
	VMAXPS    Y1, Y0, Y3        // v > 0 ? v : +0
	VCMPPS    $3, Y0, Y0, Y4    // v is NaN
	VBLENDVPS Y4, Y0, Y3, Y3    // NaN: v itself
	VMOVUPS   Y3, (DI)
	ADDQ      $32, DI
	DECQ      CX
	JNZ       reluloop

reludone:
	VZEROUPPER
	RET

// func reluGrad8(n int, h, gp *float32)
// gp[i] &= the mask of activationGrad's ReLU case, int32(-bits(h[i])) >> 31,
// in AVX2 integer operations: the same bits.
TEXT ·reluGrad8(SB), NOSPLIT, $0-24
	MOVQ  n+0(FP), CX
	MOVQ  h+8(FP), SI
	MOVQ  gp+16(FP), DI
	VPXOR Y1, Y1, Y1
	SHRQ  $3, CX
	JZ    relugraddone

relugradloop:
	VMOVDQU (SI), Y0
	VPSUBD  Y0, Y1, Y2          // -bits(h)
	VPSRAD  $31, Y2, Y2         // all ones where that is negative
	VPAND   (DI), Y2, Y2
	VMOVDQU Y2, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     relugradloop

relugraddone:
	VZEROUPPER
	RET

// func clippedGrad8(n int, h, gp *float32)
// gp[i] = 0 where h[i] <= 0 or h[i] >= 1 (ordered compares, so a NaN keeps
// its gradient), as activationGrad's clipped ReLU case.
TEXT ·clippedGrad8(SB), NOSPLIT, $0-24
	MOVQ         n+0(FP), CX
	MOVQ         h+8(FP), SI
	MOVQ         gp+16(FP), DI
	VXORPS       Y1, Y1, Y1
	VBROADCASTSS clipOne<>(SB), Y2
	SHRQ         $3, CX
	JZ           clippedgraddone

clippedgradloop:
	VMOVUPS (SI), Y0
	VCMPPS  $0x06, Y1, Y0, Y3   // !(h <= 0)
	VCMPPS  $0x09, Y2, Y0, Y4   // !(h >= 1)
	VANDPS  Y4, Y3, Y3
	VANDPS  (DI), Y3, Y3
	VMOVUPS Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     clippedgradloop

clippedgraddone:
	VZEROUPPER
	RET

// func transpose8x8(src *float32, lds int, dst *float32, ldd int)
// dst[c*ldd+r] = src[r*lds+c] for r, c < 8: eight rows loaded, unpacked,
// shuffled and their halves exchanged, eight rows stored.
TEXT ·transpose8x8(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ lds+8(FP), AX
	MOVQ dst+16(FP), DI
	MOVQ ldd+24(FP), BX
	SHLQ $2, AX
	SHLQ $2, BX
	VMOVUPS (SI), Y0
	ADDQ    AX, SI
	VMOVUPS (SI), Y1
	ADDQ    AX, SI
	VMOVUPS (SI), Y2
	ADDQ    AX, SI
	VMOVUPS (SI), Y3
	ADDQ    AX, SI
	VMOVUPS (SI), Y4
	ADDQ    AX, SI
	VMOVUPS (SI), Y5
	ADDQ    AX, SI
	VMOVUPS (SI), Y6
	ADDQ    AX, SI
	VMOVUPS (SI), Y7
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xee, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xee, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xee, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xee, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS Y8, (DI)
	ADDQ    BX, DI
	VMOVUPS Y9, (DI)
	ADDQ    BX, DI
	VMOVUPS Y10, (DI)
	ADDQ    BX, DI
	VMOVUPS Y11, (DI)
	ADDQ    BX, DI
	VMOVUPS Y12, (DI)
	ADDQ    BX, DI
	VMOVUPS Y13, (DI)
	ADDQ    BX, DI
	VMOVUPS Y14, (DI)
	ADDQ    BX, DI
	VMOVUPS Y15, (DI)
	VZEROUPPER
	RET

// func featureSum256(dst, bias, w *float32, stride int, idx *int32, count int)
// dst[0:256] = bias[0:256] + the rows w[idx[k]*stride:][0:256] for k <
// count, added in k order with the sum kept in sixteen ZMM registers, so
// each row is read once and dst written once: the same additions, in the
// same order, as adding the rows one after the other into dst.
TEXT ·featureSum256(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ bias+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ stride+24(FP), R8
	SHLQ $2, R8
	MOVQ idx+32(FP), R9
	MOVQ count+40(FP), CX
	VMOVUPS 0(SI), Z0
	VMOVUPS 64(SI), Z1
	VMOVUPS 128(SI), Z2
	VMOVUPS 192(SI), Z3
	VMOVUPS 256(SI), Z4
	VMOVUPS 320(SI), Z5
	VMOVUPS 384(SI), Z6
	VMOVUPS 448(SI), Z7
	VMOVUPS 512(SI), Z8
	VMOVUPS 576(SI), Z9
	VMOVUPS 640(SI), Z10
	VMOVUPS 704(SI), Z11
	VMOVUPS 768(SI), Z12
	VMOVUPS 832(SI), Z13
	VMOVUPS 896(SI), Z14
	VMOVUPS 960(SI), Z15
	TESTQ CX, CX
	JZ    featurestore

featureloop:
	MOVLQSX (R9), AX
	IMULQ   R8, AX
	ADDQ    DX, AX
	VADDPS 0(AX), Z0, Z0
	VADDPS 64(AX), Z1, Z1
	VADDPS 128(AX), Z2, Z2
	VADDPS 192(AX), Z3, Z3
	VADDPS 256(AX), Z4, Z4
	VADDPS 320(AX), Z5, Z5
	VADDPS 384(AX), Z6, Z6
	VADDPS 448(AX), Z7, Z7
	VADDPS 512(AX), Z8, Z8
	VADDPS 576(AX), Z9, Z9
	VADDPS 640(AX), Z10, Z10
	VADDPS 704(AX), Z11, Z11
	VADDPS 768(AX), Z12, Z12
	VADDPS 832(AX), Z13, Z13
	VADDPS 896(AX), Z14, Z14
	VADDPS 960(AX), Z15, Z15
	ADDQ $4, R9
	DECQ CX
	JNZ  featureloop

featurestore:
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	VMOVUPS Z8, 512(DI)
	VMOVUPS Z9, 576(DI)
	VMOVUPS Z10, 640(DI)
	VMOVUPS Z11, 704(DI)
	VMOVUPS Z12, 768(DI)
	VMOVUPS Z13, 832(DI)
	VMOVUPS Z14, 896(DI)
	VMOVUPS Z15, 960(DI)
	VZEROUPPER
	RET
