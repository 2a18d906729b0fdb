package pipeline

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/models/nnue"
)

// rowCounter counts the rows a stream commits into one reusable row.
type rowCounter struct {
	ins            [][]float32
	added, refused int
}

func (s *rowCounter) row() ([][]float32, []float32) { return s.ins, nil }
func (s *rowCounter) add() error                    { s.added++; return nil }
func (s *rowCounter) reject()                       { s.refused++ }

func TestNNUEChildrenTrainOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	w, err := dataset.Create(dir, dataset.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Every position labelled with three lines: its first three legal moves.
	var records int
	for _, b := range nntest.RandomBoards(60, 3) {
		moves := b.LegalMoves()
		if len(moves) < 3 {
			continue
		}
		uci := func(i int) []string { return []string{moves[i].String()} }
		if err := w.Write(&dataset.Record{FEN: b.FEN(), GameID: uint64(records), Label: &dataset.Label{
			Status: dataset.LabelOK, CP: 20, WinProb: dataset.WinProbability(20, 0), BestMove: moves[0].String(), PV: uci(0),
			MultiPV: []dataset.PVLine{{CP: 10, PV: uci(1)}, {CP: -40, PV: uci(2)}}}}); err != nil {
			t.Fatal(err)
		}
		records++
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	m, err := dataset.WriteSplit(dir, 0.3, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, children := range []int{0, 2, 3, 5} {
		cfg := testConfig(t, nnue.Family)
		settings := cfg.Model.Settings.(*nnue.Config)
		settings.QuietOnly, settings.Children = false, children
		o, err := cfg.family().Objective(cfg, ObjectiveEnv{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			split dataset.Split
			want  int64
		}{
			// A record gives itself and one child a line, three lines at most.
			{dataset.Train, m.Split.Records.Train * int64(1+min(children, 3))},
			{dataset.Val, m.Split.Records.Val},
		} {
			sink := &rowCounter{ins: [][]float32{make([]float32, 2*nnue.Slots), {0}, {0}}}
			if err := o.stream(context.Background(), ds, c.split, streamOrder{}, sink); err != nil {
				t.Fatal(err)
			}
			if int64(sink.added) != c.want || sink.refused != 0 {
				t.Errorf("children %d, %v: %d rows (%d refused), want %d", children, c.split, sink.added, sink.refused, c.want)
			}
		}
	}
}
