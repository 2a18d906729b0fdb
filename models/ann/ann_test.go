package ann

import (
	"testing"

	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/models/nn/nntest"
)

func testConfigs() map[string]Config {
	wide := DefaultConfig()
	wide.Input = nn.Input{Encoding: nn.EncodingPlanes, Min: -1, Max: 1}
	wide.Hidden = []int{32, 16}
	wide.Activation = nn.ActTanh
	return map[string]Config{"thesis": DefaultConfig(), "planes-tanh": wide}
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
	nntest.CheckLoadAndEvaluate(t, m, Load, NewNet, "cnn")
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
