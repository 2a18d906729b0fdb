package train

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/nn/nntest"
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

// lowestLine plays up to four lowestMove moves on b, fewer where the game
// ends, and returns them: a position's principal variation.
func lowestLine(b *board.Board) []string {
	var pv []string
	for len(pv) < 4 {
		m, ok := lowestMove(b)
		if !ok {
			break
		}
		pv = append(pv, board.UCI(m))
		b.Make(m)
	}
	return pv
}

// lineDataset writes n random positions labelled with their lowestLine,
// split 80/20 by game.
func lineDataset(t testing.TB, n int) string {
	t.Helper()
	var recs []*dataset.Record
	for i, b := range nntest.RandomBoards(n, 21) {
		fen := b.FEN()
		pv := lowestLine(b)
		if len(pv) == 0 {
			continue
		}
		recs = append(recs, &dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), GameID: uint64(i),
			Label: &dataset.Label{Status: dataset.LabelOK, BestMove: pv[0], PV: pv}})
	}
	dir := datasettest.Write(t, filepath.Join(t.TempDir(), "lines"), dataset.WriteOptions{Shard: 300}, recs)
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
			res, err := Run(context.Background(), Options{Config: cfg, Data: data, RunDir: run})
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
	// The settings are refused before the weights are read: the file is
	// there (a missing one is refused first) but holds nothing.
	empty := filepath.Join(t.TempDir(), "model.dcw")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := player.New(context.Background(), "policy:"+empty+"?steps=3"); err == nil || !strings.Contains(err.Error(), "steps") {
		t.Errorf("policy accepted steps=: %v", err)
	}
	if _, err := player.New(context.Background(), "diffusion:/nonexistent/model.dcw"); err == nil {
		t.Errorf("a missing weights file was accepted")
	}
}

// TestLegalMaskTrainsOverTheLegalMoves: the policy's loss is a_i's
// cross-entropy alone, so with legal_mask its first steps cost about
// ln(legal moves) (3 to 4 nats here) rather than ln(1,968) = 7.6 for
// an untrained network, and a short run still lowers it.
func TestLegalMaskTrainsOverTheLegalMoves(t *testing.T) {
	data := lineDataset(t, 300)
	for _, mask := range []bool{false, true} {
		cfg := testConfig(t, diffusion.PolicyFamily)
		if !cfg.Model.Settings.(*diffusion.Config).LegalMask {
			t.Fatal("configs/test/policy.yaml trains without legal_mask")
		}
		cfg.Model.Settings.(*diffusion.Config).LegalMask = mask
		cfg.LogEvery, cfg.MaxSteps = 1, 30
		run := filepath.Join(t.TempDir(), "run")
		if _, err := Run(context.Background(), Options{Config: cfg, Data: data, RunDir: run}); err != nil {
			t.Fatal(err)
		}
		steps := stepLosses(t, run, 20)
		first, last := mean(steps[:3]), mean(steps[len(steps)-3:])
		t.Logf("legal_mask %v: loss %.3f -> %.3f", mask, first, last)
		if vocab := math.Log(encode.ActionVocab); mask && first > vocab-2 || !mask && first < vocab-1 {
			t.Errorf("legal_mask %v: first steps' loss %.3f against ln(1968) = %.3f", mask, first, vocab)
		}
		if !(last < first) {
			t.Errorf("legal_mask %v: loss did not fall: %.3f -> %.3f", mask, first, last)
		}
	}
}

