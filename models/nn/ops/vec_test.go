package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// clipValue draws the values a clip must treat with care: both zeros, 0
// and 1 themselves, values just inside and outside [0, 1], subnormals,
// infinities and NaN, and ordinary ones.
func clipValue(rng *rand.Rand) float32 {
	specials := []float32{0, float32(math.Copysign(0, -1)), 1, math.Nextafter32(1, 2), math.Nextafter32(1, 0),
		math.Nextafter32(0, 1), math.Nextafter32(0, -1), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40, -1e-40}
	if rng.IntN(3) == 0 {
		return specials[rng.IntN(len(specials))]
	}
	return float32(rng.NormFloat64())
}

// sameBits says whether a and b are the same float32, any NaN matching
// any NaN (the assembly keeps a NaN's payload; Go's min and max need not).
func sameBits(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

// TestClipKernelsAgree: the clip and its gradient in assembly give the Go
// loops' bits for every value, lengths with a tail included.
func TestClipKernelsAgree(t *testing.T) {
	if !useVecAsm {
		t.Skip("no assembly clip on this machine")
	}
	rng := rand.New(rand.NewPCG(7, 3))
	for _, n := range []int{8, 13, 256, 1031} {
		for round := 0; round < 20; round++ {
			x := make([]float32, n)
			for i := range x {
				x[i] = clipValue(rng)
			}
			goClip, asmClip := slices.Clone(x), slices.Clone(x)
			clip01(goClip, false)
			clip01(asmClip, true)
			for i := range x {
				if !sameBits(goClip[i], asmClip[i]) {
					t.Fatalf("clip of %g (%#x): Go %g (%#x), assembly %g (%#x)", x[i], math.Float32bits(x[i]),
						goClip[i], math.Float32bits(goClip[i]), asmClip[i], math.Float32bits(asmClip[i]))
				}
			}
			// The gradient reads the clip's outputs, and the raw values too.
			y := goClip
			if round%2 == 1 {
				y = x
			}
			dout := make([]float32, n)
			for i := range dout {
				dout[i] = clipValue(rng)
			}
			goGrad, asmGrad := make([]float32, n), make([]float32, n)
			for i := range asmGrad {
				asmGrad[i] = 42 // every value is written
			}
			clipGrad(goGrad, y, dout, false)
			clipGrad(asmGrad, y, dout, true)
			for i := range y {
				if math.Float32bits(goGrad[i]) != math.Float32bits(asmGrad[i]) {
					t.Fatalf("gradient at y %g, dout %g: Go %#x, assembly %#x", y[i], dout[i],
						math.Float32bits(goGrad[i]), math.Float32bits(asmGrad[i]))
				}
			}
		}
	}
}

// BenchmarkClip times the clip and its gradient over a batch of 1,024
// positions' two 256-wide accumulators, in Go and in assembly.
func BenchmarkClip(b *testing.B) {
	const n = 1024 * 2 * 256
	rng := rand.New(rand.NewPCG(1, 1))
	x, y, g, dout := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], dout[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	for _, asm := range []bool{false, true} {
		if asm && !useVecAsm {
			continue
		}
		name := map[bool]string{false: "go", true: "asm"}[asm]
		b.Run("clip/"+name, func(b *testing.B) {
			for b.Loop() {
				copy(y, x)
				clip01(y, asm)
			}
		})
		b.Run("grad/"+name, func(b *testing.B) {
			for b.Loop() {
				clipGrad(g, y, dout, asm)
			}
		})
	}
}

// TestMulVecAgrees: the products in assembly are the Go loop's bits.
func TestMulVecAgrees(t *testing.T) {
	if !useVecAsm {
		t.Skip("no assembly products on this machine")
	}
	rng := rand.New(rand.NewPCG(9, 4))
	for _, n := range []int{8, 13, 256, 1031} {
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = clipValue(rng), clipValue(rng)
		}
		goProd, asmProd := make([]float32, n), make([]float32, n)
		mulVec(goProd, x, y, false)
		mulVec(asmProd, x, y, true)
		for i := range x {
			if !sameBits(goProd[i], asmProd[i]) {
				t.Fatalf("%g·%g: Go %#x, assembly %#x", x[i], y[i], math.Float32bits(goProd[i]), math.Float32bits(asmProd[i]))
			}
		}
	}
}

