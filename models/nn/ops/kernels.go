package ops

import "gonum.org/v1/gonum/blas/gonum"

// geometry is one conv block's sizes for a fixed batch. Inside the block
// everything is position-major: one row per conv output position (sample,
// row, column), so im2col rows, the conv outputs of one position and the
// pool's vectors are each one contiguous run.
type geometry struct {
	batch, channels, height, width int
	filters, kernel, pad           int
	convH, convW                   int
	pool, poolStride               int // 1 and 1 when the block does not pool
	poolH, poolW                   int
	in, out                        Layout
	// paddedFilters is filters rounded up to mulAdd's tile: the row stride
	// of z and the columns of the transposed weights.
	paddedFilters int
	// chunk is how many samples one task of the block's work covers.
	chunk int
}

// patch is the length of one receptive field, a row of cols, in (ky, kx,
// channel) order.
func (g *geometry) patch() int { return g.channels * g.kernel * g.kernel }

// positions is the number of conv outputs per filter over the batch.
func (g *geometry) positions() int   { return g.batch * g.convH * g.convW }
func (g *geometry) convPlane() int   { return g.convH * g.convW }
func (g *geometry) pooledPlane() int { return g.poolH * g.poolW }
func (g *geometry) inputSize() int   { return g.batch * g.channels * g.height * g.width }
func (g *geometry) outputSize() int  { return g.batch * g.filters * g.pooledPlane() }
func (g *geometry) chunks() int      { return (g.batch + g.chunk - 1) / g.chunk }
func (g *geometry) samples(c int) (int, int) {
	return c * g.chunk, min((c+1)*g.chunk, g.batch)
}

// strides returns where value (sample, channel, cell) of a feature map in
// layout l lies: sample·s + channel·c + cell·p, cell = row·width + column.
func strides(l Layout, channels, plane int) (s, c, p int) {
	if l == PositionMajor {
		return plane * channels, 1, channels
	}
	return channels * plane, plane, 1
}

// transposeWeights writes w (filters × channels × k × k) as wt, patch ×
// paddedFilters in cols' (ky, kx, channel) row order with zero columns
// past the filters, and as rows, filters × patch in the same order.
func transposeWeights(g *geometry, w, wt, rows []float32) {
	k, c := g.kernel, g.channels
	clear(wt)
	for f := 0; f < g.filters; f++ {
		for ch := 0; ch < c; ch++ {
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					v := w[((f*c+ch)*k+ky)*k+kx]
					r := (ky*k+kx)*c + ch
					wt[r*g.paddedFilters+f] = v
					rows[f*g.patch()+r] = v
				}
			}
		}
	}
}

// im2col writes the receptive fields of samples [b0, b1) of x into their
// rows of cols (positions × patch), zero where a kernel cell falls on the
// padding.
func im2col(g *geometry, x, cols []float32, b0, b1 int) {
	k, pad, c, patch := g.kernel, g.pad, g.channels, g.patch()
	ss, cs, ps := strides(g.in, c, g.height*g.width)
	for b := b0; b < b1; b++ {
		for oy := 0; oy < g.convH; oy++ {
			for ox := 0; ox < g.convW; ox++ {
				row := cols[((b*g.convH+oy)*g.convW+ox)*patch:][:patch]
				for ky := 0; ky < k; ky++ {
					iy := oy + ky - pad
					for kx := 0; kx < k; kx++ {
						ix := ox + kx - pad
						dst := row[(ky*k+kx)*c:][:c]
						if iy < 0 || iy >= g.height || ix < 0 || ix >= g.width {
							clear(dst)
							continue
						}
						src := x[b*ss+(iy*g.width+ix)*ps:]
						if cs == 1 {
							copy(dst, src[:c])
							continue
						}
						for ch := range dst {
							dst[ch] = src[ch*cs]
						}
					}
				}
			}
		}
	}
}

// convolve computes z = cols·wt + bias for positions [n0, n1): z's rows are
// paddedFilters wide, the columns past the filters zero.
func convolve(g *geometry, cols, wt, bias, z []float32, n0, n1 int) {
	fp := g.paddedFilters
	for n := n0; n < n1; n++ {
		row := z[n*fp:][:fp]
		copy(row, bias)
		clear(row[len(bias):])
	}
	mulAdd(n1-n0, fp, g.patch(), cols[n0*g.patch():], g.patch(), wt, fp, z[n0*fp:], fp)
}

