package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunRefusesAnOutOfOtherFiles(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for name, c := range map[string]struct{ out, want string }{
		"root": {"/", "root folder"},
		"home": {home, "home folder"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Run(context.Background(), &RunConfig{Out: c.out}, RunOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	out := filepath.Join(t.TempDir(), "run")
	os.MkdirAll(filepath.Join(out, "runs", "model"), 0o755)
	cfg := &RunConfig{Out: out, Train: Trainings{{Model: "cnn"}, {Model: "siamese", Name: "comparator"}}}
	for _, own := range []string{RunGames, ".tmp-" + RunLearningGames, "labelled.partial", ".positions.tmp-1a2b", RunExperience + "-journal", RunTimings,
		"cnn.dcw", "comparator.dcw", ".tmp-comparator.dcw", "train-comparator.json"} {
		os.WriteFile(filepath.Join(out, own), nil, 0o644)
	}
	if err := cfg.checkOut(); err != nil {
		t.Fatalf("a run's own files: %v", err)
	}
	os.WriteFile(filepath.Join(out, "thesis.tex"), []byte("precious"), 0o644)
	_, err := Run(context.Background(), &RunConfig{Out: out}, RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "thesis.tex") {
		t.Fatalf("got %v", err)
	}
}