// TestActivationKernelsAgree: the ReLUs and their gradients in assembly
// give the Go loops' bits (a NaN's payload aside in the forward pass), for
// outputs as the forward pass leaves them and for any value, negative
// NaNs and -0 included.
func TestActivationKernelsAgree(t *testing.T) {
	if !useVecAsm {
		t.Skip("no assembly activations on this machine")
	}
	rng := rand.New(rand.NewPCG(5, 8))
	negNaN := math.Float32frombits(0xffc00001)
	for _, act := range []string{ActReLU, ActClippedReLU} {
		for _, n := range []int{8, 13, 256, 1031} {
			for round := 0; round < 20; round++ {
				x := make([]float32, n)
				for i := range x {
					x[i] = clipValue(rng)
					if rng.IntN(50) == 0 {
						x[i] = negNaN
					}
				}
				goOut, asmOut := slices.Clone(x), slices.Clone(x)
				activateOn(act, goOut, false)
				activateOn(act, asmOut, true)
				for i := range x {
					if !sameBits(goOut[i], asmOut[i]) {
						t.Fatalf("%s of %#x: Go %#x, assembly %#x", act, math.Float32bits(x[i]), math.Float32bits(goOut[i]), math.Float32bits(asmOut[i]))
					}
				}
				h := goOut
				if round%2 == 1 {
					h = x
				}
				g := make([]float32, n)
				for i := range g {
					g[i] = clipValue(rng)
				}
				goGrad, asmGrad := slices.Clone(g), slices.Clone(g)
				activationGradOn(act, h, goGrad, false)
				activationGradOn(act, h, asmGrad, true)
				for i := range g {
					if math.Float32bits(goGrad[i]) != math.Float32bits(asmGrad[i]) {
						t.Fatalf("%s gradient at h %#x, g %#x: Go %#x, assembly %#x", act, math.Float32bits(h[i]), math.Float32bits(g[i]),
							math.Float32bits(goGrad[i]), math.Float32bits(asmGrad[i]))
					}
				}
			}
		}
	}
}

// TestTransposeKernelAgrees: the transpose with 8 × 8 blocks in assembly
// writes what the Go loops write, for shapes with and without ragged
// edges, strides wider than the rows, slices that end at the last value,
// and leaves the rest of dst alone.
func TestTransposeKernelAgrees(t *testing.T) {
	if !useVecAsm {
		t.Skip("no assembly transpose on this machine")
	}
	rng := rand.New(rand.NewPCG(6, 6))
	for _, shape := range [][2]int{{8, 8}, {16, 24}, {9, 8}, {8, 13}, {23, 37}, {64, 32}, {3, 40}, {40, 3}, {7, 7}} {
		rows, cols := shape[0], shape[1]
		for _, pad := range []int{0, 5} {
			lds, ldd := cols+pad, rows+2*pad
			src := make([]float32, (rows-1)*lds+cols)
			for i := range src {
				src[i] = float32(rng.NormFloat64())
			}
			want, got := make([]float32, (cols-1)*ldd+rows), make([]float32, (cols-1)*ldd+rows)
			for i := range want {
				want[i], got[i] = -1, -1
			}
			transposeOn(rows, cols, src, lds, want, ldd, false)
			transposeOn(rows, cols, src, lds, got, ldd, true)
			if !slices.Equal(got, want) {
				t.Fatalf("%d × %d, strides %d and %d: assembly %v, Go %v", rows, cols, lds, ldd, got, want)
			}
			for c := 0; c < cols; c++ {
				for r := 0; r < rows; r++ {
					if got[c*ldd+r] != src[r*lds+c] {
						t.Fatalf("%d × %d: value (%d, %d) not transposed", rows, cols, r, c)
					}
				}
			}
		}
	}
}

