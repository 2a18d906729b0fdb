package transformer

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/transformer/transformertest"
)

// primitiveLayerNorm is the layer norm as the graph built it before
// ops.LayerNorm, from Gorgonia's primitives: row means and variances as
// products with a vector of 1/d, spread over the row by an outer product
// with a row of ones, then Sqrt and Inverse (Gorgonia v0.9.18's
// InverseSqrt has a wrong gradient). The tests compare the op with it.
func primitiveLayerNorm(x *G.Node) (*G.Node, error) {
	g, n, d := x.Graph(), x.Shape()[0], x.Shape()[1]
	mean, ones := make([]float32, d), make([]float32, d)
	for i := range mean {
		mean[i], ones[i] = 1/float32(d), 1
	}
	meanVec := G.NewVector(g, tensor.Float32, G.WithShape(d), G.WithName("ln.mean"),
		G.WithValue(tensor.New(tensor.WithShape(d), tensor.WithBacking(mean))))
	onesRow := G.NewMatrix(g, tensor.Float32, G.WithShape(1, d), G.WithName("ln.ones"),
		G.WithValue(tensor.New(tensor.WithShape(1, d), tensor.WithBacking(ones))))
	eps := G.NewScalar(g, tensor.Float32, G.WithName("ln.eps"), G.WithValue(float32(layerNormEps)))
	rowMeans := func(x *G.Node) (*G.Node, error) {
		m, err := G.Mul(x, meanVec)
		if err != nil {
			return nil, err
		}
		return G.Reshape(m, tensor.Shape{n, 1})
	}
	m, err := rowMeans(x)
	if err != nil {
		return nil, err
	}
	if m, err = G.Mul(m, onesRow); err != nil {
		return nil, err
	}
	centred, err := G.Sub(x, m)
	if err != nil {
		return nil, err
	}
	sq, err := G.Square(centred)
	if err != nil {
		return nil, err
	}
	variance, err := rowMeans(sq)
	if err != nil {
		return nil, err
	}
	shifted, err := G.Add(variance, eps)
	if err != nil {
		return nil, err
	}
	root, err := G.Sqrt(shifted)
	if err != nil {
		return nil, err
	}
	inv, err := G.Inverse(root)
	if err != nil {
		return nil, err
	}
	if inv, err = G.Mul(inv, onesRow); err != nil {
		return nil, err
	}
	return G.HadamardProd(centred, inv)
}

// normRun returns normalise's output on x (rows × d) and x's gradient for
// the loss Σ r ⊙ y.
func normRun(t *testing.T, normalise normaliser, x, r []float32, rows, d int) (y, dx []float32) {
	t.Helper()
	g := G.NewGraph()
	matrix := func(name string, v []float32) *G.Node {
		return G.NewMatrix(g, tensor.Float32, G.WithShape(rows, d), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(rows, d), tensor.WithBacking(append([]float32(nil), v...)))))
	}
	xn := matrix("x", x)
	out, err := normalise(xn)
	if err != nil {
		t.Fatal(err)
	}
	prod, err := G.HadamardProd(out, matrix("r", r))
	if err != nil {
		t.Fatal(err)
	}
	loss, err := G.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(loss, xn); err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(xn))
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	gv, err := xn.Grad()
	if err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), out.Value().Data().([]float32)...), append([]float32(nil), gv.Data().([]float32)...)
}

// TestLayerNormOpMatchesPrimitives: ops.LayerNorm gives the old
// composition's output and gradient to float32 rounding, on rows with
// offsets and scales of their own as the residual stream has.
func TestLayerNormOpMatchesPrimitives(t *testing.T) {
	const rows, d = 300, 64
	rng := rand.New(rand.NewPCG(21, 22))
	x, r := make([]float32, rows*d), make([]float32, rows*d)
	for i := 0; i < rows; i++ {
		shift, scale := 3*rng.NormFloat64(), math.Exp(rng.NormFloat64())
		for j := 0; j < d; j++ {
			x[i*d+j] = float32(shift + scale*rng.NormFloat64())
			r[i*d+j] = float32(rng.NormFloat64())
		}
	}
	y, dx := normRun(t, fusedLayerNorm, x, r, rows, d)
	wantY, wantDx := normRun(t, primitiveLayerNorm, x, r, rows, d)
	// The old composition sums in float32, which loses a few ulp on rows
	// far from 0 (the op sums in float64: models/nn/ops checks it against
	// a float64 reference).
	worstY, worstDx := maxDiff(y, wantY), maxDiff(dx, wantDx)/maxAbs(wantDx)
	t.Logf("outputs differ by up to %.2g, gradients by %.2g of the largest", worstY, worstDx)
	if worstY > 1e-5 {
		t.Errorf("outputs differ by up to %g (values of a few units)", worstY)
	}
	if worstDx > 2e-5 {
		t.Errorf("gradients differ by up to %g of the largest", worstDx)
	}
}

