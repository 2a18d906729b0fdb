package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the dchess command line with args, as main does.
func runCLI(s *IOStreams, args ...string) error {
	root := newRootCmd(s)
	root.SetArgs(args)
	return root.ExecuteContext(context.Background())
}

func TestSelfPlayThroughTheCommandLine(t *testing.T) {
	out := filepath.Join(t.TempDir(), "games.pgn")
	s, stdout, _ := playStreams("")
	err := runCLI(s, "selfplay", "--a", "heuristic:depth=1", "--games", "4", "--depth", "1", "--max-moves", "40",
		"--random-rate", "0.1", "--concurrency", "2", "-o", out, "--json", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if res["games"] != 4.0 || res["output"] != out || res["games_per_second"] == nil {
		t.Errorf("summary %s", stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "[Event \"dchess selfplay\"]"); n != 4 {
		t.Errorf("%d games in the PGN", n)
	}
	// The generated openings are 6 plies deep: Black's fourth move is next.
	if !strings.Contains(string(data), " w ") || !strings.Contains(string(data), "[FEN \"") {
		t.Errorf("no FEN tags:\n%s", data)
	}
	s, _, _ = playStreams("")
	err = runCLI(s, "selfplay", "--a", "heuristic:depth=1", "--games", "2", "--depth", "1", "-o", out, "--quiet")
	if err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("selfplay over an existing file without --force: %v", err)
	}
}

func TestSelfPlayBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"selfplay", "--games", "2", "-o", "x.pgn"},
		{"selfplay", "--a", "heuristic", "--games", "2"},
		{"selfplay", "--a", "heuristic", "-o", "x.pgn", "--random-rate", "2"},
		{"selfplay", "--a", "he uristic", "-o", "x.pgn"},
		{"selfplay", "--a", "heuristic", "-o", "x.pgn", "--games", "0"},
	} {
		s, _, _ := playStreams("")
		err := runCLI(s, args...)
		var usage *usageError
		if !errors.As(err, &usage) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: want a one-line usage error, got %v", args, err)
		}
	}
	s, stdout, _ := playStreams("")
	if err := runCLI(s, "selfplay", "--help"); err != nil || !strings.Contains(stdout.String(), "Examples:") {
		t.Errorf("--help: %v\n%s", err, stdout)
	}
}
