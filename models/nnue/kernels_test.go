package nnue

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dchess/dchess/search"
)

// TestKernelsAgree compares the AVX2 kernels with the plain-Go loops: the
// int16 updates and the clip exactly, the dense product to float32
// rounding (its sums are taken in a different order), and the scores of
// the bench positions and their moves to the centipawn.
func TestKernelsAgree(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 and FMA here")
	}
	defer func(saved bool) { useAVX2 = saved }(useAVX2)
	rng := rand.New(rand.NewPCG(8, 9))
	const n = 256
	ints := func() []int16 {
		v := make([]int16, n)
		for i := range v {
			v[i] = int16(rng.IntN(4001) - 2000)
		}
		return v
	}
	src, a, s1, s2 := ints(), ints(), ints(), ints()
	run := func(asm bool) (sub, subSub []int16, clamped, product, sparse []float32) {
		useAVX2 = asm
		sub, subSub = make([]int16, n), make([]int16, n)
		addSub(sub, src, a, s1)
		addSubSub(subSub, src, a, s1, s2)
		// The generic path (castling, refreshes): add and subtract in place.
		both := slices.Clone(src)
		addTo(both, a)
		subFrom(both, s2)
		sub = append(sub, both...)
		clamped = make([]float32, n)
		clampInto(clamped, src, 1000)
		w := make([]float32, n*32)
		for i := range w {
			w[i] = float32(math.Sin(float64(i)))
		}
		nz := make([]int32, n+8)
		product = make([]float32, 32)
		affine(product, clamped[:n-3], w, nz) // every input, a count off the kernel's step of 2
		sparse = make([]float32, 32)
		affine(sparse, clamped, w, nz) // the non-zero inputs only
		return sub, subSub, clamped, product, sparse
	}
	sub, subSub, clamped, product, sparse := run(true)
	gsub, gsubSub, gclamped, gproduct, gsparse := run(false)
	if zeros := n - len(slices.DeleteFunc(slices.Clone(clamped), func(v float32) bool { return v == 0 })); zeros < n/4 || zeros > 3*n/4 {
		t.Fatalf("%d of %d clipped values are zero: the sparse product needs both", zeros, n)
	}
	product, gproduct = append(product, sparse...), append(gproduct, gsparse...)
	if !slices.Equal(sub, gsub) || !slices.Equal(subSub, gsubSub) || !slices.Equal(clamped, gclamped) {
		t.Fatal("the int16 kernels differ from the plain-Go loops")
	}
	for i := range product {
		if math.Abs(float64(product[i]-gproduct[i])) > 1e-5*math.Max(1, math.Abs(float64(gproduct[i]))) {
			t.Fatalf("product %d: AVX2 %g, Go %g", i, product[i], gproduct[i])
		}
	}
	net := benchNet(t)
	scores := func(asm bool) []int {
		useAVX2 = asm
		e := NewEvaluator(net)
		var out []int
		for _, fen := range search.BenchPositions {
			b := mustFEN(t, fen)
			e.Root(b)
			for _, m := range b.LegalMoves() {
				e.MakeMove(b, m)
				b.Make(m)
				out = append(out, e.Evaluate(b))
				b.Unmake()
				e.Unmake()
			}
		}
		return out
	}
	asm, plain := scores(true), scores(false)
	for i := range asm {
		if d := asm[i] - plain[i]; d < -1 || d > 1 {
			t.Fatalf("position %d: AVX2 %d cp, Go %d cp", i, asm[i], plain[i])
		}
	}
}
