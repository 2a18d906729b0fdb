package match_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/search/elo"
	"github.com/dchess/dchess/search/match"
)

// shardedConfig is a small match at fixed depth whose games repeat
// exactly: 13 games, so the last pair has one game.
func shardedConfig(t *testing.T) match.Config {
	test, err := elo.ParseSPRT("elo0=-400,elo1=400,alpha=0.001,beta=0.001")
	if err != nil {
		t.Fatal(err)
	}
	return match.Config{A: specEntrant(t, "heuristic:depth=1"), B: specEntrant(t, "random"), Games: 13, Depth: 1,
		MaxMoves: 40, Seed: 7, RandomPlies: 4, SPRT: &test}
}

func shardedSettings(depth int) map[string]any {
	return map[string]any{"a": "heuristic:depth=1", "b": "random", "games": 13, "depth": depth, "max_moves": 40, "seed": 7}
}

func runShard(t *testing.T, cfg match.Config, base string, spec jobarray.Spec, settings map[string]any) match.ShardSummary {
	t.Helper()
	sum, err := match.RunShard(context.Background(), match.ShardOptions{Config: cfg, Shard: spec, Output: jobarray.Name(base, spec),
		Command: []string{"dchess", "match"}, Settings: settings})
	if err != nil {
		t.Fatalf("shard %v: %v", spec, err)
	}
	return sum
}

// counts are the figures a merged report must share with one run.
func counts(r *match.Report) []any {
	return []any{r.A, r.B, r.Games, r.Wins, r.Losses, r.Draws, r.Score, r.Elo, r.EloError, r.LOS, r.DrawRatio,
		r.Pentanomial, r.PentanomialElo, r.PentanomialEloError, r.SPRT, r.Terminations, r.Faults}
}

// TestShardsMergeToTheWholeMatch plays a match as three tasks and as one
// (--shard 0/1), and as a plain run, and checks that the merged reports
// and PGN are the plain run's, count for count and game for game.
func TestShardsMergeToTheWholeMatch(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "m")
	var played []int
	for i := range 3 {
		sum := runShard(t, shardedConfig(t), base, jobarray.Spec{Index: i, Count: 3}, shardedSettings(1))
		if sum.Skipped || sum.Played != len(sum.Manifest.Results) || sum.Report.Games != sum.Played || sum.Report.SPRT != nil {
			t.Fatalf("shard %d: %+v", i, sum)
		}
		for _, g := range sum.Manifest.Results {
			played = append(played, g.Number)
		}
		if got := len(sum.Manifest.Pairs); got < 2 || got > 3 {
			t.Fatalf("shard %d plays %d of 7 pairs", i, got)
		}
	}
	if len(played) != 13 {
		t.Fatalf("the shards played games %v", played)
	}
	merged, err := match.MergeShards(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "one")
	runShard(t, shardedConfig(t), one, jobarray.Spec{Index: 0, Count: 1}, shardedSettings(1))
	single, err := match.MergeShards(one, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pgn bytes.Buffer
	cfg := shardedConfig(t)
	cfg.SPRT = nil // nothing stops the plain run early either
	cfg.PGN = &pgn
	plain, err := match.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	test := shardedConfig(t).SPRT
	st := test.Status(plain.Wins, plain.Losses, plain.Draws)
	plain.SPRT = &match.SPRTReport{Test: test.String(), LLR: st.LLR, Lower: st.Lower, Upper: st.Upper, Result: st.Result}
	if !reflect.DeepEqual(counts(merged.Report), counts(single.Report)) || !reflect.DeepEqual(counts(merged.Report), counts(plain)) {
		t.Fatalf("merged %v\n--shard 0/1 %v\nplain run %v", counts(merged.Report), counts(single.Report), counts(plain))
	}
	if merged.Report.Text() != plain.Text() {
		t.Fatalf("merged report\n%s\nplain run\n%s", merged.Report.Text(), plain.Text())
	}
	var mergedPGN bytes.Buffer
	if err := merged.WritePGN(&mergedPGN); err != nil {
		t.Fatal(err)
	}
	if got, want := withoutClock(mergedPGN.String()), withoutClock(pgn.String()); got != want {
		t.Fatalf("merged PGN differs from the plain run's:\n%s\nwant\n%s", got, want)
	}
}

