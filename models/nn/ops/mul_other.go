//go:build !amd64

package ops

var useAsm = false

func mulAdd4x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, init *float32) {
	panic("ops: mulAdd4x16 needs amd64")
}

func maxArg8(n int, best *float32, bestAt *int32, v *float32, vAt *int32) {
	panic("ops: maxArg8 needs amd64")
}

func reluArg8(n int, v *float32, at *int32) { panic("ops: reluArg8 needs amd64") }

func axpyRunsAsm(runs, n int, alpha float32, x *float32, xStride int, y *float32, yStride int) {
	panic("ops: axpyRunsAsm needs amd64")
}
