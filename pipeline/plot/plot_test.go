package plot

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/pipeline/train"
)

func ptr(v float64) *float64 { return &v }

// A run's metrics as the loop writes them: step lines between epoch lines,
// and a partial epoch where max_steps ended it; each line counts the
// samples so far (batches of 10) and their FLOPs (1,000 a sample).
func curveRun() []train.Metric {
	return []train.Metric{
		{Kind: "step", Step: 50, Loss: 3.0, GradNorm: 1.2, Samples: 500, FLOPs: 5e5},
		{Kind: "step", Step: 100, Loss: 2.5, GradNorm: 0.9, Samples: 1000, FLOPs: 1e6},
		{Kind: "epoch", Epoch: 1, Step: 100, TrainLoss: 2.7, ValLoss: ptr(2.8), TrainActionAccuracy: 0.11, ValActionAccuracy: ptr(0.12), Samples: 1000, FLOPs: 1e6},
		{Kind: "step", Step: 150, Loss: 2.2, GradNorm: 0.8, Samples: 1496, FLOPs: 1.496e6},
		{Kind: "partial", Epoch: 2, Step: 160, TrainLoss: 2.3, ValLoss: ptr(2.6), TrainActionAccuracy: 0.14, ValActionAccuracy: ptr(0.15), Samples: 1596, FLOPs: 1.596e6},
	}
}

func TestCurveOfReadsEachFigureFromItsLines(t *testing.T) {
	for _, tc := range []struct {
		metric string
		axis   Axis
		steps  []int64
		x      []float64
		values []float64
	}{
		{"val_action_accuracy", AxisStep, []int64{100, 160}, []float64{100, 160}, []float64{0.12, 0.15}},
		{"val_action_accuracy", AxisSamples, []int64{100, 160}, []float64{1000, 1596}, []float64{0.12, 0.15}},
		{"val_action_accuracy", AxisFLOPs, []int64{100, 160}, []float64{1e6, 1.596e6}, []float64{0.12, 0.15}},
		{"train_loss", AxisStep, []int64{100, 160}, []float64{100, 160}, []float64{2.7, 2.3}},
		{"loss", AxisSamples, []int64{50, 100, 150}, []float64{500, 1000, 1496}, []float64{3.0, 2.5, 2.2}},
		{"grad_norm", AxisStep, []int64{50, 100, 150}, []float64{50, 100, 150}, []float64{1.2, 0.9, 0.8}},
		{"val_sign_agreement", AxisFLOPs, nil, nil, nil}, // a sequence run has none
	} {
		c, err := CurveOf("runs/run", curveRun(), tc.metric, tc.axis)
		if err != nil {
			t.Fatal(err)
		}
		if c.Name != "run" || len(c.Steps) != len(tc.steps) || len(c.X) != len(tc.steps) {
			t.Fatalf("%s against %s: %+v, want steps %v", tc.metric, tc.axis, c, tc.steps)
		}
		for i := range tc.steps {
			if c.Steps[i] != tc.steps[i] || c.X[i] != tc.x[i] || c.Values[i] != tc.values[i] {
				t.Fatalf("%s against %s: %v at %v (steps %v), want %v at %v (steps %v)", tc.metric, tc.axis, c.Values, c.X, c.Steps, tc.values, tc.x, tc.steps)
			}
		}
	}
	if _, err := CurveOf("run", curveRun(), "val_acc", AxisStep); !errors.Is(err, ErrUnknownMetric) || !strings.Contains(err.Error(), "val_action_accuracy") {
		t.Fatalf("an unknown metric should list the known ones: %v", err)
	}
	// Lines written before the loop counted samples and FLOPs, or of a
	// family without an estimate, cannot be placed on those axes.
	old := curveRun()
	for i := range old {
		old[i].FLOPs = 0
	}
	if _, err := CurveOf("runs/old", old, "val_loss", AxisSamples); err != nil {
		t.Fatalf("against samples: %v", err)
	}
	if _, err := CurveOf("runs/old", old, "val_loss", AxisFLOPs); err == nil || !strings.Contains(err.Error(), "runs/old: its metrics.jsonl has no flops at step 100") {
		t.Fatalf("against FLOPs without them: %v", err)
	}
}

func TestAxesAreReadByNameAndLabelled(t *testing.T) {
	for name, label := range map[string]string{
		"step":    "optimizer step",
		"samples": "examples trained on",
		"flops":   "training FLOPs (estimated, forward and backward)",
	} {
		a, err := ParseAxis(name)
		if err != nil || string(a) != name || a.Label() != label {
			t.Errorf("%s: axis %q (%v), label %q, want %q", name, a, err, a.Label(), label)
		}
	}
	if _, err := ParseAxis("time"); err == nil || !strings.Contains(err.Error(), "step, samples, flops") {
		t.Errorf("an unknown axis should list the known ones: %v", err)
	}
}

