package train

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/models/nnue"
)

// rowCounter counts the rows a stream commits into one reusable row.
type rowCounter struct {
	ins            [][]float32
	added, refused int
}

func (s *rowCounter) Row() ([][]float32, []float32) { return s.ins, nil }
func (s *rowCounter) Add() error                    { s.added++; return nil }
func (s *rowCounter) Reject()                       { s.refused++ }

// rowRecorder keeps a copy of every row a stream commits.
type rowRecorder struct {
	rowCounter
	rows [][][]float32
}

func (s *rowRecorder) Add() error {
	row := make([][]float32, len(s.ins))
	for i := range s.ins {
		row[i] = slices.Clone(s.ins[i])
	}
	s.rows = append(s.rows, row)
	return s.rowCounter.Add()
}

// linesDataset is a split dataset of random positions, each labelled with
// three lines (its first three legal moves): with castling, the positions
// where a side may castle; without, every position with its castling
// rights taken away.
func linesDataset(t *testing.T, castling bool) (*dataset.Dataset, *dataset.Manifest) {
	t.Helper()
	var recs []*dataset.Record
	for _, b := range nntest.RandomBoards(60, 3) {
		f := strings.Fields(b.FEN())
		if castling && f[2] == "-" {
			continue
		}
		if !castling {
			f[2] = "-"
			var err error
			if b, err = board.FromFEN(strings.Join(f, " ")); err != nil {
				t.Fatal(err)
			}
		}
		moves := b.LegalMoves()
		if len(moves) < 3 {
			continue
		}
		uci := func(i int) []string { return []string{moves[i].String()} }
		// The best line is two moves long, the others one.
		b.Make(moves[0])
		replies := b.LegalMoves()
		b.Unmake()
		if len(replies) == 0 {
			continue
		}
		best := []string{moves[0].String(), replies[0].String()}
		recs = append(recs, &dataset.Record{FEN: b.FEN(), GameID: uint64(len(recs)), Label: &dataset.Label{
			Status: dataset.LabelOK, CP: 20, WinProb: dataset.WinProbability(20, 0), BestMove: moves[0].String(), PV: best,
			MultiPV: []dataset.PVLine{{CP: 10, PV: uci(1)}, {CP: -40, PV: uci(2)}}}})
	}
	if len(recs) < 20 {
		t.Fatalf("only %d positions", len(recs))
	}
	dir := datasettest.Write(t, filepath.Join(t.TempDir(), "data"), dataset.WriteOptions{}, recs)
	m, err := dataset.WriteSplit(dir, 0.3, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ds, m
}

// streamRows counts the rows o streams from a split, failing on rejects.
func streamRows(t *testing.T, o family.Objective, ds *dataset.Dataset, split dataset.Split) int64 {
	t.Helper()
	sink := &rowCounter{ins: [][]float32{make([]float32, 2*nnue.Slots), {0}, {0}}}
	if err := o.Stream(context.Background(), ds, split, family.StreamOrder{}, sink); err != nil {
		t.Fatal(err)
	}
	if sink.refused != 0 {
		t.Errorf("%v: %d rows refused", split, sink.refused)
	}
	return int64(sink.added)
}

func nnueObjectiveFor(t *testing.T, set func(*nnue.Config)) family.Objective {
	t.Helper()
	cfg := testConfig(t, nnue.Family)
	set(cfg.Model.Settings.(*nnue.Config))
	o, err := cfg.Family().Objective(cfg, family.ObjectiveEnv{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestNNUEChildrenTrainOnly(t *testing.T) {
	ds, m := linesDataset(t, true)
	for _, children := range []int{0, 2, 3, 5} {
		o := nnueObjectiveFor(t, func(c *nnue.Config) { c.QuietOnly, c.Children, c.Mirror = false, children, false })
		// A record gives itself and one child a line, three lines at most.
		if got, want := streamRows(t, o, ds, dataset.Train), m.Split.Records.Train*int64(1+min(children, 3)); got != want {
			t.Errorf("children %d: %d train rows, want %d", children, got, want)
		}
		// Two plies: the best line, two moves long, gives a second position.
		o = nnueObjectiveFor(t, func(c *nnue.Config) { c.QuietOnly, c.Children, c.ChildPlies, c.Mirror = false, children, 2, false })
		if got, want := streamRows(t, o, ds, dataset.Train), m.Split.Records.Train*int64(1+min(children, 3)+min(children, 1)); got != want {
			t.Errorf("children %d, 2 plies: %d train rows, want %d", children, got, want)
		}
		if got, want := streamRows(t, o, ds, dataset.Val), m.Split.Records.Val; got != want {
			t.Errorf("children %d: %d validation rows, want %d", children, got, want)
		}
	}
}

func TestNNUEMirrorTrainOnly(t *testing.T) {
	for _, castling := range []bool{true, false} {
		ds, m := linesDataset(t, castling)
		for _, children := range []int{0, 2} {
			o := nnueObjectiveFor(t, func(c *nnue.Config) { c.QuietOnly, c.Children, c.Mirror = false, children, true })
			// Without castling rights every train row is followed by its mirror.
			want := m.Split.Records.Train * int64(1+children)
			if !castling {
				want *= 2
			}
			if got := streamRows(t, o, ds, dataset.Train); got != want {
				t.Errorf("castling %t, children %d: %d train rows, want %d", castling, children, got, want)
			}
			if got, want := streamRows(t, o, ds, dataset.Val), m.Split.Records.Val; got != want {
				t.Errorf("castling %t, children %d: %d validation rows, want %d", castling, children, got, want)
			}
			if castling {
				continue
			}
			rec := &rowRecorder{rowCounter: rowCounter{ins: [][]float32{make([]float32, 2*nnue.Slots), {0}, {0}}}}
			if err := o.Stream(context.Background(), ds, dataset.Train, family.StreamOrder{}, rec); err != nil {
				t.Fatal(err)
			}
			mirrored := [][]float32{make([]float32, 2*nnue.Slots), {0}, {0}}
			for i := 0; i+1 < len(rec.rows); i += 2 {
				nnue.MirrorRow(rec.rows[i], mirrored)
				for k := range mirrored {
					if !slices.Equal(rec.rows[i+1][k], mirrored[k]) {
						t.Fatalf("children %d: row %d is not the mirror of row %d: %v, want %v", children, i+1, i, rec.rows[i+1][k], mirrored[k])
					}
				}
			}
		}
	}
}

// A run stopped inside an epoch reports the share of the epoch's records it
// trained on, however many rows each makes: here five (itself, three line
// positions and the best line's second), one batch, so each step is one record.
func TestNNUEEpochFractionCountsRecords(t *testing.T) {
	ds, m := linesDataset(t, false)
	cfg := testConfig(t, nnue.Family)
	c := cfg.Model.Settings.(*nnue.Config)
	c.QuietOnly, c.Children, c.ChildPlies, c.Mirror = false, 3, 8, false
	train := m.Split.Records.Train
	cfg.BatchSize, cfg.Epochs, cfg.MaxSteps = 5, 3, train+train/2
	run := filepath.Join(t.TempDir(), "run")
	ctx := context.Background()
	res, err := Run(ctx, Options{Config: cfg, Data: ds.Dir(), RunDir: run})
	if err != nil {
		t.Fatal(err)
	}
	want := 1 + float64(train/2)/float64(train)
	if res.Stopped != "max_steps" || res.Epochs != 1 || math.Abs(res.EpochFraction-want) > 1e-9 {
		t.Fatalf("stopped by %s after %d epochs at %.4f epochs, want max_steps at %.4f (%d train records)",
			res.Stopped, res.Epochs, res.EpochFraction, want, train)
	}
	// The checkpoint keeps the count: resumed with nothing left to train,
	// the run reports the same share.
	again, err := Run(ctx, Options{Data: ds.Dir(), RunDir: run, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if again.EpochFraction != res.EpochFraction {
		t.Errorf("resumed: %.4f epochs, want %.4f", again.EpochFraction, res.EpochFraction)
	}
}
