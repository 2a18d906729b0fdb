package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// TestPipelineRunShortConfig runs every stage of the quickstart on tiny
// sizes, then again to see each stage skipped.
func TestPipelineRunShortConfig(t *testing.T) {
	t.Setenv("DCHESS_STOCKFISH", testenv.Stockfish(t))
	out := filepath.Join(t.TempDir(), "run")
	cfg := filepath.Join(testenv.RepoRoot(), "configs", "quickstart-short.yaml")
	s, stdout, stderr := playStreams("")
	if err := runPipelineRun(context.Background(), &pipelineRunOptions{Config: cfg, Out: out}, s); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout.String(), "9 stages run") || !strings.Contains(stdout.String(), "experience-before") {
		t.Errorf("summary:\n%s", stdout)
	}
	report, err := os.ReadFile(filepath.Join(out, "report", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Ratings", "| Rank | Player | Elo | ± 95 % |", "random", "cnn", "experience-before",
		"![model: training and validation loss](loss-model.png)", "[Self-play games](../games.pgn)", "[Learning games](../learning.pgn)",
		"[Tournament games](../tournament.pgn)", "## Time per stage", "Labelled by Stockfish"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	for _, f := range []string{"report/loss-model.png", "games.pgn", "learning.pgn", "tournament.pgn", "model.dcw", "experience.db", "experience-before.db"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	var st struct {
		Players []struct{ Name string } `json:"players"`
	}
	data, _ := os.ReadFile(filepath.Join(out, "tournament.json"))
	if err := json.Unmarshal(data, &st); err != nil || len(st.Players) != 4 {
		t.Errorf("tournament.json: %v\n%s", err, data)
	}

	// A second run finds every output complete and only rewrites the report.
	s, stdout, _ = playStreams("")
	if err := runPipelineRun(context.Background(), &pipelineRunOptions{Config: cfg, Out: out, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var again struct {
		Stages []struct {
			Name    string
			Skipped bool
		}
		Report string
	}
	if err := json.Unmarshal(stdout.Bytes(), &again); err != nil || len(again.Stages) != 10 {
		t.Fatalf("second run: %v\n%s", err, stdout)
	}
	for _, stage := range again.Stages {
		if !stage.Skipped {
			t.Errorf("stage %s ran again", stage.Name)
		}
	}
}

func TestPipelineRunBadConfig(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("out: x\nselfplay: {a: heuristic, games: 4}\nunknown_key: 1\n"), 0o644)
	for _, path := range []string{filepath.Join(dir, "missing.yaml"), bad} {
		s, _, _ := playStreams("")
		err := runPipelineRun(context.Background(), &pipelineRunOptions{Config: path}, s)
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: want a one-line error, got %v", path, err)
		}
	}
}
