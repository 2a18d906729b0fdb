#include "textflag.h"

// Eight copies of each constant of expf (exp.go), one vector each.
DATA expConsts<>+0(SB)/4, $0xc2aeac4f
DATA expConsts<>+4(SB)/4, $0xc2aeac4f
DATA expConsts<>+8(SB)/4, $0xc2aeac4f
DATA expConsts<>+12(SB)/4, $0xc2aeac4f
DATA expConsts<>+16(SB)/4, $0xc2aeac4f
DATA expConsts<>+20(SB)/4, $0xc2aeac4f
DATA expConsts<>+24(SB)/4, $0xc2aeac4f
DATA expConsts<>+28(SB)/4, $0xc2aeac4f
DATA expConsts<>+32(SB)/4, $0x3fb8aa3b
DATA expConsts<>+36(SB)/4, $0x3fb8aa3b
DATA expConsts<>+40(SB)/4, $0x3fb8aa3b
DATA expConsts<>+44(SB)/4, $0x3fb8aa3b
DATA expConsts<>+48(SB)/4, $0x3fb8aa3b
DATA expConsts<>+52(SB)/4, $0x3fb8aa3b
DATA expConsts<>+56(SB)/4, $0x3fb8aa3b
DATA expConsts<>+60(SB)/4, $0x3fb8aa3b
DATA expConsts<>+64(SB)/4, $0x3f000000
DATA expConsts<>+68(SB)/4, $0x3f000000
DATA expConsts<>+72(SB)/4, $0x3f000000
DATA expConsts<>+76(SB)/4, $0x3f000000
DATA expConsts<>+80(SB)/4, $0x3f000000
DATA expConsts<>+84(SB)/4, $0x3f000000
DATA expConsts<>+88(SB)/4, $0x3f000000
DATA expConsts<>+92(SB)/4, $0x3f000000
DATA expConsts<>+96(SB)/4, $0x3f318000
DATA expConsts<>+100(SB)/4, $0x3f318000
DATA expConsts<>+104(SB)/4, $0x3f318000
DATA expConsts<>+108(SB)/4, $0x3f318000
DATA expConsts<>+112(SB)/4, $0x3f318000
DATA expConsts<>+116(SB)/4, $0x3f318000
DATA expConsts<>+120(SB)/4, $0x3f318000
DATA expConsts<>+124(SB)/4, $0x3f318000
DATA expConsts<>+128(SB)/4, $0x395e8083
DATA expConsts<>+132(SB)/4, $0x395e8083
DATA expConsts<>+136(SB)/4, $0x395e8083
DATA expConsts<>+140(SB)/4, $0x395e8083
DATA expConsts<>+144(SB)/4, $0x395e8083
DATA expConsts<>+148(SB)/4, $0x395e8083
DATA expConsts<>+152(SB)/4, $0x395e8083
DATA expConsts<>+156(SB)/4, $0x395e8083
DATA expConsts<>+160(SB)/4, $0x39506967
DATA expConsts<>+164(SB)/4, $0x39506967
DATA expConsts<>+168(SB)/4, $0x39506967
DATA expConsts<>+172(SB)/4, $0x39506967
DATA expConsts<>+176(SB)/4, $0x39506967
DATA expConsts<>+180(SB)/4, $0x39506967
DATA expConsts<>+184(SB)/4, $0x39506967
DATA expConsts<>+188(SB)/4, $0x39506967
DATA expConsts<>+192(SB)/4, $0x3ab743ce
DATA expConsts<>+196(SB)/4, $0x3ab743ce
DATA expConsts<>+200(SB)/4, $0x3ab743ce
DATA expConsts<>+204(SB)/4, $0x3ab743ce
DATA expConsts<>+208(SB)/4, $0x3ab743ce
DATA expConsts<>+212(SB)/4, $0x3ab743ce
DATA expConsts<>+216(SB)/4, $0x3ab743ce
DATA expConsts<>+220(SB)/4, $0x3ab743ce
DATA expConsts<>+224(SB)/4, $0x3c088908
DATA expConsts<>+228(SB)/4, $0x3c088908
DATA expConsts<>+232(SB)/4, $0x3c088908
DATA expConsts<>+236(SB)/4, $0x3c088908
DATA expConsts<>+240(SB)/4, $0x3c088908
DATA expConsts<>+244(SB)/4, $0x3c088908
DATA expConsts<>+248(SB)/4, $0x3c088908
DATA expConsts<>+252(SB)/4, $0x3c088908
DATA expConsts<>+256(SB)/4, $0x3d2aa9c1
DATA expConsts<>+260(SB)/4, $0x3d2aa9c1
DATA expConsts<>+264(SB)/4, $0x3d2aa9c1
DATA expConsts<>+268(SB)/4, $0x3d2aa9c1
DATA expConsts<>+272(SB)/4, $0x3d2aa9c1
DATA expConsts<>+276(SB)/4, $0x3d2aa9c1
DATA expConsts<>+280(SB)/4, $0x3d2aa9c1
DATA expConsts<>+284(SB)/4, $0x3d2aa9c1
DATA expConsts<>+288(SB)/4, $0x3e2aaaaa
DATA expConsts<>+292(SB)/4, $0x3e2aaaaa
DATA expConsts<>+296(SB)/4, $0x3e2aaaaa
DATA expConsts<>+300(SB)/4, $0x3e2aaaaa
DATA expConsts<>+304(SB)/4, $0x3e2aaaaa
DATA expConsts<>+308(SB)/4, $0x3e2aaaaa
DATA expConsts<>+312(SB)/4, $0x3e2aaaaa
DATA expConsts<>+316(SB)/4, $0x3e2aaaaa
DATA expConsts<>+320(SB)/4, $0x3f000000
DATA expConsts<>+324(SB)/4, $0x3f000000
DATA expConsts<>+328(SB)/4, $0x3f000000
DATA expConsts<>+332(SB)/4, $0x3f000000
DATA expConsts<>+336(SB)/4, $0x3f000000
DATA expConsts<>+340(SB)/4, $0x3f000000
DATA expConsts<>+344(SB)/4, $0x3f000000
DATA expConsts<>+348(SB)/4, $0x3f000000
DATA expConsts<>+352(SB)/4, $0x3f800000
DATA expConsts<>+356(SB)/4, $0x3f800000
DATA expConsts<>+360(SB)/4, $0x3f800000
DATA expConsts<>+364(SB)/4, $0x3f800000
DATA expConsts<>+368(SB)/4, $0x3f800000
DATA expConsts<>+372(SB)/4, $0x3f800000
DATA expConsts<>+376(SB)/4, $0x3f800000
DATA expConsts<>+380(SB)/4, $0x3f800000
DATA expConsts<>+384(SB)/4, $0x0000007f
DATA expConsts<>+388(SB)/4, $0x0000007f
DATA expConsts<>+392(SB)/4, $0x0000007f
DATA expConsts<>+396(SB)/4, $0x0000007f
DATA expConsts<>+400(SB)/4, $0x0000007f
DATA expConsts<>+404(SB)/4, $0x0000007f
DATA expConsts<>+408(SB)/4, $0x0000007f
DATA expConsts<>+412(SB)/4, $0x0000007f
GLOBL expConsts<>(SB), RODATA|NOPTR, $416

