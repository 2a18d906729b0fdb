package selfplay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/search/match"
)

// TestRunToFile: a whole run writes its file and refuses to replace it
// without Restart; a sharded one writes its task's folder, and a second
// run of the task is skipped.
func TestRunToFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	play := Options{Match: match.Config{Depth: 1, MaxMoves: 30, Seed: 3}, A: "heuristic:depth=1", Games: 2, OpeningPlies: 4,
		Output: filepath.Join(dir, "games.pgn")}
	res, err := RunToFile(ctx, FileOptions{Play: play})
	if err != nil || res.Output != play.Output || res.Played == nil || res.Played.Games != 2 {
		t.Fatalf("whole run: %+v, %v", res, err)
	}
	if _, err := RunToFile(ctx, FileOptions{Play: play}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("over the file: %v", err)
	}
	play.Restart = true
	if _, err := RunToFile(ctx, FileOptions{Play: play}); err != nil {
		t.Errorf("over the file with Restart: %v", err)
	}

	play.Restart, play.Output = false, filepath.Join(dir, "task")
	shard := FileOptions{Play: play, Sharded: true, Shard: jobarray.Spec{Index: 0, Count: 1},
		Run: match.ShardRun{A: "heuristic:depth=1", B: "heuristic:depth=1", Games: 2, Seed: 3}}
	res, err = RunToFile(ctx, shard)
	want := jobarray.Name(play.Output, shard.Shard)
	if err != nil || res.Dir != want || res.Output != filepath.Join(want, ShardPGN) || res.Skipped || res.Played == nil {
		t.Fatalf("task: %+v, %v", res, err)
	}
	if _, err := os.Stat(res.Output); err != nil {
		t.Fatal(err)
	}
	if res, err = RunToFile(ctx, shard); err != nil || !res.Skipped || res.Played != nil {
		t.Errorf("the task again: %+v, %v", res, err)
	}
}

// TestRunToFileInterrupted: a run stopped after a game says where its
// games are and that the file was not written.
func TestRunToFileInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := filepath.Join(t.TempDir(), "games.pgn")
	play := Options{Match: match.Config{Depth: 1, MaxMoves: 30, Seed: 3, Concurrency: 1}, A: "heuristic:depth=1", Games: 4, OpeningPlies: 4,
		Output: out, OnGame: func(match.GameResult, *match.Report) { cancel() }}
	_, err := RunToFile(ctx, FileOptions{Play: play})
	var stopped *InterruptedError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &stopped) || stopped.Games < 1 {
		t.Fatalf("stopped run: %v", err)
	}
	want := fmt.Sprintf("selfplay interrupted with %d games played, kept in %s; %s was not written: run the same command again to continue",
		stopped.Games, Journal(out), out)
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	// Any other failure is as it was.
	if err := Interrupted("selfplay", os.ErrPermission, &Result{Games: 2}, out, out); err != os.ErrPermission {
		t.Errorf("not a cancellation: %v", err)
	}
}
