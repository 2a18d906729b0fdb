package nnue

import (
	"math/bits"

	"github.com/dchess/dchess/internal/chess/board"
)

func popcount(x uint64) int { return bits.OnesCount64(x) }

// row is feature f's int16 weights.
func (n *Net) row(f int) []int16 {
	w := n.cfg.Accumulator
	return n.ftw[f*w : (f+1)*w]
}

// refresh sets acc to the bias plus the rows of features.
func (n *Net) refresh(acc []int16, features []int) {
	copy(acc, n.ftb)
	for _, f := range features {
		addTo(acc, n.row(f))
	}
}

// update computes child's accumulators from parent's and the changes of
// the move between them; the common quiet move and capture each take one
// pass over the accumulator.
func (n *Net) update(parent, child *frame) {
	if useVNNI && child.nAdd == 1 && child.nSub <= 2 {
		n.updateViews(parent, child)
		return
	}
	for _, view := range [2]board.Color{board.White, board.Black} {
		src, dst := parent.acc[view], child.acc[view]
		feat := func(c pieceChange) []int16 { return n.row(feature(view, c.color, c.piece, c.sq)) }
		switch {
		case child.nAdd == 1 && child.nSub == 1:
			addSub(dst, src, feat(child.add[0]), feat(child.sub[0]))
		case child.nAdd == 1 && child.nSub == 2:
			addSubSub(dst, src, feat(child.add[0]), feat(child.sub[0]), feat(child.sub[1]))
		default:
			copy(dst, src)
			for _, c := range child.add[:child.nAdd] {
				addTo(dst, feat(c))
			}
			for _, c := range child.sub[:child.nSub] {
				subFrom(dst, feat(c))
			}
		}
	}
	child.computed = true
}

// updateViews is update's common moves, a quiet move and a capture, for
// both views in one call of the 512-bit kernels.
func (n *Net) updateViews(parent, child *frame) {
	w := n.cfg.Accumulator
	row := func(view board.Color, c pieceChange) *int16 {
		return &n.ftw[feature(view, c.color, c.piece, c.sq)*w]
	}
	white, black := board.White, board.Black
	src0, src1 := &parent.acc[white][:w][0], &parent.acc[black][:w][0]
	dst0, dst1 := &child.acc[white][:w][0], &child.acc[black][:w][0]
	a, s := child.add[0], child.sub[0]
	if child.nSub == 1 {
		addSubViews(dst0, src0, row(white, a), row(white, s), dst1, src1, row(black, a), row(black, s), w)
	} else {
		t := child.sub[1]
		addSubSubViews(dst0, src0, row(white, a), row(white, s), row(white, t), dst1, src1, row(black, a), row(black, s), row(black, t), w)
	}
	child.computed = true
}

// The accumulators are a multiple of 16 long (Config.Validate), the
// vector kernels' step.
func addSub(dst, src, a, s []int16) {
	src, a, s = src[:len(dst)], a[:len(dst)], s[:len(dst)]
	if useAVX2 {
		addSub16(&dst[0], &src[0], &a[0], &s[0], len(dst))
		return
	}
	for i := range dst {
		dst[i] = src[i] + a[i] - s[i]
	}
}

func addSubSub(dst, src, a, s1, s2 []int16) {
	src, a, s1, s2 = src[:len(dst)], a[:len(dst)], s1[:len(dst)], s2[:len(dst)]
	if useAVX2 {
		addSubSub16(&dst[0], &src[0], &a[0], &s1[0], &s2[0], len(dst))
		return
	}
	for i := range dst {
		dst[i] = src[i] + a[i] - s1[i] - s2[i]
	}
}

func addTo(dst, a []int16) {
	a = a[:len(dst)]
	if useAVX2 {
		add16(&dst[0], &a[0], len(dst))
		return
	}
	for i := range dst {
		dst[i] += a[i]
	}
}

func subFrom(dst, s []int16) {
	s = s[:len(dst)]
	if useAVX2 {
		sub16(&dst[0], &s[0], len(dst))
		return
	}
	for i := range dst {
		dst[i] -= s[i]
	}
}

// scratch holds an evaluation's intermediate values.
type scratch struct {
	bytes  []uint8 // the clipped accumulators as the first layer reads them, 2N
	nnz    []int32 // the numbers of bytes' chunks of four that are not all 0
	sums   []int32 // the first layer's integer sums, its width
	hidden [2][]float32
}

