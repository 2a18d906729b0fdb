package nnue

import (
	"math"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn/nntest"
)

// smallConfig is a network the tests train in well under a second.
func smallConfig() Config {
	c := DefaultConfig()
	c.Accumulator, c.Hidden = 32, []int{8}
	return c
}

// smallConfigs are smallConfig with and without the pairwise product, by
// name.
func smallConfigs() map[string]Config {
	pairwise, clipped := smallConfig(), smallConfig()
	pairwise.Pairwise, clipped.Pairwise = true, false
	return map[string]Config{"clipped": clipped, "pairwise": pairwise}
}

func newModel(t testing.TB, c Config) *Model {
	t.Helper()
	m, err := NewModel(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// batch is records encoded for the graph, one buffer per input.
type batch struct {
	rows int
	bufs [][]float32
}

func encodeBatch(t testing.TB, m *Model, recs []*dataset.Record) batch {
	t.Helper()
	shapes := m.InputShapes(1)
	var bt batch
	for range shapes {
		bt.bufs = append(bt.bufs, nil)
	}
	for _, r := range recs {
		row := make([][]float32, len(shapes))
		for i, s := range shapes {
			row[i] = make([]float32, s[1])
		}
		used, err := m.Encode(r, row)
		if err != nil {
			t.Fatal(err)
		}
		if !used {
			continue
		}
		for i := range row {
			bt.bufs[i] = append(bt.bufs[i], row[i]...)
		}
		bt.rows++
	}
	return bt
}

// graph is the model built on one batch, with its mean loss.
type graph struct {
	out  Outputs
	loss *G.Node
	vm   G.VM
}

// batchInputs are the graph's inputs, backed by the batch's buffers.
func batchInputs(g *G.ExprGraph, m *Model, bt batch) []*G.Node {
	var inputs []*G.Node
	for i, s := range m.InputShapes(bt.rows) {
		inputs = append(inputs, G.NewTensor(g, tensor.Float32, 2, G.WithShape(s...), G.WithName(string(rune('a'+i))),
			G.WithValue(tensor.New(tensor.WithShape(s...), tensor.WithBacking(bt.bufs[i])))))
	}
	return inputs
}

func buildGraph(t testing.TB, m *Model, params []dcw.Tensor, bt batch) *graph {
	t.Helper()
	g := G.NewGraph()
	out, err := m.Build(g, batchInputs(g, m, bt), params)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := G.Mean(out.PerRow)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(loss, out.Learnables...); err != nil {
		t.Fatal(err)
	}
	return &graph{out: out, loss: loss, vm: G.NewTapeMachine(g, G.BindDualValues(out.Learnables...))}
}

func (gr *graph) run(t testing.TB) float64 {
	t.Helper()
	gr.vm.Reset()
	if err := gr.vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return float64(gr.loss.Value().Data().(float32))
}

// train runs steps of Adam on the batch and returns the loss before the
// first step and after the last, and the trained weights.
func train(t testing.TB, m *Model, params []dcw.Tensor, bt batch, steps int, lr float64) (before, after float64, trained []dcw.Tensor) {
	t.Helper()
	gr := buildGraph(t, m, params, bt)
	defer gr.vm.Close()
	solver := G.NewAdamSolver(G.WithLearnRate(lr))
	for i := 0; i < steps; i++ {
		loss := gr.run(t)
		if i == 0 {
			before = loss
		}
		if err := solver.Step(G.NodesToValueGrads(gr.out.Learnables)); err != nil {
			t.Fatal(err)
		}
	}
	after = gr.run(t)
	for i, n := range gr.out.Learnables {
		if n.Name() != params[i].Name {
			t.Fatalf("learnable %d is %s, parameter %s", i, n.Name(), params[i].Name)
		}
		trained = append(trained, dcw.Tensor{Name: params[i].Name, Shape: params[i].Shape,
			Data: append([]float32(nil), n.Value().Data().([]float32)...)})
	}
	return before, after, trained
}

// materialSet is positions from random games labelled by material.
func materialSet(n int, seed uint64) []*dataset.Record {
	return nntest.MaterialRecords(nntest.RandomBoards(n, seed))
}

func weightsFile(t testing.TB, m *Model, params []dcw.Tensor) *dcw.File {
	t.Helper()
	arch, err := m.Arch()
	if err != nil {
		t.Fatal(err)
	}
	return &dcw.File{Family: Family, Arch: arch, Tensors: params}
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