// TestFeatureSumsAgree: the feature transformer's forward pass with its
// sums in AVX-512 registers writes the bits of the pass that adds row by
// row in memory, for widths of one and two register blocks, empty and full
// perspectives, repeated features, and rows the sums must leave to Go.
func TestFeatureSumsAgree(t *testing.T) {
	if !useAVX512 {
		t.Skip("no AVX-512 on this machine")
	}
	rng := rand.New(rand.NewPCG(3, 9))
	for _, width := range []int{256, 512} {
		for _, clipped := range []bool{false, true} {
			f := &featureTransformer{features: 40, width: width, batch: 37, perspectives: 2, slots: 9, clipped: clipped}
			w, b := make([]float32, f.features*width), make([]float32, width)
			for i := range w {
				w[i] = clipValue(rng)
			}
			for i := range b {
				b[i] = clipValue(rng)
			}
			active := randomSlots(rng, f, f.features)
			clear(active[:f.slots]) // a perspective with no feature
			want, got := make([]float32, f.batch*f.perspectives*width), make([]float32, f.batch*f.perspectives*width)
			f.forwardOn(w, b, active, want, false)
			f.forwardOn(w, b, active, got, true)
			for i := range want {
				if !sameBits(want[i], got[i]) {
					t.Fatalf("width %d, clipped %t, value %d: in registers %#x, row by row %#x", width, clipped, i,
						math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
	f := &featureTransformer{features: 4, width: 256, slots: 3}
	idx := make([]int32, 3)
	for _, slots := range [][]float32{{5, 0, 0}, {-1, 0, 0}, {1.5, 0, 0}} {
		if _, ok := f.featureRows(slots, idx); ok {
			t.Errorf("slots %v were summed in registers", slots)
		}
	}
	if n, ok := f.featureRows([]float32{4, 0, 1}, idx); !ok || n != 2 || idx[0] != 3 || idx[1] != 0 {
		t.Errorf("slots 4, 0, 1: rows %v (%d), %t", idx[:n], n, ok)
	}
}

// TestFeatureGradientSumsAgree: the feature transformer's gradients summed
// in AVX-512 registers over an index of the batch rows are the bits of
// the pass that adds each row's gradient into the weight rows in memory,
// with repeated features, features no row uses, an empty perspective and
// the clip; a slot naming no weight row leaves the sums to Go.
func TestFeatureGradientSumsAgree(t *testing.T) {
	if !useAVX512 {
		t.Skip("no AVX-512 on this machine")
	}
	rng := rand.New(rand.NewPCG(8, 1))
	for _, width := range []int{256, 512} {
		for _, clipped := range []bool{false, true} {
			f := &featureTransformer{features: 70, width: width, batch: 33, perspectives: 2, slots: 9, clipped: clipped}
			f.allocate()
			active := randomSlots(rng, f, f.features-10) // the last ten features unused
			clear(active[f.slots : 2*f.slots])
			out, dout := make([]float32, f.batch*f.perspectives*width), make([]float32, f.batch*f.perspectives*width)
			for i := range dout {
				out[i], dout[i] = clipValue(rng), clipValue(rng)
			}
			dw, db := f.dweights.Data().([]float32), f.dbias.Data().([]float32)
			f.backwardOn(active, out, dout, false)
			wantW, wantB := slices.Clone(dw), slices.Clone(db)
			for i := range dw {
				dw[i] = 42
			}
			for i := range db {
				db[i] = 42
			}
			f.backwardOn(active, out, dout, true)
			for i := range dw {
				if !sameBits(dw[i], wantW[i]) {
					t.Fatalf("width %d, clipped %t, weight gradient %d: in registers %#x, in memory %#x", width, clipped, i,
						math.Float32bits(dw[i]), math.Float32bits(wantW[i]))
				}
			}
			for i := range db {
				if !sameBits(db[i], wantB[i]) {
					t.Fatalf("width %d, clipped %t, bias gradient %d: in registers %#x, in memory %#x", width, clipped, i,
						math.Float32bits(db[i]), math.Float32bits(wantB[i]))
				}
			}
			active[3] = float32(f.features + 1)
			if f.sumGradients(active, dout) {
				t.Fatal("a slot past the weights was summed in registers")
			}
		}
	}
}

// randomSlots fills f's slots for every row and perspective, two in three
// with one of the first features features (1-based; 0 is an empty slot).
func randomSlots(rng *rand.Rand, f *featureTransformer, features int) []float32 {
	active := make([]float32, f.batch*f.perspectives*f.slots)
	for i := range active {
		if rng.IntN(3) > 0 {
			active[i] = float32(1 + rng.IntN(features))
		}
	}
	return active
}
