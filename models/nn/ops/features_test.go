package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
)

type featureCase struct {
	name                                        string
	batch, features, width, perspectives, slots int
	clipped                                     bool
}

// Widths of 8 take the vector kernel, 5 the plain-Go tail.
var featureCases = []featureCase{
	{"linear", 5, 12, 8, 2, 4, false},
	{"clipped", 6, 12, 16, 2, 5, true},
	{"tail", 4, 9, 5, 1, 3, true},
}

// randomActive draws each slot empty or a feature (index + 1), with one
// row empty throughout and a feature repeated within one perspective,
// whose weight row then counts twice.
func randomActive(c featureCase, rng *rand.Rand) []float32 {
	a := make([]float32, c.batch*c.perspectives*c.slots)
	for i := range a {
		if rng.IntN(4) > 0 {
			a[i] = float32(1 + rng.IntN(c.features))
		}
	}
	clear(a[c.perspectives*c.slots : 2*c.perspectives*c.slots])
	a[0], a[1] = 3, 3
	return a
}

// featureInputs draws weights, bias and active features, again until no
// sum lies within 1e-3 of a kink of the clip, where float32 rounding could
// put the op and the float64 reference on different sides.
func featureInputs(c featureCase, rng *rand.Rand) (w, b []float64, active []float32) {
	for {
		w, b = randoms(rng, c.features*c.width, 0.6), randoms(rng, c.width, 0.5)
		active = randomActive(c, rng)
		linear := c
		linear.clipped = false
		near := false
		for _, v := range refFeatures(linear, w, b, active) {
			near = near || math.Abs(v) < 1e-3 || math.Abs(v-1) < 1e-3
		}
		if !c.clipped || !near {
			return w, b, active
		}
	}
}

// featureGraph adds the case's feature transformer to g on the inputs w, b
// and active and returns the weights' and bias's nodes and its output.
func featureGraph(t *testing.T, g *G.ExprGraph, c featureCase, w, b []float64, active []float32) (wn, bn, out *G.Node) {
	t.Helper()
	wn = matrixNode(g, "w", toFloat32(w), c.features, c.width)
	bn = matrixNode(g, "b", toFloat32(b), 1, c.width)
	out, err := FeatureTransformer(wn, bn, matrixNode(g, "active", active, c.batch, c.perspectives*c.slots), c.perspectives, c.clipped)
	if err != nil {
		t.Fatal(err)
	}
	return wn, bn, out
}

// refFeatures is the layer the obvious way: one-hot rows times weights.
func refFeatures(c featureCase, w, b []float64, active []float32) []float64 {
	out := make([]float64, c.batch*c.perspectives*c.width)
	for rp := 0; rp < c.batch*c.perspectives; rp++ {
		for j := 0; j < c.width; j++ {
			s := b[j]
			for f := 0; f < c.features; f++ {
				for _, v := range active[rp*c.slots:][:c.slots] {
					if int(v) == f+1 {
						s += w[f*c.width+j]
					}
				}
			}
			if c.clipped {
				s = math.Min(math.Max(s, 0), 1)
			}
			out[rp*c.width+j] = s
		}
	}
	return out
}

func TestFeatureTransformerMatchesReference(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		for i, c := range featureCases {
			t.Run(c.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(i), 19))
				w, b, active := featureInputs(c, rng)
				g := G.NewGraph()
				wn, bn, out := featureGraph(t, g, c, w, b, active)
				r := randoms(rng, c.batch*c.perspectives*c.width, 1)
				prod, err := G.HadamardProd(out, matrixNode(g, "r", toFloat32(r), c.batch, c.perspectives*c.width))
				if err != nil {
					t.Fatal(err)
				}
				loss, err := G.Sum(prod)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := G.Grad(loss, wn, bn); err != nil {
					t.Fatal(err)
				}
				vm := G.NewTapeMachine(g, G.BindDualValues(wn, bn))
				defer vm.Close()
				want := refFeatures(c, w, b, active)
				var clippedAbove, clippedBelow int
				for _, v := range want {
					clippedAbove += map[bool]int{true: 1}[v == 1]
					clippedBelow += map[bool]int{true: 1}[v == 0]
				}
				if c.clipped && (clippedAbove == 0 || clippedBelow == 0) {
					t.Fatalf("the case clips %d values at 1 and %d at 0: both sides must be tested", clippedAbove, clippedBelow)
				}
				var dw, db []float32
				for run := 0; run < 2; run++ { // the second run reuses the op's buffers
					vm.Reset()
					if err := vm.RunAll(); err != nil {
						t.Fatal(err)
					}
					got := out.Value().Data().([]float32)
					for j, v := range want {
						if math.Abs(float64(got[j])-v) > 1e-5 {
							t.Fatalf("run %d: output %d = %g, reference %g", run, j, got[j], v)
						}
					}
					if run == 0 { // the gradients add up over runs until an optimizer step clears them
						dw, db = gradOf(t, wn), gradOf(t, bn)
					}
				}
				used := map[int]bool{}
				for _, v := range active {
					used[int(v)-1] = true
				}
				for f := 0; f < c.features; f++ {
					for j := 0; j < c.width && !used[f]; j++ {
						if dw[f*c.width+j] != 0 {
							t.Fatalf("feature %d is never active but has gradient %g", f, dw[f*c.width+j])
						}
					}
				}
				lossOf := func() float64 {
					var s float64
					for j, v := range refFeatures(c, w, b, active) {
						s += r[j] * v
					}
					return s
				}
				checkFiniteDifferences(t, "weights", w, dw, lossOf)
				checkFiniteDifferences(t, "bias", b, db, lossOf)
			})
		}
	})
}

func TestFeatureTransformerRejectsBadIndices(t *testing.T) {
	for _, bad := range []float32{5, -1, 1.5} {
		g := G.NewGraph()
		out, err := FeatureTransformer(matrixNode(g, "w", make([]float32, 8), 4, 2), matrixNode(g, "b", make([]float32, 2), 1, 2),
			matrixNode(g, "active", []float32{1, bad}, 1, 2), 1, true)
		if err != nil {
			t.Fatal(err)
		}
		vm := G.NewTapeMachine(g)
		if err := vm.RunAll(); err == nil {
			t.Errorf("index %g: no error (output %v)", bad, out.Value())
		}
		vm.Close()
	}
}

// BenchmarkFeatureTransformer times one forward and backward pass of the
// default NNUE's first layer (768 features → 256, two perspectives) over a
// batch of 256 positions with 26 pieces each, the op's share of a step.
func BenchmarkFeatureTransformer(b *testing.B) {
	const batch, features, width, slots, pieces = 256, 768, 256, 32, 26
	f := &featureTransformer{features: features, width: width, batch: batch, perspectives: 2, slots: slots, clipped: true}
	f.allocate()
	rng := rand.New(rand.NewPCG(1, 2))
	w, bias := randomFloat32s(rng, features*width), randomFloat32s(rng, width)
	active := make([]float32, batch*2*slots)
	for rp := 0; rp < batch*2; rp++ {
		for k, sq := range rng.Perm(64)[:pieces] {
			active[rp*slots+k] = float32(1 + rng.IntN(12)*64 + sq)
		}
	}
	out := f.out.Data().([]float32)
	dout := randomFloat32s(rng, len(out))
	b.ResetTimer()
	for range b.N {
		f.forward(w, bias, active, out)
		f.backward(active, out, dout)
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "positions/s")
}