func newScratch(c Config) scratch {
	widest := max(c.buckets(), maxOf(c.Hidden))
	s := scratch{bytes: make([]uint8, 2*c.Accumulator), nnz: make([]int32, 2*c.Accumulator/4+16), sums: make([]int32, (widest+31)/32*32)}
	for i := range s.hidden {
		s.hidden[i] = make([]float32, widest)
	}
	return s
}

// score runs the dense layers on the two views' accumulators (clipped, or
// their halves' products), the side to move's first, and returns
// centipawns from the output bucket's last layer.
func (n *Net) score(us, them []int16, bucket int, s *scratch) float32 {
	w, l := n.cfg.perView(), &n.first
	n.viewBytes(s.bytes[:w], us)
	n.viewBytes(s.bytes[w:2*w], them)
	sums := s.sums[:l.width]
	clear(sums)
	l.product(sums, s.bytes, s.nnz)
	dense := n.stacks[bucket]
	if d := dense; useAVX2 && len(d) == 1 && d[0].out == 1 && l.out%8 == 0 {
		// The default network: its hidden layer and output in one step.
		return (d[0].b[0] + outputFromSums(&sums[0], &l.k[0], &l.b[0], &d[0].w[:l.out][0], l.out)) * float32(n.cfg.Scale)
	}
	x := s.hidden[0][:l.out]
	l.toFloat(x, sums, len(dense) > 0)
	if len(dense) == 0 {
		return x[bucket] * float32(n.cfg.Scale)
	}
	if d := dense; useAVX2 && len(d) == 2 && d[0].out == 32 && d[1].out == 1 {
		// A second hidden layer of 32: its clip and the output in one
		// step, where the loop below takes a Go clip and dot (docs/nnue.md).
		h := s.hidden[1][:32]
		copy(h, d[0].b)
		affine32(&h[0], &x[0], len(x), &d[0].w[0])
		return (d[1].b[0] + clipDot(&h[0], &d[1].w[0], 32)) * float32(n.cfg.Scale)
	}
	for i, d := range dense {
		out := s.hidden[(i+1)%2][:d.out]
		if d.out == 1 {
			out[0] = d.b[0] + dot(x, d.w)
		} else {
			copy(out, d.b)
			affine(out, x, d.w)
		}
		if i+1 < len(dense) {
			for o, v := range out {
				out[o] = min(max(v, 0), 1)
			}
		}
		x = out
	}
	return x[0] * float32(n.cfg.Scale)
}

// viewBytes writes one view's inputs to the first layer: its clipped
// accumulators as bytes, or with Pairwise their halves' products.
func (n *Net) viewBytes(dst []uint8, acc []int16) {
	if n.cfg.Pairwise {
		pairBytes(dst, acc, int32(n.qa), n.first.shift, n.first.mul)
		return
	}
	clipBytes(dst, acc, int32(n.qa), n.first.mul)
}

// pairBytes writes the products of acc's two halves clipped to [0, top],
// h = len(acc)/2 a multiple of 16 (Config.Validate): with x[i] =
// clip(acc[i]) << shift, z = (x[j]·x[j+h] + 2¹⁴) >> 15 and dst[j] = (z·mul
// + 2¹⁴) >> 15, VPMULHRSW's rounding twice; pairScale picks shift and mul,
// which keep z in int16 and dst at most 127.
func pairBytes(dst []uint8, acc []int16, top int32, shift uint, mul int32) {
	h := len(acc) / 2
	dst = dst[:h]
	switch {
	case useVNNI:
		pairToU8AVX512(&dst[0], &acc[0], h, top, int32(shift), mul)
		return
	case useAVX2:
		pairToU8(&dst[0], &acc[0], h, top, int32(shift), mul)
		return
	}
	clip := func(v int16) int32 { return min(max(int32(v), 0), top) << shift }
	for j := range dst {
		z := (clip(acc[j])*clip(acc[j+h]) + 1<<14) >> 15
		dst[j] = uint8((z*mul + 1<<14) >> 15)
	}
}

// clipBytes writes the accumulators clipped to [0, top] as bytes
// round(c·mul / 2¹⁵), as firstLayer reads them; len(acc) is a multiple of
// 16 (Config.Validate).
func clipBytes(dst []uint8, acc []int16, top, mul int32) {
	dst = dst[:len(acc)]
	if useAVX2 {
		clipToU8(&dst[0], &acc[0], len(acc), top, mul)
		return
	}
	for i, v := range acc {
		dst[i] = uint8(max((min(int32(v), top)*mul+1<<14)>>15, 0))
	}
}

