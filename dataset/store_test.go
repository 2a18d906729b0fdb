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

	"github.com/dchess/dchess/internal/chess/pgn"

	"github.com/dchess/dchess/internal/safefile"
)

// sampleRecords returns n records over games of gameLen positions; every
// third record is labelled, every seventh label failed, and the moves mix
// plain UCI moves with strings that need the raw escape.
func sampleRecords(n, gameLen int) []*Record {
	moves := []string{"e2e4", "e7e5", "g1f3", "e7e8q", "a2a1n", "0000", "", "E2E4", "h7h8r"}
	line := []string{"e2e4", "e7e5", "g1f3", "b8c6", "b1c3"}
	recs := make([]*Record, n)
	for i := range recs {
		r := &Record{
			FEN:      fmt.Sprintf("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 %d", i+1),
			Move:     moves[i%len(moves)],
			Result:   pgn.Result(i % 4),
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
			// Label moves are legal (Verify plays them); Move and Next
			// above exercise the raw escape.
			l := &Label{Status: LabelOK, CP: int32(i*37%4000 - 2000), Depth: uint16(i % 30), Nodes: uint64(i) * 1_000_003,
				Engine: "Stockfish 15.1", BestMove: line[i%3*2], PV: line[:1+i%4]}
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
	if m.FormatVersion != baseFormatVersion || !reflect.DeepEqual(m.Command, opts.Command) ||
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

func TestDedupeSplitsOverfullPartitions(t *testing.T) {
	// With a 16-slot set each partition holds at most 8 distinct keys, so
	// 1500 distinct keys over 256 partitions (about 6 each) force some
	// partitions to split, and
	// the merged repeats must still come out in written order with the
	// first copy kept.
	var recs, want []*Record
	for i := 0; i < 4500; i++ {
		pos := (i * 104729) % 1500
		r := &Record{FEN: fmt.Sprintf("k7/8/8/8/8/8/%d/7K w - - 0 1", pos), Ply: uint16(i), GameID: uint64(pos / 10)}
		r.Key = PositionKey(r.FEN)
		recs = append(recs, r)
		if i < 1500 {
			want = append(want, r)
		}
	}
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := Create(dir, WriteOptions{Dedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	w.dedupe.setSlots = 16
	w.games.setSlots = 16
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, d, AllSplits)
	if len(got) != len(want) {
		t.Fatalf("kept %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].FEN != want[i].FEN || got[i].Ply != want[i].Ply {
			t.Fatalf("record %d is %s ply %d, want %s ply %d", i, got[i].FEN, got[i].Ply, want[i].FEN, want[i].Ply)
		}
	}
	if c := d.Manifest().Counts; c.Games != 150 || c.Duplicates != 3000 {
		t.Errorf("counts %+v, want 150 games and 3000 duplicates", c)
	}
}

func TestKeySpillRecursiveSplit(t *testing.T) {
	// One partition with 1000 distinct keys and an 8-key set: it splits into
	// 16 (about 62 keys each) and again into 256 groups.
	s, err := newKeySpill(t.TempDir(), 1, 4096)
	if err != nil {
		t.Fatal(err)
	}
	s.setSlots = 16
	var wantRepeats []uint64
	for seq := uint64(0); seq < 5000; seq++ {
		key := seq * 7 % 1000 * 0x9E3779B97F4A7C15
		if seq >= 1000 {
			wantRepeats = append(wantRepeats, seq)
		}
		if err := s.add(key, seq); err != nil {
			t.Fatal(err)
		}
	}
	dropDir := t.TempDir()
	merger, err := s.duplicates(dropDir)
	if err != nil {
		t.Fatal(err)
	}
	defer merger.close()
	// The sub-partitions' drop files are merged back into one per partition.
	if entries, _ := os.ReadDir(dropDir); len(entries) != 1 {
		t.Errorf("%d drop files for one partition, want 1", len(entries))
	}
	var got []uint64
	for {
		seq, err := merger.next()
		if err != nil {
			t.Fatal(err)
		}
		if seq == noMoreSeq {
			break
		}
		got = append(got, seq)
	}
	if !reflect.DeepEqual(got, wantRepeats) {
		t.Fatalf("got %d repeats, want %d in order", len(got), len(wantRepeats))
	}

	c, err := newKeySpill(t.TempDir(), 1, 4096)
	if err != nil {
		t.Fatal(err)
	}
	c.setSlots = 16
	for seq := uint64(0); seq < 5000; seq++ {
		c.add(seq%1000*0x9E3779B97F4A7C15, seq)
	}
	firsts := map[uint64]bool{}
	n, err := c.countDistinct(func(k uint64) { firsts[k] = true })
	if err != nil || n != 1000 || len(firsts) != 1000 {
		t.Fatalf("counted %d distinct (%d callbacks), want 1000: %v", n, len(firsts), err)
	}
}

func TestKeySetZeroKeyAndOverflow(t *testing.T) {
	s := newKeySet(16)
	s.reset(100)
	for _, k := range []uint64{0, 5, 0, 5} {
		s.add(k)
	}
	if s.len() != 2 {
		t.Fatalf("set of {0, 5} has %d keys", s.len())
	}
	full := false
	for k := uint64(1); k < 20; k++ {
		if _, ok := s.add(k * 1000); !ok {
			full = true
		}
	}
	if !full || s.len() > 8 {
		t.Fatalf("a 16-slot set took %d keys without reporting it full", s.len())
	}
}

func TestAbortLeavesPreviousDataset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	old := sampleRecords(300, 30)
	writeDataset(t, dir, WriteOptions{Shard: 100}, old)

	for _, dedupe := range []bool{false, true} {
		w, err := Create(dir, WriteOptions{Shard: 10, Dedupe: dedupe, Replace: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range sampleRecords(55, 5) {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(old[0]); err == nil {
			t.Error("Write after Abort succeeded")
		}
		if err := w.Close(); err == nil {
			t.Error("Close after Abort succeeded")
		}
		d, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := scanAll(t, d, AllSplits); len(got) != len(old) || !reflect.DeepEqual(got[299], old[299]) {
			t.Fatalf("after an aborted rewrite the dataset has %d records, want the old %d", len(got), len(old))
		}
		if err := d.Verify(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("aborted writers left files beside the dataset: %v", entries)
	}

	// A writer that never gets to Close or Abort (its process was killed)
	// has touched nothing but its own temporary folder.
	w, err := Create(dir, WriteOptions{Shard: 10, Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, r := range sampleRecords(95, 5) {
		w.Write(r)
	}
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, d, AllSplits); len(got) != len(old) {
		t.Fatalf("while another writer is busy the dataset has %d records, want %d", len(got), len(old))
	}
	if err := d.Verify(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestCreateRefusesDotFolders(t *testing.T) {
	for _, dir := range []string{".", "..", "/"} {
		if w, err := Create(dir, WriteOptions{}); err == nil {
			w.Abort()
			t.Errorf("Create(%q) succeeded", dir)
		}
	}
}

func TestCloseReplacesDataset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{Shard: 10}, sampleRecords(300, 30))
	// Open before the rewrite: a reader of the old dataset (the labeller
	// reading -i while writing -o to the same folder) sees a whole dataset.
	oldDataset, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Create(dir, WriteOptions{Shard: 100, Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := oldDataset.Scan(context.Background(), AllSplits, func(r *Record) error {
		if r.Ply%2 == 0 {
			return w.Write(r)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, d, AllSplits); len(got) != 150 || len(d.Manifest().Shards) != 2 {
		t.Fatalf("replaced dataset has %d records in %d shards, want 150 in 2", len(got), len(d.Manifest().Shards))
	}
	if err := d.Verify(context.Background()); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("the old dataset or a temp folder was left behind: %v", entries)
	}
}

func TestCreateRefusesForeignFolder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("precious"), 0o644)
	if _, err := Create(dir, WriteOptions{}); err == nil || !strings.Contains(err.Error(), "not a dchess dataset") {
		t.Fatalf("Create over a folder with other files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "thesis.tex")); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	writeDataset(t, empty, WriteOptions{}, sampleRecords(3, 3))
	if _, err := Open(empty); err != nil {
		t.Fatalf("an empty folder should be usable as a destination: %v", err)
	}
}

func TestSplitIsByGameAndStable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	recs := sampleRecords(20000, 20) // 1000 games
	writeDataset(t, dir, WriteOptions{Shard: 3000}, recs)
	m, err := WriteSplit(dir, 0.1, 0.2, 42)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Manifest().Split, m.Split) {
		t.Fatalf("reopened split %+v differs from the returned %+v", d.Manifest().Split, m.Split)
	}
	gameSplit := map[uint64]Split{}
	counts := map[Split]int64{}
	for _, s := range []Split{Train, Val, Test} {
		for _, r := range scanAll(t, d, s) {
			if prev, ok := gameSplit[r.GameID]; ok && prev != s {
				t.Fatalf("game %x is in %v and %v", r.GameID, prev, s)
			}
			gameSplit[r.GameID] = s
			counts[s]++
		}
	}
	if len(gameSplit) != 1000 {
		t.Fatalf("splits cover %d games, want 1000", len(gameSplit))
	}
	sc := m.Split.Records
	if sc.Train != counts[Train] || sc.Val != counts[Val] || sc.Test != counts[Test] || sc.Of(AllSplits) != 20000 {
		t.Errorf("manifest split counts %+v, scanned %v", sc, counts)
	}
	g := m.Split.Games
	if g.Of(AllSplits) != 1000 || g.Val*20 != sc.Val || g.Test*20 != sc.Test {
		t.Errorf("split game counts %+v do not match records %+v", g, sc)
	}
	// 1000 games: val ~100 and test ~200, with a wide margin for chance.
	if g.Val < 60 || g.Val > 140 || g.Test < 150 || g.Test > 250 {
		t.Errorf("split game counts %+v are far from 10%%/20%%", g)
	}
	if len(m.Split.Placed) > 0 || m.FormatVersion != baseFormatVersion {
		t.Errorf("1000 games: placed %v, format version %d: a draw with no empty split is kept as drawn", m.Split.Placed, m.FormatVersion)
	}
	// The same seed gives the same split; another seed a different one.
	again, err := WriteSplit(dir, 0.1, 0.2, 42)
	if err != nil {
		t.Fatal(err)
	}
	if again.Split.Games != g {
		t.Errorf("same seed, different split: %+v vs %+v", again.Split.Games, g)
	}
	other, err := WriteSplit(dir, 0.1, 0.2, 43)
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := Open(dir)
	moved := 0
	for game, s := range gameSplit {
		if d2.SplitOf(game) != s {
			moved++
		}
	}
	if moved == 0 || other.Split.Seed != 43 {
		t.Error("a different seed did not change the split")
	}
	if _, err := WriteSplit(dir, 0.7, 0.5, 1); err == nil {
		t.Error("val+test > 1 was accepted")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("WriteSplit left %s in the dataset", e.Name())
		}
	}
}

func TestUnsplitDatasetIsAllTrain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{}, sampleRecords(50, 10))
	d, _ := Open(dir)
	if n := len(scanAll(t, d, Train)); n != 50 {
		t.Errorf("train of an unsplit dataset has %d records, want 50", n)
	}
	if n := len(scanAll(t, d, Val)); n != 0 {
		t.Errorf("val of an unsplit dataset has %d records", n)
	}
}

func shuffledPlies(t *testing.T, d *Dataset, split Split, seed int64, epoch, buffer int) []int {
	t.Helper()
	var order []int
	err := d.Shuffled(context.Background(), split, seed, epoch, buffer, func(r *Record) error {
		order = append(order, int(r.WhiteElo)) // WhiteElo holds the record's index
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return order
}

func TestShuffled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	var recs []*Record
	for i := 0; i < 5000; i++ {
		recs = append(recs, &Record{FEN: fmt.Sprint("fen ", i), WhiteElo: uint16(i), GameID: uint64(i / 10)})
	}
	writeDataset(t, dir, WriteOptions{Shard: 500}, recs)
	d, _ := Open(dir)

	a := shuffledPlies(t, d, AllSplits, 7, 0, 256)
	seen := make([]bool, len(recs))
	for _, i := range a {
		if seen[i] {
			t.Fatalf("record %d came twice", i)
		}
		seen[i] = true
	}
	if len(a) != len(recs) {
		t.Fatalf("shuffle gave %d records, want %d", len(a), len(recs))
	}
	if !reflect.DeepEqual(a, shuffledPlies(t, d, AllSplits, 7, 0, 256)) {
		t.Error("same seed and epoch gave a different order")
	}
	b := shuffledPlies(t, d, AllSplits, 7, 1, 256)
	c := shuffledPlies(t, d, AllSplits, 8, 0, 256)
	if reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) {
		t.Error("another epoch or seed gave the same order")
	}
	inPlace := 0
	for pos, i := range a {
		if pos == i {
			inPlace++
		}
	}
	if inPlace > 50 {
		t.Errorf("%d of 5000 records kept their stored position", inPlace)
	}

	if _, err := WriteSplit(dir, 0.2, 0.2, 3); err != nil {
		t.Fatal(err)
	}
	d, _ = Open(dir)
	val := shuffledPlies(t, d, Val, 7, 0, 64)
	if int64(len(val)) != d.Manifest().Split.Records.Val {
		t.Fatalf("shuffled val has %d records, the manifest says %d", len(val), d.Manifest().Split.Records.Val)
	}
	for _, i := range val {
		if d.SplitOf(recs[i].GameID) != Val {
			t.Fatalf("record %d of game %d is not in val", i, recs[i].GameID)
		}
	}
}

func TestScanStopsOnCallbackErrorAndCancel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{}, sampleRecords(5000, 10))
	d, _ := Open(dir)
	stop := errors.New("enough")
	n := 0
	err := d.Scan(context.Background(), AllSplits, func(*Record) error {
		n++
		if n == 10 {
			return stop
		}
		return nil
	})
	if err != stop || n != 10 {
		t.Errorf("Scan returned %v after %d records, want the callback's error after 10", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n = 0
	err = d.Scan(ctx, AllSplits, func(*Record) error {
		n++
		if n == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n >= 5000 {
		t.Errorf("cancelled Scan returned %v after %d records", err, n)
	}
}

func TestVerifyRejectsIllegalLabelMoves(t *testing.T) {
	const black = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"
	cases := map[string]struct {
		label Label
		want  string
	}{
		"best move":  {Label{Status: LabelOK, BestMove: "e1e8"}, "best move e1e8 is not legal"},
		"white move": {Label{Status: LabelOK, BestMove: "a2a3"}, "best move a2a3 is not legal"},
		"pv":         {Label{Status: LabelOK, BestMove: "d7d5", PV: []string{"d7d5", "d7d5"}}, "principal variation move 2 (d7d5)"},
		"multipv":    {Label{Status: LabelOK, BestMove: "d7d5", MultiPV: []PVLine{{PV: []string{"g8f6", "e1e8"}}}}, "line 2 move 2 (e1e8)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ds")
			good := Label{Status: LabelOK, BestMove: "d7d5", PV: []string{"d7d5", "c2c4"}}
			writeDataset(t, dir, WriteOptions{}, []*Record{{FEN: black, Label: &good}, {FEN: black, GameID: 2, Label: &c.label}})
			d, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			err = d.Verify(context.Background())
			var se *ShardError
			if !errors.As(err, &se) || se.Record != 1 || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Verify: %v, want record 1: %q", err, c.want)
			}
		})
	}
}

func TestReplacingADatasetNeedsReplaceAndKeepsForeignFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{}, sampleRecords(30, 10))
	if _, err := Create(dir, WriteOptions{}); !errors.Is(err, safefile.ErrExists) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("Create over a dataset without Replace: %v", err)
	}
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(dir, WriteOptions{Replace: true}); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("Create over a dataset holding a user's file: %v", err)
	}
	// The file appearing while the writer works is caught at Close.
	os.Remove(notes)
	w, err := Create(dir, WriteOptions{Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(notes, []byte("mine"), 0o644)
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("Close over a dataset holding a user's file: %v", err)
	}
	w.Abort()
	if data, err := os.ReadFile(notes); err != nil || string(data) != "mine" {
		t.Fatalf("the user's file: %q, %v", data, err)
	}
}

// The reported bug: verify caught a manifest whose count disagreed with its
// shards, but export and train read it without a word.
func TestReadersRefuseAManifestThatMiscounts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{Shard: 10}, sampleRecords(30, 10))
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := *d.Manifest()
	m.Counts.Records = 25
	if err := writeManifest(dir, &m); err != nil {
		t.Fatal(err)
	}
	if d, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	const want = "the shards list 30 records but the manifest counts 25"
	read := 0
	count := func(*Record) error { read++; return nil }
	for name, err := range map[string]error{
		"Scan":     d.Scan(context.Background(), AllSplits, count),
		"Shuffled": d.Shuffled(context.Background(), Train, 1, 0, 8, count),
		"Verify":   d.Verify(context.Background()),
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	if read != 0 {
		t.Errorf("%d records were handed out before the count was checked", read)
	}
}

// The reported bug: dataset info printed "records -5" without a word. A
// manifest whose counts cannot be true is refused by every reader and
// reported by Verify, saying which count is wrong.
func TestReadersRefuseImpossibleManifestCounts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{Shard: 10}, sampleRecords(60, 10))
	sound, err := WriteSplit(dir, 0.2, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p := sound.CountsProblem(); p != "" || sound.Counts.Labelled == 0 || sound.Counts.Games != 6 {
		t.Fatalf("a dataset as written: %q, counts %+v", p, sound.Counts)
	}
	for _, c := range []struct {
		damage func(m *Manifest)
		want   string
	}{
		{func(m *Manifest) { m.Counts.Records = -5 }, "counts.records is -5: a count cannot be negative"},
		{func(m *Manifest) { m.Counts.Duplicates = -1 }, "counts.duplicates_dropped is -1"},
		{func(m *Manifest) { m.Split.Games.Val = -2 }, "split.games.val is -2"},
		{func(m *Manifest) { m.Shards[1].Records = -10; m.Shards[2].Records += 10 }, "the record count of shard-00001.rec is -10"},
		{func(m *Manifest) { m.Histogram.Counts[3] = -1 }, "score_histogram.counts[3] is -1"},
		{func(m *Manifest) { m.Counts.Failed = m.Counts.Records }, fmt.Sprintf("labelled and %d failed records of only 60 records", sound.Counts.Records)},
		{func(m *Manifest) { m.Counts.Games = 61 }, "61 games of only 60 records"},
		{func(m *Manifest) { m.Counts.Games = 0 }, "60 records of no game"},
		{func(m *Manifest) { m.Split.Records.Train++ }, "of the 60 records"},
		{func(m *Manifest) { m.Split.Games.Test++ }, "of the 6 games"},
		{func(m *Manifest) { m.Histogram.MateFor += m.Counts.Labelled }, "labelled records"},
	} {
		m := *sound
		split := *sound.Split
		m.Split = &split
		m.Shards = append([]ShardInfo(nil), sound.Shards...)
		m.Histogram.Counts = append([]int64(nil), sound.Histogram.Counts...)
		c.damage(&m)
		if err := writeManifest(dir, &m); err != nil {
			t.Fatal(err)
		}
		d, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		read := 0
		count := func(*Record) error { read++; return nil }
		report, err := Verify(context.Background(), d, nil)
		if err != nil || report.OK {
			t.Errorf("Verify of a manifest with %q: %+v, %v", c.want, report, err)
		}
		for name, err := range map[string]error{
			"Scan":           d.Scan(context.Background(), AllSplits, count),
			"Shuffled":       d.Shuffled(context.Background(), Train, 1, 0, 8, count),
			"Dataset.Verify": d.Verify(context.Background()),
			"Verify":         errors.New(strings.Join(report.Problems, "; ")),
		} {
			if err == nil || !strings.Contains(err.Error(), "damaged manifest.json: ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s of a manifest with %q: %v", name, c.want, err)
			}
		}
		if read != 0 {
			t.Errorf("%q: %d records were handed out", c.want, read)
		}
	}
}

