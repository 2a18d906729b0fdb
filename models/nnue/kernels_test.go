package nnue

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search"
)

// TestKernelsAgree compares the AVX2 kernels with the plain-Go loops: the
// int16 updates exactly, the float product of the layers after the first
// to float32 rounding (its sums are taken in a different order), and the
// scores of the bench positions and their moves exactly: the first layer
// is integer arithmetic, which TestIntegerKernelsAgree checks, and the
// default network's output layer is the same Go code on both paths.
func TestKernelsAgree(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 and FMA here")
	}
	paths := kernelPaths()
	defer savedKernels()()
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
	x := make([]float32, n)
	for i := range x {
		x[i] = max(0, rng.Float32()*2-1)
	}
	w := make([]float32, n*32)
	for i := range w {
		w[i] = float32(math.Sin(float64(i)))
	}
	run := func(asm bool) (sub, subSub []int16, product []float32) {
		useAVX2, useVNNI = asm, false
		sub, subSub = make([]int16, n), make([]int16, n)
		addSub(sub, src, a, s1)
		addSubSub(subSub, src, a, s1, s2)
		// The generic path (castling, refreshes): add and subtract in place.
		both := slices.Clone(src)
		addTo(both, a)
		subFrom(both, s2)
		sub = append(sub, both...)
		product = make([]float32, 32+16)
		affine(product[:32], x[:n-3], w)  // 32 outputs, a count off the kernel's step of 2
		affine(product[32:], x, w[:n*16]) // eight at a time
		return sub, subSub, product
	}
	sub, subSub, product := run(true)
	gsub, gsubSub, gproduct := run(false)
	if !slices.Equal(sub, gsub) || !slices.Equal(subSub, gsubSub) {
		t.Fatal("the int16 kernels differ from the plain-Go loops")
	}
	for i := range product {
		if math.Abs(float64(product[i]-gproduct[i])) > 1e-5*math.Max(1, math.Abs(float64(gproduct[i]))) {
			t.Fatalf("product %d: AVX2 %g, Go %g", i, product[i], gproduct[i])
		}
	}
	net := benchNet(t)
	var scores [][]int
	for _, p := range paths {
		p.use()
		scores = append(scores, benchMoveScores(t, net))
	}
	plain := scores[len(scores)-1]
	for k, got := range scores {
		for i := range got {
			if got[i] != plain[i] {
				t.Fatalf("position %d: %s %d cp, Go %d cp", i, paths[k].name, got[i], plain[i])
			}
		}
	}
}

// kernelPath is one of the ways the first layer can run here.
type kernelPath struct {
	name       string
	avx2, vnni bool
}

// kernelPaths lists the vector paths this machine has, and plain Go last.
func kernelPaths() []kernelPath {
	var out []kernelPath
	if useVNNI {
		out = append(out, kernelPath{"AVX-512 VNNI", true, true})
	}
	if useAVX2 {
		out = append(out, kernelPath{"AVX2", true, false})
	}
	return append(out, kernelPath{"Go", false, false})
}

// use switches to p's kernels.
func (p kernelPath) use() { useAVX2, useVNNI = p.avx2, p.vnni }

// savedKernels returns a function that puts the kernels in use now back.
func savedKernels() func() {
	avx2, vnni := useAVX2, useVNNI
	return func() { useAVX2, useVNNI = avx2, vnni }
}

