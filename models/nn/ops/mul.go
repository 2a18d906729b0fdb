package ops

// tile is the width of the column groups mulAdd works in: two AVX
// registers of float32.
const tile = 16

// mulAdd computes c = s + a·b for a (m × k, row stride lda), b (k × n, row
// stride ldb) and c (m × n, row stride ldc), where n is a multiple of tile
// and s is c itself or, when init is not nil, init (n values) in every row:
// a bias, or zeros to overwrite c.
// The shapes here are tall and narrow (thousands of board positions by a
// few dozen filters), which gonum's gemm handles poorly; four rows of c by
// one tile of columns (eight by two tiles with AVX-512) stay in registers
// over a run of k. The work goes in blocks of rows and of k (see rowBlock)
// so that the parts of a and b in use stay in cache; each value of c is
// still summed over k in order, so neither the blocking nor the tile
// changes a bit.
func mulAdd(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, init []float32) {
	if k > 0 && m > 0 && (lda < k || len(a) < (m-1)*lda+k) {
		panic("ops: mulAdd: bad sizes")
	}
	mulAddStrided(m, n, k, a, lda, 1, b, ldb, c, ldc, init)
}

// mulAddT is mulAdd with a's transpose: c = s + aᵀ·b for a (k × m, row
// stride lda). A weight gradient, the layer input's transpose times the
// output's gradient, needs no transposed copy of the input this way.
func mulAddT(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, init []float32) {
	if k > 0 && m > 0 && (lda < m || len(a) < (k-1)*lda+m) {
		panic("ops: mulAddT: bad sizes")
	}
	mulAddStrided(m, n, k, a, 1, lda, b, ldb, c, ldc, init)
}

// mulAddStrided is mulAdd and mulAddT, with a[i][l] at a[i·rowStride +
// l·kStride]; the callers check a's size.
func mulAddStrided(m, n, k int, a []float32, rowStride, kStride int, b []float32, ldb int, c []float32, ldc int, init []float32) {
	if m == 0 || n == 0 {
		return
	}
	if n%tile != 0 || ldb < n || ldc < n || (init != nil && len(init) < n) ||
		k > 0 && len(b) < (k-1)*ldb+n || len(c) < (m-1)*ldc+n {
		panic("ops: mulAdd: bad sizes")
	}
	if k == 0 {
		mulAddBlock(m, n, 0, a, rowStride, kStride, b, ldb, c, ldc, init)
		return
	}
	for k0 := 0; k0 < k; k0 += depthBlock {
		kc := min(depthBlock, k-k0)
		start := init
		if k0 > 0 {
			start = nil // carry on from the sums so far
		}
		for i0 := 0; i0 < m; i0 += rowBlock {
			mulAddBlock(min(rowBlock, m-i0), n, kc, a[i0*rowStride+k0*kStride:], rowStride, kStride,
				b[k0*ldb:], ldb, c[i0*ldc:], ldc, start)
		}
	}
}

// rowBlock rows of a (depthBlock values each at most) stay in L1 while
// mulAddBlock runs them against every column tile of b, and depthBlock
// rows of one column tile of b (16 KB; 32 KB for a wide tile) while it
// runs every row group against them. Without the blocking, the products over thousands of
// positions (a transformer's projections and their weight gradients)
// reread a or b from memory for every column tile or row group.
const (
	rowBlock   = 64
	depthBlock = 256
)

// mulAddBlock is mulAddStrided without the blocking. With AVX-512 it
// takes wideTile columns and eight rows a call while they last; the rows
// left over go through mulAddTile as without it, so the plain-Go rows (the
// last m%4, without FMA) and every other value's sum are the same bits
// with and without AVX-512.
func mulAddBlock(m, n, k int, a []float32, rowStride, kStride int, b []float32, ldb int, c []float32, ldc int, init []float32) {
	j := 0
	if useAsm && useAVX512 && k > 0 {
		for ; j+wideTile <= n; j += wideTile {
			var s *float32
			if init != nil {
				s = &init[j]
			}
			i := 0
			for ; i+8 <= m; i += 8 {
				mulAdd8x32(k, &a[i*rowStride], rowStride, kStride, &b[j], ldb, &c[i*ldc+j], ldc, s)
			}
			if i < m {
				for jj := j; jj < j+wideTile; jj += tile {
					mulAddTile(m-i, k, a[i*rowStride:], rowStride, kStride, b[jj:], ldb, c[i*ldc+jj:], ldc, tileStart(init, jj))
				}
			}
		}
	}
	for ; j < n; j += tile {
		mulAddTile(m, k, a, rowStride, kStride, b[j:], ldb, c[j:], ldc, tileStart(init, j))
	}
}

// wideTile is the width of the column groups mulAdd8x32 works in: two
// AVX-512 registers of float32.
const wideTile = 32

// tileStart is init's tile from column j, or nil.
func tileStart(init []float32, j int) []float32 {
	if init == nil {
		return nil
	}
	return init[j:][:tile]
}

// mulAddTile is mulAddBlock for one tile of columns (b and c start at
// it): four rows at a time in assembly where there is AVX2, the others in
// plain Go.
func mulAddTile(m, k int, a []float32, rowStride, kStride int, b []float32, ldb int, c []float32, ldc int, start []float32) {
	i := 0
	if useAsm && k > 0 {
		var s *float32
		if start != nil {
			s = &start[0]
		}
		for ; i+4 <= m; i += 4 {
			mulAdd4x16(k, &a[i*rowStride], rowStride, kStride, &b[0], ldb, &c[i*ldc], ldc, s)
		}
	}
	for ; i < m; i++ {
		row := c[i*ldc:][:tile]
		if start != nil {
			copy(row, start)
		}
		if k > 0 {
			mulAddRow(k, a[i*rowStride:], kStride, b, ldb, row)
		}
	}
}

// mulAddRow is one row of mulAdd in plain Go: c[0:tile] += a · b[:, 0:tile]
// for the k values of a, kStride apart.
func mulAddRow(k int, a []float32, kStride int, b []float32, ldb int, c []float32) {
	var acc [tile]float32
	copy(acc[:], c)
	for l := 0; l < k; l++ {
		v := a[l*kStride]
		if v == 0 { // the inputs are sparse: empty squares, ReLU's zeros
			continue
		}
		row := b[l*ldb:][:tile]
		for j := range acc {
			acc[j] += v * row[j]
		}
	}
	copy(c, acc[:])
}

// axpyRuns adds alpha·x to y over runs runs of n values, x's runs xStride
// apart and y's yStride apart; n is a multiple of 8.
func axpyRuns(runs, n int, alpha float32, x []float32, xStride int, y []float32, yStride int) {
	if runs == 0 || n == 0 {
		return
	}
	if n%8 != 0 || len(x) < (runs-1)*xStride+n || len(y) < (runs-1)*yStride+n {
		panic("ops: axpyRuns: bad sizes")
	}
	if useAsm {
		axpyRunsAsm(runs, n, alpha, &x[0], xStride, &y[0], yStride)
		return
	}
	for r := 0; r < runs; r++ {
		dst := y[r*yStride:][:n]
		for i, v := range x[r*xStride:][:n] {
			dst[i] += alpha * v
		}
	}
}
