package nnue

import "golang.org/x/sys/cpu"

// useAVX2 is whether the AVX2 + FMA kernels of kernels_amd64.s can run
// here; the tests turn it off to compare them with the plain-Go loops.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasPOPCNT

// addSub16 is dst = src + a - s over n int16 values, n a multiple of 16.
//
//go:noescape
func addSub16(dst, src, a, s *int16, n int)

// addSubSub16 is dst = src + a - s1 - s2 over n int16 values, n a multiple of 16.
//
//go:noescape
func addSubSub16(dst, src, a, s1, s2 *int16, n int)

// clampToFloat is dst[i] = float32(min(max(src[i], 0), qa)) for n values,
// n a multiple of 8.
//
//go:noescape
func clampToFloat(dst *float32, src *int16, n int, qa int32)

// affineBlock8 is out[0:8] += Σ_{i<n} x[i]·w[i·ldw : i·ldw+8], summed in
// four interleaved partial sums.
//
//go:noescape
func affineBlock8(out, x *float32, n int, w *float32, ldw int)

// affine32 is out[0:32] += Σ_{i<n} x[i]·w[32i : 32i+32], even and odd
// inputs summed apart.
//
//go:noescape
func affine32(out, x *float32, n int, w *float32)

// nonZero writes the indices of x's non-zero values (n a multiple of 8)
// into idx, which needs 8 values of slack, and returns how many.
//
//go:noescape
func nonZero(idx *int32, x *float32, n int, table *[256][8]int32) int

// affine32Sparse is affine32 over the count inputs listed in idx.
//
//go:noescape
func affine32Sparse(out, x *float32, idx *int32, count int, w *float32)

// add16 is dst += a and sub16 dst -= s over n int16 values, n a multiple of 16.
//
//go:noescape
func add16(dst, a *int16, n int)

//go:noescape
func sub16(dst, s *int16, n int)
