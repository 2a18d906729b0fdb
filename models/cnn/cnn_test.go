package cnn

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/models/nn/nntest"
)

// checkForwardMatches compares the pure-Go forward pass with Gorgonia's on
// the given boards' inputs.
func checkForwardMatches(t *testing.T, m *Model, params []dcw.Tensor, inputs [][]float32) {
	t.Helper()
	want, err := nntest.GraphLogits(m, params, inputs)
	if err != nil {
		t.Fatal(err)
	}
	f, err := nntest.File(m, params)
	if err != nil {
		t.Fatal(err)
	}
	net, err := NewNet(f)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range inputs {
		if got := net.Logit(x); math.Abs(float64(got-want[i])) > 1e-5 {
			t.Fatalf("position %d: pure Go %.7f, Gorgonia %.7f", i, got, want[i])
		}
	}
}

func testConfigs() map[string]Config {
	wide := DefaultConfig()
	wide.Input = nn.Input{Encoding: nn.EncodingPlanes, Min: -1, Max: 1}
	wide.Conv = []Conv{{Filters: 8, Kernel: 3, Pad: 1}, {Filters: 6, Kernel: 3, Pad: 0, Pool: 2, PoolStride: 2}}
	wide.Hidden = []int{16}
	wide.Activation = nn.ActTanh
	return map[string]Config{"thesis": DefaultConfig(), "planes-nopool-tanh": wide}
}

func TestForwardMatchesGorgonia(t *testing.T) {
	boards := nntest.RandomBoards(300, 7)
	for name, cfg := range testConfigs() {
		t.Run(name, func(t *testing.T) {
			m, err := NewModel(cfg)
			if err != nil {
				t.Fatal(err)
			}
			inputs := make([][]float32, len(boards))
			targets := make([]float32, len(boards))
			for i, rec := range nntest.MaterialRecords(boards) {
				inputs[i] = make([]float32, cfg.Input.Size())
				if targets[i], err = m.EncodeRecord(rec, inputs[i]); err != nil {
					t.Fatal(err)
				}
			}
			params := m.InitParams(3)
			checkForwardMatches(t, m, params, inputs)
			trained, err := nntest.Train(m, params, inputs, targets, 30, 0.5)
			if err != nil {
				t.Fatal(err)
			}
			if d := nntest.MaxChange(params, trained); d < 1e-3 {
				t.Fatalf("training moved no weight by more than %g", d)
			}
			checkForwardMatches(t, m, trained, inputs)
		})
	}
}

func TestLoadAndEvaluate(t *testing.T) {
	m, err := NewModel(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	f, err := nntest.File(m, m.InitParams(1))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.dcw")
	if err := dcw.Write(path, f); err != nil {
		t.Fatal(err)
	}
	e, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range nntest.RandomBoards(20, 2) {
		cp := e.Evaluate(b)
		p := e.WinProbability(b)
		if cp < -nn.MaxCentipawns || cp > nn.MaxCentipawns || p < 0 || p > 1 {
			t.Fatalf("score %d cp, win probability %g out of range", cp, p)
		}
		// The centipawns must map back to the network's win probability.
		if back := nn.Sigmoid(float32(cp) * 0.00368208); math.Abs(float64(back-p)) > 0.002 {
			t.Fatalf("%d cp maps to %g, network said %g", cp, back, p)
		}
	}
	f.Family = "ann"
	if _, err := NewNet(f); err == nil {
		t.Fatal("weights of another family accepted")
	}
}

func TestEvaluateAllocatesNothing(t *testing.T) {
	m, _ := NewModel(DefaultConfig())
	f, _ := nntest.File(m, m.InitParams(1))
	net, err := NewNet(f)
	if err != nil {
		t.Fatal(err)
	}
	e := NewEvaluator(net)
	b := nntest.RandomBoards(1, 5)[0]
	if allocs := testing.AllocsPerRun(100, func() { e.Evaluate(b) }); allocs != 0 {
		t.Fatalf("Evaluate allocates %v times per call", allocs)
	}
}

func BenchmarkEvaluate(b *testing.B) {
	m, _ := NewModel(DefaultConfig())
	f, _ := nntest.File(m, m.InitParams(1))
	net, err := NewNet(f)
	if err != nil {
		b.Fatal(err)
	}
	e := NewEvaluator(net)
	boards := nntest.RandomBoards(64, 9)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Evaluate(boards[i%len(boards)])
	}
}

// TestTrainingIsDeterministic trains twice from the same weights on the
// same batch: the conv blocks split their work over the cores, and the
// weights must still come out bit for bit the same (resume relies on it).
func TestTrainingIsDeterministic(t *testing.T) {
	m, err := NewModel(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	boards := nntest.RandomBoards(64, 11)
	inputs := make([][]float32, len(boards))
	targets := make([]float32, len(boards))
	for i, rec := range nntest.MaterialRecords(boards) {
		inputs[i] = make([]float32, m.cfg.Input.Size())
		if targets[i], err = m.EncodeRecord(rec, inputs[i]); err != nil {
			t.Fatal(err)
		}
	}
	params := m.InitParams(5)
	var runs [2][]dcw.Tensor
	for i := range runs {
		if runs[i], err = nntest.Train(m, params, inputs, targets, 5, 0.5); err != nil {
			t.Fatal(err)
		}
	}
	if nntest.MaxChange(params, runs[0]) == 0 {
		t.Fatal("training changed nothing")
	}
	if d := nntest.MaxChange(runs[0], runs[1]); d != 0 {
		t.Fatalf("two identical runs differ by up to %g", d)
	}
}
