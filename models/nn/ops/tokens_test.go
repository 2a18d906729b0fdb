package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func matrixNode(g *G.ExprGraph, name string, data []float32, rows, cols int) *G.Node {
	return G.NewMatrix(g, tensor.Float32, G.WithShape(rows, cols), G.WithName(name),
		G.WithValue(tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(data))))
}

// weightedSumGraph is loss = sum(r ⊙ out) for out = build(x), with x
// learnable; it returns the machine, out and r.
func weightedSumGraph(t *testing.T, g *G.ExprGraph, x, out *G.Node, rng *rand.Rand) (G.VM, []float64) {
	t.Helper()
	s := out.Shape()
	r := randoms(rng, s.TotalSize(), 1)
	prod, err := G.HadamardProd(out, matrixNode(g, "r", toFloat32(r), s[0], s[1]))
	if err != nil {
		t.Fatal(err)
	}
	loss, err := G.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(loss, x); err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(x))
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return vm, r
}

func TestEmbeddingMatchesOneHotProduct(t *testing.T) {
	const vocab, dim = 7, 5
	rng := rand.New(rand.NewPCG(1, 3))
	table := randoms(rng, vocab*dim, 1)
	tokens := []float32{3, 0, 6, 3, 3, 1} // repeats add up in the gradient
	g := G.NewGraph()
	tn := matrixNode(g, "table", toFloat32(table), vocab, dim)
	out, err := Embedding(tn, matrixNode(g, "tokens", tokens, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	vm, r := weightedSumGraph(t, g, tn, out, rng)
	defer vm.Close()
	ref := func() []float64 {
		var o []float64
		for _, tok := range tokens {
			o = append(o, table[int(tok)*dim:][:dim]...)
		}
		return o
	}
	got := out.Value().Data().([]float32)
	for j, want := range ref() {
		if float64(got[j]) != float64(float32(want)) {
			t.Fatalf("output %d = %g, want %g", j, got[j], want)
		}
	}
	checkFiniteDifferences(t, "table", table, gradOf(t, tn), func() float64 {
		var s float64
		for j, v := range ref() {
			s += r[j] * v
		}
		return s
	})
}

func TestEmbeddingRejectsBadTokens(t *testing.T) {
	for _, bad := range []float32{7, -1, 1.5} {
		g := G.NewGraph()
		out, err := Embedding(matrixNode(g, "table", make([]float32, 14), 7, 2), matrixNode(g, "tokens", []float32{0, bad}, 1, 2))
		if err != nil {
			t.Fatal(err)
		}
		vm := G.NewTapeMachine(g)
		if err := vm.RunAll(); err == nil {
			t.Errorf("token %g: no error (output %v)", bad, out.Value())
		}
		vm.Close()
	}
}

func TestSoftmaxCrossEntropyMatchesReference(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		for _, classes := range []int{9, 40} { // the plain-Go tail alone, and the vector loops
			rng := rand.New(rand.NewPCG(uint64(classes), 4))
			const rows = 6
			logits := randoms(rng, rows*classes, 3)
			targets := []float32{2, -1, 0, float32(classes - 1), 5, 2} // row 1 has no target
			g := G.NewGraph()
			ln := matrixNode(g, "logits", toFloat32(logits), rows, classes)
			out, err := SoftmaxCrossEntropy(ln, matrixNode(g, "targets", targets, rows, 1))
			if err != nil {
				t.Fatal(err)
			}
			vm, r := weightedSumGraph(t, g, ln, out, rng)
			ref := func() []float64 {
				o := make([]float64, rows)
				for i, tgt := range targets {
					if tgt < 0 {
						continue
					}
					row := logits[i*classes:][:classes]
					var sum float64
					for _, v := range row {
						sum += math.Exp(v)
					}
					o[i] = math.Log(sum) - row[int(tgt)]
				}
				return o
			}
			got := out.Value().Data().([]float32)
			for i, want := range ref() {
				if math.Abs(float64(got[i])-want) > 1e-5*math.Max(1, want) {
					t.Fatalf("row %d: loss %g, reference %g", i, got[i], want)
				}
			}
			grad := gradOf(t, ln)
			for j := classes; j < 2*classes; j++ {
				if grad[j] != 0 {
					t.Fatalf("the row without a target has gradient %g", grad[j])
				}
			}
			checkFiniteDifferences(t, "logits", logits, grad, func() float64 {
				var s float64
				for i, v := range ref() {
					s += r[i] * v
				}
				return s
			})
			vm.Close()
		}
	})
}
