package dataset

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sampleRecords returns n records over games of gameLen positions; every
// third record is labelled, every seventh label failed, and the moves mix
// plain UCI moves with strings that need the raw escape.
func sampleRecords(n, gameLen int) []*Record {
	moves := []string{"e2e4", "e7e5", "g1f3", "e7e8q", "a2a1n", "0000", "", "E2E4", "h7h8r"}
	recs := make([]*Record, n)
	for i := range recs {
		r := &Record{
			FEN:      fmt.Sprintf("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 %d", i+1),
			Move:     moves[i%len(moves)],
			Result:   Result(i % 4),
			Ply:      uint16(i % gameLen),
			WhiteElo: uint16(1500 + i%700),
			BlackElo: uint16(2800 - i%900),
			GameID:   uint64(i/gameLen)*0x9E3779B97F4A7C15 + 1,
		}
		r.Key = PositionKey(r.FEN)
		if i%5 != 0 {
			r.Next = moves[:1+i%len(moves)]
		}
		if i%3 == 0 {
			l := &Label{Status: LabelOK, CP: int32(i*37%4000 - 2000), Depth: uint16(i % 30), Nodes: uint64(i) * 1_000_003,
				Engine: "Stockfish 15.1", BestMove: moves[(i+1)%len(moves)], PV: moves[i%4:]}
			switch i % 21 {
			case 6:
				l.CP, l.Mate = 0, int32(i%9+1)
			case 9:
				l.CP, l.Mate = 0, -int32(i%9+1)
			case 3:
				l.MultiPV = []PVLine{{CP: -5, PV: []string{"d2d4"}}, {Mate: -3, PV: nil}}
			}
			l.WinProb = WinProbability(l.CP, l.Mate)
			if i%7 == 0 {
				l = &Label{Status: LabelFailed, Error: "engine crashed 3 times"}
			}
			r.Label = l
		}
		recs[i] = r
	}
	return recs
}

func writeDataset(t testing.TB, dir string, opts WriteOptions, recs []*Record) WriteStats {
	t.Helper()
	w, err := Create(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Stats()
}

func scanAll(t testing.TB, d *Dataset, split Split) []*Record {
	t.Helper()
	var got []*Record
	if err := d.Scan(context.Background(), split, func(r *Record) error {
		got = append(got, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestRoundTripEveryField(t *testing.T) {
	recs := sampleRecords(1000, 40)
	dir := filepath.Join(t.TempDir(), "ds")
	opts := WriteOptions{
		Command:  []string{"dchess", "ingest", "games.pgn", "-o", "ds"},
		Settings: map[string]any{"min_ply": 8.0, "engine": "none"},
		Sources:  []Source{{Path: "games.pgn", SHA256: "ab12", Bytes: 123}},
		Shard:    128,
	}
	stats := writeDataset(t, dir, opts, recs)
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, d, AllSplits)
	if len(got) != len(recs) {
		t.Fatalf("read %d records, wrote %d", len(got), len(recs))
	}
	for i := range recs {
		if !reflect.DeepEqual(got[i], recs[i]) {
			t.Fatalf("record %d:\n got %+v %+v\nwant %+v %+v", i, got[i], got[i].Label, recs[i], recs[i].Label)
		}
	}
	m := d.Manifest()
	if m.FormatVersion != FormatVersion || !reflect.DeepEqual(m.Command, opts.Command) ||
		!reflect.DeepEqual(m.Settings, opts.Settings) || !reflect.DeepEqual(m.Sources, opts.Sources) {
		t.Errorf("manifest lost what made the dataset: %+v", m)
	}
	var labelled, failed int64
	for _, r := range recs {
		if r.Label != nil && r.Label.Status == LabelOK {
			labelled++
		}
		if r.Label != nil && r.Label.Status == LabelFailed {
			failed++
		}
	}
	want := Counts{Records: 1000, Games: 25, Labelled: labelled, Failed: failed}
	if m.Counts != want {
		t.Errorf("counts %+v, want %+v", m.Counts, want)
	}
	if stats.Records != 1000 || stats.Written != 1000 || stats.Games != 25 || stats.Shards != 8 {
		t.Errorf("stats %+v", stats)
	}
	if len(m.Shards) != 8 || m.Shards[7].Records != 1000-7*128 {
		t.Errorf("shards %+v", m.Shards)
	}
	var hist int64
	for _, c := range m.Histogram.Counts {
		hist += c
	}
	if hist+m.Histogram.MateFor+m.Histogram.MateAgainst != labelled || m.Histogram.MateFor == 0 || m.Histogram.MateAgainst == 0 {
		t.Errorf("histogram %+v does not add up to %d labelled", m.Histogram, labelled)
	}
	if err := d.Verify(context.Background()); err != nil {
		t.Errorf("verify of a fresh dataset: %v", err)
	}
}

func TestWriteFillsMissingKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	r := &Record{FEN: "8/8/8/8/8/8/8/K6k w - - 0 1", GameID: 7}
	writeDataset(t, dir, WriteOptions{}, []*Record{r})
	if r.Key != 0 {
		t.Fatal("Write modified the caller's record")
	}
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, d, AllSplits)
	if len(got) != 1 || got[0].Key != PositionKey(r.FEN) {
		t.Fatalf("stored key %x, want %x", got[0].Key, PositionKey(r.FEN))
	}
}

func TestEmptyDataset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{Dedupe: true}, nil)
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, d, AllSplits); len(got) != 0 || d.Manifest().Counts != (Counts{}) {
		t.Fatalf("empty dataset has %d records, counts %+v", len(got), d.Manifest().Counts)
	}
}

