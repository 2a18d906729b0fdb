package family_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/search/player"
)

func TestCompleteSpec(t *testing.T) {
	player.RegisterBuiltins()
	dir := t.TempDir()
	t.Chdir(dir)
	runs := filepath.Join("runs")
	for path, fam := range map[string]string{"nnue-a/model.dcw": "nnue", "cnn-a/model.dcw": "cnn"} {
		if err := dcw.Write(filepath.Join(runs, path), &dcw.File{Family: fam}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(runs, "engine"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		word  string
		want  []string
		paths bool
	}{
		{"HEU", []string{"heuristic"}, false},
		{"zzz", nil, false},
		{"nnue:", []string{"nnue:runs/nnue-a/model.dcw"}, false},
		{"cnn:runs/n", nil, false},
		{"uci:ru", []string{"uci:runs/"}, true},
		{"uci:runs/e", []string{"uci:runs/engine"}, true},
	} {
		got, paths := family.CompleteSpec(runs, c.word)
		if !slices.Equal(got, c.want) || paths != c.paths {
			t.Errorf("CompleteSpec(%q) = %q, %v; want %q, %v", c.word, got, paths, c.want, c.paths)
		}
	}
	// In a list the last SPEC is completed; the ones before it are kept.
	for _, c := range []struct {
		word  string
		want  []string
		paths bool
	}{
		{"heuristic:depth=2,ra", []string{"heuristic:depth=2,random"}, false},
		{"random,nnue:", []string{"random,nnue:runs/nnue-a/model.dcw"}, false},
		{"random,uci:runs/e", []string{"random,uci:runs/engine"}, true},
		{"HEU", []string{"heuristic"}, false},
		{"random,zzz", nil, false},
	} {
		got, paths := family.CompleteSpecList(runs, c.word)
		if !slices.Equal(got, c.want) || paths != c.paths {
			t.Errorf("CompleteSpecList(%q) = %q, %v; want %q, %v", c.word, got, paths, c.want, c.paths)
		}
	}
}