// TestGraphMatchesPrimitiveLayerNorm: the whole graph (diffusion's, the
// policy's, at diffusion-small's width and depth) gives the same losses
// and gradients with ops.LayerNorm as with the old composition, within
// float32 rounding: weights trained and saved before the op mean the same
// model. The norms' gains and biases are drawn away from 1 and 0 so that
// their folding into the products is exercised.
func TestGraphMatchesPrimitiveLayerNorm(t *testing.T) {
	// Diffusion at horizon 4 (T = 20) and the policy at horizon 1 (T = 1).
	for _, tc := range []struct {
		name  string
		h     int
		steps int
	}{{"diffusion", 4, 20}, {"policy", 1, 1}} {
		c := Arch{Horizon: tc.h, Dim: 64, Heads: 2, Layers: 2, MLP: 256, LegalMask: true}
		t.Run(tc.name, func(t *testing.T) {
			params := c.InitParams(8)
			rng := rand.New(rand.NewPCG(23, 24))
			for _, p := range params {
				if strings.HasSuffix(p.Name, ".g") || strings.HasSuffix(p.Name, ".b") && strings.Contains(p.Name, "ln") {
					for i := range p.Data {
						p.Data[i] += float32(0.3 * rng.NormFloat64())
					}
				}
			}
			seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
			var ins, seqs [][]int16
			var ws [][]float32
			var boards []*board.Board
			for r := 0; r < 4; r++ {
				in, w := make([]int16, len(seq)), make([]float32, len(seq))
				maskAt(c, rng, 1-float64(1+r%tc.steps)/float64(tc.steps), seq, in, w)
				ins, seqs, ws, boards = append(ins, in), append(seqs, seq), append(ws, w), append(boards, board.New())
			}
			per, logits, learnables := graphRunWith(t, c, fusedLayerNorm, params, ins, seqs, ws, boards...)
			got := transformertest.Grads(t, learnables)
			wantPer, wantLogits, learnables := graphRunWith(t, c, primitiveLayerNorm, params, ins, seqs, ws, boards...)
			want := transformertest.Grads(t, learnables)
			worstLoss, worstGrad := 0.0, 0.0
			for r := range per {
				worstLoss = math.Max(worstLoss, math.Abs(float64(per[r]-wantPer[r]))/math.Abs(float64(wantPer[r])))
				if rel := math.Abs(float64(per[r]-wantPer[r])) / math.Abs(float64(wantPer[r])); rel > 1e-5 {
					t.Errorf("row %d: loss %v, with Gorgonia's primitives %v (relative difference %.2g)", r, per[r], wantPer[r], rel)
				}
			}
			if worst := maxDiff(logits, wantLogits); worst > 1e-4 {
				t.Errorf("action logits differ by up to %g", worst)
			}
			if len(got) != len(want) || len(got) != len(params) {
				t.Fatalf("%d and %d gradients for %d parameters", len(got), len(want), len(params))
			}
			for name, w := range want {
				if maxAbs(w) == 0 {
					if maxDiff(got[name], w) != 0 {
						t.Errorf("%s: gradient %v, want 0 as with Gorgonia's primitives", name, got[name])
					}
					continue
				}
				worst := maxDiff(got[name], w) / maxAbs(w)
				worstGrad = math.Max(worstGrad, worst)
				if worst > 1e-4 {
					t.Errorf("%s: gradients differ by up to %.2g of the largest", name, worst)
				}
			}
			t.Logf("losses differ by up to %.2g relative, gradients by %.2g of a parameter's largest", worstLoss, worstGrad)
		})
	}
}

func maxDiff(a, b []float32) float64 {
	worst := 0.0
	for i := range a {
		worst = math.Max(worst, math.Abs(float64(a[i]-b[i])))
	}
	return worst
}

func maxAbs(v []float32) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(float64(x)))
	}
	return m
}
