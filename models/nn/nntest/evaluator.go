package nntest

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
)

// The checks below are the tests every family built on nn.Evaluator shares
// (ann, cnn); each family's tests call them with its own constructors.

// Net is a family's pure-Go forward pass as the checks use it.
type Net[N any] interface {
	nn.Network[N]
	Logit(x []float32) float32
}

// Encoder is a Model that encodes a labelled record as its input.
type Encoder interface {
	Model
	EncodeRecord(r *dataset.Record, dst []float32) (float32, error)
}

// EncodeMaterial labels boards with MaterialRecords and encodes them with m.
func EncodeMaterial(m Encoder, boards []*board.Board) ([][]float32, []float32, error) {
	size := 1
	for _, d := range m.InputShape(1)[1:] {
		size *= d
	}
	inputs := make([][]float32, len(boards))
	targets := make([]float32, len(boards))
	for i, rec := range MaterialRecords(boards) {
		inputs[i] = make([]float32, size)
		var err error
		if targets[i], err = m.EncodeRecord(rec, inputs[i]); err != nil {
			return nil, nil, err
		}
	}
	return inputs, targets, nil
}

// CheckForward fails t unless the pure-Go network newNet builds from params
// gives Gorgonia's logits on inputs within 1e-5.
func CheckForward[N Net[N]](t testing.TB, m Model, newNet func(*dcw.File) (N, error), params []dcw.Tensor, inputs [][]float32) {
	t.Helper()
	want, err := GraphLogits(m, params, inputs)
	if err != nil {
		t.Fatal(err)
	}
	f, err := File(m, params)
	if err != nil {
		t.Fatal(err)
	}
	net, err := newNet(f)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range inputs {
		if got := net.Logit(x); math.Abs(float64(got-want[i])) > 1e-5 {
			t.Fatalf("position %d: pure Go %.7f, Gorgonia %.7f", i, got, want[i])
		}
	}
}

// CheckForwardBeforeAndAfterTraining runs CheckForward on 300 random
// positions with fresh weights and again after 30 SGD steps, which must move
// some weight: trained weights reach ranges fresh ones do not.
func CheckForwardBeforeAndAfterTraining[N Net[N]](t testing.TB, m Encoder, newNet func(*dcw.File) (N, error)) {
	t.Helper()
	inputs, targets, err := EncodeMaterial(m, RandomBoards(300, 7))
	if err != nil {
		t.Fatal(err)
	}
	params := m.InitParams(3)
	CheckForward(t, m, newNet, params, inputs)
	trained, err := Train(m, params, inputs, targets, 30, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if d := MaxChange(params, trained); d < 1e-3 {
		t.Fatalf("training moved no weight by more than %g", d)
	}
	CheckForward(t, m, newNet, trained, inputs)
}

// CheckLoadAndEvaluate writes m's fresh weights to a file, loads it with
// load and checks the scores: in range, and the centipawns map back to the
// win probability. newNet must refuse the same weights under otherFamily.
func CheckLoadAndEvaluate[N Net[N]](t testing.TB, m Model, load func(string) (*nn.Evaluator[N], error), newNet func(*dcw.File) (N, error), otherFamily string) {
	t.Helper()
	f, err := File(m, m.InitParams(1))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.dcw")
	if err := dcw.Write(path, f); err != nil {
		t.Fatal(err)
	}
	e, err := load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range RandomBoards(20, 2) {
		cp := e.Evaluate(b)
		p := e.WinProbability(b)
		if cp < -nn.MaxCentipawns || cp > nn.MaxCentipawns || p < 0 || p > 1 {
			t.Fatalf("score %d cp, win probability %g out of range", cp, p)
		}
		if back := nn.Sigmoid(float32(cp) * 0.00368208); math.Abs(float64(back-p)) > 0.002 {
			t.Fatalf("%d cp maps to %g, network said %g", cp, back, p)
		}
	}
	f.Family = otherFamily
	if _, err := newNet(f); err == nil {
		t.Fatalf("weights of family %q accepted", otherFamily)
	}
}

// freshEvaluator wraps the network newNet builds from m's fresh weights.
func freshEvaluator[N Net[N]](tb testing.TB, m Model, newNet func(*dcw.File) (N, error)) *nn.Evaluator[N] {
	tb.Helper()
	f, err := File(m, m.InitParams(1))
	if err != nil {
		tb.Fatal(err)
	}
	net, err := newNet(f)
	if err != nil {
		tb.Fatal(err)
	}
	return nn.NewEvaluator(net)
}

// CheckEvaluateAllocatesNothing fails t if scoring a position allocates:
// the search calls Evaluate at every node.
func CheckEvaluateAllocatesNothing[N Net[N]](t testing.TB, m Model, newNet func(*dcw.File) (N, error)) {
	t.Helper()
	e := freshEvaluator(t, m, newNet)
	b := RandomBoards(1, 5)[0]
	if allocs := testing.AllocsPerRun(100, func() { e.Evaluate(b) }); allocs != 0 {
		t.Fatalf("Evaluate allocates %v times per call", allocs)
	}
}

// BenchmarkEvaluate times Evaluate with m's fresh weights on 64 random positions.
func BenchmarkEvaluate[N Net[N]](b *testing.B, m Model, newNet func(*dcw.File) (N, error)) {
	e := freshEvaluator(b, m, newNet)
	boards := RandomBoards(64, 9)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Evaluate(boards[i%len(boards)])
	}
}
