package plot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/pipeline/train"
)

func ptr(v float64) *float64 { return &v }

// A run's metrics as the loop writes them: step lines between epoch lines,
// and a partial epoch where max_steps ended it.
func curveRun() []train.Metric {
	return []train.Metric{
		{Kind: "step", Step: 50, Loss: 3.0, GradNorm: 1.2},
		{Kind: "step", Step: 100, Loss: 2.5, GradNorm: 0.9},
		{Kind: "epoch", Epoch: 1, Step: 100, TrainLoss: 2.7, ValLoss: ptr(2.8), TrainActionAccuracy: 0.11, ValActionAccuracy: ptr(0.12)},
		{Kind: "step", Step: 150, Loss: 2.2, GradNorm: 0.8},
		{Kind: "partial", Epoch: 2, Step: 160, TrainLoss: 2.3, ValLoss: ptr(2.6), TrainActionAccuracy: 0.14, ValActionAccuracy: ptr(0.15)},
	}
}

func TestCurveOfReadsEachFigureFromItsLines(t *testing.T) {
	for _, tc := range []struct {
		metric string
		steps  []int64
		values []float64
	}{
		{"val_action_accuracy", []int64{100, 160}, []float64{0.12, 0.15}},
		{"train_loss", []int64{100, 160}, []float64{2.7, 2.3}},
		{"loss", []int64{50, 100, 150}, []float64{3.0, 2.5, 2.2}},
		{"grad_norm", []int64{50, 100, 150}, []float64{1.2, 0.9, 0.8}},
		{"val_sign_agreement", nil, nil}, // a sequence run has none
	} {
		c, err := CurveOf("run", curveRun(), tc.metric)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Steps) != len(tc.steps) {
			t.Fatalf("%s: steps %v, want %v", tc.metric, c.Steps, tc.steps)
		}
		for i := range tc.steps {
			if c.Steps[i] != tc.steps[i] || c.Values[i] != tc.values[i] {
				t.Fatalf("%s: %v at %v, want %v at %v", tc.metric, c.Values, c.Steps, tc.values, tc.steps)
			}
		}
	}
	if _, err := CurveOf("run", curveRun(), "val_acc"); err == nil || !strings.Contains(err.Error(), "val_action_accuracy") {
		t.Fatalf("an unknown metric should list the known ones: %v", err)
	}
}

func TestPlotCurvesWritesOnePNG(t *testing.T) {
	dir := t.TempDir()
	a, _ := CurveOf("a", curveRun(), "val_loss")
	b, _ := CurveOf("b", curveRun()[:3], "val_loss") // a single point still draws
	path := filepath.Join(dir, "curves.png")
	if err := Curves([]Curve{a, b}, "val_loss", path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("not a PNG (%v): %q", err, data[:min(8, len(data))])
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left %d files, want the PNG alone", len(entries))
	}
}
