package plot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunCurves(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "policy")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := `{"kind":"step","epoch":1,"step":10,"loss":3.1,"lr":0.001}` + "\n" +
		`{"kind":"epoch","epoch":1,"step":20,"lr":0.001,"train_loss":3,"val_loss":3.2}` + "\n"
	if err := os.WriteFile(filepath.Join(run, "metrics.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	curves, err := RunCurves([]string{run + "/"}, "val_loss")
	if err != nil || len(curves) != 1 || curves[0].Name != "policy" || len(curves[0].Steps) != 1 {
		t.Fatalf("val_loss: %+v, %v", curves, err)
	}
	if got, want := CurvesText(curves, "val_loss", "c.png"), "policy: val_loss 3.2 at step 20 (1 point)\nwrote c.png\n"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	var unknown *UnknownMetricError
	if _, err := RunCurves([]string{run}, "val_acc"); !errors.As(err, &unknown) {
		t.Errorf("an unknown metric: %v", err)
	}
	if _, err := RunCurves([]string{run}, "val_pair_accuracy"); err == nil || !strings.Contains(err.Error(), "has no val_pair_accuracy") {
		t.Errorf("a metric the run lacks: %v", err)
	}
	if _, err := RunCurves([]string{filepath.Join(root, "missing")}, "val_loss"); err == nil || !strings.Contains(err.Error(), "missing: no training metrics") {
		t.Errorf("a folder without metrics: %v", err)
	}
}