// func expShift8(n int, v *float32, scale, m float32) float32
//
// expf(scale·(v[i]-m)) for eight values at a time, written back into v,
// and their sum: exp.go's expf with FMA, the polynomial's constants
// loaded from expConsts, values below expf's lower bound masked to 0.
TEXT ·expShift8(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         v+8(FP), DI
	VBROADCASTSS scale+16(FP), Y14
	VBROADCASTSS m+20(FP), Y15
	VXORPS       Y13, Y13, Y13

loop:
	VMOVUPS      (DI), Y0
	VSUBPS       Y15, Y0, Y0
	VMULPS       Y14, Y0, Y0
	VCMPPS       $1, expConsts<>+0(SB), Y0, Y1
	VMOVUPS      expConsts<>+32(SB), Y2
	VFMADD213PS  expConsts<>+64(SB), Y0, Y2
	VROUNDPS     $1, Y2, Y2
	VMOVUPS      Y0, Y3
	VFNMADD231PS expConsts<>+96(SB), Y2, Y3
	VFMADD231PS  expConsts<>+128(SB), Y2, Y3
	VMOVUPS      expConsts<>+160(SB), Y4
	VFMADD213PS  expConsts<>+192(SB), Y3, Y4
	VFMADD213PS  expConsts<>+224(SB), Y3, Y4
	VFMADD213PS  expConsts<>+256(SB), Y3, Y4
	VFMADD213PS  expConsts<>+288(SB), Y3, Y4
	VFMADD213PS  expConsts<>+320(SB), Y3, Y4
	VMULPS       Y3, Y3, Y5
	VFMADD213PS  Y3, Y5, Y4
	VADDPS       expConsts<>+352(SB), Y4, Y4
	VCVTPS2DQ    Y2, Y6
	VPADDD       expConsts<>+384(SB), Y6, Y6
	VPSLLD       $23, Y6, Y6
	VMULPS       Y6, Y4, Y4
	VANDNPS      Y4, Y1, Y4
	VMOVUPS      Y4, (DI)
	VADDPS       Y4, Y13, Y13
	ADDQ         $32, DI
	SUBQ         $8, CX
	JNE          loop

	VEXTRACTF128 $1, Y13, X0
	VADDPS       X0, X13, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	MOVSS        X0, ret+24(FP)
	VZEROUPPER
	RET

// func maxOf8(n int, v *float32) float32
//
// The largest of v[0:n], n a multiple of 8 (NaNs ignored, as max in Go
// would not: the caller's tail loop and the exponentials still pass a NaN
// on).
TEXT ·maxOf8(SB), NOSPLIT, $0-20
	MOVQ    n+0(FP), CX
	MOVQ    v+8(FP), DI
	VMOVUPS (DI), Y0

maxloop:
	VMAXPS (DI), Y0, Y0
	ADDQ   $32, DI
	SUBQ   $8, CX
	JNE    maxloop

	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0x4e, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VMAXPS       X1, X0, X0
	MOVSS        X0, ret+16(FP)
	VZEROUPPER
	RET

// func scale8(n int, v *float32, s float32)
//
// v[i] *= s for i < n, n a multiple of 8.
TEXT ·scale8(SB), NOSPLIT, $0-20
	MOVQ         n+0(FP), CX
	MOVQ         v+8(FP), DI
	VBROADCASTSS s+16(FP), Y1

scaleloop:
	VMULPS  (DI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNE     scaleloop
	VZEROUPPER
	RET

// func softmaxGrad8(n int, p, d *float32, s float32)
//
// d[i] = s·p[i]·(d[i] - Σ_j p[j]·d[j]) for i < n, n a multiple of 8: the
// gradient through a softmax row p of the gradient d at its output.
TEXT ·softmaxGrad8(SB), NOSPLIT, $0-28
	MOVQ   n+0(FP), CX
	MOVQ   p+8(FP), SI
	MOVQ   d+16(FP), DI
	MOVQ   CX, DX
	MOVQ   SI, R8
	MOVQ   DI, R9
	VXORPS Y0, Y0, Y0

dotloop:
	VMOVUPS     (SI), Y1
	VFMADD231PS (DI), Y1, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JNE         dotloop

	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VBROADCASTSS X0, Y2
	VBROADCASTSS s+24(FP), Y3

updateloop:
	VMOVUPS (R9), Y1
	VSUBPS  Y2, Y1, Y1
	VMULPS  (R8), Y1, Y1
	VMULPS  Y3, Y1, Y1
	VMOVUPS Y1, (R9)
	ADDQ    $32, R8
	ADDQ    $32, R9
	SUBQ    $8, DX
	JNE     updateloop
	VZEROUPPER
	RET