// TestFinishedMatchShardIsSkipped reruns a finished task with players that
// cannot start: nothing needs them.
func TestFinishedMatchShardIsSkipped(t *testing.T) {
	base := filepath.Join(t.TempDir(), "m")
	spec := jobarray.Spec{Index: 1, Count: 2}
	first := runShard(t, shardedConfig(t), base, spec, shardedSettings(1))
	cfg := shardedConfig(t)
	cfg.A = specEntrant(t, "uci:/nonexistent")
	again := runShard(t, cfg, base, spec, shardedSettings(1))
	if !again.Skipped || again.Played != 0 || !reflect.DeepEqual(counts(again.Report), counts(first.Report)) {
		t.Fatalf("rerun %+v", again)
	}
}

// killShard plays task spec of shardedConfig's match until three games are
// done, stops it, and tears its journal's last line as a kill in the
// middle of writing would; it returns the journal's path.
func killShard(t *testing.T, base string, spec jobarray.Spec) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := shardedConfig(t)
	cfg.OnGame = func(_ match.GameResult, r *match.Report) {
		if r.Games == 3 {
			cancel()
		}
	}
	out := jobarray.Name(base, spec)
	_, err := match.RunShard(ctx, match.ShardOptions{Config: cfg, Shard: spec, Output: out, Settings: shardedSettings(1)})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "run the same command again") {
		t.Fatalf("stopping task %v: %v", spec, err)
	}
	journal := filepath.Join(out, "journal.jsonl")
	f, err := os.OpenFile(journal, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"settings_hash":"torn`)
	f.Close()
	return journal
}

