package ops

// vecHead is how many of n values the 8-wide kernels of vec_amd64.s take:
// the multiples of 8 with asm, none without; Go loops do the rest.
func vecHead(n int, asm bool) int {
	if !asm {
		return 0
	}
	return n &^ 7
}

// clip01 clips every value of x to [0, 1] as min(max(x, 0), 1) does (-0
// becomes +0, a NaN stays a NaN): the clipped ReLU of the feature
// transformer's accumulators. With asm the multiples of 8 go through
// clip01x8, which gives the same bits for every value but a NaN's
// payload (TestClipKernelsAgree).
func clip01(x []float32, asm bool) {
	done := vecHead(len(x), asm)
	if done > 0 {
		clip01x8(done, &x[0])
	}
	for i, v := range x[done:] {
		x[done+i] = min(max(v, 0), 1)
	}
}

// clipGrad writes into g the gradient dout through the clip of clip01,
// whose outputs are y: dout where 0 < y < 1, else 0. With asm the
// multiples of 8 go through clipGrad8, the same bits.
func clipGrad(g, y, dout []float32, asm bool) {
	y, dout = y[:len(g)], dout[:len(g)]
	done := vecHead(len(g), asm)
	if done > 0 {
		clipGrad8(done, &g[0], &y[0], &dout[0])
	}
	for i := done; i < len(g); i++ {
		g[i] = 0
		if y[i] > 0 && y[i] < 1 {
			g[i] = dout[i]
		}
	}
}

// mulVec writes x[i]·y[i] into dst[i]: the pairwise product and its
// gradient. With asm the multiples of 8 go through mulVec8 (a product is
// the same bits in any unit).
func mulVec(dst, x, y []float32, asm bool) {
	x, y = x[:len(dst)], y[:len(dst)]
	done := vecHead(len(dst), asm)
	if done > 0 {
		mulVec8(done, &dst[0], &x[0], &y[0])
	}
	for i := done; i < len(dst); i++ {
		dst[i] = x[i] * y[i]
	}
}
