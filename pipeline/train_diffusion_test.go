package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/search/board"
	"github.com/dchess/dchess/search/player"
)

// lowestMove is the test's stand-in for Stockfish: the legal move with the
// lowest vocabulary index, a rule a small transformer can pick up.
func lowestMove(b *board.Board) (board.Move, bool) {
	best, bestIdx := board.NullMove, encode.ActionVocab
	for _, m := range b.LegalMoves() {
		if i, _ := encode.ActionIndex(m); i < bestIdx {
			best, bestIdx = m, i
		}
	}
	return best, bestIdx < encode.ActionVocab
}

// lineDataset writes n random positions labelled with a principal
// variation of up to four lowestMove moves, split 80/20 by game.
func lineDataset(t testing.TB, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lines")
	w, err := dataset.Create(dir, dataset.WriteOptions{Shard: 300})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range nntest.RandomBoards(n, 21) {
		fen := b.FEN()
		var pv []string
		for len(pv) < 4 {
			m, ok := lowestMove(b)
			if !ok {
				break
			}
			pv = append(pv, board.UCI(m))
			b.Make(m)
		}
		if len(pv) == 0 {
			continue
		}
		r := &dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), GameID: uint64(i),
			Label: &dataset.Label{Status: dataset.LabelOK, BestMove: pv[0], PV: pv}}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.WriteSplit(dir, 0.2, 0, 5); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSequenceFamiliesTrainAndPlay(t *testing.T) {
	data := lineDataset(t, 300)
	for _, family := range []string{diffusion.PolicyFamily, diffusion.Family} {
		t.Run(family, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "run")
			cfg := testConfig(t, family)
			res, err := Train(context.Background(), TrainOptions{Config: cfg, Data: data, RunDir: run})
			if err != nil {
				t.Fatal(err)
			}
			metrics, err := ReadMetrics(filepath.Join(run, MetricsFile))
			if err != nil {
				t.Fatal(err)
			}
			var start float64
			var steps int
			var last Metric
			for _, m := range metrics {
				if m.Kind == "step" && steps < 5 {
					start += m.Loss / 5
					steps++
				}
				if m.Kind == "epoch" {
					last = m
				}
			}
			if last.ValLoss == nil || !(last.TrainLoss < 0.8*start) || !(*last.ValLoss < 0.8*start) {
				t.Fatalf("loss did not fall: first steps %.4f, last epoch %+v", start, last)
			}
			// Chance is below 1/1968 before training; the rule is learnable.
			if res.ValActionAccuracy < 0.05 {
				t.Errorf("validation a_i accuracy %.3f: nothing learned", res.ValActionAccuracy)
			}
			if res.Family != family || res.Model == "" {
				t.Fatalf("result %+v", res)
			}
			t.Logf("%s: loss %.3f -> train %.3f val %.3f; a_i accuracy train %.3f val %.3f",
				family, start, last.TrainLoss, *last.ValLoss, res.TrainActionAccuracy, res.ValActionAccuracy)

			// The exported weights play legal games through the registry,
			// as in `dchess match`, and decode legal moves at any T.
			spec := family + ":" + res.Model
			if family == diffusion.Family {
				spec += "?steps=2"
			}
			playLegallyAgainstRandom(t, spec, 2, 1, 40)
		})
	}
}

func TestSequencePlayerChecksItsWeights(t *testing.T) {
	if _, err := player.New(context.Background(), "policy:/nonexistent/model.dcw?steps=3"); err == nil || !strings.Contains(err.Error(), "steps") {
		t.Errorf("policy accepted steps=: %v", err)
	}
	if _, err := player.New(context.Background(), "diffusion:/nonexistent/model.dcw"); err == nil {
		t.Errorf("a missing weights file was accepted")
	}
}