// poolForward writes ReLU(max-pool(z)) for samples [b0, b1) into out, in
// the block's output layout, and the maxima before ReLU into maxima
// (sample × pooled cell × filter) for the backward pass. ReLU commutes with
// max, so it runs on the pooled map. Windows are maxed separably, rows then
// columns, with the branch-free builtin, which also lets a NaN through, so
// a diverged network shows NaN in the loss. rowMax is scratch of
// convH × poolW × filters.
func poolForward(g *geometry, z, out, maxima, rowMax []float32, b0, b1 int) {
	f, fp, s := g.filters, g.paddedFilters, g.poolStride
	plane, pooled := g.convPlane(), g.pooledPlane()
	ss, cs, ps := strides(g.out, f, pooled)
	for b := b0; b < b1; b++ {
		img := z[b*plane*fp:][:plane*fp]
		m := maxima[b*pooled*f:][:pooled*f]
		if g.pool == 1 {
			for p := 0; p < plane; p++ {
				copy(m[p*f:][:f], img[p*fp:])
			}
		} else {
			for y := 0; y < g.convH; y++ {
				for px := 0; px < g.poolW; px++ {
					dst := rowMax[(y*g.poolW+px)*f:][:f]
					copy(dst, img[(y*g.convW+px*s)*fp:])
					for dx := 1; dx < g.pool; dx++ {
						src := img[(y*g.convW+px*s+dx)*fp:][:f]
						for i, v := range src {
							dst[i] = max(dst[i], v)
						}
					}
				}
			}
			for py := 0; py < g.poolH; py++ {
				dst := m[py*g.poolW*f:][:g.poolW*f]
				copy(dst, rowMax[py*s*g.poolW*f:])
				for dy := 1; dy < g.pool; dy++ {
					src := rowMax[(py*s+dy)*g.poolW*f:][:len(dst)]
					for i, v := range src {
						dst[i] = max(dst[i], v)
					}
				}
			}
		}
		o := out[b*ss:]
		for p := 0; p < pooled; p++ {
			for i, v := range m[p*f:][:f] {
				o[i*cs+p*ps] = max(v, 0)
			}
		}
	}
}

// poolBackward routes the output gradient dout of samples [b0, b1) back to
// their rows of dz (positions × filters), overwriting them: each positive
// pooled value's gradient goes to the first cell of its window, in
// row-major order, that holds the maximum; overlapping windows add. Values
// ReLU zeroed pass nothing back.
func poolBackward(g *geometry, dout, maxima, z, dz []float32, b0, b1 int) {
	f, fp, s := g.filters, g.paddedFilters, g.poolStride
	plane, pooled := g.convPlane(), g.pooledPlane()
	ss, cs, ps := strides(g.out, f, pooled)
	clear(dz[b0*plane*f : b1*plane*f])
	for b := b0; b < b1; b++ {
		img, grad := z[b*plane*fp:][:plane*fp], dz[b*plane*f:][:plane*f]
		m := maxima[b*pooled*f:][:pooled*f]
		src := dout[b*ss:]
		for p := 0; p < pooled; p++ {
			top := (p/g.poolW)*s*g.convW + (p%g.poolW)*s
			for i, v := range m[p*f:][:f] {
				d := src[i*cs+p*ps]
				if d == 0 || !(v > 0) {
					continue
				}
			search:
				for dy := 0; dy < g.pool; dy++ {
					for dx := 0; dx < g.pool; dx++ {
						cell := top + dy*g.convW + dx
						if img[cell*fp+i] == v {
							grad[cell*f+i] += d
							break search
						}
					}
				}
			}
		}
	}
}

var level1 gonum.Implementation

// paramGrads writes the weight gradient of positions [n0, n1) into dw
// (filters × patch, cols' column order): dzᵀ·cols, one nonzero of dz at a
// time, since pooling and ReLU leave most of dz zero.
func paramGrads(g *geometry, dz, cols, dw []float32, n0, n1 int) {
	f, patch := g.filters, g.patch()
	clear(dw)
	for n := n0; n < n1; n++ {
		row := cols[n*patch:][:patch]
		for i, d := range dz[n*f:][:f] {
			if d != 0 {
				level1.Saxpy(patch, d, row, 1, dw[i*patch:][:patch], 1)
			}
		}
	}
}

// inputGrad writes the gradient at x of samples [b0, b1) into dx: for each
// position, dz's row times the weight rows (filters × patch) gives the
// gradient at its receptive field, which is added back onto the input
// cells it was copied from (im2col's adjoint). scratch holds one patch.
func inputGrad(g *geometry, rows, dz, dx, scratch []float32, b0, b1 int) {
	k, pad, c, f, patch := g.kernel, g.pad, g.channels, g.filters, g.patch()
	ss, cs, ps := strides(g.in, c, g.height*g.width)
	clear(dx[b0*ss : b1*ss])
	for b := b0; b < b1; b++ {
		for oy := 0; oy < g.convH; oy++ {
			for ox := 0; ox < g.convW; ox++ {
				n := (b*g.convH+oy)*g.convW + ox
				clear(scratch)
				any := false
				for i, d := range dz[n*f:][:f] {
					if d != 0 {
						level1.Saxpy(patch, d, rows[i*patch:][:patch], 1, scratch, 1)
						any = true
					}
				}
				if !any {
					continue
				}
				for ky := 0; ky < k; ky++ {
					iy := oy + ky - pad
					if iy < 0 || iy >= g.height {
						continue
					}
					for kx := 0; kx < k; kx++ {
						ix := ox + kx - pad
						if ix < 0 || ix >= g.width {
							continue
						}
						src := scratch[(ky*k+kx)*c:][:c]
						dst := dx[b*ss+(iy*g.width+ix)*ps:]
						for ch, v := range src {
							dst[ch*cs] += v
						}
					}
				}
			}
		}
	}
}
