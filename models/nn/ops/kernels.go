package ops

import "math"

// geometry is one conv block's sizes for a fixed batch. Inside the block
// everything is position-major: one row per conv output position (sample,
// row, column), so im2col rows, the conv outputs of one position and the
// pool's vectors are each one contiguous run. All three products of the
// block (forward, weight gradient, input gradient) are mulAdd calls.
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
	// paddedPatch is the patch rounded up to the tile: the row stride of
	// cols and of the weight rows, whose extra columns stay zero.
	paddedPatch int
	// filterRows is filters rounded up to mulAdd's four rows: the rows of
	// the transposed gradient dzT, whose extra rows stay zero.
	filterRows int
	// chunk is how many samples one task of the block's work covers.
	chunk int
}

// patch is the length of one receptive field, in (ky, kx, channel) order.
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

func roundUp(n, to int) int { return (n + to - 1) / to * to }

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
// past the filters, and as rows, filters × paddedPatch in the same order.
func transposeWeights(g *geometry, w, wt, rows []float32) {
	k, c := g.kernel, g.channels
	for f := 0; f < g.filters; f++ {
		for ch := 0; ch < c; ch++ {
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					v := w[((f*c+ch)*k+ky)*k+kx]
					r := (ky*k+kx)*c + ch
					wt[r*g.paddedFilters+f] = v
					rows[f*g.paddedPatch+r] = v
				}
			}
		}
	}
}

// im2col writes the receptive fields of samples [b0, b1) of x into their
// rows of cols (positions × paddedPatch), zero where a kernel cell falls
// on the padding. When each cell's channels are one run (position-major
// maps, or one channel), a kernel row is one run of the input too.
func im2col(g *geometry, x, cols []float32, b0, b1 int) {
	k, pad, c := g.kernel, g.pad, g.channels
	ss, cs, ps := strides(g.in, c, g.height*g.width)
	runs := cs == 1 || c == 1
	for b := b0; b < b1; b++ {
		sample := x[b*ss:][:ss]
		for oy := 0; oy < g.convH; oy++ {
			for ox := 0; ox < g.convW; ox++ {
				row := cols[((b*g.convH+oy)*g.convW+ox)*g.paddedPatch:][:k*k*c]
				// The kernel columns [lo, hi) fall on the board.
				left := ox - pad
				lo, hi := max(0, -left), min(k, g.width-left)
				for ky := 0; ky < k; ky++ {
					iy := oy + ky - pad
					dst := row[ky*k*c:][:k*c]
					if iy < 0 || iy >= g.height || lo >= hi {
						clear(dst)
						continue
					}
					clear(dst[:lo*c])
					clear(dst[hi*c:])
					first := (iy*g.width + left + lo) * ps
					if runs {
						copyShort(dst[lo*c:hi*c], sample[first:])
						continue
					}
					for kx := lo; kx < hi; kx++ {
						cell := dst[kx*c:][:c]
						src := sample[first+(kx-lo)*ps:]
						for ch := range cell {
							cell[ch] = src[ch*cs]
						}
					}
				}
			}
		}
	}
}

// copyShort is copy, without the call for the few values of a one-channel
// kernel row.
func copyShort(dst, src []float32) {
	if len(dst) > 8 {
		copy(dst, src)
		return
	}
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = v
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
	mulAdd(n1-n0, fp, g.patch(), cols[n0*g.paddedPatch:], g.paddedPatch, wt, fp, z[n0*fp:], fp)
}

// poolForward writes ReLU(max-pool(z)) for samples [b0, b1) into out, in
// the block's output layout, and for the backward pass the cell (row ·
// convW + column) each pooled value came from into argmax (sample × pooled
// cell × filter), -1 where ReLU zeroed the value. Ties go to the first cell
// in row-major order. ReLU commutes with max, so it runs on the pooled map.
// Windows are maxed separably, rows then columns, with the branch-free
// builtin and selects (the comparisons fall at random, so branches would
// be mispredicted half the time); the builtin lets a NaN through, so a
// diverged network shows NaN in the loss. Scratch: rowMax and rowArg of
// convH × poolW × filters, maxima of pooled cells × filters.
func poolForward(g *geometry, z, out []float32, argmax []int32, rowMax []float32, rowArg []int32, maxima []float32, b0, b1 int) {
	f, fp, s := g.filters, g.paddedFilters, g.poolStride
	plane, pooled := g.convPlane(), g.pooledPlane()
	ss, cs, ps := strides(g.out, f, pooled)
	m := maxima[:pooled*f]
	for b := b0; b < b1; b++ {
		img := z[b*plane*fp:][:plane*fp]
		arg := argmax[b*pooled*f:][:pooled*f]
		if g.pool == 1 {
			for p := 0; p < plane; p++ {
				copy(m[p*f:][:f], img[p*fp:])
				for i := range f {
					arg[p*f+i] = int32(p)
				}
			}
		} else {
			for y := 0; y < g.convH; y++ {
				for px := 0; px < g.poolW; px++ {
					best := rowMax[(y*g.poolW+px)*f:][:f]
					at := rowArg[(y*g.poolW+px)*f:][:f]
					copy(best, img[(y*g.convW+px*s)*fp:])
					clear(at)
					for dx := 1; dx < g.pool; dx++ {
						for i, v := range img[(y*g.convW+px*s+dx)*fp:][:f] {
							a := at[i]
							if v > best[i] {
								a = int32(dx)
							}
							at[i] = a
							best[i] = max(best[i], v)
						}
					}
				}
			}
			for py := 0; py < g.poolH; py++ {
				for px := 0; px < g.poolW; px++ {
					p := py*g.poolW + px
					best, cell := m[p*f:][:f], arg[p*f:][:f]
					for dy := 0; dy < g.pool; dy++ {
						y := py*s + dy
						rm := rowMax[(y*g.poolW+px)*f:][:f]
						ra := rowArg[(y*g.poolW+px)*f:][:f]
						left := int32(y*g.convW + px*s)
						if dy == 0 {
							copy(best, rm)
							for i, dx := range ra {
								cell[i] = left + dx
							}
							continue
						}
						for i, v := range rm {
							c := cell[i]
							if v > best[i] {
								c = left + ra[i]
							}
							cell[i] = c
							best[i] = max(best[i], v)
						}
					}
				}
			}
		}
		o := out[b*ss:]
		for p := 0; p < pooled; p++ {
			cell := arg[p*f:][:f]
			for i, v := range m[p*f:][:f] {
				o[i*cs+p*ps] = max(v, 0)
				c := cell[i]
				if !(v > 0) {
					c = -1
				}
				cell[i] = c
			}
		}
	}
}

