package ops

import "math"

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
	// paddedPatch is the row stride of cols and of the weight gradient:
	// the patch, a column of ones in cols (see backward) and zeros up to a
	// multiple of the tile.
	paddedPatch int
	// gradCell is the channels rounded up to a vector of 8: the width of a
	// cell in backward's input-gradient grid and in the weight rows it adds.
	gradCell int
	// filterRows is filters rounded up to mulAdd's four rows: the rows of
	// dzT, whose extra rows stay zero.
	filterRows int
	// chunk is how many samples one task of the block's work covers.
	chunk int
}

// denseWeightGrad says whether backward sums the weight gradient as one
// dense product over a gradient map, rather than one axpy per pooled value.
// Overlapping pool windows (stride 1) and no pooling send gradient to most
// conv outputs, and with short patches the per-value calls cost more than
// the product.
func (g *geometry) denseWeightGrad() bool { return g.poolStride == 1 }

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
// past the filters, and, when rows is not nil, as rows, filters × (ky, kx,
// channel) with gradCell values per kernel cell, the rest zero.
func transposeWeights(g *geometry, w, wt, rows []float32) {
	k, c := g.kernel, g.channels
	for f := 0; f < g.filters; f++ {
		for ch := 0; ch < c; ch++ {
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					v, r := w[((f*c+ch)*k+ky)*k+kx], (ky*k+kx)*c+ch
					wt[r*g.paddedFilters+f] = v
					if rows != nil {
						rows[(f*k*k+ky*k+kx)*g.gradCell+ch] = v
					}
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
	return (g.height + 2*g.pad) * (g.width + 2*g.pad) * g.channels
}

// copyShort is copy, without the call for the few values of a one-channel
// kernel row.
func copyShort(dst, src []float32) {
	if len(dst) > 8 {
		copy(dst, src)
		return
	}
	src = src[:len(dst)]
	//lint:ignore S1001 the loop is the point: it saves copy's call on a few values
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

// backward computes samples [b0, b1)'s share of the gradients, working
// from the pooled values ReLU kept (argmax), each of which sends its
// gradient d to one conv output, at position n and filter i:
//   - the weight gradient dw (filterRows × paddedPatch, cols' order,
//     overwritten) gains d·cols[n] in row i, whose ones column gathers the
//     bias gradient: either through a gradient map, dzT's columns for these
//     samples (filterRows × positions, see denseWeightGrad) and one mulAdd,
//     or with one axpy per value, which skips the zeros pooling and ReLU
//     leave;
//   - when dx is not nil, the input cells under n's receptive field gain d
//     times filter i's weights (rows, from transposeWeights): in grid, one
//     sample's input gradient with a zero border like im2col's and
//     gradCell values per cell, where each kernel row is one run, then
//     copied into dx in the block's input layout.
//
// zeros holds paddedPatch zeros.
func backward(g *geometry, dout []float32, argmax []int32, cols, rows, dzT, dw, zeros, dx, grid []float32, b0, b1 int) {
	f, fp, pp, n := g.filters, g.paddedFilters, g.paddedPatch, g.positions()
	plane, pooled := g.convPlane(), g.pooledPlane()
	ss, cs, ps := strides(g.out, f, pooled)
	dense := g.denseWeightGrad()
	if dense {
		for i := 0; i < f; i++ {
			clear(dzT[i*n+b0*plane : i*n+b1*plane])
		}
	} else {
		clear(dw)
	}
	for b := b0; b < b1; b++ {
		src := dout[b*ss:]
		arg := argmax[b*pooled*fp:][:pooled*fp]
		for p := 0; p < pooled; p++ {
			for i, at := range arg[p*fp:][:f] {
				d := src[i*cs+p*ps]
				if dense {
					// Most values are kept and a write is cheap, so a value
					// ReLU zeroed writes a zero to cell 0 instead of
					// branching: the branch would be mispredicted often.
					zeroed := at >> 31 // all ones when at is -1
					d = math.Float32frombits(math.Float32bits(d) &^ uint32(zeroed))
					dzT[i*n+b*plane+int(at&^zeroed)] += d
					continue
				}
				if at >= 0 && d != 0 {
					axpyRuns(1, pp, d, cols[(b*plane+int(at))*pp:], 0, dw[i*pp:], 0)
				}
			}
		}
		if dx != nil {
			inputGrad(g, src, arg, rows, dx, grid, b)
		}
	}
	if dense {
		mulAdd(g.filterRows, pp, (b1-b0)*plane, dzT[b0*plane:], n, cols[b0*plane*pp:], pp, dw, pp, zeros[:pp])
	}
}

// inputGrad writes sample b's input gradient into dx; see backward.
func inputGrad(g *geometry, dout []float32, arg []int32, rows, dx, grid []float32, b int) {
	f, fp, c, k, cell := g.filters, g.paddedFilters, g.channels, g.kernel, g.gradCell
	pooled := g.pooledPlane()
	_, cs, ps := strides(g.out, f, pooled)
	gw, run := g.width+2*g.pad, k*cell
	clear(grid)
	for p := 0; p < pooled; p++ {
		for i, at := range arg[p*fp:][:f] {
			d := dout[i*cs+p*ps]
			if at < 0 || d == 0 {
				continue
			}
			oy, ox := int(at)/g.convW, int(at)%g.convW
			axpyRuns(k, run, d, rows[i*k*run:], run, grid[(oy*gw+ox)*cell:], gw*cell)
		}
	}
	is, ics, ips := strides(g.in, c, g.height*g.width)
	sample := dx[b*is:][:is]
	for y := 0; y < g.height; y++ {
		for x := 0; x < g.width; x++ {
			src := grid[((y+g.pad)*gw+x+g.pad)*cell:][:c]
			if ics == 1 {
				copy(sample[(y*g.width+x)*ips:][:c], src)
				continue
			}
			for ch, v := range src {
				sample[ch*ics+(y*g.width+x)*ips] = v
			}
		}
	}
}

// gradGridSize is the size of backward's input-gradient grid.
func (g *geometry) gradGridSize() int {
	return (g.height + 2*g.pad) * (g.width + 2*g.pad) * g.gradCell
}
