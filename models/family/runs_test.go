package family_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
)

func TestWeightsOf(t *testing.T) {
	runs := t.TempDir()
	for path, fam := range map[string]string{
		"nnue-a/model.dcw": "nnue", "nnue-b/model.dcw": "nnue", "nnue-b/best.dcw": "nnue",
		"nnue-b/checkpoint.dcw": "checkpoint/nnue", "cnn-a/model.dcw": "cnn",
	} {
		if err := dcw.Write(filepath.Join(runs, path), &dcw.File{Family: fam}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(runs, "nnue-a", "notes.dcw"), []byte("not weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(runs, "nnue-a/model.dcw"), filepath.Join(runs, "nnue-b/best.dcw"), filepath.Join(runs, "nnue-b/model.dcw")}
	if got := family.WeightsOf(runs, "nnue"); !slices.Equal(got, want) {
		t.Errorf("WeightsOf(nnue) = %q, want %q", got, want)
	}
	if got := family.WeightsOf(runs, "ann"); got != nil {
		t.Errorf("WeightsOf(ann) = %q", got)
	}
	if got := family.WeightsOf(filepath.Join(runs, "missing"), "nnue"); got != nil {
		t.Errorf("no runs folder: %q", got)
	}
}
