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
		r := n.row(f)[:len(acc)]
		for i := range acc {
			acc[i] += r[i]
		}
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

func addSub(dst, src, a, s []int16) {
	src, a, s = src[:len(dst)], a[:len(dst)], s[:len(dst)]
	for i := range dst {
		dst[i] = src[i] + a[i] - s[i]
	}
}

func addSubSub(dst, src, a, s1, s2 []int16) {
	src, a, s1, s2 = src[:len(dst)], a[:len(dst)], s1[:len(dst)], s2[:len(dst)]
	for i := range dst {
		dst[i] = src[i] + a[i] - s1[i] - s2[i]
	}
}

func addTo(dst, a []int16) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] += a[i]
	}
}

func subFrom(dst, s []int16) {
	s = s[:len(dst)]
	for i := range dst {
		dst[i] -= s[i]
	}
}

// score runs the dense layers on the two clipped accumulators, the side to
// move's first, and returns centipawns.
func (n *Net) score(us, them []int16, input []float32, hidden [2][]float32) float32 {
	qa := int16(n.qa)
	w := n.cfg.Accumulator
	for i, v := range us {
		input[i] = float32(min(max(v, 0), qa))
	}
	for i, v := range them {
		input[w+i] = float32(min(max(v, 0), qa))
	}
	x := input
	for l, d := range n.dense {
		out := hidden[l%2][:d.out]
		copy(out, d.b)
		// Row by row over the inputs, skipping the clip's zeros: about
		// half of the accumulators in trained networks.
		for i, v := range x {
			if v == 0 {
				continue
			}
			r := d.w[i*d.out:][:d.out]
			for o := range out {
				out[o] += v * r[o]
			}
		}
		if l+1 < len(n.dense) {
			for o, v := range out {
				out[o] = min(max(v, 0), 1)
			}
		}
		x = out
	}
	return x[0] * float32(n.cfg.Scale)
}
