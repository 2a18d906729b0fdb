package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dchess/dchess/pipeline/selfplay"
)

// clockDecided matches what the wall clock, not the seed, decides in a
// PGN: the date and each move's time.
var clockDecided = regexp.MustCompile(`\[Date "[^"]*"\]| \d+\.\d{3}s`)

// pgnGames splits a PGN file into its games' texts, without the date and
// the move times.
func pgnGames(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var games []string
	for _, g := range strings.Split(clockDecided.ReplaceAllString(string(data), ""), "[Event ") {
		if g = strings.TrimSpace(g); g != "" {
			games = append(games, g)
		}
	}
	return games
}

func TestSelfPlayShardsTogetherEqualOneRun(t *testing.T) {
	dir := t.TempDir()
	common := []string{"selfplay", "--a", "heuristic:depth=1", "--games", "7", "--depth", "1", "--max-moves", "30",
		"--random-rate", "0.2", "--quiet"}
	whole := filepath.Join(dir, "whole.pgn")
	if err := runCLI(mustStreams(), append(common, "-o", whole)...); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "games")
	var sharded []string
	for _, task := range []string{"0/3", "1/3", "2/3"} {
		if err := runCLI(mustStreams(), append(common, "--shard", task, "-o", base)...); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"games-0000-of-0003", "games-0001-of-0003", "games-0002-of-0003"} {
		if _, err := os.Stat(filepath.Join(dir, name, selfplay.ShardManifest)); err != nil {
			t.Fatalf("task output %s has no manifest: %v", name, err)
		}
		sharded = append(sharded, pgnGames(t, filepath.Join(dir, name, selfplay.ShardPGN))...)
	}
	want := pgnGames(t, whole)
	slices.Sort(want)
	slices.Sort(sharded)
	if len(want) != 7 || !slices.Equal(want, sharded) {
		t.Fatalf("the tasks' %d games differ from one run's %d games", len(sharded), len(want))
	}

	// A finished task is skipped; one asked with other settings is refused.
	s, out, _ := playStreams("")
	if err := runCLI(s, append(common, "--shard", "1/3", "-o", base)...); err != nil || !strings.Contains(out.String(), "nothing to do") {
		t.Fatalf("rerun of a finished task: %v, %q", err, out)
	}
	err := runCLI(mustStreams(), "selfplay", "--a", "heuristic:depth=1", "--games", "9", "--depth", "1", "--max-moves", "30",
		"--random-rate", "0.2", "--quiet", "--shard", "1/3", "-o", base)
	if err == nil || !strings.Contains(err.Error(), "games-0001-of-0003") {
		t.Fatalf("a task with other settings over a finished one: %v", err)
	}
}

func mustStreams() *IOStreams {
	s, _, _ := playStreams("")
	return s
}
