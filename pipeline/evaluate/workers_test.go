package evaluate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/search/player"
)

// TestScoreInOrderMergesInInputOrder: an item takes longer the earlier it
// comes, so three workers finish them out of order, and the merge still
// sees every item once, in order, with its own result.
func TestScoreInOrderMergesInInputOrder(t *testing.T) {
	const n = 12
	score := make([]func(context.Context, int, int) (int, error), 3)
	for k := range score {
		score[k] = func(_ context.Context, i, item int) (int, error) {
			time.Sleep(time.Duration(n-i) * 5 * time.Millisecond)
			return 10 * item, nil
		}
	}
	var merged []int
	err := scoreInOrder(context.Background(), score, emitIndices(n), func(item, res int) error {
		if res != 10*item {
			return fmt.Errorf("item %d merged with result %d", item, res)
		}
		merged = append(merged, item)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}; !slices.Equal(merged, want) {
		t.Errorf("merged %v, want %v", merged, want)
	}
}

// TestScoreInOrderBoundsHowFarItRunsAhead: while the first item is slow,
// the other worker scores no more than the window holds, then waits, and
// every item is merged once the first is.
func TestScoreInOrderBoundsHowFarItRunsAhead(t *testing.T) {
	const n = 1000
	var started, startedBeforeFirstDone atomic.Int64
	score := make([]func(context.Context, int, int) (int, error), 2)
	for k := range score {
		score[k] = func(_ context.Context, i, _ int) (int, error) {
			started.Add(1)
			if i == 0 {
				time.Sleep(200 * time.Millisecond)
				startedBeforeFirstDone.Store(started.Load())
			}
			return i, nil
		}
	}
	merged := 0
	err := scoreInOrder(context.Background(), score, emitIndices(n), func(item, _ int) error {
		if item != merged {
			return fmt.Errorf("merged item %d where %d was due", item, merged)
		}
		merged++
		return nil
	})
	if err != nil || merged != n {
		t.Fatalf("merged %d of %d: %v", merged, n, err)
	}
	if got, window := startedBeforeFirstDone.Load(), int64(2*itemsAhead); got > window || got < window/2 {
		t.Errorf("%d items started while the first was scored, want at most the window of %d (and most of it)", got, window)
	}
}

// TestScoreInOrderFailsAsOneWorker: the error is the first item's in
// input order, though a later item fails sooner, and only the items before
// it are merged; a producer's error comes after every item it emitted.
func TestScoreInOrderFailsAsOneWorker(t *testing.T) {
	score := make([]func(context.Context, int, int) (int, error), 3)
	for k := range score {
		score[k] = func(_ context.Context, i, _ int) (int, error) {
			switch i {
			case 5:
				time.Sleep(50 * time.Millisecond)
				return 0, errors.New("item 5 failed")
			case 7:
				return 0, errors.New("item 7 failed")
			}
			return i, nil
		}
	}
	var merged []int
	err := scoreInOrder(context.Background(), score, emitIndices(12), func(item, _ int) error {
		merged = append(merged, item)
		return nil
	})
	if err == nil || err.Error() != "item 5 failed" || !slices.Equal(merged, []int{0, 1, 2, 3, 4}) {
		t.Errorf("error %v after merging %v, want item 5's after 0..4", err, merged)
	}

	errScan := errors.New("damaged shard")
	merged = nil
	produce := func(_ context.Context, emit func(int) error) error {
		for i := range 4 {
			if err := emit(i); err != nil {
				return err
			}
		}
		return errScan
	}
	err = scoreInOrder(context.Background(), score[:2], produce, func(item, _ int) error {
		merged = append(merged, item)
		return nil
	})
	if !errors.Is(err, errScan) || !slices.Equal(merged, []int{0, 1, 2, 3}) {
		t.Errorf("error %v after merging %v, want the producer's after 0..3", err, merged)
	}
}

// testBoards are positions of random games that are not over.
func testBoards(n int) []*board.Board {
	var out []*board.Board
	for _, b := range nntest.RandomBoards(2*n, 11) {
		if b.Status() == board.NotOver && len(out) < n {
			out = append(out, b)
		}
	}
	return out
}

// heuristicLine is a depth-3 heuristic search's line in b, at least one move.
func heuristicLine(t *testing.T, b *board.Board) []string {
	t.Helper()
	p, err := player.New(context.Background(), "heuristic:depth=3")
	if err != nil {
		t.Fatal(err)
	}
	mi, err := p.Move(context.Background(), player.Position{StartFEN: b.FEN()}, player.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(mi.PV) == 0 {
		return []string{mi.Move}
	}
	return mi.PV
}

// labelledTestDataset writes n random positions labelled with a depth-3
// heuristic's line and a material win probability: a depth-2 search plays
// the best move in some of them, not all.
func labelledTestDataset(t *testing.T, n int) string {
	t.Helper()
	boards := testBoards(n)
	recs := nntest.MaterialRecords(boards)
	for i, r := range recs {
		line := heuristicLine(t, boards[i])
		r.Label.BestMove, r.Label.PV = line[0], line
	}
	return datasettest.Write(t, filepath.Join(t.TempDir(), "labelled"), dataset.WriteOptions{}, recs)
}

// sameForWorkers runs an evaluation with 1 and with 3 workers and fails
// unless the two give the same JSON once the times, which the machine
// decides, are cleared.
func sameForWorkers[R any](t *testing.T, run func(workers int) (R, error), clearTimes func(*R)) R {
	t.Helper()
	var out [2]string
	var reports [2]R
	for k, workers := range []int{1, 3} {
		rep, err := run(workers)
		if err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		clearTimes(&rep)
		js, err := json.MarshalIndent(rep, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		out[k], reports[k] = string(js), rep
	}
	if out[0] != out[1] {
		t.Fatalf("one worker:\n%s\nthree workers:\n%s", out[0], out[1])
	}
	return reports[0]
}

// TestEPDIsTheSameForAnyWorkers: the report, and the order in which
// positions are handed to done, are those of one worker.
func TestEPDIsTheSameForAnyWorkers(t *testing.T) {
	var suite strings.Builder
	var ids []string
	for i, b := range testBoards(30) {
		m, err := b.ParseUCI(heuristicLine(t, b)[0])
		if err != nil {
			t.Fatal(err)
		}
		op := "bm"
		if i%4 == 3 {
			op = "am"
		}
		id := fmt.Sprintf("p%02d", i)
		ids = append(ids, id)
		f := strings.Fields(b.FEN())
		fmt.Fprintf(&suite, "%s %s %s; id \"%s\";\n", strings.Join(f[:4], " "), op, b.SAN(m), id)
	}
	path := filepath.Join(t.TempDir(), "suite.epd")
	if err := os.WriteFile(path, []byte(suite.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _ := player.ParseSpec("heuristic")
	rep := sameForWorkers(t, func(workers int) (*EPDReport, error) {
		var done []string
		rep, err := EPD(context.Background(), path, Options{Player: spec, Limits: player.Limits{Depth: 3}, Workers: workers},
			func(pos *EPDPosition) { done = append(done, pos.ID) })
		if err == nil && !slices.Equal(done, ids) {
			t.Errorf("%d workers handed the positions to done in the order %v", workers, done)
		}
		return rep, err
	}, func(**EPDReport) {})
	if rep.Total != 30 || rep.Solved == 0 || rep.Solved == rep.Total {
		t.Errorf("solved %d of %d: the test wants some of each", rep.Solved, rep.Total)
	}
	// A random mover draws each position's move from the position's own
	// seed, not from where its generator stood after the worker's earlier
	// positions.
	random, _ := player.ParseSpec("random")
	sameForWorkers(t, func(workers int) (*EPDReport, error) {
		return EPD(context.Background(), path, Options{Player: random, Workers: workers}, nil)
	}, func(**EPDReport) {})
}

// TestPuzzlesAreTheSameForAnyWorkers: puzzles set by a random board's
// first legal move, solved by the heuristic's answer, in ratings spread
// over several buckets.
func TestPuzzlesAreTheSameForAnyWorkers(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("PuzzleId,FEN,Moves,Rating\n")
	n := 0
	for _, b := range testBoards(40) {
		set := b.LegalMoves()[0]
		b.Make(set)
		if b.Status() != board.NotOver {
			continue
		}
		answer := heuristicLine(t, b)
		b.Unmake()
		fmt.Fprintf(&csv, "p%d,%s,%s %s,%d\n", n, b.FEN(), board.UCI(set), strings.Join(answer[:min(len(answer), 3)], " "), 1000+97*n)
		n++
	}
	path := filepath.Join(t.TempDir(), "puzzles.csv")
	if err := os.WriteFile(path, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _ := player.ParseSpec("heuristic")
	rep := sameForWorkers(t, func(workers int) (*PuzzleReport, error) {
		return Puzzles(context.Background(), path, Options{Player: spec, Limits: player.Limits{Depth: 2}, Workers: workers})
	}, func(r **PuzzleReport) { (*r).MsPerMove = 0 })
	if rep.Solved == 0 || rep.Solved == rep.Puzzles || len(rep.Buckets) < 5 {
		t.Errorf("solved %d of %d in %d buckets: the test wants some of each, in several buckets", rep.Solved, rep.Puzzles, len(rep.Buckets))
	}
}

// TestDataIsTheSameForAnyWorkers: the action accuracy and the static
// evaluation's figures (sums of floats, which depend on the order they are
// added in), with a progress bar that still counts every position.
func TestDataIsTheSameForAnyWorkers(t *testing.T) {
	data := labelledTestDataset(t, 60)
	spec, _ := player.ParseSpec("heuristic")
	var bar bytes.Buffer
	rep := sameForWorkers(t, func(workers int) (*DataReport, error) {
		bar.Reset()
		return Data(context.Background(), DataOptions{Dataset: data,
			Options: Options{Player: spec, Limits: player.Limits{Depth: 2}, Workers: workers, Progress: &bar}})
	}, func(r **DataReport) { (*r).MsPerMove = 0 })
	if rep.Positions != 60 || rep.Correct == 0 || rep.Correct == 60 || rep.Value == nil || rep.Value.Quiet == nil {
		t.Errorf("report %+v: the test wants some moves right and some wrong, and value figures", rep)
	}
	// The bar is throttled and cleared when done: it shows its start.
	if !strings.Contains(bar.String(), "positions") || !strings.Contains(bar.String(), "/60)") {
		t.Errorf("progress bar of three workers: %q", bar.String())
	}
	limited := sameForWorkers(t, func(workers int) (*DataReport, error) {
		return Data(context.Background(), DataOptions{Dataset: data,
			Options: Options{Player: spec, Limits: player.Limits{Depth: 2}, Workers: workers, Limit: 7}})
	}, func(r **DataReport) { (*r).MsPerMove = 0 })
	if limited.Positions != 7 {
		t.Errorf("--limit 7 scored %d positions", limited.Positions)
	}
}

// TestSequenceDataIsTheSameForAnyWorkers: a diffusion model with random
// weights, so that its moves and imagined futures differ from position to
// position, decoded at two numbers of steps.
func TestSequenceDataIsTheSameForAnyWorkers(t *testing.T) {
	data := labelledTestDataset(t, 40)
	cfg, err := family.LoadConfig(filepath.Join("..", "..", "configs", "test", "diffusion.yaml"), diffusion.Family)
	if err != nil {
		t.Fatal(err)
	}
	dc := *cfg.Model.Settings.(*diffusion.Config)
	dc.LegalMask = false
	arch, err := json.Marshal(dc)
	if err != nil {
		t.Fatal(err)
	}
	weights := filepath.Join(t.TempDir(), "diffusion.dcw")
	if err := dcw.Write(weights, &dcw.File{Family: diffusion.Family, Arch: arch, Tensors: dc.Transformer().InitParams(7)}); err != nil {
		t.Fatal(err)
	}
	spec, err := player.ParseSpec("diffusion:" + weights)
	if err != nil {
		t.Fatal(err)
	}
	rep := sameForWorkers(t, func(workers int) (*DataReport, error) {
		return Data(context.Background(), DataOptions{Dataset: data, Steps: []int{1, 2},
			Options: Options{Player: spec, Workers: workers}})
	}, func(r **DataReport) {
		(*r).MsPerMove, (*r).Decoding.MsPerMove = 0, 0
		for i := range (*r).Sweep {
			(*r).Sweep[i].MsPerMove = 0
		}
	})
	if d := rep.Decoding; d == nil || d.Imagined == nil || d.UnrestrictedLegal == 0 || d.UnrestrictedLegal == d.Positions ||
		d.Imagined.All.StateTokensCorrect == 0 {
		t.Errorf("decoding %+v: the test wants legal and illegal unrestricted moves and imagined tokens", rep.Decoding)
	}
}

// decisiveTestDataset writes random positions from games that the side
// ahead in material won, which pairs are drawn from.
func decisiveTestDataset(t *testing.T, n int) string {
	t.Helper()
	return datasettest.Write(t, filepath.Join(t.TempDir(), "decisive"), dataset.WriteOptions{}, nntest.DecisiveRecords(testBoards(n)))
}

// TestPairsAreTheSameForAnyWorkers: a siamese network with random weights,
// and a searching player comparing its scores.
func TestPairsAreTheSameForAnyWorkers(t *testing.T) {
	data := decisiveTestDataset(t, 160)
	m, err := deepchess.NewSiamese(deepchess.SiameseConfig{Tower: []int{24, 12}, Head: []int{16, 8}, Activation: "relu"})
	if err != nil {
		t.Fatal(err)
	}
	arch, err := m.Arch()
	if err != nil {
		t.Fatal(err)
	}
	weights := filepath.Join(t.TempDir(), "siamese.dcw")
	if err := dcw.Write(weights, &dcw.File{Family: m.Family(), Arch: arch, Tensors: m.InitParams(5)}); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"siamese:" + weights, "heuristic:depth=2"} {
		spec, err := player.ParseSpec(raw)
		if err != nil {
			t.Fatal(err)
		}
		rep := sameForWorkers(t, func(workers int) (*PairReport, error) {
			return Pairs(context.Background(), DataOptions{Dataset: data, Options: Options{Player: spec, Workers: workers}})
		}, func(**PairReport) {})
		if rep.Pairs < 20 || rep.Correct == 0 || rep.Correct == float64(rep.Pairs) {
			t.Errorf("%s: report %+v: the test wants 20 pairs or more, some judged right and some wrong", raw, rep)
		}
	}
}