// TestResumedRunKeepsLegalMaskAsRun: a checkpoint written before
// legal_mask existed (no key in its config or architecture) resumes with
// the mask off, not today's default.
func TestResumedRunKeepsLegalMaskAsRun(t *testing.T) {
	data := lineDataset(t, 100)
	cfg := testConfig(t, diffusion.PolicyFamily)
	cfg.Model.Settings.(*diffusion.Config).LegalMask = false
	cfg.MaxSteps = 2
	run := filepath.Join(t.TempDir(), "run")
	if _, err := Run(context.Background(), Options{Config: cfg, Data: data, RunDir: run}); err != nil {
		t.Fatal(err)
	}
	ck, err := loadNewestCheckpoint(run)
	if err != nil {
		t.Fatal(err)
	}
	var arch map[string]any
	if err := json.Unmarshal(ck.meta.Arch, &arch); err != nil {
		t.Fatal(err)
	}
	delete(arch, "legal_mask")
	if ck.meta.Arch, err = json.Marshal(arch); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(ck.meta.Config, "\n") {
		if !strings.Contains(line, "legal_mask") {
			lines = append(lines, line)
		}
	}
	ck.meta.Config = strings.Join(lines, "\n")
	if _, err := saveCheckpoint(run, ck); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Data: data, RunDir: run, Resume: true, MaxSteps: 4}); err != nil {
		t.Fatal(err)
	}
	if ck, err = loadNewestCheckpoint(run); err != nil {
		t.Fatal(err)
	}
	if ck.meta.State.Step != 4 || !strings.Contains(ck.meta.Config, "legal_mask: false") || !strings.Contains(string(ck.meta.Arch), `"legal_mask":false`) {
		t.Errorf("resumed run at step %d: config\n%s\narchitecture %s", ck.meta.State.Step, ck.meta.Config, ck.meta.Arch)
	}
}

// Every metrics line says how many sequences the run has trained on and
// what they cost by the family's estimate, a resumed run counting on from
// its checkpoint; a family without an estimate writes the count alone.
func TestMetricsCountSamplesAndFLOPs(t *testing.T) {
	data := lineDataset(t, 100)
	cfg := testConfig(t, diffusion.Family)
	cfg.LogEvery, cfg.MaxSteps = 1, 7
	perSample := cfg.Family().TrainingFLOPs(cfg)
	if perSample <= 0 {
		t.Fatalf("diffusion estimates %g FLOPs a sequence", perSample)
	}
	run := filepath.Join(t.TempDir(), "run")
	if _, err := Run(context.Background(), Options{Config: cfg, Data: data, RunDir: run}); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{Data: data, RunDir: run, Resume: true, MaxSteps: 12})
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := ReadMetrics(filepath.Join(run, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var samples int64 // the last step line's
	kinds := map[string]int{}
	for _, m := range metrics {
		kinds[m.Kind]++
		if m.Kind == "step" {
			if grew := m.Samples - samples; grew < 1 || grew > int64(cfg.BatchSize) || (m.Step == 1 && grew != int64(cfg.BatchSize)) {
				t.Fatalf("step %d: %d samples after %d, want one batch more", m.Step, m.Samples, samples)
			}
			samples = m.Samples
		} else if m.Samples != samples {
			t.Fatalf("%s line at step %d: %d samples, the step line %d", m.Kind, m.Step, m.Samples, samples)
		}
		if m.FLOPs != float64(m.Samples)*perSample {
			t.Fatalf("%s line at step %d: %g FLOPs for %d samples, want %g each", m.Kind, m.Step, m.FLOPs, m.Samples, perSample)
		}
	}
	if samples != res.Samples || kinds["step"] != 12 || kinds["partial"] == 0 || kinds["epoch"] == 0 {
		t.Fatalf("lines %v, last count %d: want 12 step lines, an epoch and a partial one, ending at the run's %d samples", kinds, samples, res.Samples)
	}

	ann := testConfig(t, "ann")
	ann.MaxSteps = 3
	run = filepath.Join(t.TempDir(), "ann")
	if _, err := Run(context.Background(), Options{Config: ann, Data: materialDataset(t, 200), RunDir: run}); err != nil {
		t.Fatal(err)
	}
	if metrics, err = ReadMetrics(filepath.Join(run, MetricsFile)); err != nil {
		t.Fatal(err)
	}
	last := metrics[len(metrics)-1]
	if last.Samples != 3*int64(ann.BatchSize) || last.FLOPs != 0 {
		t.Fatalf("ann's last line %+v: want %d samples and no FLOPs (no estimate)", last, 3*ann.BatchSize)
	}
}
