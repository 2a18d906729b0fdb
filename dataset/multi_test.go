package dataset

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenListReadsThePartsAsOne(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, first, n int) string {
		t.Helper()
		path := filepath.Join(dir, name)
		w, err := Create(path, WriteOptions{Shard: 3})
		if err != nil {
			t.Fatal(err)
		}
		for i := first; i < first+n; i++ {
			fen := fmt.Sprintf("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 %d", i+1)
			if err := w.Write(&Record{FEN: fen, Key: PositionKey(fen), GameID: uint64(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b := write("a", 0, 7), write("b", 7, 5)
	for _, p := range []string{a, b} {
		if _, err := WriteSplit(p, 0.3, 0.2, 9); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenList(a + "," + b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Manifest().Counts.Records != 12 {
		t.Fatalf("records %d, want 12", d.Manifest().Counts.Records)
	}
	for _, split := range []Split{AllSplits, Train, Val, Test} {
		var games []uint64
		if err := d.Scan(context.Background(), split, func(r *Record) error { games = append(games, r.GameID); return nil }); err != nil {
			t.Fatal(err)
		}
		if int64(len(games)) != d.Manifest().Split.Records.Of(split) {
			t.Fatalf("%s: %d records, the manifest says %d", split, len(games), d.Manifest().Split.Records.Of(split))
		}
		n := 0
		if err := d.Shuffled(context.Background(), split, 1, 0, 4, func(*Record) error { n++; return nil }); err != nil || n != len(games) {
			t.Fatalf("%s: shuffled %d of %d: %v", split, n, len(games), err)
		}
	}

	if _, err := WriteSplit(b, 0.1, 0.2, 9); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenList(a + "," + b); err == nil || !strings.Contains(err.Error(), "split unlike") {
		t.Fatalf("parts split differently: %v", err)
	}
	if _, err := OpenList(a + ",," + b); err == nil {
		t.Fatal("an empty name was accepted")
	}
}
