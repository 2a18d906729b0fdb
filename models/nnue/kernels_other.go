//go:build !amd64

package nnue

var useAVX2 = false

func addSub16(dst, src, a, s *int16, n int)         { panic("nnue: addSub16 needs amd64") }
func addSubSub16(dst, src, a, s1, s2 *int16, n int) { panic("nnue: addSubSub16 needs amd64") }
func clampToFloat(dst *float32, src *int16, n int, qa int32) {
	panic("nnue: clampToFloat needs amd64")
}
func affineBlock8(out, x *float32, n int, w *float32, ldw int) {
	panic("nnue: affineBlock8 needs amd64")
}
func affine32(out, x *float32, n int, w *float32) { panic("nnue: affine32 needs amd64") }
func nonZero(idx *int32, x *float32, n int, table *[256][8]int32) int {
	panic("nnue: nonZero needs amd64")
}
func affine32Sparse(out, x *float32, idx *int32, count int, w *float32) {
	panic("nnue: affine32Sparse needs amd64")
}
func add16(dst, a *int16, n int) { panic("nnue: add16 needs amd64") }
func sub16(dst, s *int16, n int) { panic("nnue: sub16 needs amd64") }
