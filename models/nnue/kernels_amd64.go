package nnue

import "golang.org/x/sys/cpu"

// useAVX2 is whether the AVX2 + FMA kernels of kernels_amd64.s can run
// here; the tests turn it off to compare them with the plain-Go loops.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// useVNNI is whether the first layer's product can use AVX-512 VNNI's
// VPDPBUSD on 256-bit registers (AVX512VL) instead of AVX2's three
// instructions, over the chunks AVX-512's VPCOMPRESSD lists as not 0; off
// with AVX2 (GODEBUG=cpu.avx2=off) or alone (GODEBUG=cpu.avx512vnni=off).
// With it the accumulator updates take 512-bit steps (AVX512BW).
var useVNNI = useAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BW

// addSub16 is dst = src + a - s over n int16 values, n a multiple of 16.
//
//go:noescape
func addSub16(dst, src, a, s *int16, n int)

// addSubSub16 is dst = src + a - s1 - s2 over n int16 values, n a multiple of 16.
//
//go:noescape
func addSubSub16(dst, src, a, s1, s2 *int16, n int)

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

// add16 is dst += a and sub16 dst -= s over n int16 values, n a multiple of 16.
//
//go:noescape
func add16(dst, a *int16, n int)

//go:noescape
func sub16(dst, s *int16, n int)

// clipToU8 is dst[i] = uint8(max(0, (min(src[i], top)·mul + 2¹⁴) >> 15))
// over n values, n a multiple of 16: the clip to [0, top] scaled by
// mul/2¹⁵ and rounded, as VPMULHRSW rounds.
//
//go:noescape
func clipToU8(dst *uint8, src *int16, n int, top, mul int32)

// pairToU8 is pairBytes's loop over h values, h a multiple of 16.
//
//go:noescape
func pairToU8(dst *uint8, src *int16, h int, top, shift, mul int32)

// pairToU8AVX512 is pairToU8 in 512-bit registers; it needs AVX-512BW, as
// useVNNI does.
//
//go:noescape
func pairToU8AVX512(dst *uint8, src *int16, h int, top, shift, mul int32)

// affineU8x32 is out[0:32] += Σ_{c<chunks} Σ_{k<4} in[4c+k]·w[c·stride +
// 4o + k] in int32, in values at most 127.
//
//go:noescape
func affineU8x32(out *int32, in *uint8, chunks int, w *int8, stride int)

// hiddenFromSums is dst[i] = min(max(float32(sums[i])·k[i] + b[i], 0), 1)
// over n values, n a multiple of 8.
//
//go:noescape
func hiddenFromSums(dst *float32, sums *int32, k, b *float32, n int)

// nonZeroChunks writes the numbers of in's chunks of four bytes that are
// not all 0 to idx, in order, over blocks blocks of eight chunks, and
// returns how many; idx has room for 16 more than that, as each store
// is whole. It needs AVX-512 (VPTESTMD, VPCOMPRESSD), as useVNNI
// does.
//
//go:noescape
func nonZeroChunks(idx *int32, in *uint8, blocks int) int

// affineU8x32SparseVNNI is affineU8x32 with VPDPBUSD (a chunk's four
// products summed into int32 in one instruction) over the n chunks listed
// in idx alone: the others are 0 and add nothing.
//
//go:noescape
func affineU8x32SparseVNNI(out *int32, in *uint8, idx *int32, n int, w *int8, stride int)

// addSubViews is addSub16 for both views in one call, with AVX-512BW:
// dst0 = src0 + a0 - s0 and dst1 = src1 + a1 - s1 over n values each, n a
// multiple of 16.
//
//go:noescape
func addSubViews(dst0, src0, a0, s0, dst1, src1, a1, s1 *int16, n int)

// addSubSubViews is addSubSub16 for both views in one call, with
// AVX-512BW.
//
//go:noescape
func addSubSubViews(dst0, src0, a0, s0, t0, dst1, src1, a1, s1, t1 *int16, n int)

// outputFromSums is the default network's last two steps in one: Σ
// clip(float32(sums[i])·k[i] + b[i], 0, 1)·w[i] over n values, n a multiple
// of 8, as hiddenFromSums and then dot compute it.
//
//go:noescape
func outputFromSums(sums *int32, k, b, w *float32, n int) float32

// clipDot is Σ min(max(x[i], 0), 1)·w[i] over n values, n a multiple of 8,
// in dot's order: a hidden layer's clip and the output layer in one step.
//
//go:noescape
func clipDot(x, w *float32, n int) float32

// affineU8x16 is affineU8x32 for a block of 16 outputs: a first layer of
// 16 outputs (or 32k + 16) reads half the weight bytes of 32.
//
//go:noescape
func affineU8x16(out *int32, in *uint8, chunks int, w *int8, stride int)

// affineU8x16SparseVNNI is affineU8x32SparseVNNI for a block of 16 outputs.
//
//go:noescape
func affineU8x16SparseVNNI(out *int32, in *uint8, idx *int32, n int, w *int8, stride int)