func TestSplitOfAFewGamesLeavesNoRequestedSplitEmpty(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{}, sampleRecords(40, 10)) // 4 games
	placed := 0
	for seed := uint64(1); seed <= 20; seed++ {
		// The draw alone puts each game in test with probability 0.1, so
		// some of these seeds leave val or test empty.
		m, err := WriteSplit(dir, 0.1, 0.1, seed)
		if err != nil {
			t.Fatal(err)
		}
		g := m.Split.Games
		if g.Train < 1 || g.Val < 1 || g.Test < 1 || g.Of(AllSplits) != 4 {
			t.Fatalf("seed %d: games %+v: every requested split should hold a game", seed, g)
		}
		d, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Split{Train, Val, Test} {
			if n := int64(len(scanAll(t, d, s))); n != m.Split.Records.Of(s) {
				t.Fatalf("seed %d: %v holds %d records, the manifest counts %d", seed, s, n, m.Split.Records.Of(s))
			}
		}
		if len(m.Split.Placed) > 0 {
			placed++
			if m.FormatVersion != 2 {
				t.Fatalf("seed %d: placed games in format version %d: older readers would assign them by their draw", seed, m.FormatVersion)
			}
		}
	}
	if placed == 0 {
		t.Fatal("no seed needed a placed game: the test does not exercise the placement")
	}
	// A split not asked for stays empty, and a large dataset's draw is untouched.
	m, err := WriteSplit(dir, 0, 0.1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if m.Split.Games.Val != 0 || m.Split.Games.Test < 1 {
		t.Fatalf("val 0: games %+v", m.Split.Games)
	}
}
