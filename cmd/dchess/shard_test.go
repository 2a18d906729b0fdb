package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/dataset/label"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/search/match"
)

// shardInput writes n positions reached by fixed move choices from the
// start as a dataset.
func shardInput(t *testing.T, n int) string {
	t.Helper()
	var recs []*dataset.Record
	seen := map[string]bool{}
	for i := 0; len(seen) < n; i++ {
		b := board.New()
		for ply := range 1 + i%6 {
			moves := b.LegalMoves()
			b.Make(moves[(i*5+ply*3)%len(moves)])
		}
		if fen := b.FEN(); !seen[fen] {
			seen[fen] = true
			recs = append(recs, &dataset.Record{FEN: fen, GameID: uint64(i + 1)})
		}
	}
	return datasettest.Write(t, filepath.Join(t.TempDir(), "in"), dataset.WriteOptions{}, recs)
}

// TestLabelShardsMergeToTheWholeRun labels with --nodes as three tasks
// taking their index from JOB_COMPLETION_INDEX and as --shard 0/1, and
// checks that dataset merge gives the single run's shard files byte for
// byte; that a rerun task is skipped; and that merge refuses a missing task
// by name.
func TestLabelShardsMergeToTheWholeRun(t *testing.T) {
	sf := testenv.Stockfish(t)
	in := shardInput(t, 24)
	dir := t.TempDir()
	label := func(shardFlag, out string) string {
		s, stdout, _ := testDatasetStreams()
		opts := &labelOptions{ShardFlag: shardFlag, Options: label.Options{Stockfish: sf, Input: in, Output: out, Nodes: 1500, Workers: 1, Hash: 16, PV: 2, MultiPV: 1, Command: []string{"dchess", "label"}}}
		if err := runLabel(context.Background(), opts, s); err != nil {
			t.Fatalf("--shard %s: %v", shardFlag, err)
		}
		return stdout.String()
	}
	label("0/1", filepath.Join(dir, "whole"))
	base := filepath.Join(dir, "part")
	for i := range 3 {
		t.Setenv("JOB_COMPLETION_INDEX", strconv.Itoa(i))
		if out := label("auto/3", base); !strings.Contains(out, "labelled") {
			t.Fatalf("task %d said %q", i, out)
		}
	}
	if out := label("auto/3", base); !strings.Contains(out, "shard 2/3 is already labelled in "+base+"-0002-of-0003") {
		t.Fatalf("rerun of a finished task said %q", out)
	}

	s, stdout, _ := testDatasetStreams()
	merged := filepath.Join(dir, "merged")
	if err := runDatasetMerge(context.Background(), &datasetMergeOptions{JSON: true, MergeOptions: dataset.MergeOptions{Base: base, Output: merged}}, s); err != nil {
		t.Fatal(err)
	}
	var sum dataset.MergeSummary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil || sum.Shards != 3 || sum.Records != 24 || sum.Labelled != 24 {
		t.Fatalf("merge said %s (%v)", stdout, err)
	}
	open := func(dir string) *dataset.Manifest {
		d, err := dataset.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return d.Manifest()
	}
	got, want := open(merged), open(filepath.Join(dir, "whole-0000-of-0001"))
	if !reflect.DeepEqual(got.Shards, want.Shards) || got.Counts != want.Counts {
		t.Fatalf("merged shards %+v %+v\nwhole run %+v %+v", got.Shards, got.Counts, want.Shards, want.Counts)
	}

	os.RemoveAll(base + "-0001-of-0003")
	err := runDatasetMerge(context.Background(), &datasetMergeOptions{MergeOptions: dataset.MergeOptions{Base: base, Output: filepath.Join(dir, "again")}}, s)
	if err == nil || !strings.Contains(err.Error(), "part-0001-of-0003") {
		t.Fatalf("merge with a task missing: %v", err)
	}
}

