package plot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompareText(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "policy")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := `{"kind":"step","epoch":1,"step":10,"loss":3.1,"lr":0.001,"samples":1280,"flops":2e9}` + "\n" +
		`{"kind":"epoch","epoch":1,"step":20,"lr":0.001,"train_loss":3,"val_loss":3.2,"samples":2560,"flops":4e9}` + "\n"
	if err := os.WriteFile(filepath.Join(run, "metrics.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(root, "c.png")
	cmp, err := Compare([]string{run + "/"}, Figure{Metric: "val_loss", Axis: AxisStep, Path: png})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cmp.Text(), "policy: val_loss 3.2 at step 20 (1 point)\nwrote "+png+"\n"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	cmp, err = Compare([]string{run}, Figure{Metric: "val_loss", Axis: AxisSamples, Path: png})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cmp.Text(), "policy: val_loss 3.2 at step 20, 2560 samples (1 point)\nwrote "+png+"\n"; got != want {
		t.Errorf("text against samples %q, want %q", got, want)
	}
	if _, err := Compare([]string{run}, Figure{Metric: "val_acc", Axis: AxisStep, Path: png}); !errors.Is(err, ErrUnknownMetric) {
		t.Errorf("an unknown metric: %v", err)
	}
	if _, err := Compare([]string{filepath.Join(root, "missing")}, Figure{Metric: "val_loss", Axis: AxisStep, Path: png}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a folder without metrics: %v", err)
	}
}
