package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

type stackCase struct {
	name       string
	batch      int
	widths     []int
	activation string
	inner      bool // DenseStackInner: x's gradient too
}

// Batches that are not a multiple of mulAdd's four rows and widths that
// are not multiples of its tile exercise the padding and the tails.
var stackCases = []stackCase{
	{"thesis-relu", 9, []int{64, 64, 64, 1}, ActReLU, false},
	{"tanh", 5, []int{20, 17, 5, 3}, ActTanh, false},
	{"sigmoid", 6, []int{33, 40, 1}, ActSigmoid, false},
	{"inner-crelu", 6, []int{24, 32, 1}, ActClippedReLU, true},
	{"no-hidden", 7, []int{5, 1}, ActReLU, false},
	{"inner-mlp", 7, []int{20, 33, 5}, ActReLU, true},
	{"inner-projection", 6, []int{17, 40}, ActReLU, true},
	// Widths on the tile: the output and x's gradient need no padding, and
	// the last layer writes the output and reads its gradient in place.
	{"inner-aligned", 5, []int{32, 48, 16}, ActTanh, true},
	{"inner-aligned-projection", 6, []int{16, 32}, ActReLU, true},
}

// refStack is the stack written out in float64 the slow, obvious way.
func refStack(c stackCase, x []float64, w, b [][]float64) []float64 {
	h := x
	for i := 0; i+1 < len(c.widths); i++ {
		in, out := c.widths[i], c.widths[i+1]
		z := make([]float64, c.batch*out)
		for n := 0; n < c.batch; n++ {
			for o := 0; o < out; o++ {
				s := b[i][o]
				for k := 0; k < in; k++ {
					s += h[n*in+k] * w[i][k*out+o]
				}
				if i+2 < len(c.widths) {
					switch c.activation {
					case ActReLU:
						s = math.Max(s, 0)
					case ActTanh:
						s = math.Tanh(s)
					case ActSigmoid:
						s = 1 / (1 + math.Exp(-s))
					case ActClippedReLU:
						s = math.Min(math.Max(s, 0), 1)
					}
				}
				z[n*out+o] = s
			}
		}
		h = z
	}
	return h
}

type stackGraph struct {
	x, out *G.Node
	ws, bs []*G.Node
	r      []float64
	vm     G.VM
}

func newStackGraph(t *testing.T, c stackCase, x []float64, w, b [][]float64, rng *rand.Rand) *stackGraph {
	t.Helper()
	g := G.NewGraph()
	matrix := func(name string, data []float64, rows, cols int) *G.Node {
		return G.NewMatrix(g, tensor.Float32, G.WithShape(rows, cols), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(toFloat32(data)))))
	}
	xn := matrix("x", x, c.batch, c.widths[0])
	sg := &stackGraph{}
	var learnables G.Nodes
	for i := range w {
		sg.ws = append(sg.ws, matrix("w"+string(rune('0'+i)), w[i], c.widths[i], c.widths[i+1]))
		sg.bs = append(sg.bs, matrix("b"+string(rune('0'+i)), b[i], 1, c.widths[i+1]))
		learnables = append(learnables, sg.ws[i], sg.bs[i])
	}
	build := DenseStack
	if c.inner {
		build = DenseStackInner
		learnables = append(learnables, xn)
	}
	out, err := build(xn, sg.ws, sg.bs, c.activation)
	if err != nil {
		t.Fatal(err)
	}
	sg.x = xn
	last := c.widths[len(c.widths)-1]
	sg.out, sg.r = out, randoms(rng, c.batch*last, 1)
	prod, err := G.HadamardProd(out, matrix("r", sg.r, c.batch, last))
	if err != nil {
		t.Fatal(err)
	}
	loss, err := G.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(loss, learnables...); err != nil {
		t.Fatal(err)
	}
	sg.vm = G.NewTapeMachine(g, G.BindDualValues(learnables...))
	return sg
}

func (sg *stackGraph) run(t *testing.T) {
	t.Helper()
	sg.vm.Reset()
	if err := sg.vm.RunAll(); err != nil {
		t.Fatal(err)
	}
}

func stackInputs(c stackCase, rng *rand.Rand) (x []float64, w, b [][]float64) {
	scale := 1.0
	if c.activation == ActClippedReLU {
		scale = 4 // pre-activations on both sides of [0, 1]
	}
	x = randoms(rng, c.batch*c.widths[0], scale)
	for i := 0; i+1 < len(c.widths); i++ {
		w = append(w, randoms(rng, c.widths[i]*c.widths[i+1], 1/math.Sqrt(float64(c.widths[i]))))
		b = append(b, randoms(rng, c.widths[i+1], 0.3))
	}
	return x, w, b
}

