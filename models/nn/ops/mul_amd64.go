package ops

import "golang.org/x/sys/cpu"

// useAsm is whether mulAdd4x16's AVX2 + FMA assembly can run here.
var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// mulAdd4x16 computes c[i][0:16] += Σ_l a[i][l]·b[l][0:16] for the four
// rows i of a and c (mul_amd64.s). Strides are in elements; the caller
// checks the bounds.
//
//go:noescape
func mulAdd4x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
