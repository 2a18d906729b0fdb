//go:build !amd64

package ops

var useAsm = false

func mulAdd4x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int) {
	panic("ops: mulAdd4x16 needs amd64")
}