// poolBackward routes the output gradient dout of samples [b0, b1) back to
// the cells argmax names, overwriting their part of dz (positions ×
// filters) and of its transpose dzT (filterRows × positions); overlapping
// windows add. The -1 cells, zeroed by ReLU, are sent a zero to cell 0
// instead of being skipped: a branch there would be mispredicted as often
// as ReLU is active.
func poolBackward(g *geometry, dout []float32, argmax []int32, dz, dzT []float32, b0, b1 int) {
	f, n := g.filters, g.positions()
	plane, pooled := g.convPlane(), g.pooledPlane()
	ss, cs, ps := strides(g.out, f, pooled)
	clear(dz[b0*plane*f : b1*plane*f])
	for i := 0; i < f; i++ {
		clear(dzT[i*n+b0*plane : i*n+b1*plane])
	}
	for b := b0; b < b1; b++ {
		arg := argmax[b*pooled*f:][:pooled*f]
		src := dout[b*ss:]
		grad := dz[b*plane*f:][:plane*f]
		for p := 0; p < pooled; p++ {
			for i, at := range arg[p*f:][:f] {
				zeroed := at >> 31 // all ones when at is -1
				cell := int(at &^ zeroed)
				d := math.Float32frombits(math.Float32bits(src[i*cs+p*ps]) &^ uint32(zeroed))
				grad[cell*f+i] += d
				dzT[i*n+b*plane+cell] += d
			}
		}
	}
}

// paramGrads writes the weight gradient of positions [n0, n1), dzᵀ·cols,
// into dw (filterRows × paddedPatch, cols' column order).
func paramGrads(g *geometry, dzT, cols, dw []float32, n0, n1 int) {
	clear(dw)
	mulAdd(g.filterRows, g.paddedPatch, n1-n0, dzT[n0:], g.positions(), cols[n0*g.paddedPatch:], g.paddedPatch, dw, g.paddedPatch)
}

// inputGrad writes the gradient at x of samples [b0, b1) into dx: dz·rows
// (the weights as filters × paddedPatch) gives the gradient at each
// position's receptive field, in dcols (scratch of the chunk's positions ×
// paddedPatch), which col2im adds back onto the input cells it was copied
// from.
func inputGrad(g *geometry, rows, dz, dx, dcols []float32, b0, b1 int) {
	plane := g.convPlane()
	n0, count := b0*plane, (b1-b0)*plane
	dcols = dcols[:count*g.paddedPatch]
	clear(dcols)
	mulAdd(count, g.paddedPatch, g.filters, dz[n0*g.filters:], g.filters, rows, g.paddedPatch, dcols, g.paddedPatch)
	col2im(g, dcols, dx, b0, b1)
}

// col2im is im2col's adjoint for samples [b0, b1): it adds every entry of
// dcols (their positions × paddedPatch) onto the input cell im2col copied
// it from, overwriting those samples of dx.
func col2im(g *geometry, dcols, dx []float32, b0, b1 int) {
	k, pad, c := g.kernel, g.pad, g.channels
	ss, cs, ps := strides(g.in, c, g.height*g.width)
	clear(dx[b0*ss : b1*ss])
	for b := b0; b < b1; b++ {
		sample := dx[b*ss:][:ss]
		for oy := 0; oy < g.convH; oy++ {
			for ox := 0; ox < g.convW; ox++ {
				row := dcols[(((b-b0)*g.convH+oy)*g.convW+ox)*g.paddedPatch:][:k*k*c]
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
						src := row[(ky*k+kx)*c:][:c]
						if cs == 1 {
							dst := sample[(iy*g.width+ix)*ps:][:c]
							for ch, v := range src {
								dst[ch] += v
							}
							continue
						}
						dst := sample[(iy*g.width+ix)*ps:]
						for ch, v := range src {
							dst[ch*cs] += v
						}
					}
				}
			}
		}
	}
}
