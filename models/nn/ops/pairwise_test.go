package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
)

// refPairwise is the product the obvious way, in float64.
func refPairwise(batch, groups, half int, x []float64) []float64 {
	out := make([]float64, batch*groups*half)
	for r := 0; r < batch; r++ {
		for g := 0; g < groups; g++ {
			for j := 0; j < half; j++ {
				in := (r*groups+g)*2*half + j
				out[(r*groups+g)*half+j] = x[in] * x[in+half]
			}
		}
	}
	return out
}

// TestPairwiseProductMatchesReference checks the product and its gradient
// (against finite differences) on an input of its own and behind the
// clipped feature transformer, as the nnue family uses it; the second run
// reuses the op's buffers.
func TestPairwiseProductMatchesReference(t *testing.T) {
	const batch, groups, half = 3, 2, 5
	rng := rand.New(rand.NewPCG(5, 17))
	x := randoms(rng, batch*groups*2*half, 1)
	r := randoms(rng, batch*groups*half, 1)
	g := G.NewGraph()
	xn := matrixNode(g, "x", toFloat32(x), batch, groups*2*half)
	out, err := PairwiseProduct(xn, groups)
	if err != nil {
		t.Fatal(err)
	}
	prod, err := G.HadamardProd(out, matrixNode(g, "r", toFloat32(r), batch, groups*half))
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
	var dx []float32
	for run := 0; run < 2; run++ {
		vm.Reset()
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		got := out.Value().Data().([]float32)
		for j, v := range refPairwise(batch, groups, half, x) {
			if math.Abs(float64(got[j])-v) > 1e-6 {
				t.Fatalf("run %d: output %d = %g, reference %g", run, j, got[j], v)
			}
		}
		if run == 0 {
			dx = gradOf(t, xn)
		}
	}
	checkFiniteDifferences(t, "x", x, dx, func() float64 {
		var s float64
		for j, v := range refPairwise(batch, groups, half, x) {
			s += r[j] * v
		}
		return s
	})
}

// TestPairwiseBehindFeatures is the nnue family's chain: the clipped
// feature transformer, then the product of each perspective's halves; the
// weights' gradient through both against finite differences.
func TestPairwiseBehindFeatures(t *testing.T) {
	c := featureCase{"pairwise", 5, 12, 16, 2, 5, true}
	rng := rand.New(rand.NewPCG(8, 19))
	w, b, active := featureInputs(c, rng)
	half := c.width / 2
	r := randoms(rng, c.batch*c.perspectives*half, 1)
	g := G.NewGraph()
	wn, bn, ft := featureGraph(t, g, c, w, b, active)
	out, err := PairwiseProduct(ft, c.perspectives)
	if err != nil {
		t.Fatal(err)
	}
	prod, err := G.HadamardProd(out, matrixNode(g, "r", toFloat32(r), c.batch, c.perspectives*half))
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
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	lossOf := func() float64 {
		var s float64
		for j, v := range refPairwise(c.batch, c.perspectives, half, refFeatures(c, w, b, active)) {
			s += r[j] * v
		}
		return s
	}
	checkFiniteDifferences(t, "weights", w, gradOf(t, wn), lossOf)
	checkFiniteDifferences(t, "bias", b, gradOf(t, bn), lossOf)
}

func TestPairwiseProductRejectsBadShapes(t *testing.T) {
	for _, c := range []struct{ cols, groups int }{{6, 2}, {8, 0}, {7, 1}} {
		g := G.NewGraph()
		if _, err := PairwiseProduct(matrixNode(g, "x", make([]float32, 2*c.cols), 2, c.cols), c.groups); err == nil {
			t.Errorf("%d columns in %d groups: no error", c.cols, c.groups)
		}
	}
}
