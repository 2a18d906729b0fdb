#include "textflag.h"

// func mulAdd4x16(k int, a *float32, rowStride, kStride int, b *float32, ldb int, c *float32, ldc int, init *float32)
//
// Y0-Y7 hold the 4×16 block of c, starting from c or, when init is not
// nil, from init[0:16] in every row; each step of the k loop loads one row
// of b (Y8, Y9), broadcasts one value of each row of a and adds the
// products with FMA. Row i's l-th value of a is at a[i·rowStride +
// l·kStride]: a row-major a (kStride 1), or the transpose of a row-major
// matrix (rowStride 1).
TEXT ·mulAdd4x16(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ rowStride+16(FP), R8
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R9
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R10
	SHLQ $2, R8
	SHLQ $2, R9
	SHLQ $2, R10

	// Rows 1-3 of a and c.
	LEAQ (SI)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	LEAQ (DX)(R10*1), AX
	LEAQ (AX)(R10*1), BX
	LEAQ (BX)(R10*1), R14

	MOVQ  init+64(FP), R8
	TESTQ R8, R8
	JE    fromc
	VMOVUPS (R8), Y0
	VMOVUPS 32(R8), Y1
	VMOVUPS Y0, Y2
	VMOVUPS Y1, Y3
	VMOVUPS Y0, Y4
	VMOVUPS Y1, Y5
	VMOVUPS Y0, Y6
	VMOVUPS Y1, Y7
	JMP     start

fromc:
	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVUPS (AX), Y2
	VMOVUPS 32(AX), Y3
	VMOVUPS (BX), Y4
	VMOVUPS 32(BX), Y5
	VMOVUPS (R14), Y6
	VMOVUPS 32(R14), Y7

start:
	MOVQ  kStride+24(FP), R8
	SHLQ  $2, R8
	TESTQ CX, CX
	JE    done

loop:
	VMOVUPS      (DI), Y8
	VMOVUPS      32(DI), Y9
	VBROADCASTSS (SI), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (R11), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS (R12), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS (R13), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         R8, SI
	ADDQ         R8, R11
	ADDQ         R8, R12
	ADDQ         R8, R13
	ADDQ         R9, DI
	DECQ         CX
	JNE          loop

done:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, (AX)
	VMOVUPS Y3, 32(AX)
	VMOVUPS Y4, (BX)
	VMOVUPS Y5, 32(BX)
	VMOVUPS Y6, (R14)
	VMOVUPS Y7, 32(R14)
	VZEROUPPER
	RET

// func mulAdd8x32(k int, a *float32, rowStride, kStride int, b *float32, ldb int, c *float32, ldc int, init *float32)
//
// mulAdd4x16 for eight rows and 32 columns in AVX-512F: Z0-Z15 hold the
// 8×32 block of c (row r in Z2r and Z2r+1). Zen 4 runs a ZMM FMA at half
// the rate of YMM ones, so the gain is in the work around them: a step of
// k here is 16 FMAs, 10 loads and 4 pointer steps where four mulAdd4x16
// calls take 32 FMAs, 24 loads and 20 pointer steps. Each value of c still
// gets its k products in order, one FMA each: the bits are mulAdd4x16's.
//
// Products over a whole batch's positions stream a or c from memory, which
// left them about 30 % slower than products in cache; so the kernel
// prefetches the c it will store when it starts from init (and so does not
// load c), and, when a's rows are contiguous (kStride 1), each row of a 32
// steps (two cache lines) ahead. Prefetching changes no value.
TEXT ·mulAdd8x32(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ rowStride+16(FP), R8
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R9
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R10
	SHLQ $2, R8
	SHLQ $2, R9
	SHLQ $2, R10

	// Rows 3 and 6 of a and c; the others are these or row 0 plus one,
	// two or four strides.
	LEAQ (R8)(R8*2), AX
	LEAQ (SI)(AX*1), R11
	LEAQ (R11)(AX*1), R12
	LEAQ (R10)(R10*2), AX
	LEAQ (DX)(AX*1), R13
	LEAQ (R13)(AX*1), R14

	MOVQ  init+64(FP), AX
	TESTQ AX, AX
	JE    fromc32
	PREFETCHT0 (DX)
	PREFETCHT0 64(DX)
	PREFETCHT0 (DX)(R10*1)
	PREFETCHT0 64(DX)(R10*1)
	PREFETCHT0 (DX)(R10*2)
	PREFETCHT0 64(DX)(R10*2)
	PREFETCHT0 (R13)
	PREFETCHT0 64(R13)
	PREFETCHT0 (DX)(R10*4)
	PREFETCHT0 64(DX)(R10*4)
	PREFETCHT0 (R13)(R10*2)
	PREFETCHT0 64(R13)(R10*2)
	PREFETCHT0 (R14)
	PREFETCHT0 64(R14)
	PREFETCHT0 (R13)(R10*4)
	PREFETCHT0 64(R13)(R10*4)
	VMOVUPS    (AX), Z0
	VMOVUPS    64(AX), Z1
	VMOVAPS    Z0, Z2
	VMOVAPS    Z1, Z3
	VMOVAPS    Z0, Z4
	VMOVAPS    Z1, Z5
	VMOVAPS    Z0, Z6
	VMOVAPS    Z1, Z7
	VMOVAPS    Z0, Z8
	VMOVAPS    Z1, Z9
	VMOVAPS    Z0, Z10
	VMOVAPS    Z1, Z11
	VMOVAPS    Z0, Z12
	VMOVAPS    Z1, Z13
	VMOVAPS    Z0, Z14
	VMOVAPS    Z1, Z15
	JMP        start32

fromc32:
	VMOVUPS (DX), Z0
	VMOVUPS 64(DX), Z1
	VMOVUPS (DX)(R10*1), Z2
	VMOVUPS 64(DX)(R10*1), Z3
	VMOVUPS (DX)(R10*2), Z4
	VMOVUPS 64(DX)(R10*2), Z5
	VMOVUPS (R13), Z6
	VMOVUPS 64(R13), Z7
	VMOVUPS (DX)(R10*4), Z8
	VMOVUPS 64(DX)(R10*4), Z9
	VMOVUPS (R13)(R10*2), Z10
	VMOVUPS 64(R13)(R10*2), Z11
	VMOVUPS (R14), Z12
	VMOVUPS 64(R14), Z13
	VMOVUPS (R13)(R10*4), Z14
	VMOVUPS 64(R13)(R10*4), Z15

start32:
	MOVQ  kStride+24(FP), AX
	SHLQ  $2, AX
	TESTQ CX, CX
	JE    done32
	CMPQ  AX, $4
	JE    contiguous32

loop32:
	VMOVUPS      (DI), Z16
	VMOVUPS      64(DI), Z17
	VBROADCASTSS (SI), Z18
	VFMADD231PS  Z16, Z18, Z0
	VFMADD231PS  Z17, Z18, Z1
	VBROADCASTSS (SI)(R8*1), Z19
	VFMADD231PS  Z16, Z19, Z2
	VFMADD231PS  Z17, Z19, Z3
	VBROADCASTSS (SI)(R8*2), Z20
	VFMADD231PS  Z16, Z20, Z4
	VFMADD231PS  Z17, Z20, Z5
	VBROADCASTSS (R11), Z21
	VFMADD231PS  Z16, Z21, Z6
	VFMADD231PS  Z17, Z21, Z7
	VBROADCASTSS (SI)(R8*4), Z22
	VFMADD231PS  Z16, Z22, Z8
	VFMADD231PS  Z17, Z22, Z9
	VBROADCASTSS (R11)(R8*2), Z23
	VFMADD231PS  Z16, Z23, Z10
	VFMADD231PS  Z17, Z23, Z11
	VBROADCASTSS (R12), Z24
	VFMADD231PS  Z16, Z24, Z12
	VFMADD231PS  Z17, Z24, Z13
	VBROADCASTSS (R11)(R8*4), Z25
	VFMADD231PS  Z16, Z25, Z14
	VFMADD231PS  Z17, Z25, Z15
	ADDQ         AX, SI
	ADDQ         AX, R11
	ADDQ         AX, R12
	ADDQ         R9, DI
	DECQ         CX
	JNE          loop32
	JMP          done32

	// loop32 with each row of a prefetched 32 steps ahead.
contiguous32:
	VMOVUPS      (DI), Z16
	VMOVUPS      64(DI), Z17
	VBROADCASTSS (SI), Z18
	VFMADD231PS  Z16, Z18, Z0
	VFMADD231PS  Z17, Z18, Z1
	VBROADCASTSS (SI)(R8*1), Z19
	VFMADD231PS  Z16, Z19, Z2
	VFMADD231PS  Z17, Z19, Z3
	VBROADCASTSS (SI)(R8*2), Z20
	VFMADD231PS  Z16, Z20, Z4
	VFMADD231PS  Z17, Z20, Z5
	VBROADCASTSS (R11), Z21
	VFMADD231PS  Z16, Z21, Z6
	VFMADD231PS  Z17, Z21, Z7
	VBROADCASTSS (SI)(R8*4), Z22
	VFMADD231PS  Z16, Z22, Z8
	VFMADD231PS  Z17, Z22, Z9
	VBROADCASTSS (R11)(R8*2), Z23
	VFMADD231PS  Z16, Z23, Z10
	VFMADD231PS  Z17, Z23, Z11
	VBROADCASTSS (R12), Z24
	VFMADD231PS  Z16, Z24, Z12
	VFMADD231PS  Z17, Z24, Z13
	VBROADCASTSS (R11)(R8*4), Z25
	VFMADD231PS  Z16, Z25, Z14
	VFMADD231PS  Z17, Z25, Z15
	PREFETCHT0   128(SI)
	PREFETCHT0   128(SI)(R8*1)
	PREFETCHT0   128(SI)(R8*2)
	PREFETCHT0   128(R11)
	PREFETCHT0   128(SI)(R8*4)
	PREFETCHT0   128(R11)(R8*2)
	PREFETCHT0   128(R12)
	PREFETCHT0   128(R11)(R8*4)
	ADDQ         AX, SI
	ADDQ         AX, R11
	ADDQ         AX, R12
	ADDQ         R9, DI
	DECQ         CX
	JNE          contiguous32

done32:
	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	VMOVUPS Z2, (DX)(R10*1)
	VMOVUPS Z3, 64(DX)(R10*1)
	VMOVUPS Z4, (DX)(R10*2)
	VMOVUPS Z5, 64(DX)(R10*2)
	VMOVUPS Z6, (R13)
	VMOVUPS Z7, 64(R13)
	VMOVUPS Z8, (DX)(R10*4)
	VMOVUPS Z9, 64(DX)(R10*4)
	VMOVUPS Z10, (R13)(R10*2)
	VMOVUPS Z11, 64(R13)(R10*2)
	VMOVUPS Z12, (R14)
	VMOVUPS Z13, 64(R14)
	VMOVUPS Z14, (R13)(R10*4)
	VMOVUPS Z15, 64(R13)(R10*4)
	VZEROUPPER
	RET

// func maxArg8(n int, best *float32, bestAt *int32, v *float32, vAt *int32)
//
// Where v[i] > best[i] (false for NaN), best[i], bestAt[i] = v[i], vAt[i];
// n is a multiple of 8.
TEXT ·maxArg8(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ best+8(FP), DI
	MOVQ bestAt+16(FP), R8
	MOVQ v+24(FP), SI
	MOVQ vAt+32(FP), R9
	SHRQ $3, CX
	JE   maxdone

maxloop:
	VMOVUPS   (DI), Y0
	VMOVUPS   (SI), Y1
	VCMPPS    $0x1e, Y0, Y1, Y2 // v > best, ordered
	VBLENDVPS Y2, Y1, Y0, Y0
	VMOVUPS   (R8), Y3
	VMOVUPS   (R9), Y4
	VBLENDVPS Y2, Y4, Y3, Y3
	VMOVUPS   Y0, (DI)
	VMOVUPS   Y3, (R8)
	ADDQ      $32, DI
	ADDQ      $32, SI
	ADDQ      $32, R8
	ADDQ      $32, R9
	DECQ      CX
	JNE       maxloop

maxdone:
	VZEROUPPER
	RET

// func reluArg8(n int, v *float32, at *int32)
//
// v[i] = max(v[i], 0), keeping NaN; at[i] = -1 where v[i] was not > 0;
// n is a multiple of 8.
TEXT ·reluArg8(SB), NOSPLIT, $0-24
	MOVQ     n+0(FP), CX
	MOVQ     v+8(FP), DI
	MOVQ     at+16(FP), R8
	VXORPS   Y5, Y5, Y5
	VPCMPEQD Y6, Y6, Y6
	SHRQ     $3, CX
	JE       reludone

reluloop:
	VMOVUPS   (DI), Y0
	VCMPPS    $0x1e, Y5, Y0, Y2 // v > 0, ordered
	VMAXPS    Y0, Y5, Y1        // 0 > v ? 0 : v, so NaN stays
	VMOVUPS   (R8), Y3
	VBLENDVPS Y2, Y3, Y6, Y3
	VMOVUPS   Y1, (DI)
	VMOVUPS   Y3, (R8)
	ADDQ      $32, DI
	ADDQ      $32, R8
	DECQ      CX
	JNE       reluloop

reludone:
	VZEROUPPER
	RET

// func axpyRunsAsm(runs, n int, alpha float32, x *float32, xStride int, y *float32, yStride int)
//
// For each of runs runs, y[0:n] += alpha·x[0:n], then x and y move on by
// their strides (in elements); n is a multiple of 8.
TEXT ·axpyRunsAsm(SB), NOSPLIT, $0-56
	MOVQ         runs+0(FP), BX
	MOVQ         n+8(FP), DX
	VBROADCASTSS alpha+16(FP), Y0
	MOVQ         x+24(FP), SI
	MOVQ         xStride+32(FP), R8
	MOVQ         y+40(FP), DI
	MOVQ         yStride+48(FP), R9
	SHLQ         $2, R8
	SHLQ         $2, R9
	SHRQ         $3, DX
	TESTQ        BX, BX
	JE           axpydone
	TESTQ        DX, DX
	JE           axpydone

axpyrun:
	MOVQ SI, R10
	MOVQ DI, R11
	MOVQ DX, CX

axpyloop:
	VMOVUPS     (R10), Y1
	VFMADD213PS (R11), Y0, Y1
	VMOVUPS     Y1, (R11)
	ADDQ        $32, R10
	ADDQ        $32, R11
	DECQ        CX
	JNE         axpyloop
	ADDQ        R8, SI
	ADDQ        R9, DI
	DECQ        BX
	JNE         axpyrun

axpydone:
	VZEROUPPER
	RET
