#include "textflag.h"

// func mulAdd4x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
//
// Y0-Y7 hold the 4×16 block of c; each step of the k loop loads one row
// of b (Y8, Y9), broadcasts one value of each row of a and adds the
// products with FMA.
TEXT ·mulAdd4x16(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), R9
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R10
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

	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVUPS (AX), Y2
	VMOVUPS 32(AX), Y3
	VMOVUPS (BX), Y4
	VMOVUPS 32(BX), Y5
	VMOVUPS (R14), Y6
	VMOVUPS 32(R14), Y7

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
	ADDQ         $4, SI
	ADDQ         $4, R11
	ADDQ         $4, R12
	ADDQ         $4, R13
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