// product adds the layer's integer products of the bytes in to sums
// (width long): with AVX-512 VNNI 32 outputs a pass (a last 16 alone)
// over the chunks of four inputs that are not all 0 (listed in nnz, which
// has room for l.in/4 + 16), with AVX2 32 outputs a pass (a last 16 alone)
// over every input, in plain Go
// input by input, skipping the zeros. All three are exact, so they agree
// to the bit.
func (l *firstLayer) product(sums []int32, in []uint8, nnz []int32) {
	in = in[:l.in]
	if useVNNI {
		chunks := l.in / 4
		n := 0
		if blocks := chunks / 8; blocks > 0 {
			n = nonZeroChunks(&nnz[0], &in[0], blocks)
		}
		for c := chunks / 8 * 8; c < chunks; c++ {
			if in[4*c]|in[4*c+1]|in[4*c+2]|in[4*c+3] != 0 {
				nnz[n] = int32(c)
				n++
			}
		}
		if n == 0 {
			return
		}
		o := 0
		for ; o+32 <= l.width; o += 32 {
			affineU8x32SparseVNNI(&sums[o], &in[0], &nnz[0], n, &l.w[4*o], 4*l.width)
		}
		if o < l.width {
			affineU8x16SparseVNNI(&sums[o], &in[0], &nnz[0], n, &l.w[4*o], 4*l.width)
		}
		return
	}
	if useAVX2 {
		o := 0
		for ; o+32 <= l.width; o += 32 {
			affineU8x32(&sums[o], &in[0], l.in/4, &l.w[4*o], 4*l.width)
		}
		if o < l.width {
			affineU8x16(&sums[o], &in[0], l.in/4, &l.w[4*o], 4*l.width)
		}
		return
	}
	productU8(sums[:l.width], in, l.byInput)
}

// toFloat writes the layer's outputs b + k·sums, clipped to [0, 1] when
// clip (a hidden layer's). The product is rounded before the sum, in both
// paths: float32() keeps the compiler from fusing them.
func (l *firstLayer) toFloat(dst []float32, sums []int32, clip bool) {
	sums = sums[:len(dst)]
	if useAVX2 && clip && len(dst)%8 == 0 {
		hiddenFromSums(&dst[0], &sums[0], &l.k[0], &l.b[0], len(dst))
		return
	}
	k, b := l.k[:len(dst)], l.b[:len(dst)]
	for o, v := range sums {
		y := float32(float32(v)*k[o]) + b[o]
		if clip {
			y = min(max(y, 0), 1)
		}
		dst[o] = y
	}
}

// productU8 is affineU8x32's plain-Go counterpart over all of sums, input
// by input, skipping the zeros (about half of a trained network's); w is
// the weights input by input (firstLayer.byInput).
func productU8(sums []int32, in []uint8, w []int8) {
	m := len(sums)
	for i, v := range in {
		if v == 0 {
			continue
		}
		x, r := int32(v), w[i*m:][:m]
		for o := range sums {
			sums[o] += x * int32(r[o])
		}
	}
}

// dot is Σ x[i]·w[i], for a layer with one output: eight partial sums,
// then lanes j and j+4, then 0+2 and 1+3, then those two, the order in
// which outputFromSums adds its eight lanes (float32() keeps the compiler
// from fusing a product into the sum).
func dot(x, w []float32) float32 {
	w = w[:len(x)]
	var s [8]float32
	i := 0
	for ; i+8 <= len(x); i += 8 {
		for j := range s {
			s[j] += float32(x[i+j] * w[i+j])
		}
	}
	for ; i < len(x); i++ {
		s[0] += float32(x[i] * w[i])
	}
	return (s[0] + s[4] + (s[2] + s[6])) + (s[1] + s[5] + (s[3] + s[7]))
}

// affine adds x · w (len(x) × len(out)) to out, for the float layers after
// the first. With AVX2, 32 outputs take one pass, each broadcast input
// feeding four FMAs, other multiples of 8 go eight outputs at a time; in
// plain Go input by input, skipping x's zeros.
func affine(out, x, w []float32) {
	m := len(out)
	if useAVX2 && m == 32 && len(w) >= len(x)*m {
		affine32(&out[0], &x[0], len(x), &w[0])
		return
	}
	if useAVX2 && m%8 == 0 && len(w) >= len(x)*m {
		for c := 0; c < m; c += 8 {
			affineBlock8(&out[c], &x[0], len(x), &w[c], m)
		}
		return
	}
	for i, v := range x {
		if v == 0 {
			continue
		}
		r := w[i*m:][:m]
		for o := range out {
			out[o] += v * r[o]
		}
	}
}
