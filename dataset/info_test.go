package dataset

import (
	"context"
	"path/filepath"
	"testing"
)

// TestCountQuiet: of four positions one is quiet; the others are in check,
// have a capture for best move, or failed to label.
func TestCountQuiet(t *testing.T) {
	ok := func(best string) *Label { return &Label{Status: LabelOK, BestMove: best, PV: []string{best}} }
	recs := []*Record{
		{FEN: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Label: ok("e2e4")},
		{FEN: "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3", Label: ok("c7c6")}, // in check
		{FEN: "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", Label: ok("e4d5")},   // best move a capture
		{FEN: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", Label: &Label{Status: LabelFailed, Error: "no answer"}},
	}
	for i, r := range recs {
		r.Key, r.GameID = PositionKey(r.FEN), uint64(i)
	}
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{}, recs)
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	q, err := CountQuiet(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if q.Labelled != 3 || q.Quiet != 1 || q.Splits["train"] != 1 || q.Splits["val"] != 0 || q.Splits["test"] != 0 {
		t.Errorf("counted %+v, want 1 quiet of 3 labelled, in train (the dataset is not split)", q)
	}
}