func TestDenseStackMatchesReference(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		for i, c := range stackCases {
			t.Run(c.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(i), 5))
				x, w, b := stackInputs(c, rng)
				sg := newStackGraph(t, c, x, w, b, rng)
				defer sg.vm.Close()
				sg.run(t)
				got := sg.out.Value().Data().([]float32)
				want := refStack(c, x, w, b)
				if len(got) != len(want) {
					t.Fatalf("%d outputs, want %d", len(got), len(want))
				}
				for j := range want {
					if math.Abs(float64(got[j])-want[j]) > 1e-5 {
						t.Fatalf("output %d = %g, reference %g", j, got[j], want[j])
					}
				}
				loss := func() float64 {
					var s float64
					for j, v := range refStack(c, x, w, b) {
						s += sg.r[j] * v
					}
					return s
				}
				for l := range w {
					checkFiniteDifferences(t, "w"+string(rune('0'+l)), w[l], gradOf(t, sg.ws[l]), loss)
					checkFiniteDifferences(t, "b"+string(rune('0'+l)), b[l], gradOf(t, sg.bs[l]), loss)
				}
				if c.inner {
					checkFiniteDifferences(t, "x", x, gradOf(t, sg.x), loss)
				}
			})
		}
	})
}

// TestDenseStackRepeatable runs a graph twice, with different weights in
// between, and again with the first weights: the buffers the ops keep must
// not leak one run into the next, and equal inputs give equal bits.
// Gorgonia adds each run's gradients to the learnables' (the optimizer
// zeroes them), so the snapshot zeroes them too.
func TestDenseStackRepeatable(t *testing.T) {
	c := stackCases[0]
	rng := rand.New(rand.NewPCG(3, 4))
	x, w, b := stackInputs(c, rng)
	sg := newStackGraph(t, c, x, w, b, rng)
	defer sg.vm.Close()
	snapshot := func() [][]float32 {
		s := [][]float32{slices.Clone(sg.out.Value().Data().([]float32))}
		for l := range sg.ws {
			s = append(s, gradOf(t, sg.ws[l]), gradOf(t, sg.bs[l]))
			for _, n := range []*G.Node{sg.ws[l], sg.bs[l]} {
				g, err := n.Grad()
				if err != nil {
					t.Fatal(err)
				}
				clear(g.Data().([]float32))
			}
		}
		return s
	}
	sg.run(t)
	first := snapshot()
	w0 := sg.ws[0].Value().Data().([]float32)
	saved := slices.Clone(w0)
	for j := range w0 {
		w0[j] *= -2
	}
	sg.run(t)
	changed := snapshot()
	copy(w0, saved)
	sg.run(t)
	again := snapshot()
	if slices.EqualFunc(first, changed, slices.Equal[[]float32]) {
		t.Fatal("new weights changed nothing")
	}
	if !slices.EqualFunc(first, again, slices.Equal[[]float32]) {
		t.Fatal("the same weights gave different results on a later run")
	}
}

func TestDenseStackRejectsBadShapes(t *testing.T) {
	g := G.NewGraph()
	x := G.NewMatrix(g, tensor.Float32, G.WithShape(4, 3), G.WithName("x"))
	w := G.NewMatrix(g, tensor.Float32, G.WithShape(3, 2), G.WithName("w"))
	b := G.NewMatrix(g, tensor.Float32, G.WithShape(1, 2), G.WithName("b"))
	wrong := G.NewMatrix(g, tensor.Float32, G.WithShape(5, 2), G.WithName("wrong"))
	for name, build := range map[string]func() (*G.Node, error){
		"w rows":     func() (*G.Node, error) { return DenseStack(x, []*G.Node{wrong}, []*G.Node{b}, ActReLU) },
		"b width":    func() (*G.Node, error) { return DenseStack(x, []*G.Node{w}, []*G.Node{w}, ActReLU) },
		"no layers":  func() (*G.Node, error) { return DenseStack(x, nil, nil, ActReLU) },
		"activation": func() (*G.Node, error) { return DenseStack(x, []*G.Node{w, w}, []*G.Node{b, b}, "softplus") },
	} {
		if _, err := build(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestDenseStackSameOnAnyCores runs a stack wide enough for its products
// to be split over the cores (parallelWork) on one core and on three: the
// output and gradients must be the same bits, as the resumed training runs
// demand, and right.
func TestDenseStackSameOnAnyCores(t *testing.T) {
	c := stackCase{"wide", 130, []int{300, 200, 1}, ActReLU, true}
	if c.batch*roundUp(c.widths[1], tile)*c.widths[0] < parallelWork {
		t.Fatal("the case is too small to run in parallel")
	}
	sameOnAnyCores(t, "output, then dw and db per layer, then dx", func(t *testing.T) [][]float32 {
		rng := rand.New(rand.NewPCG(6, 6))
		x, w, b := stackInputs(c, rng)
		sg := newStackGraph(t, c, x, w, b, rng)
		defer sg.vm.Close()
		sg.run(t)
		got := sg.out.Value().Data().([]float32)
		for j, want := range refStack(c, x, w, b) {
			if math.Abs(float64(got[j])-want) > 1e-4 {
				t.Fatalf("output %d = %g, reference %g", j, got[j], want)
			}
		}
		results := [][]float32{slices.Clone(got)}
		for l := range sg.ws {
			results = append(results, gradOf(t, sg.ws[l]), gradOf(t, sg.bs[l]))
		}
		return append(results, gradOf(t, sg.x))
	})
}
