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
// past the filters.
func transposeWeights(g *geometry, w, wt []float32) {
	k, c := g.kernel, g.channels
	for f := 0; f < g.filters; f++ {
		for ch := 0; ch < c; ch++ {
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					wt[((ky*k+kx)*c+ch)*g.paddedFilters+f] = w[((f*c+ch)*k+ky)*k+kx]
				}
			}
		}
	}
}

// backward is the geometry of the convolution that gives a block's input
// gradient from dz: dz's maps (filters channels, position-major) convolved
// with the flipped kernels, padded by kernel-1-pad, which comes back to
// the input's size.
func (g *geometry) backward() geometry {
	b := geometry{
		batch: g.batch, channels: g.filters, height: g.convH, width: g.convW,
		filters: g.channels, kernel: g.kernel, pad: g.kernel - 1 - g.pad,
		convH: g.height, convW: g.width, pool: 1, poolStride: 1, poolH: g.height, poolW: g.width,
		in: PositionMajor, out: g.in, chunk: g.chunk,
	}
	b.paddedFilters = roundUp(b.filters, tile)
	b.paddedPatch = roundUp(b.patch(), tile)
	b.filterRows = roundUp(b.filters, 4)
	return b
}

// flipWeights writes w (filters × channels × k × k) as the backward
// convolution's wt: patch (ky, kx, filter) × paddedFilters (channels), the
// kernels turned half a turn.
func flipWeights(back *geometry, w, wt []float32) {
	k, f, c := back.kernel, back.channels, back.filters
	for fi := 0; fi < f; fi++ {
		for ch := 0; ch < c; ch++ {
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					r := ((k-1-ky)*k+(k-1-kx))*f + fi
					wt[r*back.paddedFilters+ch] = w[((fi*c+ch)*k+ky)*k+kx]
				}
			}
		}
	}
}

// im2col writes the receptive fields of samples [b0, b1) of x into cols,
// one row of paddedPatch per conv position of those samples. Each sample
// is first copied, position-major, into the middle of grid, scratch of
// gridSize() values whose border of pad cells stays zero, so that every
// kernel row is then one run of grid: no bounds checks, no clearing.
func im2col(g *geometry, x, cols, grid []float32, b0, b1 int) {
	if g.pad < 0 {
		im2colCropped(g, x, cols, b0, b1)
		return
	}
	k, pad, c := g.kernel, g.pad, g.channels
	ss, cs, ps := strides(g.in, c, g.height*g.width)
	gw := g.width + 2*pad // grid width
	run := k * c
	for b := b0; b < b1; b++ {
		sample := x[b*ss:][:ss]
		for y := 0; y < g.height; y++ {
			dst := grid[((y+pad)*gw+pad)*c:][:g.width*c]
			if cs == 1 || c == 1 {
				copy(dst, sample[y*g.width*ps:])
				continue
			}
			for ix := 0; ix < g.width; ix++ {
				cell := dst[ix*c:][:c]
				src := sample[(y*g.width+ix)*ps:]
				for ch := range cell {
					cell[ch] = src[ch*cs]
				}
			}
		}
		for oy := 0; oy < g.convH; oy++ {
			for ox := 0; ox < g.convW; ox++ {
				row := cols[(((b-b0)*g.convH+oy)*g.convW+ox)*g.paddedPatch:][:k*run]
				for ky := 0; ky < k; ky++ {
					copyShort(row[ky*run:][:run], grid[((oy+ky)*gw+ox)*c:])
				}
			}
		}
	}
}

// gridSize is the size of im2col's grid: the input map with its padding.
func (g *geometry) gridSize() int {
	return (g.height + 2*max(g.pad, 0)) * (g.width + 2*max(g.pad, 0)) * g.channels
}

