package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"
)

const testLayerNormEps = 1e-5

// refLayerNorm is the layer norm written out in float64.
func refLayerNorm(x []float64, rows, d int) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < rows; r++ {
		row := x[r*d:][:d]
		var mean, variance float64
		for _, v := range row {
			mean += v
		}
		mean /= float64(d)
		for _, v := range row {
			variance += (v - mean) * (v - mean)
		}
		inv := 1 / math.Sqrt(variance/float64(d)+testLayerNormEps)
		for i, v := range row {
			out[r*d+i] = (v - mean) * inv
		}
	}
	return out
}

// layerNormCases: a row narrower than a vector, a transformer's width,
// and more rows than one task takes (a last task of 44 rows).
var layerNormCases = []struct {
	name    string
	rows, d int
}{
	{"narrow", 3, 5},
	{"width-64", 9, 64},
	{"tasks", 2*layerNormRows + 44, 12},
}

// layerNormInputs draws rows with offsets and scales of their own, as a
// residual stream has, and makes row 1 constant (variance 0: eps alone).
func layerNormInputs(rng *rand.Rand, rows, d int) []float64 {
	x := randoms(rng, rows*d, 1)
	for r := 0; r < rows; r++ {
		shift, scale := 4*(2*rng.Float64()-1), math.Exp(2*(2*rng.Float64()-1))
		for i := range x[r*d:][:d] {
			x[r*d+i] = shift + scale*x[r*d+i]
			if r == 1 {
				x[r*d+i] = shift
			}
		}
	}
	return x
}

type layerNormGraph struct {
	x, out *G.Node
	vm     G.VM
	r      []float64
}

func newLayerNormGraph(t *testing.T, x []float64, rows, d int, rng *rand.Rand) *layerNormGraph {
	t.Helper()
	g := G.NewGraph()
	xn := matrixNode(g, "x", toFloat32(x), rows, d)
	out, err := LayerNorm(xn, testLayerNormEps)
	if err != nil {
		t.Fatal(err)
	}
	vm, r := weightedSumGraph(t, g, xn, out, rng)
	return &layerNormGraph{x: xn, out: out, vm: vm, r: r}
}

func TestLayerNormMatchesReference(t *testing.T) {
	for i, c := range layerNormCases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 21))
			x := layerNormInputs(rng, c.rows, c.d)
			lg := newLayerNormGraph(t, x, c.rows, c.d, rng)
			defer lg.vm.Close()
			want := refLayerNorm(x, c.rows, c.d)
			for run := 0; run < 2; run++ { // the second run reuses the buffers
				if run > 0 {
					lg.vm.Reset()
					if err := lg.vm.RunAll(); err != nil {
						t.Fatal(err)
					}
				}
				got := lg.out.Value().Data().([]float32)
				for j := range want {
					if math.Abs(float64(got[j])-want[j]) > 2e-6*max(1, math.Abs(want[j])) {
						t.Fatalf("run %d: y[%d] = %g, reference %g", run, j, got[j], want[j])
					}
				}
			}
			for j := range c.d {
				if got := lg.out.Value().Data().([]float32)[c.d+j]; got != 0 {
					t.Fatalf("the constant row normalised to %g, want 0", got)
				}
			}
			grad := gradOf(t, lg.x) // accumulated over the two runs
			for j := range grad {
				grad[j] /= 2
			}
			checkFiniteDifferences(t, "x", x, grad, func() float64 {
				var s float64
				for j, v := range refLayerNorm(x, c.rows, c.d) {
					s += lg.r[j] * v
				}
				return s
			})
		})
	}
}

// TestLayerNormSameOnAnyCores: the output and gradient are the same bits
// on one core and on three.
func TestLayerNormSameOnAnyCores(t *testing.T) {
	c := layerNormCases[2]
	sameOnAnyCores(t, "output, gradient", func(t *testing.T) [][]float32 {
		rng := rand.New(rand.NewPCG(3, 3))
		lg := newLayerNormGraph(t, layerNormInputs(rng, c.rows, c.d), c.rows, c.d, rng)
		defer lg.vm.Close()
		return [][]float32{slices.Clone(lg.out.Value().Data().([]float32)), gradOf(t, lg.x)}
	})
}

func TestLayerNormRejectsBadInputs(t *testing.T) {
	g := G.NewGraph()
	x := matrixNode(g, "x", make([]float32, 6), 2, 3)
	if _, err := LayerNorm(x, -1); err == nil {
		t.Error("negative eps: no error")
	}
	if _, err := LayerNorm(x, math.NaN()); err == nil {
		t.Error("NaN eps: no error")
	}
	v := G.NewVector(g, x.Dtype(), G.WithShape(6), G.WithName("v"))
	if _, err := LayerNorm(v, testLayerNormEps); err == nil {
		t.Error("a vector: no error")
	}
}
