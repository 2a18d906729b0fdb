package label

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/jobarray"
)

// walkFENs returns n positions reached by fixed move choices from the
// start, the last one a repeat of the first so a duplicate is in the input.
func walkFENs(n int) []string {
	seen := map[string]bool{}
	var fens []string
	for i := 0; len(fens) < n-1; i++ {
		b := board.New()
		for ply := range 2 + i%7 {
			moves := b.LegalMoves()
			if len(moves) == 0 {
				break
			}
			b.Make(moves[(i*7+ply*3)%len(moves)])
		}
		if fen := b.FEN(); !seen[fen] {
			seen[fen] = true
			fens = append(fens, fen)
		}
	}
	return append(fens, fens[0])
}

func shardRun(t *testing.T, opts Options, spec jobarray.Spec) Summary {
	t.Helper()
	opts.Shard = spec
	opts.Output = jobarray.Name(opts.Output, spec)
	sum, err := Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatalf("shard %v: %v", spec, err)
	}
	return sum
}

// TestShardsMergeToTheWholeRun labels an input as three shards and as one
// (--shard 0/1), merges the three and checks the result equals the single
// run record for record and shard file for shard file.
func TestShardsMergeToTheWholeRun(t *testing.T) {
	dir := t.TempDir()
	fens := walkFENs(60)
	in := writeInput(t, filepath.Join(dir, "in"), fens)
	opts := Options{Stockfish: fakeEngine(t, "normal"), Input: in, Output: filepath.Join(dir, "whole"), Nodes: 100, Workers: 2, PV: 2,
		Command: []string{"dchess", "label"}}
	whole := shardRun(t, opts, jobarray.Spec{Index: 0, Count: 1})
	if whole.Records != int64(len(fens)) || whole.Shard != "0/1" {
		t.Fatalf("whole run: %+v", whole)
	}

	opts.Output = filepath.Join(dir, "part")
	var records int64
	for i := range 3 {
		spec := jobarray.Spec{Index: i, Count: 3}
		sum := shardRun(t, opts, spec)
		records += sum.Records
		recs := readRecords(t, jobarray.Name(opts.Output, spec))
		if int64(len(recs)) != sum.Records || sum.Records == 0 || sum.Records == int64(len(fens)) {
			t.Fatalf("shard %d holds %d records, summary says %d of %d", i, len(recs), sum.Records, len(fens))
		}
		for _, r := range recs {
			if jobarray.KeyShard(r.Key, 3) != i {
				t.Fatalf("shard %d holds %s, which shard %d owns", i, r.FEN, jobarray.KeyShard(r.Key, 3))
			}
		}
		if n := countFEN(recs, fens[0]); n != 0 && n != 2 {
			t.Fatalf("shard %d holds %d of the 2 copies of a position", i, n)
		}
		d, err := dataset.Open(jobarray.Name(opts.Output, spec))
		if err != nil {
			t.Fatal(err)
		}
		info, err := jobarray.InfoFrom(d.Manifest().Settings["shard"])
		if err != nil || info.Index != i || info.Count != 3 || info.Engines[0] != "FakeFish 1" || info.Inputs[0].Path != in ||
			info.Inputs[0].SHA256 != dataset.Fingerprint(mustOpen(t, in).Manifest()) || info.Settings["nodes"] != 100.0 {
			t.Fatalf("shard %d info %+v, %v", i, info, err)
		}
	}
	if records != int64(len(fens)) {
		t.Fatalf("shards hold %d records, the input %d", records, len(fens))
	}

	merged := filepath.Join(dir, "merged")
	sum, err := dataset.MergeShards(context.Background(), dataset.MergeOptions{Base: opts.Output, Output: merged, Command: []string{"merge"}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Shards != 3 || sum.Records != int64(len(fens)) || sum.Input != in {
		t.Fatalf("merge summary %+v", sum)
	}
	got := mustOpen(t, merged).Manifest()
	want := mustOpen(t, jobarray.Name(filepath.Join(dir, "whole"), jobarray.Spec{Count: 1})).Manifest()
	if !reflect.DeepEqual(got.Shards, want.Shards) || got.Counts != want.Counts || !reflect.DeepEqual(got.Histogram, want.Histogram) {
		t.Fatalf("merged manifest\n%+v\nwhole run\n%+v", got, want)
	}
	sameLabels(t, readRecords(t, merged), readRecords(t, jobarray.Name(filepath.Join(dir, "whole"), jobarray.Spec{Count: 1})))
}

func countFEN(recs []*dataset.Record, fen string) int {
	n := 0
	for _, r := range recs {
		if r.FEN == fen {
			n++
		}
	}
	return n
}

func mustOpen(t *testing.T, dir string) *dataset.Dataset {
	t.Helper()
	d, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFinishedShardIsSkipped reruns a finished shard with an engine that
// does not exist: with the same settings nothing needs it, with others the
// shard is labelled again.
func TestFinishedShardIsSkipped(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in"), walkFENs(20))
	opts := Options{Stockfish: fakeEngine(t, "normal"), Input: in, Output: filepath.Join(dir, "out"), Nodes: 100, Workers: 1}
	spec := jobarray.Spec{Index: 1, Count: 2}
	first := shardRun(t, opts, spec)
	opts.Stockfish = filepath.Join(dir, "no-engine")
	again := shardRun(t, opts, spec)
	if !again.Skipped || again.Records != first.Records || again.Labelled != 0 {
		t.Fatalf("rerun %+v after %+v", again, first)
	}
	opts.Nodes = 200
	opts.Shard, opts.Output = spec, jobarray.Name(opts.Output, spec)
	if _, err := Run(context.Background(), opts, nil); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("rerun with other settings without Force: %v", err)
	}
	opts.Force = true
	if _, err := Run(context.Background(), opts, nil); err == nil || !strings.Contains(err.Error(), "no-engine") {
		t.Fatalf("rerun with other settings: %v", err)
	}
}

// TestJournalOfAnotherShardIsNotResumed: a journal's indices count one
// shard's records, so another shard must not continue it.
func TestJournalOfAnotherShardIsNotResumed(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in"), walkFENs(20))
	out := filepath.Join(dir, "out")
	j, err := openJournal(partialDir(out), journalSettings{Version: journalVersion, Shard: "1/2"})
	if err != nil {
		t.Fatal(err)
	}
	j.close()
	opts := Options{Stockfish: fakeEngine(t, "normal"), Input: in, Output: out, Nodes: 100, Workers: 1, Shard: jobarray.Spec{Index: 0, Count: 2}}
	_, err = Run(context.Background(), opts, nil)
	if err == nil || !strings.Contains(err.Error(), `--shard "1/2" then, "0/2" now`) {
		t.Fatalf("got %v", err)
	}
}

// TestEmptyShards: with more tasks than positions some tasks own none;
// they still write a dataset, and the merge still equals the whole run.
func TestEmptyShards(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in"), walkFENs(3))
	opts := Options{Stockfish: fakeEngine(t, "normal"), Input: in, Output: filepath.Join(dir, "part"), Nodes: 100, Workers: 2}
	empty := 0
	for i := range 8 {
		if sum := shardRun(t, opts, jobarray.Spec{Index: i, Count: 8}); sum.Records == 0 {
			empty++
		}
	}
	if empty < 5 {
		t.Fatalf("%d of 8 tasks own none of 3 positions", empty)
	}
	opts.Output = filepath.Join(dir, "whole")
	shardRun(t, opts, jobarray.Spec{Count: 1})
	merged := filepath.Join(dir, "merged")
	if _, err := dataset.MergeShards(context.Background(), dataset.MergeOptions{Base: filepath.Join(dir, "part"), Output: merged}); err != nil {
		t.Fatal(err)
	}
	got, want := mustOpen(t, merged).Manifest(), mustOpen(t, jobarray.Name(opts.Output, jobarray.Spec{Count: 1})).Manifest()
	if !reflect.DeepEqual(got.Shards, want.Shards) {
		t.Fatalf("merged %+v, whole %+v", got.Shards, want.Shards)
	}
}