// TestKilledMatchShardContinues stops a task after three games, tears the
// journal's last line as a kill would, and checks that the rerun plays only
// the rest and ends with the uninterrupted task's results.
func TestKilledMatchShardContinues(t *testing.T) {
	dir := t.TempDir()
	spec := jobarray.Spec{Index: 0, Count: 2}
	journal := killShard(t, filepath.Join(dir, "m"), spec)
	var progress [][2]int
	sum, err := match.RunShard(context.Background(), match.ShardOptions{Config: shardedConfig(t), Shard: spec,
		Output: jobarray.Name(filepath.Join(dir, "m"), spec), Command: []string{"dchess", "match"}, Settings: shardedSettings(1),
		OnProgress: func(played, toPlay int) { progress = append(progress, [2]int{played, toPlay}) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Resumed != 3 || sum.Resumed+sum.Played != len(sum.Manifest.Results) {
		t.Fatalf("resumed %d, played %d of %d", sum.Resumed, sum.Played, len(sum.Manifest.Results))
	}
	// Progress counts the games this run plays, each once, not the journal's.
	if n := len(progress); n != sum.Played+1 || progress[0] != [2]int{0, sum.Played} || progress[n-1] != [2]int{sum.Played, sum.Played} {
		t.Fatalf("progress %v for %d games played", progress, sum.Played)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Fatalf("journal left after the task finished: %v", err)
	}
	whole := runShard(t, shardedConfig(t), filepath.Join(dir, "ref"), spec, shardedSettings(1))
	if got, want := untimed(sum.Manifest.Results), untimed(whole.Manifest.Results); !reflect.DeepEqual(got, want) {
		t.Fatalf("continued task %+v\nuninterrupted %+v", got, want)
	}
	for _, g := range sum.Manifest.Results {
		if g.ThinkingA.Moves == 0 || g.ThinkingB.Moves == 0 {
			t.Fatalf("game %d's manifest entry lacks a side's thinking: %+v", g.Number, g)
		}
	}
}

// untimed is games without the seconds their moves took, which vary from
// run to run.
func untimed(games []match.ShardGame) []match.ShardGame {
	out := slices.Clone(games)
	for i := range out {
		out[i].ThinkingA.Seconds, out[i].ThinkingB.Seconds = 0, 0
	}
	return out
}

// TestMatchMergeRefusesAndNamesTheCulprit breaks one shard at a time.
func TestMatchMergeRefusesAndNamesTheCulprit(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	for i := range 3 {
		runShard(t, shardedConfig(t), good, jobarray.Spec{Index: i, Count: 3}, shardedSettings(1))
	}
	copyTree := func(t *testing.T, base string) {
		for i := range 3 {
			from := jobarray.Name(good, jobarray.Spec{Index: i, Count: 3})
			to := jobarray.Name(base, jobarray.Spec{Index: i, Count: 3})
			os.MkdirAll(to, 0o755)
			for _, name := range []string{match.ShardManifestFile, match.ShardPGNFile} {
				data, _ := os.ReadFile(filepath.Join(from, name))
				os.WriteFile(filepath.Join(to, name), data, 0o644)
			}
		}
	}
	cases := map[string]struct {
		breakIt func(t *testing.T, base string)
		want    string
	}{
		"missing": {func(t *testing.T, base string) { os.RemoveAll(jobarray.Name(base, jobarray.Spec{Index: 1, Count: 3})) },
			"missing 1 of 3 shards: b-0001-of-0003"},
		"unfinished": {func(t *testing.T, base string) {
			os.Remove(filepath.Join(jobarray.Name(base, jobarray.Spec{Index: 2, Count: 3}), match.ShardManifestFile))
		}, "b-0002-of-0003 is unfinished"},
		"other settings": {func(t *testing.T, base string) {
			cfg := shardedConfig(t)
			cfg.Depth = 2
			os.RemoveAll(jobarray.Name(base, jobarray.Spec{Index: 2, Count: 3}))
			runShard(t, cfg, base, jobarray.Spec{Index: 2, Count: 3}, shardedSettings(2))
		}, "b-0002-of-0003 does not match b-0000-of-0003: depth 2, not 1"},
		"results edited": {func(t *testing.T, base string) {
			path := filepath.Join(jobarray.Name(base, jobarray.Spec{Index: 1, Count: 3}), match.ShardManifestFile)
			data, _ := os.ReadFile(path)
			os.WriteFile(path, regexp.MustCompile(`"n": \d+`).ReplaceAll(data, []byte(`"n": 99`)), 0o644)
		}, "b-0001-of-0003 holds results of games 99"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), "b")
			copyTree(t, base)
			c.breakIt(t, base)
			if _, err := match.MergeShards(base, nil); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestMergePartialReadsRunningTasks: a job of three tasks with one
// finished, one stopped after three games (its journal's last line torn)
// and one not started reports the finished task's games and the stopped
// one's whole pairs, leaves the journal as it was, and once every task is
// done counts every whole pair (12 of the 13 games: the last pair has one).
// Tasks of other settings are refused.
func TestMergePartialReadsRunningTasks(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "m")
	first := runShard(t, shardedConfig(t), base, jobarray.Spec{Index: 0, Count: 3}, shardedSettings(1))
	stopped := jobarray.Spec{Index: 1, Count: 3}
	journal := killShard(t, base, stopped)
	before, _ := os.ReadFile(journal)

	pm, err := match.MergePartial(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pm.Tasks != 3 || pm.Finished != 1 || pm.Running != 1 || pm.NotStarted != 1 {
		t.Fatalf("tasks %+v", pm)
	}
	if g := pm.Report.Games; g%2 != 0 || g+pm.Dropped != len(first.Manifest.Results)+3 || pm.Dropped < 1 {
		t.Fatalf("%d games of whole pairs and %d dropped from %d + 3 played", g, pm.Dropped, len(first.Manifest.Results))
	}
	if after, _ := os.ReadFile(journal); !bytes.Equal(before, after) {
		t.Fatal("the partial merge changed a running task's journal")
	}

	runShard(t, shardedConfig(t), base, stopped, shardedSettings(1))
	runShard(t, shardedConfig(t), base, jobarray.Spec{Index: 2, Count: 3}, shardedSettings(1))
	pm, err = match.MergePartial(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := match.MergeShards(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pm.Finished != 3 || pm.Report.Games != 12 || pm.Dropped != 1 || whole.Report.Games != 13 {
		t.Fatalf("all finished: %d tasks, %d games, %d dropped; the full merge %d games", pm.Finished, pm.Report.Games, pm.Dropped, whole.Report.Games)
	}

	other := filepath.Join(dir, "other")
	runShard(t, shardedConfig(t), other, jobarray.Spec{Index: 0, Count: 2}, shardedSettings(1))
	runShard(t, shardedConfig(t), other, jobarray.Spec{Index: 1, Count: 2}, shardedSettings(2))
	if _, err := match.MergePartial(other, nil); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Fatalf("tasks of two settings: %v", err)
	}
}

// TestMergeSeriesCountsMatchesAsOne continues a match with another seed and
// game count and checks that the series is counted as one longer match:
// counts and pentanomials add up, the test runs over all games, and a
// match under other conditions is refused with the difference named.
func TestMergeSeriesCountsMatchesAsOne(t *testing.T) {
	dir := t.TempDir()
	first, second, other := filepath.Join(dir, "first"), filepath.Join(dir, "second"), filepath.Join(dir, "other")
	runShard(t, shardedConfig(t), first, jobarray.Spec{Index: 0, Count: 1}, shardedSettings(1))
	cfg, settings := shardedConfig(t), shardedSettings(1)
	cfg.Seed, settings["seed"], cfg.Games, settings["games"] = 8, 8, 9, 9
	for i := range 2 {
		runShard(t, cfg, second, jobarray.Spec{Index: i, Count: 2}, settings)
	}
	a, err := match.MergeShards(first, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := match.MergeShards(second, nil)
	if err != nil {
		t.Fatal(err)
	}
	series, parts, err := match.MergeSeries([]string{first, second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tasks := match.SeriesTasks(parts); tasks != len(a.Shards)+len(b.Shards) {
		t.Errorf("SeriesTasks = %d, want %d", tasks, len(a.Shards)+len(b.Shards))
	}
	if len(parts) != 2 || series.Games != 22 || series.Wins != a.Report.Wins+b.Report.Wins ||
		series.Losses != a.Report.Losses+b.Report.Losses || series.Draws != a.Report.Draws+b.Report.Draws {
		t.Fatalf("series %d games +%d -%d =%d from %v and %v", series.Games, series.Wins, series.Losses, series.Draws, counts(a.Report), counts(b.Report))
	}
	for k := range series.Pentanomial {
		if series.Pentanomial[k] != a.Report.Pentanomial[k]+b.Report.Pentanomial[k] {
			t.Fatalf("pentanomial %v is not %v + %v", series.Pentanomial, a.Report.Pentanomial, b.Report.Pentanomial)
		}
	}
	test := shardedConfig(t).SPRT
	if st := test.Status(series.Wins, series.Losses, series.Draws); series.SPRT == nil || series.SPRT.LLR != st.LLR {
		t.Fatalf("series SPRT %+v, want LLR %v over all games", series.SPRT, st.LLR)
	}
	// The series' PGN holds the games of both matches.
	pgn := filepath.Join(dir, "series.pgn")
	if err := match.WriteSeriesPGN(pgn, parts); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(pgn); err != nil || strings.Count(string(data), "[Result ") != 22 {
		t.Fatalf("series PGN: %v, %d games", err, strings.Count(string(data), "[Result "))
	}

	runShard(t, shardedConfig(t), other, jobarray.Spec{Index: 0, Count: 1}, shardedSettings(2))
	if _, _, err := match.MergeSeries([]string{first, other}, nil); err == nil || !strings.Contains(err.Error(), "depth") {
		t.Fatalf("a series with another depth: %v", err)
	}
	if _, _, err := match.MergeSeries([]string{first, first}, nil); err == nil || !strings.Contains(err.Error(), "another --seed") {
		t.Fatalf("a match continued by itself: %v", err)
	}

	running := filepath.Join(dir, "running")
	killShard(t, running, jobarray.Spec{Index: 0, Count: 2})
	pm, err := match.MergePartialSeries([]string{first, running}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pm.Tasks != 3 || pm.Finished != 1 || pm.Running != 1 || pm.NotStarted != 1 ||
		pm.Report.Games+pm.Dropped != 13+3 || pm.Report.Games%2 != 0 {
		t.Fatalf("partial series: %d tasks (%d finished, %d running), %d games, %d dropped", pm.Tasks, pm.Finished, pm.Running, pm.Report.Games, pm.Dropped)
	}
}
