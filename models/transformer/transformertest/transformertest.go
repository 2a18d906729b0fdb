// Package transformertest holds what the tests of the transformer and of
// the sequence families on it (models/diffusion, models/flow) share: a
// sequence along an opening line, a training graph's inputs filled from
// examples, one run of the graph forward and backward, the learnables'
// gradients by name and the finite differences they are checked against.
// It imports neither models/transformer nor a family, because
// transformer's own in-package tests use it: callers hand it their input
// shapes, their encoding of an example and their graph builder.
package transformertest

import (
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
)

// Opening is a short line from the start position.
var Opening = []string{"e2e4", "e7e5", "g1f3", "b8c6"}

// Sequence returns the sequence of horizon h along line from the start
// position (encode.Sequence).
func Sequence(t testing.TB, h int, line ...string) []int16 {
	t.Helper()
	seq := make([]int16, encode.SequenceLen(h))
	if _, err := encode.Sequence(board.New(), line, h, seq); err != nil {
		t.Fatal(err)
	}
	return seq
}

// Inputs adds a training graph's inputs to g: zeroed float32 matrices of
// shapes, named in0, in1 and so on.
func Inputs(g *G.ExprGraph, shapes [][]int) []*G.Node {
	var nodes []*G.Node
	for i, shape := range shapes {
		buf := make([]float32, shape[0]*shape[1])
		nodes = append(nodes, G.NewMatrix(g, tensor.Float32, G.WithShape(shape...), G.WithName("in"+string(rune('0'+i))),
			G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(buf)))))
	}
	return nodes
}

// Fill writes rows 0 to batch-1 of inputs: encode(r, rows) writes example
// r into rows, rows[i] being row r of inputs[i].
func Fill(inputs []*G.Node, batch int, encode func(r int, rows [][]float32)) {
	for r := 0; r < batch; r++ {
		rows := make([][]float32, len(inputs))
		for i, n := range inputs {
			w := n.Shape()[1]
			rows[i] = n.Value().Data().([]float32)[r*w : (r+1)*w]
		}
		encode(r, rows)
	}
}

// Build adds a training graph on inputs to g and returns the nodes Run
// reads: each row's loss (batch × 1), the action slots' logits and the
// learnables, as in transformer.Outputs.
type Build func(g *G.ExprGraph, inputs []*G.Node) (perRow, actionLogits *G.Node, learnables []*G.Node, err error)

// Result is one run of a training graph: each row's loss and the action
// slots' logits, copied out, and the learnables, which hold their
// gradients of the sum of the rows' losses.
type Result struct {
	PerRow, ActionLogits []float32
	Learnables           []*G.Node
}

// Grads copies each learnable's gradient, by the learnable's name.
func Grads(t testing.TB, learnables []*G.Node) map[string][]float32 {
	t.Helper()
	grads := map[string][]float32{}
	for _, l := range learnables {
		gv, err := l.Grad()
		if err != nil {
			t.Fatal(err)
		}
		grads[l.Name()] = slices.Clone(gv.Data().([]float32))
	}
	return grads
}

// CentralDifference is loss's derivative in *x by central differences,
// (loss(x + h) - loss(x - h)) / 2h with h = 1e-2, which the tests compare
// with the graph's gradient; *x is left as it was.
func CentralDifference(x *float32, loss func() float64) float64 {
	old := *x
	const h = 1e-2
	*x = old + h
	up := loss()
	*x = old - h
	down := loss()
	*x = old
	return (up - down) / (2 * h)
}

// Run builds a training graph for a batch of examples on the Inputs of
// shapes, filled by encode (Fill), and runs it forward and backward once,
// differentiating the sum of the rows' losses. It fails t on an error, and
// if the run changed an input: the training loop fills the input buffers
// once a batch and the evaluation machine reads them again.
func Run(t testing.TB, shapes [][]int, batch int, encode func(r int, rows [][]float32), build Build) Result {
	t.Helper()
	g := G.NewGraph()
	nodes := Inputs(g, shapes)
	Fill(nodes, batch, encode)
	perRow, actionLogits, learnables, err := build(g, nodes)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := G.Sum(perRow)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(loss, learnables...); err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(learnables...))
	defer vm.Close()
	var inputs [][]float32
	for _, n := range nodes {
		inputs = append(inputs, slices.Clone(n.Value().Data().([]float32)))
	}
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if !slices.Equal(n.Value().Data().([]float32), inputs[i]) {
			t.Fatalf("running the graph changed input %d", i)
		}
	}
	return Result{
		PerRow:       slices.Clone(perRow.Value().Data().([]float32)),
		ActionLogits: slices.Clone(actionLogits.Value().Data().([]float32)),
		Learnables:   learnables,
	}
}
