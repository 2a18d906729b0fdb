package ops

import "golang.org/x/sys/cpu"

// useVecAsm is whether the element-wise kernels of vec_amd64.s can run
// here (AVX, and AVX2 for the integer ones).
var useVecAsm = cpu.X86.HasAVX && cpu.X86.HasAVX2

// clip01x8 is clip01 for n a multiple of 8 (vec_amd64.s).
//
//go:noescape
func clip01x8(n int, x *float32)

// clipGrad8 is clipGrad for n a multiple of 8 (vec_amd64.s).
//
//go:noescape
func clipGrad8(n int, gp, y, dout *float32)

// mulVec8 is mulVec for n a multiple of 8 (vec_amd64.s).
//
//go:noescape
func mulVec8(n int, dst, x, y *float32)

// relu8, reluGrad8 and clippedGrad8 are activate's and activationGrad's
// ReLU and clipped ReLU cases for n a multiple of 8 (vec_amd64.s).
//
//go:noescape
func relu8(n int, v *float32)

//go:noescape
func reluGrad8(n int, h, gp *float32)

//go:noescape
func clippedGrad8(n int, h, gp *float32)

// transpose8x8 transposes one 8 × 8 block (vec_amd64.s): dst[c*ldd+r] =
// src[r*lds+c].
//
//go:noescape
func transpose8x8(src *float32, lds int, dst *float32, ldd int)

// featureSum256 sums 256 columns of a bias and of the weight rows idx[0:count]
// (row stride stride floats) into dst, in AVX-512 registers (vec_amd64.s).
//
//go:noescape
func featureSum256(dst, bias, w *float32, stride int, idx *int32, count int)
