package nnue

import (
	"math/bits"

	"github.com/dchess/dchess/search/board"
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
	input  []float32 // the dense layers' input, 2N
	hidden [2][]float32
	nz     []int32 // the indices of input's non-zero values, with the kernel's slack
}

func newScratch(c Config) scratch {
	s := scratch{input: make([]float32, 2*c.Accumulator), nz: make([]int32, 2*c.Accumulator+8)}
	for i := range s.hidden {
		s.hidden[i] = make([]float32, max(1, maxOf(c.Hidden)))
	}
	return s
}

// score runs the dense layers on the two clipped accumulators, the side to
// move's first, and returns centipawns.
func (n *Net) score(us, them []int16, s *scratch) float32 {
	w := n.cfg.Accumulator
	clampInto(s.input[:w], us, n.qa)
	clampInto(s.input[w:], them, n.qa)
	x := s.input
	for l, d := range n.dense {
		out := s.hidden[l%2][:d.out]
		copy(out, d.b)
		affine(out, x, d.w, s.nz)
		if l+1 < len(n.dense) {
			for o, v := range out {
				out[o] = min(max(v, 0), 1)
			}
		}
		x = out
	}
	return x[0] * float32(n.cfg.Scale)
}

// clampInto writes the clipped accumulators as float32.
func clampInto(dst []float32, acc []int16, qa float32) {
	if useAVX2 {
		clampToFloat(&dst[0], &acc[0], len(acc), int32(qa))
		return
	}
	top := int16(qa)
	dst = dst[:len(acc)]
	for i, v := range acc {
		dst[i] = float32(min(max(v, 0), top))
	}
}

// affine adds x · w (len(x) × len(out)) to out, skipping x's zeros (the
// clip's: about half the accumulators of a trained network). With AVX2,
// 32 outputs (the default first layer) take one pass, each broadcast input
// feeding four FMAs, over the non-zero inputs listed first into nz (len(x)
// + 8 values) when len(x) is a multiple of 8; other widths go eight
// outputs at a time over every input. In plain Go input by input.
func affine(out, x, w []float32, nz []int32) {
	m := len(out)
	if useAVX2 && m == 32 && len(w) >= len(x)*m {
		if len(x)%8 == 0 && len(nz) >= len(x)+8 {
			count := nonZero(&nz[0], &x[0], len(x), &nonZeroTable)
			if count > 0 {
				affine32Sparse(&out[0], &x[0], &nz[0], count, &w[0])
			}
			return
		}
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

// nonZeroTable[mask] lists the positions of mask's set bits, for nonZero.
var nonZeroTable = func() (t [256][8]int32) {
	for mask := range t {
		k := 0
		for bit := range 8 {
			if mask&(1<<bit) != 0 {
				t[mask][k] = int32(bit)
				k++
			}
		}
	}
	return t
}()
