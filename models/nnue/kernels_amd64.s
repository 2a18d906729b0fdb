#include "textflag.h"

// SUM_LANES_Y0 adds Y0's eight lanes into X0's first as dot adds its
// eight partial sums: lanes j and j+4, then 0+2 and 1+3, then those two.
#define SUM_LANES_Y0 \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VMOVHLPS     X0, X0, X1; \
	VADDPS       X1, X0, X0; \
	VMOVSHDUP    X0, X1;     \
	VADDSS       X1, X0, X0

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

// func clipToU8(dst *uint8, src *int16, n int, top, mul int32)
//
// dst[i] = uint8(max(0, (min(src[i], top)·mul + 2^14) >> 15)) for n values,
// n a multiple of 16: VPMULHRSW's rounded product, and VPACKUSWB's
// saturation takes the negative ones to 0. Thirty-two values a step, then
// sixteen; the pack interleaves the two registers' 128-bit lanes, which
// VPERMQ puts back in order.
TEXT ·clipToU8(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVL         top+24(FP), AX
	VMOVD        AX, X2
	VPBROADCASTW X2, Y2
	MOVL         mul+28(FP), AX
	VMOVD        AX, X3
	VPBROADCASTW X3, Y3
	MOVQ         CX, BX
	SHRQ         $5, BX
	JZ           u8tail

u8loop:
	VMOVDQU    (SI), Y0
	VMOVDQU    32(SI), Y1
	VPMINSW    Y2, Y0, Y0
	VPMINSW    Y2, Y1, Y1
	VPMULHRSW  Y3, Y0, Y0
	VPMULHRSW  Y3, Y1, Y1
	VPACKUSWB  Y1, Y0, Y0
	VPERMQ     $0xD8, Y0, Y0
	VMOVDQU    Y0, (DI)
	ADDQ       $64, SI
	ADDQ       $32, DI
	DECQ       BX
	JNZ        u8loop

u8tail:
	ANDQ       $16, CX
	JZ         u8done
	VMOVDQU    (SI), Y0
	VPMINSW    Y2, Y0, Y0
	VPMULHRSW  Y3, Y0, Y0
	VPACKUSWB  Y0, Y0, Y0
	VPERMQ     $0x08, Y0, Y0
	VMOVDQU    X0, (DI)

u8done:
	VZEROUPPER
	RET

// func pairToU8(dst *uint8, src *int16, h int, top, shift, mul int32)
//
// pairBytes's loop: x = min(max(src, 0), top) << shift for both halves,
// z = VPMULHRSW(x[j], x[j+h]), dst[j] = VPMULHRSW(z, mul) packed to bytes.
// Thirty-two values a step, then sixteen; the pack interleaves the two
// registers' 128-bit lanes, which VPERMQ puts back in order.
TEXT ·pairToU8(SB), NOSPLIT, $0-36
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         h+16(FP), CX
	MOVL         top+24(FP), AX
	VMOVD        AX, X2
	VPBROADCASTW X2, Y2
	MOVL         shift+28(FP), AX
	VMOVD        AX, X7
	MOVL         mul+32(FP), AX
	VMOVD        AX, X3
	VPBROADCASTW X3, Y3
	VPXOR        Y4, Y4, Y4
	LEAQ         (SI)(CX*2), DX
	MOVQ         CX, BX
	SHRQ         $5, BX
	JZ           ptail

ploop:
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y1
	VMOVDQU   (DX), Y5
	VMOVDQU   32(DX), Y6
	VPMAXSW   Y4, Y0, Y0
	VPMAXSW   Y4, Y1, Y1
	VPMAXSW   Y4, Y5, Y5
	VPMAXSW   Y4, Y6, Y6
	VPMINSW   Y2, Y0, Y0
	VPMINSW   Y2, Y1, Y1
	VPMINSW   Y2, Y5, Y5
	VPMINSW   Y2, Y6, Y6
	VPSLLW    X7, Y0, Y0
	VPSLLW    X7, Y1, Y1
	VPSLLW    X7, Y5, Y5
	VPSLLW    X7, Y6, Y6
	VPMULHRSW Y5, Y0, Y0
	VPMULHRSW Y6, Y1, Y1
	VPMULHRSW Y3, Y0, Y0
	VPMULHRSW Y3, Y1, Y1
	VPACKUSWB Y1, Y0, Y0
	VPERMQ    $0xD8, Y0, Y0
	VMOVDQU   Y0, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DX
	ADDQ      $32, DI
	DECQ      BX
	JNZ       ploop

ptail:
	ANDQ      $16, CX
	JZ        pdone
	VMOVDQU   (SI), Y0
	VMOVDQU   (DX), Y5
	VPMAXSW   Y4, Y0, Y0
	VPMAXSW   Y4, Y5, Y5
	VPMINSW   Y2, Y0, Y0
	VPMINSW   Y2, Y5, Y5
	VPSLLW    X7, Y0, Y0
	VPSLLW    X7, Y5, Y5
	VPMULHRSW Y5, Y0, Y0
	VPMULHRSW Y3, Y0, Y0
	VPACKUSWB Y0, Y0, Y0
	VPERMQ    $0x08, Y0, Y0
	VMOVDQU   X0, (DI)

pdone:
	VZEROUPPER
	RET

// func pairToU8AVX512(dst *uint8, src *int16, h int, top, shift, mul int32)
//
// pairToU8 in 512-bit registers (AVX-512BW), 32 values a step, then 16;
// VPMOVWB narrows the words (0..127) to bytes in order.
TEXT ·pairToU8AVX512(SB), NOSPLIT, $0-36
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         h+16(FP), CX
	MOVL         top+24(FP), AX
	VPBROADCASTW AX, Z2
	MOVL         shift+28(FP), AX
	VMOVD        AX, X7
	MOVL         mul+32(FP), AX
	VPBROADCASTW AX, Z3
	VPXORD       Z4, Z4, Z4
	LEAQ         (SI)(CX*2), DX
	MOVQ         CX, BX
	SHRQ         $5, BX
	JZ           qptail

qploop:
	VMOVDQU16 (SI), Z0
	VMOVDQU16 (DX), Z5
	VPMAXSW   Z4, Z0, Z0
	VPMAXSW   Z4, Z5, Z5
	VPMINSW   Z2, Z0, Z0
	VPMINSW   Z2, Z5, Z5
	VPSLLW    X7, Z0, Z0
	VPSLLW    X7, Z5, Z5
	VPMULHRSW Z5, Z0, Z0
	VPMULHRSW Z3, Z0, Z0
	VPMOVWB   Z0, Y1
	VMOVDQU   Y1, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DX
	ADDQ      $32, DI
	DECQ      BX
	JNZ       qploop

qptail:
	ANDQ      $16, CX
	JZ        qpdone
	VMOVDQU   (SI), Y0
	VMOVDQU   (DX), Y5
	VPMAXSW   Y4, Y0, Y0
	VPMAXSW   Y4, Y5, Y5
	VPMINSW   Y2, Y0, Y0
	VPMINSW   Y2, Y5, Y5
	VPSLLW    X7, Y0, Y0
	VPSLLW    X7, Y5, Y5
	VPMULHRSW Y5, Y0, Y0
	VPMULHRSW Y3, Y0, Y0
	VPMOVWB   Y0, X1
	VMOVDQU   X1, (DI)

qpdone:
	VZEROUPPER
	RET

// func affineU8x32(out *int32, in *uint8, chunks int, w *int8, stride int)
//
// out[0:32] += Σ_{c<chunks} Σ_{k<4} in[4c+k]·w[c·stride + 4o + k]: each
// chunk of four inputs is broadcast and multiplied with the 128 bytes of
// its 32 outputs' weights, VPMADDUBSW summing pairs into int16 (which
// cannot saturate for inputs ≤ 127) and VPMADDWD with ones pairs of
// those into int32. Even and odd chunks go to separate sums.
TEXT ·affineU8x32(SB), NOSPLIT, $0-40
	MOVQ         out+0(FP), DI
	MOVQ         in+8(FP), SI
	MOVQ         chunks+16(FP), CX
	MOVQ         w+24(FP), DX
	MOVQ         stride+32(FP), R8
	MOVL         $0x00010001, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, Y15
	VMOVDQU      (DI), Y0
	VMOVDQU      32(DI), Y1
	VMOVDQU      64(DI), Y2
	VMOVDQU      96(DI), Y3
	VPXOR        Y8, Y8, Y8
	VPXOR        Y9, Y9, Y9
	VPXOR        Y10, Y10, Y10
	VPXOR        Y11, Y11, Y11
	MOVQ         CX, BX
	SHRQ         $1, BX
	JZ           qtail

qloop2:
	VPBROADCASTD (SI), Y4
	VPMADDUBSW   (DX), Y4, Y5
	VPMADDUBSW   32(DX), Y4, Y6
	VPMADDUBSW   64(DX), Y4, Y7
	VPMADDUBSW   96(DX), Y4, Y4
	VPMADDWD     Y15, Y5, Y5
	VPMADDWD     Y15, Y6, Y6
	VPMADDWD     Y15, Y7, Y7
	VPMADDWD     Y15, Y4, Y4
	VPADDD       Y5, Y0, Y0
	VPADDD       Y6, Y1, Y1
	VPADDD       Y7, Y2, Y2
	VPADDD       Y4, Y3, Y3
	ADDQ         R8, DX
	VPBROADCASTD 4(SI), Y12
	VPMADDUBSW   (DX), Y12, Y5
	VPMADDUBSW   32(DX), Y12, Y6
	VPMADDUBSW   64(DX), Y12, Y7
	VPMADDUBSW   96(DX), Y12, Y12
	VPMADDWD     Y15, Y5, Y5
	VPMADDWD     Y15, Y6, Y6
	VPMADDWD     Y15, Y7, Y7
	VPMADDWD     Y15, Y12, Y12
	VPADDD       Y5, Y8, Y8
	VPADDD       Y6, Y9, Y9
	VPADDD       Y7, Y10, Y10
	VPADDD       Y12, Y11, Y11
	ADDQ         R8, DX
	ADDQ         $8, SI
	DECQ         BX
	JNZ          qloop2

qtail:
	ANDQ         $1, CX
	JZ           qdone
	VPBROADCASTD (SI), Y4
	VPMADDUBSW   (DX), Y4, Y5
	VPMADDUBSW   32(DX), Y4, Y6
	VPMADDUBSW   64(DX), Y4, Y7
	VPMADDUBSW   96(DX), Y4, Y4
	VPMADDWD     Y15, Y5, Y5
	VPMADDWD     Y15, Y6, Y6
	VPMADDWD     Y15, Y7, Y7
	VPMADDWD     Y15, Y4, Y4
	VPADDD       Y5, Y0, Y0
	VPADDD       Y6, Y1, Y1
	VPADDD       Y7, Y2, Y2
	VPADDD       Y4, Y3, Y3

qdone:
	VPADDD  Y8, Y0, Y0
	VPADDD  Y9, Y1, Y1
	VPADDD  Y10, Y2, Y2
	VPADDD  Y11, Y3, Y3
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VZEROUPPER
	RET

// func hiddenFromSums(dst *float32, sums *int32, k, b *float32, n int)
//
// dst[i] = min(max(float32(sums[i])·k[i] + b[i], 0), 1) for n values, n a
// multiple of 8, the product and the sum each rounded as Go rounds them.
TEXT ·hiddenFromSums(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         sums+8(FP), SI
	MOVQ         k+16(FP), AX
	MOVQ         b+24(FP), BX
	MOVQ         n+32(FP), CX
	VXORPS       Y14, Y14, Y14
	MOVL         $0x3f800000, DX
	VMOVD        DX, X15
	VBROADCASTSS X15, Y15
	SHRQ         $3, CX
	JZ           hdone

hloop:
	VCVTDQ2PS (SI), Y0
	VMULPS    (AX), Y0, Y0
	VADDPS    (BX), Y0, Y0
	VMAXPS    Y14, Y0, Y0
	VMINPS    Y15, Y0, Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $32, SI
	ADDQ      $32, AX
	ADDQ      $32, BX
	ADDQ      $32, DI
	DECQ      CX
	JNZ       hloop

hdone:
	VZEROUPPER
	RET

// sixteenDwords is 0, 1, ..., 15: the chunk numbers of nonZeroChunks's
// first block.
DATA sixteenDwords<>+0(SB)/4, $0
DATA sixteenDwords<>+4(SB)/4, $1
DATA sixteenDwords<>+8(SB)/4, $2
DATA sixteenDwords<>+12(SB)/4, $3
DATA sixteenDwords<>+16(SB)/4, $4
DATA sixteenDwords<>+20(SB)/4, $5
DATA sixteenDwords<>+24(SB)/4, $6
DATA sixteenDwords<>+28(SB)/4, $7
DATA sixteenDwords<>+32(SB)/4, $8
DATA sixteenDwords<>+36(SB)/4, $9
DATA sixteenDwords<>+40(SB)/4, $10
DATA sixteenDwords<>+44(SB)/4, $11
DATA sixteenDwords<>+48(SB)/4, $12
DATA sixteenDwords<>+52(SB)/4, $13
DATA sixteenDwords<>+56(SB)/4, $14
DATA sixteenDwords<>+60(SB)/4, $15
GLOBL sixteenDwords<>(SB), RODATA|NOPTR, $64

DATA sixteen<>+0(SB)/4, $16
GLOBL sixteen<>(SB), RODATA|NOPTR, $4

// func nonZeroChunks(idx *int32, in *uint8, blocks int) int
//
// Sixteen chunks a step in 512-bit registers, then the odd block of
// eight in the low half.
TEXT ·nonZeroChunks(SB), NOSPLIT, $0-32
	MOVQ         idx+0(FP), DI
	MOVQ         in+8(FP), SI
	MOVQ         blocks+16(FP), CX
	MOVQ         DI, R9
	VMOVDQU32    sixteenDwords<>(SB), Z2
	VPBROADCASTD sixteen<>(SB), Z3
	MOVQ         CX, BX
	SHRQ         $1, BX
	JZ           nzodd

nzloop:
	VMOVDQU32     (SI), Z0
	VPTESTMD      Z0, Z0, K1
	VPCOMPRESSD.Z Z2, K1, Z1 // the register form: with a memory operand it is microcoded on some cores
	VMOVDQU32     Z1, (DI)
	KMOVW         K1, AX
	POPCNTL       AX, AX
	LEAQ          (DI)(AX*4), DI
	VPADDD        Z3, Z2, Z2
	ADDQ          $64, SI
	DECQ          BX
	JNZ           nzloop

nzodd:
	ANDQ          $1, CX
	JZ            nzdone
	VMOVDQU       (SI), Y0
	VPTESTMD      Y0, Y0, K1
	VPCOMPRESSD.Z Y2, K1, Y1
	VMOVDQU       Y1, (DI)
	KMOVW         K1, AX
	POPCNTL       AX, AX
	LEAQ          (DI)(AX*4), DI

nzdone:
	SUBQ       R9, DI
	SHRQ       $2, DI
	MOVQ       DI, ret+24(FP)
	VZEROUPPER
	RET

// func affineU8x32SparseVNNI(out *int32, in *uint8, idx *int32, n int, w *int8, stride int)
TEXT ·affineU8x32SparseVNNI(SB), NOSPLIT, $0-48
	MOVQ    out+0(FP), DI
	MOVQ    in+8(FP), SI
	MOVQ    idx+16(FP), BX
	MOVQ    n+24(FP), CX
	MOVQ    w+32(FP), DX
	MOVQ    stride+40(FP), R8
	VMOVDQU (DI), Y0
	VMOVDQU 32(DI), Y1
	VMOVDQU 64(DI), Y2
	VMOVDQU 96(DI), Y3
	VPXOR   Y8, Y8, Y8
	VPXOR   Y9, Y9, Y9
	VPXOR   Y10, Y10, Y10
	VPXOR   Y11, Y11, Y11
	MOVQ    CX, R9
	SHRQ    $1, R9
	JZ      sptail

sploop2:
	MOVLQSX      (BX), AX
	VPBROADCASTD (SI)(AX*4), Y4
	IMULQ        R8, AX
	VPDPBUSD     (DX)(AX*1), Y4, Y0
	VPDPBUSD     32(DX)(AX*1), Y4, Y1
	VPDPBUSD     64(DX)(AX*1), Y4, Y2
	VPDPBUSD     96(DX)(AX*1), Y4, Y3
	MOVLQSX      4(BX), AX
	VPBROADCASTD (SI)(AX*4), Y5
	IMULQ        R8, AX
	VPDPBUSD     (DX)(AX*1), Y5, Y8
	VPDPBUSD     32(DX)(AX*1), Y5, Y9
	VPDPBUSD     64(DX)(AX*1), Y5, Y10
	VPDPBUSD     96(DX)(AX*1), Y5, Y11
	ADDQ         $8, BX
	DECQ         R9
	JNZ          sploop2

sptail:
	ANDQ         $1, CX
	JZ           spdone
	MOVLQSX      (BX), AX
	VPBROADCASTD (SI)(AX*4), Y4
	IMULQ        R8, AX
	VPDPBUSD     (DX)(AX*1), Y4, Y0
	VPDPBUSD     32(DX)(AX*1), Y4, Y1
	VPDPBUSD     64(DX)(AX*1), Y4, Y2
	VPDPBUSD     96(DX)(AX*1), Y4, Y3

spdone:
	VPADDD     Y8, Y0, Y0
	VPADDD     Y9, Y1, Y1
	VPADDD     Y10, Y2, Y2
	VPADDD     Y11, Y3, Y3
	VMOVDQU    Y0, (DI)
	VMOVDQU    Y1, 32(DI)
	VMOVDQU    Y2, 64(DI)
	VMOVDQU    Y3, 96(DI)
	VZEROUPPER
	RET

// func addSubViews(dst0, src0, a0, s0, dst1, src1, a1, s1 *int16, n int)
//
// Both views of a quiet move in one call, 32 values a step in 512-bit
// registers, the odd 16 in the low half.
TEXT ·addSubViews(SB), NOSPLIT, $0-72
	MOVQ dst0+0(FP), DI
	MOVQ src0+8(FP), SI
	MOVQ a0+16(FP), AX
	MOVQ s0+24(FP), BX
	MOVQ n+64(FP), R8
	CALL asView<>(SB)
	MOVQ dst1+32(FP), DI
	MOVQ src1+40(FP), SI
	MOVQ a1+48(FP), AX
	MOVQ s1+56(FP), BX
	CALL asView<>(SB)
	VZEROUPPER
	RET

// asView is DI = SI + AX - BX over R8 int16 values, R8 a multiple of 16.
TEXT asView<>(SB), NOSPLIT|NOFRAME, $0-0
	MOVQ R8, CX
	SHRQ $5, CX
	JZ   asvodd

asvloop:
	VMOVDQU16 (SI), Z0
	VPADDW    (AX), Z0, Z0
	VPSUBW    (BX), Z0, Z0
	VMOVDQU16 Z0, (DI)
	ADDQ      $64, SI
	ADDQ      $64, AX
	ADDQ      $64, BX
	ADDQ      $64, DI
	DECQ      CX
	JNZ       asvloop

asvodd:
	TESTQ   $16, R8
	JZ      asvdone
	VMOVDQU (SI), Y0
	VPADDW  (AX), Y0, Y0
	VPSUBW  (BX), Y0, Y0
	VMOVDQU Y0, (DI)

asvdone:
	RET

// func addSubSubViews(dst0, src0, a0, s0, t0, dst1, src1, a1, s1, t1 *int16, n int)
//
// Both views of a capture: dst = src + a - s - t.
TEXT ·addSubSubViews(SB), NOSPLIT, $0-88
	MOVQ dst0+0(FP), DI
	MOVQ src0+8(FP), SI
	MOVQ a0+16(FP), AX
	MOVQ s0+24(FP), BX
	MOVQ t0+32(FP), DX
	MOVQ n+80(FP), R8
	CALL assView<>(SB)
	MOVQ dst1+40(FP), DI
	MOVQ src1+48(FP), SI
	MOVQ a1+56(FP), AX
	MOVQ s1+64(FP), BX
	MOVQ t1+72(FP), DX
	CALL assView<>(SB)
	VZEROUPPER
	RET

// assView is DI = SI + AX - BX - DX over R8 int16 values, R8 a multiple of 16.
TEXT assView<>(SB), NOSPLIT|NOFRAME, $0-0
	MOVQ R8, CX
	SHRQ $5, CX
	JZ   assvodd

assvloop:
	VMOVDQU16 (SI), Z0
	VPADDW    (AX), Z0, Z0
	VPSUBW    (BX), Z0, Z0
	VPSUBW    (DX), Z0, Z0
	VMOVDQU16 Z0, (DI)
	ADDQ      $64, SI
	ADDQ      $64, AX
	ADDQ      $64, BX
	ADDQ      $64, DX
	ADDQ      $64, DI
	DECQ      CX
	JNZ       assvloop

assvodd:
	TESTQ   $16, R8
	JZ      assvdone
	VMOVDQU (SI), Y0
	VPADDW  (AX), Y0, Y0
	VPSUBW  (BX), Y0, Y0
	VPSUBW  (DX), Y0, Y0
	VMOVDQU Y0, (DI)

assvdone:
	RET

// func outputFromSums(sums *int32, k, b, w *float32, n int) float32
//
// hiddenFromSums's values times w, summed in eight lanes, then in dot's
// order (SUM_LANES_Y0).
TEXT ·outputFromSums(SB), NOSPLIT, $0-44
	MOVQ         sums+0(FP), SI
	MOVQ         k+8(FP), AX
	MOVQ         b+16(FP), BX
	MOVQ         w+24(FP), DX
	MOVQ         n+32(FP), CX
	VXORPS       Y0, Y0, Y0
	VXORPS       Y14, Y14, Y14
	MOVL         $0x3f800000, R8
	VMOVD        R8, X15
	VBROADCASTSS X15, Y15
	SHRQ         $3, CX
	JZ           odone

oloop:
	VCVTDQ2PS (SI), Y1
	VMULPS    (AX), Y1, Y1
	VADDPS    (BX), Y1, Y1
	VMAXPS    Y14, Y1, Y1
	VMINPS    Y15, Y1, Y1
	VMULPS    (DX), Y1, Y1
	VADDPS    Y1, Y0, Y0
	ADDQ      $32, SI
	ADDQ      $32, AX
	ADDQ      $32, BX
	ADDQ      $32, DX
	DECQ      CX
	JNZ       oloop

odone:
	SUM_LANES_Y0
	VMOVSS       X0, ret+40(FP)
	VZEROUPPER
	RET

// func clipDot(x, w *float32, n int) float32
//
// Σ min(max(x[i], 0), 1)·w[i] over n values, n a multiple of 8, summed in
// eight lanes and then in dot's order (SUM_LANES_Y0).
TEXT ·clipDot(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), SI
	MOVQ         w+8(FP), DX
	MOVQ         n+16(FP), CX
	VXORPS       Y0, Y0, Y0
	VXORPS       Y14, Y14, Y14
	MOVL         $0x3f800000, R8
	VMOVD        R8, X15
	VBROADCASTSS X15, Y15
	SHRQ         $3, CX
	JZ           cdone

cloop:
	VMOVUPS      (SI), Y1
	VMAXPS       Y14, Y1, Y1
	VMINPS       Y15, Y1, Y1
	VMULPS       (DX), Y1, Y1
	VADDPS       Y1, Y0, Y0
	ADDQ         $32, SI
	ADDQ         $32, DX
	DECQ         CX
	JNZ          cloop

cdone:
	SUM_LANES_Y0
	VMOVSS       X0, ret+24(FP)
	VZEROUPPER
	RET

// func affineU8x16(out *int32, in *uint8, chunks int, w *int8, stride int)
//
// affineU8x32 for a block of 16 outputs: each chunk's 64 weight bytes,
// even and odd chunks into separate sums.
TEXT ·affineU8x16(SB), NOSPLIT, $0-40
	MOVQ         out+0(FP), DI
	MOVQ         in+8(FP), SI
	MOVQ         chunks+16(FP), CX
	MOVQ         w+24(FP), DX
	MOVQ         stride+32(FP), R8
	MOVL         $0x00010001, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, Y15
	VMOVDQU      (DI), Y0
	VMOVDQU      32(DI), Y1
	VPXOR        Y8, Y8, Y8
	VPXOR        Y9, Y9, Y9
	MOVQ         CX, BX
	SHRQ         $1, BX
	JZ           htail

hloop2:
	VPBROADCASTD (SI), Y4
	VPMADDUBSW   (DX), Y4, Y5
	VPMADDUBSW   32(DX), Y4, Y6
	VPMADDWD     Y15, Y5, Y5
	VPMADDWD     Y15, Y6, Y6
	VPADDD       Y5, Y0, Y0
	VPADDD       Y6, Y1, Y1
	ADDQ         R8, DX
	VPBROADCASTD 4(SI), Y12
	VPMADDUBSW   (DX), Y12, Y5
	VPMADDUBSW   32(DX), Y12, Y6
	VPMADDWD     Y15, Y5, Y5
	VPMADDWD     Y15, Y6, Y6
	VPADDD       Y5, Y8, Y8
	VPADDD       Y6, Y9, Y9
	ADDQ         R8, DX
	ADDQ         $8, SI
	DECQ         BX
	JNZ          hloop2

htail:
	ANDQ         $1, CX
	JZ           hdone
	VPBROADCASTD (SI), Y4
	VPMADDUBSW   (DX), Y4, Y5
	VPMADDUBSW   32(DX), Y4, Y6
	VPMADDWD     Y15, Y5, Y5
	VPMADDWD     Y15, Y6, Y6
	VPADDD       Y5, Y0, Y0
	VPADDD       Y6, Y1, Y1

hdone:
	VPADDD  Y8, Y0, Y0
	VPADDD  Y9, Y1, Y1
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VZEROUPPER
	RET

// func affineU8x16SparseVNNI(out *int32, in *uint8, idx *int32, n int, w *int8, stride int)
//
// affineU8x32SparseVNNI for a block of 16 outputs, four chunks a step
// (each into its own pair of sums), then one.
TEXT ·affineU8x16SparseVNNI(SB), NOSPLIT, $0-48
	MOVQ    out+0(FP), DI
	MOVQ    in+8(FP), SI
	MOVQ    idx+16(FP), BX
	MOVQ    n+24(FP), CX
	MOVQ    w+32(FP), DX
	MOVQ    stride+40(FP), R8
	VMOVDQU (DI), Y0
	VMOVDQU 32(DI), Y1
	VPXOR   Y8, Y8, Y8
	VPXOR   Y9, Y9, Y9
	VPXOR   Y10, Y10, Y10
	VPXOR   Y11, Y11, Y11
	VPXOR   Y12, Y12, Y12
	VPXOR   Y13, Y13, Y13
	MOVQ    CX, R9
	SHRQ    $2, R9
	JZ      shtail

shloop4:
	MOVLQSX      (BX), AX
	VPBROADCASTD (SI)(AX*4), Y4
	IMULQ        R8, AX
	VPDPBUSD     (DX)(AX*1), Y4, Y0
	VPDPBUSD     32(DX)(AX*1), Y4, Y1
	MOVLQSX      4(BX), AX
	VPBROADCASTD (SI)(AX*4), Y5
	IMULQ        R8, AX
	VPDPBUSD     (DX)(AX*1), Y5, Y8
	VPDPBUSD     32(DX)(AX*1), Y5, Y9
	MOVLQSX      8(BX), AX
	VPBROADCASTD (SI)(AX*4), Y6
	IMULQ        R8, AX
	VPDPBUSD     (DX)(AX*1), Y6, Y10
	VPDPBUSD     32(DX)(AX*1), Y6, Y11
	MOVLQSX      12(BX), AX
	VPBROADCASTD (SI)(AX*4), Y7
	IMULQ        R8, AX
	VPDPBUSD     (DX)(AX*1), Y7, Y12
	VPDPBUSD     32(DX)(AX*1), Y7, Y13
	ADDQ         $16, BX
	DECQ         R9
	JNZ          shloop4

shtail:
	ANDQ $3, CX
	JZ   shdone

shloop1:
	MOVLQSX      (BX), AX
	VPBROADCASTD (SI)(AX*4), Y4
	IMULQ        R8, AX
	VPDPBUSD     (DX)(AX*1), Y4, Y0
	VPDPBUSD     32(DX)(AX*1), Y4, Y1
	ADDQ         $4, BX
	DECQ         CX
	JNZ          shloop1

shdone:
	VPADDD  Y8, Y0, Y0
	VPADDD  Y9, Y1, Y1
	VPADDD  Y10, Y12, Y10
	VPADDD  Y11, Y13, Y11
	VPADDD  Y10, Y0, Y0
	VPADDD  Y11, Y1, Y1
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VZEROUPPER
	RET
