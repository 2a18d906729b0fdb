//go:build !amd64

package ops

var useAsm, useAVX512 = false, false

func mulAdd4x16(k int, a *float32, rowStride, kStride int, b *float32, ldb int, c *float32, ldc int, init *float32) {
	panic("ops: mulAdd4x16 needs amd64")
}

func mulAdd8x32(k int, a *float32, rowStride, kStride int, b *float32, ldb int, c *float32, ldc int, init *float32) {
	panic("ops: mulAdd8x32 needs amd64")
}

func maxArg8(n int, best *float32, bestAt *int32, v *float32, vAt *int32) {
	panic("ops: maxArg8 needs amd64")
}

func reluArg8(n int, v *float32, at *int32) { panic("ops: reluArg8 needs amd64") }

func axpyRunsAsm(runs, n int, alpha float32, x *float32, xStride int, y *float32, yStride int) {
	panic("ops: axpyRunsAsm needs amd64")
}

func expShift8(n int, v *float32, scale, m float32) float32 { panic("ops: expShift8 needs amd64") }

func maxOf8(n int, v *float32) float32 { panic("ops: maxOf8 needs amd64") }

func scale8(n int, v *float32, s float32) { panic("ops: scale8 needs amd64") }

func softmaxGrad8(n int, p, d *float32, s float32) { panic("ops: softmaxGrad8 needs amd64") }
