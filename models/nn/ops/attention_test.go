package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

type attentionCase struct {
	name                  string
	batch, seq, heads, dk int
}

// Sequences and head widths that are not multiples of mulAdd's tile
// exercise the padding; heads of 16 or 32 (a transformer's) the products
// that read and write qkv's rows in place.
var attentionCases = []attentionCase{
	{"tails", 2, 5, 2, 3},
	{"one-head", 3, 19, 1, 16},
	{"four-heads", 1, 33, 4, 8},
	{"two-heads-on-the-tile", 2, 7, 2, 32},
}

// refAttention is the attention written out in float64 the obvious way.
func refAttention(c attentionCase, qkv []float64) []float64 {
	d := c.heads * c.dk
	out := make([]float64, c.batch*c.seq*d)
	scale := 1 / math.Sqrt(float64(c.dk))
	at := func(b, i, part, h, j int) float64 { return qkv[(b*c.seq+i)*3*d+part*d+h*c.dk+j] }
	for b := 0; b < c.batch; b++ {
		for h := 0; h < c.heads; h++ {
			for i := 0; i < c.seq; i++ {
				scores := make([]float64, c.seq)
				m := math.Inf(-1)
				for j := range scores {
					for l := 0; l < c.dk; l++ {
						scores[j] += at(b, i, 0, h, l) * at(b, j, 1, h, l)
					}
					scores[j] *= scale
					m = math.Max(m, scores[j])
				}
				var sum float64
				for j := range scores {
					scores[j] = math.Exp(scores[j] - m)
					sum += scores[j]
				}
				for l := 0; l < c.dk; l++ {
					var o float64
					for j, s := range scores {
						o += s / sum * at(b, j, 2, h, l)
					}
					out[(b*c.seq+i)*d+h*c.dk+l] = o
				}
			}
		}
	}
	return out
}

// attentionGraph is loss = sum(r ⊙ Attention(qkv)) and its gradient.
type attentionGraph struct {
	qkv, out *G.Node
	r        []float64
	vm       G.VM
}

func newAttentionGraph(t *testing.T, c attentionCase, qkv []float64, rng *rand.Rand) *attentionGraph {
	t.Helper()
	g := G.NewGraph()
	d := c.heads * c.dk
	rows := c.batch * c.seq
	qn := G.NewMatrix(g, tensor.Float32, G.WithShape(rows, 3*d), G.WithName("qkv"),
		G.WithValue(tensor.New(tensor.WithShape(rows, 3*d), tensor.WithBacking(toFloat32(qkv)))))
	out, err := Attention(qn, c.batch, c.seq, c.heads)
	if err != nil {
		t.Fatal(err)
	}
	r := randoms(rng, rows*d, 1)
	rn := G.NewMatrix(g, tensor.Float32, G.WithShape(rows, d), G.WithName("r"),
		G.WithValue(tensor.New(tensor.WithShape(rows, d), tensor.WithBacking(toFloat32(r)))))
	prod, err := G.HadamardProd(out, rn)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := G.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(loss, qn); err != nil {
		t.Fatal(err)
	}
	return &attentionGraph{qkv: qn, out: out, r: r, vm: G.NewTapeMachine(g, G.BindDualValues(qn))}
}

func (ag *attentionGraph) run(t *testing.T) {
	t.Helper()
	ag.vm.Reset()
	if err := ag.vm.RunAll(); err != nil {
		t.Fatal(err)
	}
}

func attentionInputs(c attentionCase, rng *rand.Rand) []float64 {
	return randoms(rng, c.batch*c.seq*3*c.heads*c.dk, 1)
}

func TestAttentionMatchesReference(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		for i, c := range attentionCases {
			t.Run(c.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(i), 11))
				qkv := attentionInputs(c, rng)
				ag := newAttentionGraph(t, c, qkv, rng)
				defer ag.vm.Close()
				want := refAttention(c, qkv)
				for run := 0; run < 2; run++ { // the second run reuses the buffers
					ag.run(t)
					got := ag.out.Value().Data().([]float32)
					if len(got) != len(want) {
						t.Fatalf("%d outputs, want %d", len(got), len(want))
					}
					for j := range want {
						if math.Abs(float64(got[j])-want[j]) > 1e-5 {
							t.Fatalf("run %d: output %d = %g, reference %g", run, j, got[j], want[j])
						}
					}
				}
				// The gradient accumulates over the two runs.
				grad := gradOf(t, ag.qkv)
				for j := range grad {
					grad[j] /= 2
				}
				checkFiniteDifferences(t, "qkv", qkv, grad, func() float64 {
					var s float64
					for j, v := range refAttention(c, qkv) {
						s += ag.r[j] * v
					}
					return s
				})
			})
		}
	})
}

// TestAttentionSameOnAnyCores: the output and gradient are the same bits
// on one core and on three.
func TestAttentionSameOnAnyCores(t *testing.T) {
	c := attentionCases[2]
	sameOnAnyCores(t, "output, gradient", func(t *testing.T) [][]float32 {
		rng := rand.New(rand.NewPCG(7, 7))
		ag := newAttentionGraph(t, c, attentionInputs(c, rng), rng)
		defer ag.vm.Close()
		ag.run(t)
		return [][]float32{slices.Clone(ag.out.Value().Data().([]float32)), gradOf(t, ag.qkv)}
	})
}

func TestAttentionRejectsBadShapes(t *testing.T) {
	g := G.NewGraph()
	qkv := G.NewMatrix(g, tensor.Float32, G.WithShape(6, 12), G.WithName("qkv"))
	for name, args := range map[string][3]int{
		"rows":         {4, 2, 1},
		"heads":        {2, 3, 5},
		"no sequences": {0, 3, 1},
	} {
		if _, err := Attention(qkv, args[0], args[1], args[2]); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
