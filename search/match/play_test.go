package match_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/search/match"
)

// TestPlayWithAndWithoutPGN: without a file the match is played and kept
// nowhere; with one it goes through the journal into the file, which a
// second run does not replace without Restart; a stopped match says how
// far it got and, with a file, how to continue.
func TestPlayWithAndWithoutPGN(t *testing.T) {
	config := func() match.Config {
		cfg := shardedConfig(t)
		cfg.SPRT = nil
		return cfg
	}
	run := match.ShardRun{A: "heuristic:depth=1", B: "random", Games: 13, RandomPlies: 4, Seed: 7, MaxMoves: 40}
	var told [2]int
	onStart := func(games, resumed int) { told = [2]int{games, resumed} }
	rep, err := match.Play(context.Background(), match.PlayOptions{Config: config(), Run: run, OnStart: onStart})
	if err != nil || rep.Games != 13 || told != [2]int{13, 0} {
		t.Fatalf("without a file: %v, %+v, told %v", err, rep, told)
	}

	pgn := filepath.Join(t.TempDir(), "games.pgn")
	ctx, cancel := context.WithCancel(context.Background())
	cfg := config()
	cfg.OnGame = stopAfter(3, cancel)
	rep, err = match.Play(ctx, match.PlayOptions{Config: cfg, Run: run, PGN: pgn})
	if err == nil || rep == nil || !strings.Contains(err.Error(), "match interrupted after 3 games, kept in "+match.JournalBeside(pgn)) ||
		!strings.Contains(err.Error(), "run the same command again to continue") {
		t.Fatalf("stopped: %v, %+v", err, rep)
	}
	rep, err = match.Play(context.Background(), match.PlayOptions{Config: config(), Run: run, PGN: pgn, OnStart: onStart})
	if err != nil || rep.Games != 13 || told != [2]int{13, 3} {
		t.Fatalf("continued: %v, %+v, told %v", err, rep, told)
	}
	if data, err := os.ReadFile(pgn); err != nil || strings.Count(string(data), "[Result ") != 13 {
		t.Fatalf("the PGN file: %v\n%s", err, data)
	}
	if _, err := match.Play(context.Background(), match.PlayOptions{Config: config(), Run: run, PGN: pgn}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("over an existing file: %v", err)
	}
}
