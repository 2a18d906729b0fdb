package cnn

import (
	"testing"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/models/nn/nntest"
)

func testConfigs() map[string]Config {
	wide := DefaultConfig()
	wide.Input = nn.Input{Encoding: nn.EncodingPlanes, Min: -1, Max: 1}
	wide.Conv = []Conv{{Filters: 8, Kernel: 3, Pad: 1}, {Filters: 6, Kernel: 3, Pad: 0, Pool: 2, PoolStride: 2}}
	wide.Hidden = []int{16}
	wide.Activation = nn.ActTanh
	return map[string]Config{"thesis": DefaultConfig(), "planes-nopool-tanh": wide}
}

func TestForwardMatchesGorgonia(t *testing.T) {
	for name, cfg := range testConfigs() {
		t.Run(name, func(t *testing.T) {
			m, err := NewModel(cfg)
			if err != nil {
				t.Fatal(err)
			}
			nntest.CheckForwardBeforeAndAfterTraining(t, m, NewNet)
		})
	}
}

func TestLoadAndEvaluate(t *testing.T) {
	m, err := NewModel(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	nntest.CheckLoadAndEvaluate(t, m, Load, NewNet, "ann")
}

func TestEvaluateAllocatesNothing(t *testing.T) {
	m, err := NewModel(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	nntest.CheckEvaluateAllocatesNothing(t, m, NewNet)
}

func BenchmarkEvaluate(b *testing.B) {
	m, err := NewModel(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	nntest.BenchmarkEvaluate(b, m, NewNet)
}

// TestTrainingIsDeterministic trains twice from the same weights on the
// same batch: the conv blocks split their work over the cores, and the
// weights must still come out bit for bit the same (resume relies on it).
func TestTrainingIsDeterministic(t *testing.T) {
	m, err := NewModel(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	inputs, targets, err := nntest.EncodeMaterial(m, nntest.RandomBoards(64, 11))
	if err != nil {
		t.Fatal(err)
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

// Size counts the weights InitParams draws and, for the thesis network,
// the values of its feature maps and output.
func TestSizeCountsTheWeights(t *testing.T) {
	for name, cfg := range testConfigs() {
		m, err := NewModel(cfg)
		if err != nil {
			t.Fatal(err)
		}
		weights := 0
		for _, p := range m.InitParams(1) {
			weights += len(p.Data)
		}
		if params, _ := cfg.Size(); params != weights {
			t.Errorf("%s: Size says %d weights, InitParams draws %d", name, params, weights)
		}
	}
	// conv 13×8×8, pool 13×6×6, conv 10×6×6, pool 10×3×3, output 1.
	if _, values := DefaultConfig().Size(); values != 13*64+13*36+10*36+10*9+1 {
		t.Errorf("the thesis network's forward pass produces %d values, Size says %d", 13*64+13*36+10*36+10*9+1, values)
	}
}
