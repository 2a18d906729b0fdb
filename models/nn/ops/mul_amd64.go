package ops

import "golang.org/x/sys/cpu"

// useAsm is whether mulAdd4x16's AVX2 + FMA assembly can run here.
var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// useAVX512 is whether mulAdd8x32's AVX-512F assembly can run here
// (GODEBUG=cpu.avx512f=off turns it off); it only counts with useAsm.
var useAVX512 = cpu.X86.HasAVX512F

// mulAdd4x16 computes c[i][0:16] = s[i] + Σ_l a[i][l]·b[l][0:16] for the
// four rows i of a and c, where a[i][l] is a[i·rowStride + l·kStride] and
// s[i] is c[i][0:16], or init[0:16] when init is not nil (mul_amd64.s).
// Strides are in elements; the caller checks the bounds.
//
//go:noescape
func mulAdd4x16(k int, a *float32, rowStride, kStride int, b *float32, ldb int, c *float32, ldc int, init *float32)

// mulAdd8x32 is mulAdd4x16 for eight rows and 32 columns, in AVX-512F.
//
//go:noescape
func mulAdd8x32(k int, a *float32, rowStride, kStride int, b *float32, ldb int, c *float32, ldc int, init *float32)

// maxArg8 and reluArg8 are pool.go's maxArg and reluArg in assembly, for
// n a multiple of 8.
//
//go:noescape
func maxArg8(n int, best *float32, bestAt *int32, v *float32, vAt *int32)

//go:noescape
func reluArg8(n int, v *float32, at *int32)

// axpyRunsAsm is axpyRuns in assembly.
//
//go:noescape
func axpyRunsAsm(runs, n int, alpha float32, x *float32, xStride int, y *float32, yStride int)
