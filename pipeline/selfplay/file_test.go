package selfplay

import (
	"context"
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