// TestIntegerKernelsAgree checks the first layer's kernels against the
// plain-Go loops to the bit, on random values and on the extremes: the
// clip to bytes on int16 values from -32768 to 32767 with the steps of the
// smallest, the shipped and the largest qa; the product on bytes 0 and
// 127 with weights -128 and 127 (where VPMADDUBSW's pair sums are largest,
// 32,512, yet below saturation), over odd and even chunk counts and one or
// two blocks of 32 outputs, a block of 16 alone and after 32 (a layer is
// as wide as its outputs rounded up to 16); and the sums' conversion to
// the hidden layer.
func TestIntegerKernelsAgree(t *testing.T) {
	paths := kernelPaths()
	if len(paths) == 1 {
		t.Skip("no AVX2 here")
	}
	defer savedKernels()()
	rng := rand.New(rand.NewPCG(10, 11))
	for _, qa := range []int32{16, 1384, maxQA} {
		mul := int32(min(math.Floor(u8Top*(1<<15)/float64(qa)), math.MaxInt16))
		for _, n := range []int{16, 48, 256} {
			acc := randomAccumulators(rng, qa, n)
			var got [][]uint8
			for _, p := range paths {
				p.use()
				bytes := make([]uint8, n)
				clipBytes(bytes, acc, qa, mul)
				got = append(got, bytes)
			}
			for k := range got {
				if !slices.Equal(got[k], got[len(got)-1]) {
					t.Fatalf("qa %d, %d values: clipped to bytes %s %v, Go %v", qa, n, paths[k].name, got[k], got[len(got)-1])
				}
			}
			// 127 for the clip's top, but a qa below 128 keeps its own steps.
			if top, want := slices.Max(got[0]), uint8((qa*mul+1<<14)>>15); top != want || want != u8Top && qa >= u8Top {
				t.Errorf("qa %d: the largest byte is %d, want %d", qa, top, want)
			}
		}
	}
	for _, c := range []struct {
		name      string
		in, width int
		input     func(i int) uint8
		weight    func(i int) int8
	}{
		{"random", 512, 32, func(int) uint8 { return uint8(rng.IntN(128)) }, func(int) int8 { return int8(rng.IntN(256) - 128) }},
		{"sparse odd chunks", 36, 64, func(int) uint8 { return [...]uint8{0, 0, 127, uint8(rng.IntN(128))}[rng.IntN(4)] },
			func(int) int8 { return [...]int8{-128, 127, int8(rng.IntN(256) - 128)}[rng.IntN(3)] }},
		// A layer of 16 outputs, and of 48 (32 and a last 16), over 11
		// chunks: the sparse product's four a step and three alone.
		{"16 outputs", 512, 16, func(int) uint8 { return uint8(rng.IntN(128)) }, func(int) int8 { return int8(rng.IntN(256) - 128) }},
		{"48 outputs, sparse", 44, 48, func(int) uint8 { return [...]uint8{0, 0, 127, uint8(rng.IntN(128))}[rng.IntN(4)] },
			func(int) int8 { return [...]int8{-128, 127, int8(rng.IntN(256) - 128)}[rng.IntN(3)] }},
		{"16 outputs, largest", 512, 16, func(int) uint8 { return 127 }, func(int) int8 { return 127 }},
		{"largest", 512, 32, func(int) uint8 { return 127 }, func(int) int8 { return 127 }},
		{"most negative", 4, 32, func(int) uint8 { return 127 }, func(int) int8 { return -128 }},
		{"checkerboard", 512, 64, func(int) uint8 { return 127 }, func(i int) int8 { return [...]int8{-128, 127}[(i/64+i)%2] }},
		{"zeros", 512, 32, func(int) uint8 { return 0 }, func(int) int8 { return -128 }},
		// Three chunks of five all 0, as the sparse product skips them.
		{"zero chunks", 520, 32, func(i int) uint8 {
			if (i/4*7919)%5 < 3 {
				return 0
			}
			return uint8(rng.IntN(128))
		}, func(int) int8 { return int8(rng.IntN(256) - 128) }},
	} {
		l := newFirstLayer(c.in, c.width)
		if l.width != c.width {
			t.Fatalf("%s: a layer of %d outputs is %d wide", c.name, c.width, l.width)
		}
		in := make([]uint8, c.in)
		for i := range in {
			in[i] = c.input(i)
		}
		weights := make([]int8, c.in*c.width) // in × width
		for i := range weights {
			weights[i] = c.weight(i)
			l.set(i/c.width, i%c.width, weights[i])
		}
		// The sums from the definition; the kernels add to what is there.
		want := make([]int32, c.width)
		for o := range want {
			want[o] = int32(o) - 7
			for i := range c.in {
				want[o] += int32(in[i]) * int32(weights[i*c.width+o])
			}
		}
		for _, p := range paths {
			p.use()
			got := make([]int32, c.width)
			for o := range got {
				got[o] = int32(o) - 7
			}
			l.product(got, in, make([]int32, c.in/4+16))
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %s: %v, want %v", c.name, p.name, got, want)
			}
		}
	}
	const width = 40 // five steps of 8
	l := newFirstLayer(4, width)
	sums := make([]int32, width)
	for o := range width {
		l.k[o] = rng.Float32() / 2000
		l.b[o] = rng.Float32()*2 - 1
		sums[o] = [...]int32{0, -1, 1, 1e4, -1e4, int32(rng.IntN(8e6) - 4e6), 8_323_072, -8_388_608}[rng.IntN(8)]
	}
	var hidden [][]float32
	for _, p := range paths {
		p.use()
		h := make([]float32, width)
		l.toFloat(h, sums, true)
		hidden = append(hidden, h)
	}
	for k := range hidden {
		if !slices.Equal(hidden[k], hidden[len(hidden)-1]) {
			t.Fatalf("hidden layer %s %v, Go %v", paths[k].name, hidden[k], hidden[len(hidden)-1])
		}
	}
	// The default network's hidden layer and output in one step, against
	// the plain-Go hidden layer and dot, to the bit.
	out := make([]float32, width)
	for o := range out {
		out[o] = rng.Float32()*2 - 1
	}
	if want, got := dot(hidden[len(hidden)-1], out), outputFromSums(&sums[0], &l.k[0], &l.b[0], &out[0], width); got != want {
		t.Fatalf("output %v, Go %v", got, want)
	}
}

