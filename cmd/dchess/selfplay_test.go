package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/pipeline/selfplay"
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

// TestSelfPlayCommandLineContinuesAJournal: a run whose file cannot be
// written keeps its games in the journal; with the journal cut to two
// games and a torn line, as a kill leaves it, the same command plays the
// rest and writes the uninterrupted run's games in game order; a journal
// of other settings is refused, and --force starts over.
func TestSelfPlayCommandLineContinuesAJournal(t *testing.T) {
	dir := t.TempDir()
	common := []string{"selfplay", "--a", "heuristic:depth=1", "--b", "random", "--games", "6", "--depth", "1",
		"--max-moves", "30", "--random-rate", "0.1", "--concurrency", "2", "--quiet", "--json"}
	ref := filepath.Join(dir, "ref.pgn")
	if err := runCLI(mustStreams(), append(common, "-o", ref)...); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(dir, "games.pgn")
	journal := selfplay.Journal(out)
	// A folder named like the file's temporary makes the run fail after
	// its last game, when it writes the file.
	blocker := safefile.TempPrefix(out) + "0badf00d"
	if err := os.Mkdir(blocker, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runCLI(mustStreams(), append(common, "-o", out)...); err == nil {
		t.Fatal("a run that cannot write its file succeeded")
	}
	os.Remove(blocker)
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("the journal holds %d lines, want the 6 games", len(lines))
	}
	if err := os.WriteFile(journal, []byte(lines[0]+lines[1]+lines[2][:40]), 0o644); err != nil {
		t.Fatal(err)
	}

	s, stdout, _ := playStreams("")
	if err := runCLI(s, append(common, "-o", out)...); err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if res["games"] != 6.0 || res["resumed"] != 2.0 {
		t.Errorf("summary %s, want 6 games, 2 resumed", stdout)
	}
	if got, want := pgnGames(t, out), pgnGames(t, ref); !slices.Equal(got, want) {
		t.Fatalf("the continued run's games differ from the uninterrupted run's:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal left after the run finished: %v", err)
	}

	// An interrupted run of other settings: its journal is refused, and
	// --force replaces the file and plays every game again.
	os.Remove(out)
	if err := os.WriteFile(journal, []byte(lines[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	err = runCLI(mustStreams(), append(common, "--seed", "9", "-o", out)...)
	if err == nil || !strings.Contains(err.Error(), journal) || !strings.Contains(err.Error(), "--force") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a journal of other settings: %v; want a one-line refusal naming it and --force", err)
	}
	s, stdout, _ = playStreams("")
	if err := runCLI(s, append(common, "--seed", "9", "--force", "-o", out)...); err != nil {
		t.Fatal(err)
	}
	res = nil
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res["games"] != 6.0 || res["resumed"] != 0.0 {
		t.Errorf("--force over another run's journal: %s", stdout)
	}
}
