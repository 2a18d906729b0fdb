#include "textflag.h"

// func addSub16(dst, src, a, s *int16, n int)
TEXT ·addSub16(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ a+16(FP), AX
	MOVQ s+24(FP), BX
	MOVQ n+32(FP), CX
	SHRQ $4, CX
	JZ   asdone

asloop:
	VMOVDQU (SI), Y0
	VPADDW  (AX), Y0, Y0
	VPSUBW  (BX), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, AX
	ADDQ    $32, BX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     asloop

asdone:
	VZEROUPPER
	RET

// func addSubSub16(dst, src, a, s1, s2 *int16, n int)
TEXT ·addSubSub16(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ a+16(FP), AX
	MOVQ s1+24(FP), BX
	MOVQ s2+32(FP), DX
	MOVQ n+40(FP), CX
	SHRQ $4, CX
	JZ   assdone

assloop:
	VMOVDQU (SI), Y0
	VPADDW  (AX), Y0, Y0
	VPSUBW  (BX), Y0, Y0
	VPSUBW  (DX), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, AX
	ADDQ    $32, BX
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     assloop

assdone:
	VZEROUPPER
	RET

// func clampToFloat(dst *float32, src *int16, n int, qa int32)
TEXT ·clampToFloat(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVL         qa+24(FP), AX
	VMOVD        AX, X2
	VPBROADCASTD X2, Y2
	VPXOR        Y1, Y1, Y1
	SHRQ         $3, CX
	JZ           cdone

cloop:
	VPMOVSXWD (SI), Y0
	VPMAXSD   Y1, Y0, Y0
	VPMINSD   Y2, Y0, Y0
	VCVTDQ2PS Y0, Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       cloop

cdone:
	VZEROUPPER
	RET

// func affineBlock8(out, x *float32, n int, w *float32, ldw int)
//
// Y0-Y3 are four partial sums, each taking every fourth input, so that
// consecutive FMAs do not wait on each other; they are added at the end.
TEXT ·affineBlock8(SB), NOSPLIT, $0-40
	MOVQ    out+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	MOVQ    w+24(FP), DX
	MOVQ    ldw+32(FP), R8
	SHLQ    $2, R8
	LEAQ    (R8)(R8*2), R9
	VMOVUPS (DI), Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3
	MOVQ    CX, BX
	SHRQ    $2, BX
	JZ      atail

aloop4:
	VBROADCASTSS (SI), Y4
	VFMADD231PS  (DX), Y4, Y0
	VBROADCASTSS 4(SI), Y5
	VFMADD231PS  (DX)(R8*1), Y5, Y1
	VBROADCASTSS 8(SI), Y6
	VFMADD231PS  (DX)(R8*2), Y6, Y2
	VBROADCASTSS 12(SI), Y7
	VFMADD231PS  (DX)(R9*1), Y7, Y3
	ADDQ         $16, SI
	LEAQ         (DX)(R8*4), DX
	DECQ         BX
	JNZ          aloop4

atail:
	ANDQ $3, CX
	JZ   adone

aloop1:
	VBROADCASTSS (SI), Y4
	VFMADD231PS  (DX), Y4, Y0
	ADDQ         $4, SI
	ADDQ         R8, DX
	DECQ         CX
	JNZ          aloop1

adone:
	VADDPS  Y1, Y0, Y0
	VADDPS  Y3, Y2, Y2
	VADDPS  Y2, Y0, Y0
	VMOVUPS Y0, (DI)
	VZEROUPPER
	RET

// func affine32(out, x *float32, n int, w *float32)
//
// out[0:32] += Σ_{i<n} x[i]·w[32i : 32i+32]: each input's broadcast feeds
// four FMAs, one per eight outputs; even inputs add into Y0-Y3, odd ones
// into Y8-Y11, so consecutive FMAs into one register are two inputs apart.
TEXT ·affine32(SB), NOSPLIT, $0-32
	MOVQ    out+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	MOVQ    w+24(FP), DX
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VXORPS  Y8, Y8, Y8
	VXORPS  Y9, Y9, Y9
	VXORPS  Y10, Y10, Y10
	VXORPS  Y11, Y11, Y11
	MOVQ    CX, BX
	SHRQ    $1, BX
	JZ      btail

bloop2:
	VBROADCASTSS (SI), Y4
	VFMADD231PS  (DX), Y4, Y0
	VFMADD231PS  32(DX), Y4, Y1
	VFMADD231PS  64(DX), Y4, Y2
	VFMADD231PS  96(DX), Y4, Y3
	VBROADCASTSS 4(SI), Y5
	VFMADD231PS  128(DX), Y5, Y8
	VFMADD231PS  160(DX), Y5, Y9
	VFMADD231PS  192(DX), Y5, Y10
	VFMADD231PS  224(DX), Y5, Y11
	ADDQ         $8, SI
	ADDQ         $256, DX
	DECQ         BX
	JNZ          bloop2

btail:
	ANDQ         $1, CX
	JZ           bdone
	VBROADCASTSS (SI), Y4
	VFMADD231PS  (DX), Y4, Y0
	VFMADD231PS  32(DX), Y4, Y1
	VFMADD231PS  64(DX), Y4, Y2
	VFMADD231PS  96(DX), Y4, Y3

bdone:
	VADDPS  Y8, Y0, Y0
	VADDPS  Y9, Y1, Y1
	VADDPS  Y10, Y2, Y2
	VADDPS  Y11, Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VZEROUPPER
	RET

// func nonZero(idx *int32, x *float32, n int, table *[256][8]int32) int
//
// Writes the indices of x's non-zero values into idx, in order, and
// returns how many: for each eight values, the compare's mask picks the
// table row holding the set bits' positions, which is stored whole (idx
// needs eight values of slack) and the count moves on by the mask's
// population count, so no branch depends on the data.
TEXT ·nonZero(SB), NOSPLIT, $0-40
	MOVQ         idx+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         table+24(FP), DX
	SHRQ         $3, CX
	XORQ         R8, R8
	VXORPS       Y15, Y15, Y15
	MOVL         $8, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	VPXOR        Y13, Y13, Y13
	TESTQ        CX, CX
	JZ           nzdone

nzloop:
	VMOVUPS   (SI), Y0
	VCMPPS    $4, Y15, Y0, Y1
	VMOVMSKPS Y1, AX
	MOVQ      AX, BX
	SHLQ      $5, BX
	VMOVDQU   (DX)(BX*1), Y2
	VPADDD    Y13, Y2, Y2
	VMOVDQU   Y2, (DI)(R8*4)
	POPCNTL   AX, AX
	ADDQ      AX, R8
	VPADDD    Y14, Y13, Y13
	ADDQ      $32, SI
	DECQ      CX
	JNZ       nzloop

nzdone:
	MOVQ R8, ret+32(FP)
	VZEROUPPER
	RET

// func affine32Sparse(out, x *float32, idx *int32, count int, w *float32)
//
// affine32 over the inputs listed in idx only; inputs alternate between
// two sets of partial sums as in affine32.
TEXT ·affine32Sparse(SB), NOSPLIT, $0-40
	MOVQ    out+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    idx+16(FP), R10
	MOVQ    count+24(FP), CX
	MOVQ    w+32(FP), DX
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VXORPS  Y8, Y8, Y8
	VXORPS  Y9, Y9, Y9
	VXORPS  Y10, Y10, Y10
	VXORPS  Y11, Y11, Y11
	MOVQ    CX, BX
	SHRQ    $1, BX
	JZ      stail

sloop2:
	MOVLQSX      (R10), AX
	MOVLQSX      4(R10), R11
	VBROADCASTSS (SI)(AX*4), Y4
	SHLQ         $7, AX
	VFMADD231PS  (DX)(AX*1), Y4, Y0
	VFMADD231PS  32(DX)(AX*1), Y4, Y1
	VFMADD231PS  64(DX)(AX*1), Y4, Y2
	VFMADD231PS  96(DX)(AX*1), Y4, Y3
	VBROADCASTSS (SI)(R11*4), Y5
	SHLQ         $7, R11
	VFMADD231PS  (DX)(R11*1), Y5, Y8
	VFMADD231PS  32(DX)(R11*1), Y5, Y9
	VFMADD231PS  64(DX)(R11*1), Y5, Y10
	VFMADD231PS  96(DX)(R11*1), Y5, Y11
	ADDQ         $8, R10
	DECQ         BX
	JNZ          sloop2

stail:
	ANDQ         $1, CX
	JZ           sdone
	MOVLQSX      (R10), AX
	VBROADCASTSS (SI)(AX*4), Y4
	SHLQ         $7, AX
	VFMADD231PS  (DX)(AX*1), Y4, Y0
	VFMADD231PS  32(DX)(AX*1), Y4, Y1
	VFMADD231PS  64(DX)(AX*1), Y4, Y2
	VFMADD231PS  96(DX)(AX*1), Y4, Y3

sdone:
	VADDPS  Y8, Y0, Y0
	VADDPS  Y9, Y1, Y1
	VADDPS  Y10, Y2, Y2
	VADDPS  Y11, Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VZEROUPPER
	RET

// func add16(dst, a *int16, n int)
TEXT ·add16(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ n+16(FP), CX
	SHRQ $4, CX
	JZ   addone

addloop:
	VMOVDQU (DI), Y0
	VPADDW  (AX), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, AX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     addloop

addone:
	VZEROUPPER
	RET

// func sub16(dst, s *int16, n int)
TEXT ·sub16(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ s+8(FP), AX
	MOVQ n+16(FP), CX
	SHRQ $4, CX
	JZ   subdone

subloop:
	VMOVDQU (DI), Y0
	VPSUBW  (AX), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, AX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     subloop

subdone:
	VZEROUPPER
	RET