// randomAccumulators are n int16 values for accumulators of qa steps a
// unit: a quarter the extremes of int16 and of the clip, a quarter any
// int16, half in and about the clip's range.
func randomAccumulators(rng *rand.Rand, qa int32, n int) []int16 {
	acc := make([]int16, n)
	for i := range acc {
		switch rng.IntN(4) {
		case 0:
			acc[i] = [...]int16{math.MinInt16, -1, 0, 1, int16(qa) - 1, int16(qa), int16(qa) + 1, math.MaxInt16}[rng.IntN(8)]
		case 1:
			acc[i] = int16(rng.IntN(1 << 16))
		default:
			acc[i] = int16(rng.Int32N(qa+qa/2) - qa/4)
		}
	}
	return acc
}

// TestPairKernelsAgree checks the pairwise products' kernels against the
// plain-Go loop to the bit, at the smallest, the shipped and the largest
// qa: random values against themselves reversed (the extremes meet), and
// every clipped value against a few others, so that both roundings'
// edges are met; and the product of two clip tops is a byte of 126 or 127.
func TestPairKernelsAgree(t *testing.T) {
	paths := kernelPaths()
	if len(paths) == 1 {
		t.Skip("no AVX2 here")
	}
	defer savedKernels()()
	rng := rand.New(rand.NewPCG(12, 13))
	for _, qa := range []int32{16, 1384, maxQA} {
		shift, mul, _ := pairScale(qa)
		agree := func(acc []int16, what string) []uint8 {
			var got [][]uint8
			for _, p := range paths {
				p.use()
				bytes := make([]uint8, len(acc)/2)
				pairBytes(bytes, acc, qa, shift, mul)
				got = append(got, bytes)
			}
			for k := range got {
				if !slices.Equal(got[k], got[len(got)-1]) {
					t.Fatalf("qa %d, %s: pairwise bytes %s %v, Go %v", qa, what, paths[k].name, got[k], got[len(got)-1])
				}
			}
			return got[0]
		}
		for _, n := range []int{16, 48, 256} {
			acc := randomAccumulators(rng, qa, n)
			pairs := append(slices.Clone(acc), acc...)
			slices.Reverse(pairs[n:])
			agree(pairs, fmt.Sprintf("%d random pairs", n))
		}
		h := (int(qa) + 2 + 15) / 16 * 16
		every := make([]int16, 2*h)
		for _, other := range []int16{1, 7, int16(qa / 3), int16(qa/2 + 1), int16(qa - 1), int16(qa)} {
			for j := range h {
				every[j], every[h+j] = int16(j-1), other
			}
			agree(every, fmt.Sprintf("every value times %d", other))
		}
		top := make([]int16, 32)
		for i := range top {
			top[i] = int16(qa)
		}
		if b := agree(top, "the clip's tops")[0]; b > u8Top || b < u8Top-1 {
			t.Errorf("qa %d: the product of two clip tops is the byte %d, want 126 or 127", qa, b)
		}
	}
}