func TestOpenErrors(t *testing.T) {
	root := t.TempDir()
	foreign := filepath.Join(root, "photos")
	os.Mkdir(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "cat.jpg"), []byte("meow"), 0o644)
	otherManifest := filepath.Join(root, "npm")
	os.Mkdir(otherManifest, 0o755)
	os.WriteFile(filepath.Join(otherManifest, ManifestFile), []byte(`{"name":"left-pad"}`), 0o644)
	newer := filepath.Join(root, "newer")
	os.Mkdir(newer, 0o755)
	os.WriteFile(filepath.Join(newer, ManifestFile),
		[]byte(fmt.Sprintf(`{"format":"dchess-dataset","format_version":%d,"shards":"changed shape"}`, FormatVersion+1)), 0o644)
	file := filepath.Join(root, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)

	cases := []struct {
		dir    string
		target error
		says   string
	}{
		{filepath.Join(root, "missing"), nil, "no such folder"},
		{foreign, ErrNotDataset, "no manifest.json"},
		{otherManifest, ErrNotDataset, "not a dchess manifest"},
		{file, ErrNotDataset, "not a folder"},
		{newer, ErrNewerFormat, "upgrade dchess"},
	}
	for _, c := range cases {
		_, err := Open(c.dir)
		if err == nil {
			t.Errorf("Open(%s) succeeded", c.dir)
			continue
		}
		if (c.target != nil && !errors.Is(err, c.target)) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), c.dir) {
			t.Errorf("Open(%s) = %q, want it to say %q and name the folder", c.dir, err, c.says)
		}
	}
}

func TestDedupeKeepsFirstInWrittenOrder(t *testing.T) {
	// 3000 writes over 400 distinct positions, spread across many of the
	// hash partitions; each later copy differs in Ply so the test can tell
	// which copy survived.
	var recs, want []*Record
	seen := map[uint64]bool{}
	for i := 0; i < 3000; i++ {
		pos := (i * 7919) % 400
		r := &Record{FEN: fmt.Sprintf("8/8/8/8/8/8/8/K%d w - - 0 1", pos), Ply: uint16(i), GameID: uint64(i / 50)}
		r.Key = PositionKey(r.FEN)
		recs = append(recs, r)
		if !seen[r.Key] {
			seen[r.Key] = true
			want = append(want, r)
		}
	}
	dir := filepath.Join(t.TempDir(), "ds")
	stats := writeDataset(t, dir, WriteOptions{Dedupe: true, Shard: 64}, recs)
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, d, AllSplits)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("dedupe kept %d records, want the %d first occurrences in written order", len(got), len(want))
	}
	if stats.Duplicates != 2600 || stats.Records != 400 || d.Manifest().Counts.Duplicates != 2600 {
		t.Errorf("stats %+v, counts %+v", stats, d.Manifest().Counts)
	}
}
