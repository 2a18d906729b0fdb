package nnue

import (
	"math/bits"
	"slices"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search"
)

// zeroGroups orders the accumulator's units so that the first layer's
// chunks of four input bytes are all 0 as often as can be found, for the
// sparse product to skip: most of a trained network's clipped bytes are 0,
// but few whole chunks of four in the trained order. It samples the bytes
// of both views of the bench positions
// and the positions after each of their legal moves, then fills each chunk
// greedily: the unit most often 0 of those left, then, three times, the
// unit most often 0 at the same time as the chunk so far, which makes many
// more of the chunks a bench search evaluates 0
// (docs/results/2026-11-26-nnue-node-speed-sparse.md).
// With Pairwise the units are the products, unit j and j + N/2 a pair.
// The result is perm, perm[j] the unit that goes to place j.
func (n *Net) zeroGroups() []int {
	units := n.cfg.perView()
	e := NewEvaluator(n)
	var zero [][]uint64 // zero[u] is a bitset over the samples
	for u := 0; u < units; u++ {
		zero = append(zero, nil)
	}
	samples := 0
	bytes := make([]uint8, units)
	add := func(b *board.Board) {
		e.refresh(&e.frames[0], b)
		for _, acc := range e.frames[0].acc {
			n.viewBytes(bytes, acc)
			if samples%64 == 0 {
				for u := range zero {
					zero[u] = append(zero[u], 0)
				}
			}
			for u, v := range bytes {
				if v == 0 {
					zero[u][samples/64] |= 1 << (samples % 64)
				}
			}
			samples++
		}
	}
	for _, fen := range search.BenchPositions {
		b, err := board.FromFEN(fen)
		if err != nil {
			panic(err) // the bench positions are fixed and valid
		}
		add(b)
		for _, m := range b.LegalMoves() {
			b.Make(m)
			add(b)
			b.Unmake()
		}
	}
	count := func(set []uint64) (c int) {
		for _, w := range set {
			c += bits.OnesCount64(w)
		}
		return c
	}
	byZeros := make([]int, units)
	for u := range byZeros {
		byZeros[u] = u
	}
	// Stable, so that ties keep the trained order and every load agrees.
	slices.SortStableFunc(byZeros, func(a, b int) int { return count(zero[b]) - count(zero[a]) })
	used := make([]bool, units)
	perm := make([]int, 0, units)
	chunk := make([]uint64, len(zero[0]))
	for len(perm) < units {
		seed := byZeros[slices.IndexFunc(byZeros, func(u int) bool { return !used[u] })]
		used[seed] = true
		perm = append(perm, seed)
		copy(chunk, zero[seed])
		for range 3 {
			best, bestCount := -1, -1
			for _, u := range byZeros {
				if used[u] {
					continue
				}
				c := 0
				for i, w := range chunk {
					c += bits.OnesCount64(w & zero[u][i])
				}
				if c > bestCount {
					best, bestCount = u, c
				}
			}
			used[best] = true
			perm = append(perm, best)
			for i := range chunk {
				chunk[i] &= zero[best][i]
			}
		}
	}
	return perm
}

// permuteUnits reorders the float weights w (by tensor name) so that the
// first dense layer's input perm[j] of each view becomes input j: the
// feature transformer's columns and bias (with Pairwise the pair perm[j]
// and perm[j] + N/2 becomes j and j + N/2), and the dense layer's rows in
// both views' halves.
func permuteUnits(cfg Config, w map[string][]float32, perm []int) {
	units, per := cfg.Accumulator, cfg.perView()
	ftw, ftb := w["ft.w"], w["ft.b"]
	newW, newB := make([]float32, len(ftw)), make([]float32, len(ftb))
	for base := 0; base < units; base += per {
		for j, u := range perm {
			for f := 0; f < Features; f++ {
				newW[f*units+base+j] = ftw[f*units+base+u]
			}
			newB[base+j] = ftb[base+u]
		}
	}
	w["ft.w"], w["ft.b"] = newW, newB
	fc := w[denseName(0)+".w"]
	out := len(fc) / (2 * per)
	newFC := make([]float32, len(fc))
	for half := 0; half < 2; half++ {
		for j, u := range perm {
			copy(newFC[(half*per+j)*out:][:out], fc[(half*per+u)*out:][:out])
		}
	}
	w[denseName(0)+".w"] = newFC
}