// im2colCropped is im2col for a negative pad (the backward convolution of
// a block padded by more than kernel-1): some input cells are never read.
func im2colCropped(g *geometry, x, cols []float32, b0, b1 int) {
	k, pad, c := g.kernel, g.pad, g.channels
	ss, cs, ps := strides(g.in, c, g.height*g.width)
	for b := b0; b < b1; b++ {
		sample := x[b*ss:][:ss]
		for oy := 0; oy < g.convH; oy++ {
			for ox := 0; ox < g.convW; ox++ {
				row := cols[(((b-b0)*g.convH+oy)*g.convW+ox)*g.paddedPatch:][:k*k*c]
				for ky := 0; ky < k; ky++ {
					for kx := 0; kx < k; kx++ {
						src := sample[((oy+ky-pad)*g.width+ox+kx-pad)*ps:]
						for ch, dst := 0, row[(ky*k+kx)*c:][:c]; ch < c; ch++ {
							dst[ch] = src[ch*cs]
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
// paddedFilters wide, as is bias, whose extra columns are zero.
func convolve(g *geometry, cols, wt, bias, z []float32, n0, n1 int) {
	fp := g.paddedFilters
	mulAdd(n1-n0, fp, g.patch(), cols[n0*g.paddedPatch:], g.paddedPatch, wt, fp, z[n0*fp:], fp, bias)
}

// poolForward writes ReLU(max-pool(z)) for samples [b0, b1) into out, in
// the block's output layout, and for the backward pass the cell (row ·
// convW + column) each pooled value came from into argmax (sample × pooled
// cell × paddedFilters), -1 where ReLU zeroed the value. Ties go to the
// first cell in row-major order. Windows are maxed separably, rows then
// columns, each step one maxArg over whole runs of cells; cells gives each
// z entry's cell (convPlane × paddedFilters). ReLU commutes with max, so it
// runs on the pooled map. Scratch: rowMax and rowArg of convH × poolW ×
// paddedFilters, maxima of pooled cells × paddedFilters.
func poolForward(g *geometry, z, out []float32, argmax, cells []int32, rowMax []float32, rowArg []int32, maxima []float32, b0, b1 int) {
	f, fp, s, w := g.filters, g.paddedFilters, g.poolStride, g.convW
	plane, pooled := g.convPlane(), g.pooledPlane()
	ss, cs, ps := strides(g.out, f, pooled)
	m := maxima[:pooled*fp]
	run := g.poolW * fp // one row of pooled cells
	for b := b0; b < b1; b++ {
		img := z[b*plane*fp:][:plane*fp]
		arg := argmax[b*pooled*fp:][:pooled*fp]
		if g.pool == 1 {
			copy(m, img)
			copy(arg, cells)
		} else {
			for y := 0; y < g.convH; y++ {
				best, at := rowMax[y*run:][:run], rowArg[y*run:][:run]
				if s == 1 { // a row's windows start on consecutive cells: one run per dx
					copy(best, img[y*w*fp:])
					copy(at, cells[y*w*fp:])
					for dx := 1; dx < g.pool; dx++ {
						maxArg(best, at, img[(y*w+dx)*fp:], cells[(y*w+dx)*fp:])
					}
					continue
				}
				for px := 0; px < g.poolW; px++ {
					cell := y*w + px*s
					pb, pa := best[px*fp:][:fp], at[px*fp:][:fp]
					copy(pb, img[cell*fp:])
					copy(pa, cells[cell*fp:])
					for dx := 1; dx < g.pool; dx++ {
						maxArg(pb, pa, img[(cell+dx)*fp:], cells[(cell+dx)*fp:])
					}
				}
			}
			for py := 0; py < g.poolH; py++ {
				best, at := m[py*run:][:run], arg[py*run:][:run]
				copy(best, rowMax[py*s*run:])
				copy(at, rowArg[py*s*run:])
				for dy := 1; dy < g.pool; dy++ {
					maxArg(best, at, rowMax[(py*s+dy)*run:], rowArg[(py*s+dy)*run:])
				}
			}
		}
		reluArg(m, arg)
		o := out[b*ss:]
		for p := 0; p < pooled; p++ {
			if cs == 1 {
				copy(o[p*ps:][:f], m[p*fp:])
				continue
			}
			for i, v := range m[p*fp:][:f] {
				o[i*cs+p*ps] = v
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
	f, fp, n := g.filters, g.paddedFilters, g.positions()
	plane, pooled := g.convPlane(), g.pooledPlane()
	ss, cs, ps := strides(g.out, f, pooled)
	clear(dz[b0*plane*f : b1*plane*f])
	for i := 0; i < f; i++ {
		clear(dzT[i*n+b0*plane : i*n+b1*plane])
	}
	for b := b0; b < b1; b++ {
		arg := argmax[b*pooled*fp:][:pooled*fp]
		src := dout[b*ss:]
		grad := dz[b*plane*f:][:plane*f]
		for p := 0; p < pooled; p++ {
			for i, at := range arg[p*fp:][:f] {
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
// into dw (filterRows × paddedPatch, cols' column order). zeros has
// paddedPatch zeros.
func paramGrads(g *geometry, dzT, cols, dw, zeros []float32, n0, n1 int) {
	mulAdd(g.filterRows, g.paddedPatch, n1-n0, dzT[n0:], g.positions(), cols[n0*g.paddedPatch:], g.paddedPatch, dw, g.paddedPatch, zeros)
}

// inputGrad writes the gradient at x of samples [b0, b1) into dx, in the
// block's input layout: the backward convolution of dz (back, with the
// flipped weights wt from flipWeights) as im2col into cols (with grid) and
// one mulAdd into out, scratch of those samples' input cells ×
// back.paddedFilters.
// zeros has back.paddedFilters zeros.
func inputGrad(back *geometry, wt, dz, dx, cols, grid, out, zeros []float32, b0, b1 int) {
	plane, fp := back.convPlane(), back.paddedFilters
	count := (b1 - b0) * plane
	im2col(back, dz, cols, grid, b0, b1)
	mulAdd(count, fp, back.patch(), cols, back.paddedPatch, wt, fp, out, fp, zeros)
	c := back.filters
	ss, cs, ps := strides(back.out, c, plane)
	for b := b0; b < b1; b++ {
		sample := dx[b*ss:][:ss]
		for p := 0; p < plane; p++ {
			src := out[((b-b0)*plane+p)*fp:][:c]
			if cs == 1 {
				copy(sample[p*ps:][:c], src)
				continue
			}
			for ch, v := range src {
				sample[ch*cs+p*ps] = v
			}
		}
	}
}