// TestMatchShardsMergeToTheWholeRun plays a match at fixed depth as three
// tasks and as one run: match merge prints the same JSON report.
func TestMatchShardsMergeToTheWholeRun(t *testing.T) {
	base := filepath.Join(t.TempDir(), "m")
	opts := func() *matchOptions {
		return &matchOptions{A: "heuristic:depth=1", B: "random", Games: 12, SPRT: "elo0=0,elo1=5", JSON: true,
			gameFlags: gameFlags{Settings: match.Settings{Concurrency: 2, OpeningsOrder: "sequential", RandomPlies: 4, Seed: 3, Depth: 1, MaxMoves: 60}}}
	}
	for i := range 3 {
		o := opts()
		o.Shard, o.Output = strconv.Itoa(i)+"/3", base
		s, stdout, _ := playStreams("")
		if err := runMatch(context.Background(), o, s); err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Played int `json:"played"`
			Report struct {
				Games int `json:"games"`
			} `json:"report"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil || sum.Played != 4 || sum.Report.Games != 4 {
			t.Fatalf("task %d said %s (%v)", i, stdout, err)
		}
	}
	s, merged, _ := playStreams("")
	pgn := filepath.Join(t.TempDir(), "all.pgn")
	if err := runMatchMerge(context.Background(), &matchMergeOptions{Bases: []string{base}, JSON: true, PGN: pgn}, s); err != nil {
		t.Fatal(err)
	}
	s, plain, _ := playStreams("")
	if err := runMatch(context.Background(), opts(), s); err != nil {
		t.Fatal(err)
	}
	if merged.String() != plain.String() {
		t.Fatalf("merged report\n%s\none run\n%s", merged, plain)
	}
	data, err := os.ReadFile(pgn)
	if err != nil || strings.Count(string(data), "[Event ") != 12 {
		t.Fatalf("merged PGN: %v\n%s", err, data)
	}
	// The merged PGN is replaced only with --force, as every --pgn is.
	if err := runMatchMerge(context.Background(), &matchMergeOptions{Bases: []string{base}, PGN: pgn}, s); !errors.Is(err, safefile.ErrExists) {
		t.Fatalf("a second merge over the PGN: %v", err)
	}
	if err := runMatchMerge(context.Background(), &matchMergeOptions{Bases: []string{base}, PGN: pgn, Force: true}, s); err != nil {
		t.Fatalf("with --force: %v", err)
	}

	os.RemoveAll(jobarray.Name(base, jobarray.Spec{Index: 0, Count: 3}))
	err = runMatchMerge(context.Background(), &matchMergeOptions{Bases: []string{base}}, s)
	if err == nil || !strings.Contains(err.Error(), "m-0000-of-0003") {
		t.Fatalf("merge with a task missing: %v", err)
	}
	// --partial reports the two tasks left, says the third has not started,
	// and cannot write the PGN of a match not all there.
	s, partial, info := playStreams("")
	if err := runMatchMerge(context.Background(), &matchMergeOptions{Bases: []string{base}, Partial: true, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var pm struct {
		Report struct {
			Games int `json:"games"`
		} `json:"report"`
		Finished   int `json:"finished"`
		NotStarted int `json:"not_started"`
	}
	if err := json.Unmarshal(partial.Bytes(), &pm); err != nil || pm.Report.Games != 8 || pm.Finished != 2 || pm.NotStarted != 1 ||
		!strings.Contains(info.String(), "2 of 3 tasks finished") {
		t.Fatalf("partial merge: %s %s (%v)", partial, info, err)
	}
	var usage *usageError
	if err := runMatchMerge(context.Background(), &matchMergeOptions{Bases: []string{base}, Partial: true, PGN: pgn}, s); !errors.As(err, &usage) {
		t.Fatalf("--partial --pgn: %v", err)
	}
}

func TestShardFlagsRejectBadUse(t *testing.T) {
	match := func(edit func(o *matchOptions)) error {
		o := &matchOptions{A: "heuristic", B: "random", Games: 2, gameFlags: gameFlags{Settings: match.Settings{Concurrency: 1, OpeningsOrder: "sequential", Depth: 1}}}
		edit(o)
		s, _, _ := playStreams("")
		return runMatch(context.Background(), o, s)
	}
	cases := map[string]struct {
		err  error
		want string
	}{
		"match --shard without -o": {match(func(o *matchOptions) { o.Shard = "0/2" }), "--shard needs -o NAME"},
		"match -o without --shard": {match(func(o *matchOptions) { o.Output = "x" }), "give --shard i/n too"},
		"match --pgn with --shard": {match(func(o *matchOptions) { o.Shard, o.Output, o.PGN = "0/2", "x", "g.pgn" }), "match merge NAME --pgn"},
		"match index too large":    {match(func(o *matchOptions) { o.Shard, o.Output = "2/2", "x" }), "--shard: \"2/2\": the task index must be 0..1"},
		"label no index variable":  {runLabel(context.Background(), &labelOptions{ShardFlag: "auto/4", Options: label.Options{Stockfish: "sf", Input: "a", Output: "b", Workers: 1, Hash: 16, MultiPV: 1}}, &IOStreams{}), "none of JOB_COMPLETION_INDEX"},
	}
	for name, c := range cases {
		var usage *usageError
		if !errors.As(c.err, &usage) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: got %v, want a usage error containing %q", name, c.err, c.want)
		}
	}
	s, _, _ := playStreams("")
	if err := runMatchMerge(context.Background(), &matchMergeOptions{Bases: []string{"x"}, SPRT: "elo0=1"}, s); err == nil || !strings.Contains(err.Error(), "--sprt") {
		t.Errorf("match merge --sprt: %v", err)
	}
}
