//go:build !amd64

package nnue

var useAVX2, useVNNI = false, false

func addSub16(dst, src, a, s *int16, n int)         { panic("nnue: addSub16 needs amd64") }
func addSubSub16(dst, src, a, s1, s2 *int16, n int) { panic("nnue: addSubSub16 needs amd64") }
func affineBlock8(out, x *float32, n int, w *float32, ldw int) {
	panic("nnue: affineBlock8 needs amd64")
}
func affine32(out, x *float32, n int, w *float32) { panic("nnue: affine32 needs amd64") }
func clipToU8(dst *uint8, src *int16, n int, top, mul int32) {
	panic("nnue: clipToU8 needs amd64")
}
func pairToU8(dst *uint8, src *int16, h int, top, shift, mul int32) {
	panic("nnue: pairToU8 needs amd64")
}
func pairToU8AVX512(dst *uint8, src *int16, h int, top, shift, mul int32) {
	panic("nnue: pairToU8AVX512 needs amd64")
}
func affineU8x32(out *int32, in *uint8, chunks int, w *int8, stride int) {
	panic("nnue: affineU8x32 needs amd64")
}
func hiddenFromSums(dst *float32, sums *int32, k, b *float32, n int) {
	panic("nnue: hiddenFromSums needs amd64")
}
func add16(dst, a *int16, n int)                          { panic("nnue: add16 needs amd64") }
func sub16(dst, s *int16, n int)                          { panic("nnue: sub16 needs amd64") }
func nonZeroChunks(idx *int32, in *uint8, blocks int) int { panic("nnue: nonZeroChunks needs amd64") }
func affineU8x32SparseVNNI(out *int32, in *uint8, idx *int32, n int, w *int8, stride int) {
	panic("nnue: affineU8x32SparseVNNI needs amd64")
}
func addSubViews(dst0, src0, a0, s0, dst1, src1, a1, s1 *int16, n int) {
	panic("nnue: addSubViews needs amd64")
}
func addSubSubViews(dst0, src0, a0, s0, t0, dst1, src1, a1, s1, t1 *int16, n int) {
	panic("nnue: addSubSubViews needs amd64")
}
func outputFromSums(sums *int32, k, b, w *float32, n int) float32 {
	panic("nnue: outputFromSums needs amd64")
}
func clipDot(x, w *float32, n int) float32 { panic("nnue: clipDot needs amd64") }
func affineU8x16(out *int32, in *uint8, chunks int, w *int8, stride int) {
	panic("nnue: affineU8x16 needs amd64")
}
func affineU8x16SparseVNNI(out *int32, in *uint8, idx *int32, n int, w *int8, stride int) {
	panic("nnue: affineU8x16SparseVNNI needs amd64")
}
