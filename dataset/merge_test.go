package dataset

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/jobarray"
)

// mergeInput writes n unlabelled records with distinct position keys.
func mergeInput(t testing.TB, dir string, n int) []*Record {
	t.Helper()
	recs := sampleRecords(n, 10)
	for i, r := range recs {
		r.Key = uint64(i+1) * 0x9E3779B97F4A7C15
		r.Label = nil
	}
	writeDataset(t, dir, WriteOptions{Command: []string{"ingest"}, Sources: []Source{{Path: "games.pgn", SHA256: "ab"}}, Replace: true}, recs)
	return recs
}

// labelled is the record as a labeller would write it.
func labelled(r *Record) *Record {
	c := *r
	c.Label = &Label{Status: LabelOK, CP: int32(r.Key % 400), WinProb: WinProbability(int32(r.Key%400), 0), Engine: "Stockfish 15.1", Depth: 9}
	return &c
}

// writeTaskShards writes what count tasks of a sharded labelling of input
// would: each the records it owns, labelled, in input order, with a shard
// info in its settings. edit, if not nil, may change a task's info and
// records to make it inconsistent.
func writeTaskShards(t testing.TB, input, base string, count int, edit func(i int, info *jobarray.Info, recs []*Record) []*Record) {
	t.Helper()
	in, err := Open(input)
	if err != nil {
		t.Fatal(err)
	}
	fp := Fingerprint(in.Manifest())
	parts := make([][]*Record, count)
	if err := in.Scan(context.Background(), AllSplits, func(r *Record) error {
		i := jobarray.KeyShard(r.Key, count)
		parts[i] = append(parts[i], labelled(r))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, recs := range parts {
		spec := jobarray.Spec{Index: i, Count: count}
		info := jobarray.NewInfo(spec, []string{"dchess", "label", "--shard", spec.String()},
			map[string]any{"nodes": 2000, "input_sha256": fp, "tasks": count})
		info.Inputs = []jobarray.Input{{Path: input, SHA256: fp}}
		info.Engines = []string{"Stockfish 15.1"}
		info.Bench = "30651 nodes to depth 8 on 3 positions"
		if edit != nil {
			recs = edit(i, &info, recs)
		}
		writeDataset(t, jobarray.Name(base, spec), WriteOptions{Command: info.Command, Settings: map[string]any{"shard": info},
			Sources: in.Manifest().Sources}, recs)
	}
}

func TestMergeShardsRestoresInputOrder(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "in")
	recs := mergeInput(t, input, 500)
	base := filepath.Join(dir, "labels")
	writeTaskShards(t, input, base, 7, nil)
	out := filepath.Join(dir, "merged")
	var lastDone int64
	sum, err := MergeShards(context.Background(), MergeOptions{Base: base, Output: out, Command: []string{"merge"},
		Progress: func(done, total int64) { lastDone = done }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Shards != 7 || sum.Records != 500 || sum.Labelled != 500 || sum.Input != input || lastDone != 500 {
		t.Fatalf("summary %+v, progress %d", sum, lastDone)
	}
	got := readAll(t, out)
	for i, r := range recs {
		if !reflect.DeepEqual(got[i], labelled(r)) {
			t.Fatalf("record %d:\n got %+v\nwant %+v", i, got[i], labelled(r))
		}
	}
	m := mustOpenDataset(t, out).Manifest()
	if _, ok := m.Settings["shard"]; ok || m.Settings["merged"] == nil || m.Sources[0].Path != "games.pgn" || m.Command[0] != "merge" {
		t.Fatalf("merged manifest %+v", m)
	}
}

func readAll(t *testing.T, dir string) []*Record {
	t.Helper()
	var out []*Record
	if err := mustOpenDataset(t, dir).Scan(context.Background(), AllSplits, func(r *Record) error {
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustOpenDataset(t testing.TB, dir string) *Dataset {
	t.Helper()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestMergeShardsRefusesAndNamesTheCulprit makes one thing wrong at a time
// and checks that the merge refuses, writes nothing and names the shard.
func TestMergeShardsRefusesAndNamesTheCulprit(t *testing.T) {
	cases := map[string]struct {
		edit  func(i int, info *jobarray.Info, recs []*Record) []*Record
		after func(base string)
		want  string
	}{
		"missing": {
			after: func(base string) { os.RemoveAll(jobarray.Name(base, jobarray.Spec{Index: 2, Count: 4})) },
			want:  "missing 1 of 4 shards: labels-0002-of-0004; run task 2 of 4 again",
		},
		"other settings": {
			edit: func(i int, info *jobarray.Info, recs []*Record) []*Record {
				if i == 3 {
					*info = jobarray.NewInfo(info.Spec(), info.Command, map[string]any{"nodes": 3000, "input_sha256": info.Settings["input_sha256"], "tasks": 4})
					info.Engines, info.Bench = []string{"Stockfish 15.1"}, "30651 nodes to depth 8 on 3 positions"
				}
				return recs
			},
			want: "labels-0003-of-0004 does not match labels-0000-of-0004: nodes 3000, not 2000",
		},
		"other engine build": {
			edit: func(i int, info *jobarray.Info, recs []*Record) []*Record {
				if i == 1 {
					info.Bench = "30702 nodes to depth 8 on 3 positions"
				}
				return recs
			},
			want: `labels-0001-of-0004 does not match labels-0000-of-0004: bench "30702 nodes to depth 8 on 3 positions"`,
		},
		"a record short": {
			edit: func(i int, info *jobarray.Info, recs []*Record) []*Record {
				if i == 1 {
					return recs[:len(recs)-1]
				}
				return recs
			},
			want: "labels-0001-of-0004 ends before input record",
		},
		"a record too many": {
			edit: func(i int, info *jobarray.Info, recs []*Record) []*Record {
				if i == 2 {
					return append(recs, recs[0])
				}
				return recs
			},
			want: "labels-0002-of-0004 holds records the input does not",
		},
		"records out of order": {
			edit: func(i int, info *jobarray.Info, recs []*Record) []*Record {
				if i == 0 {
					recs[0], recs[1] = recs[1], recs[0]
				}
				return recs
			},
			want: "labels-0000-of-0004 holds",
		},
		"not a shard": {
			after: func(base string) {
				dir := jobarray.Name(base, jobarray.Spec{Index: 0, Count: 4})
				os.RemoveAll(dir)
				writeDataset(t, dir, WriteOptions{}, nil)
			},
			want: "labels-0000-of-0004 is not the output of a sharded run",
		},
		"input changed": {
			after: func(base string) { mergeInput(t, filepath.Join(filepath.Dir(base), "in"), 201) },
			want:  "is not the dataset the shards were made from",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			input := filepath.Join(dir, "in")
			mergeInput(t, input, 200)
			base := filepath.Join(dir, "labels")
			writeTaskShards(t, input, base, 4, c.edit)
			if c.after != nil {
				c.after(base)
			}
			out := filepath.Join(dir, "merged")
			_, err := MergeShards(context.Background(), MergeOptions{Base: base, Output: out})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("a refused merge left %s: %v", out, err)
			}
		})
	}
}

func TestMergeShardsFindsAMovedInputWithInputFlag(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "in")
	mergeInput(t, input, 50)
	base := filepath.Join(dir, "labels")
	writeTaskShards(t, input, base, 2, nil)
	moved := filepath.Join(dir, "moved")
	if err := os.Rename(input, moved); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "merged")
	if _, err := MergeShards(context.Background(), MergeOptions{Base: base, Output: out}); err == nil || !strings.Contains(err.Error(), "--input") {
		t.Fatalf("got %v, want advice to give --input", err)
	}
	if sum, err := MergeShards(context.Background(), MergeOptions{Base: base, Output: out, Input: moved}); err != nil || sum.Records != 50 {
		t.Fatalf("with --input: %+v, %v", sum, err)
	}
}
