package selfplay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/search/match"
)

func TestSelfPlayShardTasksShareTheRun(t *testing.T) {
	ctx := context.Background()
	base := filepath.Join(t.TempDir(), "games")
	task := func(i, n, games int) ShardOptions {
		return ShardOptions{
			Play: Options{Match: match.Config{Depth: 1, MaxMoves: 30, Seed: 3}, A: "heuristic:depth=1",
				Games: games, OpeningPlies: 4, RandomRate: 0.2},
			Run:   match.ShardRun{A: "heuristic:depth=1", B: "heuristic:depth=1", Games: games, Seed: 3},
			Shard: jobarray.Spec{Index: i, Count: n}, Base: base,
		}
	}
	// 7 games are 4 pairs: two tasks of three share them, the third may be
	// empty; together they play every game once.
	numbers := map[string]int{}
	total := 0
	for i := range 3 {
		opts := task(i, 3, 7)
		var started int
		opts.OnStart = func(games, _ int) { started = games }
		opts.Play.OnGame = func(g match.GameResult, _ *match.Report) { numbers[g.Opening.FEN]++ }
		res, err := RunShard(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := jobarray.Name(base, opts.Shard); res.Dir != want || res.Skipped {
			t.Fatalf("task %d: %+v, want dir %s", i, res, want)
		}
		played := 0
		if res.Played != nil {
			played = res.Played.Games
			if res.Played.Output != filepath.Join(res.Dir, ShardPGN) {
				t.Errorf("task %d wrote %s", i, res.Played.Output)
			}
		}
		if started != played {
			t.Errorf("task %d: OnStart told %d games, played %d", i, started, played)
		}
		total += played
		if _, err := os.Stat(filepath.Join(res.Dir, ShardManifest)); err != nil {
			t.Errorf("task %d has no manifest: %v", i, err)
		}
		if _, err := os.Stat(filepath.Join(res.Dir, ShardPGN)); err != nil {
			t.Errorf("task %d has no games file: %v", i, err)
		}
	}
	if total != 7 {
		t.Errorf("the tasks played %d games, want 7", total)
	}
	for fen, n := range numbers {
		if n > 2 {
			t.Errorf("opening %s played %d times", fen, n)
		}
	}

	// A finished task is skipped; one asked with other settings is refused.
	res, err := RunShard(ctx, task(1, 3, 7))
	if err != nil || !res.Skipped || res.Played != nil {
		t.Errorf("rerun of a finished task: %+v, %v", res, err)
	}
	if _, err := RunShard(ctx, task(1, 3, 9)); err == nil || !strings.Contains(err.Error(), "games-0001-of-0003") {
		t.Errorf("a task with other settings over a finished one: %v", err)
	}

	// More tasks than pairs: a task that owns nothing leaves an empty file
	// and a manifest.
	empty := ShardOptions{Play: Options{Match: match.Config{Depth: 1}, A: "random", Games: 1},
		Run: match.ShardRun{A: "random", B: "random", Games: 1}, Base: filepath.Join(t.TempDir(), "one")}
	for i := range 2 {
		empty.Shard = jobarray.Spec{Index: i, Count: 2}
		res, err := RunShard(ctx, empty)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(res.Dir, ShardPGN))
		if err != nil || (res.Played == nil) != (len(data) == 0) {
			t.Errorf("task %d of 2 of a 1-game run: played %+v, %d bytes of games, %v", i, res.Played, len(data), err)
		}
	}
}

// TestSelfPlayShardKilledTaskContinues stops a task after two games: its
// folder keeps the journal, which the folder check accepts, and the rerun
// plays the rest and writes the uninterrupted task's games.
func TestSelfPlayShardKilledTaskContinues(t *testing.T) {
	dir := t.TempDir()
	task := func(base string) ShardOptions {
		return ShardOptions{
			Play: Options{Match: match.Config{Depth: 1, MaxMoves: 30, Seed: 4}, A: "heuristic:depth=1", B: "random",
				Games: 12, OpeningPlies: 4, RandomRate: 0.1},
			Run:   match.ShardRun{A: "heuristic:depth=1", B: "random", Games: 12, Seed: 4},
			Shard: jobarray.Spec{Index: 1, Count: 2}, Base: filepath.Join(dir, base),
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := task("games")
	stopped.Play.OnGame = func(_ match.GameResult, r *match.Report) {
		if r.Games == 2 {
			cancel()
		}
	}
	res, err := RunShard(ctx, stopped)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped task: %v", err)
	}
	journal := Journal(filepath.Join(res.Dir, ShardPGN))
	if _, err := os.Stat(journal); err != nil {
		t.Fatalf("a stopped task keeps no journal: %v", err)
	}

	var told [2]int
	again := task("games")
	again.OnStart = func(games, resumed int) { told = [2]int{games, resumed} }
	res, err = RunShard(context.Background(), again)
	if err != nil {
		t.Fatal(err)
	}
	if res.Played == nil || res.Played.Resumed != 2 || told[1] != 2 || told[0] != res.Played.Games {
		t.Fatalf("rerun of a stopped task: %+v, OnStart told %v; want 2 games resumed", res.Played, told)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal left after the task finished: %v", err)
	}
	whole, err := RunShard(context.Background(), task("whole"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(res.Dir, ShardPGN))
	want, _ := os.ReadFile(filepath.Join(whole.Dir, ShardPGN))
	if len(want) == 0 || withoutClock(got) != withoutClock(want) {
		t.Fatalf("continued task's games:\n%s\nuninterrupted task's:\n%s", got, want)
	}
}