// writeRun writes a run folder with the metrics of curveRun and the given
// scores.jsonl lines (none: no file).
func writeRun(t *testing.T, dir string, scores ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var metrics bytes.Buffer
	for _, m := range curveRun() {
		if err := json.NewEncoder(&metrics).Encode(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, train.MetricsFile), metrics.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(scores) > 0 {
		if err := os.WriteFile(filepath.Join(dir, ScoresFile), []byte(strings.Join(scores, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A scored checkpoint's figure is read from scores.jsonl by its path,
// sorted by step, and placed on the samples or FLOPs axis by the metrics
// line at its step.
func TestReadCurveTakesScoresByTheirPath(t *testing.T) {
	dir := writeRun(t, filepath.Join(t.TempDir(), "policy"),
		`{"step":160,"test":{"action_accuracy":0.2},"puzzles":{"solved_rate":0.03}}`,
		`{"step":100,"test":{"action_accuracy":0.1}}`,
		`{"step":150,"puzzles":{"solved_rate":0.01}}`)
	for _, tc := range []struct {
		metric string
		axis   Axis
		x      []float64
		values []float64
	}{
		{"test.action_accuracy", AxisStep, []float64{100, 160}, []float64{0.1, 0.2}},
		{"test.action_accuracy", AxisSamples, []float64{1000, 1596}, []float64{0.1, 0.2}},
		{"puzzles.solved_rate", AxisFLOPs, []float64{1.496e6, 1.596e6}, []float64{0.01, 0.03}},
		{"val_action_accuracy", AxisSamples, []float64{1000, 1596}, []float64{0.12, 0.15}}, // a training figure still comes from metrics.jsonl
	} {
		c, err := ReadCurve(dir, tc.metric, tc.axis)
		if err != nil {
			t.Fatalf("%s: %v", tc.metric, err)
		}
		if c.Name != "policy" || len(c.X) != len(tc.x) || c.X[0] != tc.x[0] || c.X[1] != tc.x[1] || c.Values[0] != tc.values[0] || c.Values[1] != tc.values[1] {
			t.Fatalf("%s against %s: %v at %v, want %v at %v", tc.metric, tc.axis, c.Values, c.X, tc.values, tc.x)
		}
	}
	for metric, want := range map[string]string{
		"test.legal_rate": "no line of its scores.jsonl has test.legal_rate",
		"test":            `test is {"action_accuracy":0.2}, not a number`,
	} {
		if _, err := ReadCurve(dir, metric, AxisStep); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", metric, err, want)
		}
	}
	off := writeRun(t, filepath.Join(t.TempDir(), "off"), `{"step":120,"test":{"action_accuracy":0.1}}`)
	if _, err := ReadCurve(off, "test.action_accuracy", AxisSamples); err == nil || !strings.Contains(err.Error(), "no line at step 120") {
		t.Errorf("a score between metrics lines: %v", err)
	}
	if _, err := ReadCurve(off, "test.action_accuracy", AxisStep); err != nil {
		t.Errorf("the same against the step: %v", err)
	}
	bare := writeRun(t, filepath.Join(t.TempDir(), "bare"))
	if _, err := ReadCurve(bare, "test.action_accuracy", AxisStep); !errors.Is(err, ErrUnknownMetric) || !strings.Contains(err.Error(), "has no scores.jsonl") {
		t.Errorf("a run without scores: %v", err)
	}
}

func curve(name string, x, values []float64) Curve {
	c := Curve{Name: name}
	for i := range x {
		c.add(int64(i), x[i], values[i])
	}
	return c
}

func TestCrossingsAreWhereTheSegmentsMeet(t *testing.T) {
	a := curve("a", []float64{0, 10, 20}, []float64{0, 10, 10})
	b := curve("b", []float64{5, 15, 30}, []float64{6, 6, 20}) // another grid, compared where both are drawn: 5 to 20
	flat := curve("flat", []float64{0, 20}, []float64{10, 10}) // a meets it at 10 and stays: no crossing
	touch := curve("touch", []float64{0, 10, 20}, []float64{5, 10, 5})
	got := Crossings([]Curve{a, b, flat, touch}, false)
	want := []Crossing{
		{A: "a", B: "b", X: 6, Value: 6},                          // a - b: -1 at 5, 4 at 10
		{A: "a", B: "b", X: 15 + 15*4/14.0, Value: 10},            // b rises from 6 at 15 through a's 10
		{A: "a", B: "touch", X: 10, Value: 10},                    // equal at 10, a below before and above after
		{A: "b", B: "flat", X: 15 + 15*4/14.0, Value: 10},         // as b through a's 10
		{A: "b", B: "touch", X: 15 + 45/43.0, Value: 6 + 42/43.0}, // b - touch: -1.5 at 15, 17/3 at 20
	}
	if len(got) != len(want) {
		t.Fatalf("crossings %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.A != w.A || g.B != w.B || math.Abs(g.X-w.X) > 1e-9 || math.Abs(g.Value-w.Value) > 1e-9 {
			t.Errorf("crossing %d: %+v, want %+v", i, g, w)
		}
	}
	if got := Crossings([]Curve{a, curve("later", []float64{25, 30}, []float64{0, 20})}, false); len(got) != 0 {
		t.Errorf("curves over different ranges cross at %+v", got)
	}
	// On a logarithmic axis the segments are straight in log x: from 1 to
	// 100, a rising 0 to 2 meets a flat 1 at 10, not at the middle, 50.5.
	rising, level := curve("rising", []float64{1, 100}, []float64{0, 2}), curve("level", []float64{1, 100}, []float64{1, 1})
	for logX, x := range map[bool]float64{false: 50.5, true: 10} {
		got := Crossings([]Curve{rising, level}, logX)
		if len(got) != 1 || math.Abs(got[0].X-x) > 1e-9 || math.Abs(got[0].Value-1) > 1e-9 {
			t.Errorf("log x %v: crossings %+v, want one at %g", logX, got, x)
		}
	}
}

func TestPlotCurvesWritesOnePNG(t *testing.T) {
	dir := t.TempDir()
	a, _ := CurveOf("a", curveRun(), "val_loss", AxisFLOPs)
	b, _ := CurveOf("b", curveRun()[:3], "val_loss", AxisFLOPs) // a single point still draws
	crossed := []Crossing{{A: "a", B: "b", X: 1.2e6, Value: 2.7}}
	path := filepath.Join(dir, "curves.png")
	if err := Curves([]Curve{a, b}, crossed, Figure{Metric: "val_loss", Axis: AxisFLOPs, LogX: true, Path: path}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("not a PNG (%v): %q", err, data[:min(8, len(data))])
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left %d files, want the PNG alone", len(entries))
	}
	zero := curve("zero", []float64{0, 10}, []float64{1, 2})
	if err := Curves([]Curve{zero}, nil, Figure{Metric: "val_loss", Axis: AxisStep, LogX: true, Path: path}); err == nil || !strings.Contains(err.Error(), "no logarithm") {
		t.Fatalf("a point at 0 on a logarithmic axis: %v", err)
	}
}

func TestLogTicksLabelOneTwoAndFive(t *testing.T) {
	var labels []string
	marks := 0
	for _, tick := range (logTicks{}).Ticks(3000, 80000) {
		if tick.Label != "" {
			labels = append(labels, tick.Label)
		} else {
			marks++
		}
	}
	// 3000-9000, 10000-80000: labels at 5000, 10000, 20000, 50000, unlabelled
	// marks at the other 11 multiples.
	if strings.Join(labels, " ") != "5000 10000 20000 50000" || marks != 11 {
		t.Errorf("labels %v and %d marks", labels, marks)
	}
}

// Compare says where epoch figures and scores cross, not where the noisy
// step losses do.
func TestCompareFindsCrossingsOfEpochFiguresAndScores(t *testing.T) {
	dir := t.TempDir()
	a := writeRun(t, filepath.Join(dir, "a"), `{"step":100,"test":{"action_accuracy":0.1}}`, `{"step":160,"test":{"action_accuracy":0.3}}`)
	b := writeRun(t, filepath.Join(dir, "b"), `{"step":100,"test":{"action_accuracy":0.2}}`, `{"step":160,"test":{"action_accuracy":0.2}}`)
	// b's losses: a's, above at step 50 and below at 150, so they cross.
	metrics := filepath.Join(b, train.MetricsFile)
	raw, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	raw = bytes.Replace(raw, []byte(`"loss":3,`), []byte(`"loss":3.5,`), 1)
	raw = bytes.Replace(raw, []byte(`"loss":2.2,`), []byte(`"loss":2,`), 1)
	if err := os.WriteFile(metrics, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for metric, crossings := range map[string]int{"test.action_accuracy": 1, "loss": 0} {
		cmp, err := Compare([]string{a, b}, Figure{Metric: metric, Axis: AxisSamples, Path: filepath.Join(dir, metric+".png")})
		if err != nil {
			t.Fatal(err)
		}
		if len(cmp.Runs) != 2 || len(cmp.Crossings) != crossings {
			t.Errorf("%s: %d runs, crossings %+v, want 2 and %d", metric, len(cmp.Runs), cmp.Crossings, crossings)
		}
	}
	if loss, err := ReadCurve(b, "loss", AxisStep); err != nil || loss.Values[0] != 3.5 || loss.Values[2] != 2 {
		t.Fatalf("the test's losses did not change: %v %v", loss, err)
	}
}