// TestUpdateViewsAgree checks the 512-bit updates of both views (a quiet
// move and a capture) against the plain-Go loops, exactly, at widths with
// and without an odd block of 16 values.
func TestUpdateViewsAgree(t *testing.T) {
	if !useVNNI {
		t.Skip("no AVX-512 here")
	}
	defer savedKernels()()
	rng := rand.New(rand.NewPCG(12, 13))
	for _, w := range []int{16, 48, 256} {
		n := &Net{cfg: Config{Accumulator: w}, ftw: make([]int16, Features*w)}
		for i := range n.ftw {
			n.ftw[i] = int16(rng.IntN(4001) - 2000)
		}
		parent := &frame{acc: [2][]int16{make([]int16, w), make([]int16, w)}}
		for _, acc := range parent.acc {
			for i := range acc {
				acc[i] = int16(rng.IntN(20001) - 10000)
			}
		}
		change := func() pieceChange {
			return pieceChange{board.Color(rng.IntN(2)), board.Piece(1 + rng.IntN(6)), uint8(rng.IntN(64))}
		}
		for _, nSub := range []int{1, 2} {
			move := frame{add: [2]pieceChange{change()}, sub: [2]pieceChange{change(), change()}, nAdd: 1, nSub: nSub}
			var got [][2][]int16
			for _, p := range []kernelPath{{"AVX-512", true, true}, {"Go", false, false}} {
				p.use()
				child := move
				child.acc = [2][]int16{make([]int16, w), make([]int16, w)}
				n.update(parent, &child)
				got = append(got, child.acc)
			}
			for v := range 2 {
				if !slices.Equal(got[0][v], got[1][v]) {
					t.Fatalf("width %d, %d removed, view %d: AVX-512 %v, Go %v", w, nSub, v, got[0][v], got[1][v])
				}
			}
		}
	}
}

// TestClipDotAgrees checks the clip and output kernel of a second hidden
// layer to the bit against a Go clip and dot, whose order it keeps; and a
// network with hidden [32, 32] scores the bench positions' moves within a
// centipawn of the plain-Go loops, whose float sums run in another order.
func TestClipDotAgrees(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 and FMA here")
	}
	rng := rand.New(rand.NewPCG(10, 11))
	for _, n := range []int{8, 32, 64} {
		x, w := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], w[i] = rng.Float32()*2-0.5, rng.Float32()*2-1 // a quarter below 0 and a quarter above 1
		}
		clipped := make([]float32, n)
		for i, v := range x {
			clipped[i] = min(max(v, 0), 1)
		}
		if want, got := dot(clipped, w), clipDot(&x[0], &w[0], n); got != want {
			t.Fatalf("%d values: clipDot %v, Go %v", n, got, want)
		}
	}

	c := DefaultConfig()
	c.Hidden = []int{32, 32}
	m := newModel(t, c)
	net, err := NewNet(weightsFile(t, m, m.InitParams(3)))
	if err != nil {
		t.Fatal(err)
	}
	defer savedKernels()()
	useAVX2, useVNNI = true, false
	vector := benchMoveScores(t, net)
	useAVX2 = false
	plain := benchMoveScores(t, net)
	distinct := map[int]bool{}
	for i, got := range vector {
		if d := got - plain[i]; d < -1 || d > 1 {
			t.Fatalf("position %d: AVX2 %d cp, Go %d cp", i, got, plain[i])
		}
		distinct[got] = true
	}
	if len(distinct) < 10 {
		t.Fatalf("only %d distinct scores: the network does not reach the second layer's values", len(distinct))
	}
}

// benchMoveScores is net's score after each legal move of each bench
// position, made and taken back through one evaluator.
func benchMoveScores(t *testing.T, net *Net) []int {
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
