package train

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/configs"
	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/progress"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/models/cnn"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/search"
)

// materialDataset writes n random legal positions labelled with a
// material-balance win probability, split 80/20 into train and val, plus a
// few unlabelled records the loop must skip.
func materialDataset(t testing.TB, n int) string {
	t.Helper()
	recs := nntest.MaterialRecords(nntest.RandomBoards(n, 11))
	for i, r := range recs {
		if i%50 == 0 {
			r.Label = nil
		}
	}
	dir := datasettest.Write(t, filepath.Join(t.TempDir(), "data"), dataset.WriteOptions{Shard: 300}, recs)
	if _, err := dataset.WriteSplit(dir, 0.2, 0, 5); err != nil {
		t.Fatal(err)
	}
	var h float64
	for _, r := range recs[1:] {
		if r.Label != nil {
			y := float64(r.Label.WinProb)
			h += -(y*math.Log(y) + (1-y)*math.Log(1-y)) / float64(len(recs))
		}
	}
	labelEntropy = h
	return dir
}

// labelEntropy is the mean entropy of the last materialDataset's labels,
// the lowest cross-entropy any model can reach on them.
var labelEntropy float64

func testConfig(t testing.TB, fam string) *family.Config {
	t.Helper()
	data, err := configs.Read("test/" + fam)
	if err != nil {
		t.Fatal(err)
	}
	c, err := family.ParseConfig(data, fam)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTrainLowersLossAndExports(t *testing.T) {
	data := materialDataset(t, 2400)
	for _, fam := range []string{ann.Family, cnn.Family} {
		t.Run(fam, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "run")
			cfg := testConfig(t, fam)
			// The hook sees every metrics line so far after each epoch and at the end.
			var hooked []int
			hook := func(dir string, ms []Metric, loss string) error {
				if dir != run || loss != cfg.Loss {
					t.Errorf("hook called with %s, %s", dir, loss)
				}
				hooked = append(hooked, len(ms))
				return nil
			}
			res, err := Run(context.Background(), Options{Config: cfg, Data: data, RunDir: run, AfterEpoch: hook})
			if err != nil {
				t.Fatal(err)
			}
			if res.Steps < 200 || res.Epochs != cfg.Epochs || res.Stopped != "epochs" {
				t.Fatalf("result %+v: want %d epochs of about 60 steps", res, cfg.Epochs)
			}
			metrics, err := ReadMetrics(filepath.Join(run, MetricsFile))
			if err != nil {
				t.Fatal(err)
			}
			var firstSteps, epochs []Metric
			for _, m := range metrics {
				if m.Kind == "step" && len(firstSteps) < 10 {
					firstSteps = append(firstSteps, m)
				}
				if m.Kind == "epoch" {
					epochs = append(epochs, m)
				}
			}
			var start float64
			for _, m := range firstSteps {
				start += m.Loss / float64(len(firstSteps))
			}
			last := epochs[len(epochs)-1]
			if len(epochs) != cfg.Epochs || last.ValLoss == nil {
				t.Fatalf("epoch lines %+v", epochs)
			}
			// Cross-entropy cannot fall below the labels' own entropy: compare
			// the excess over that floor.
			floor := 0.0
			if cfg.Loss == family.LossCrossEntropy {
				floor = labelEntropy
			}
			bestVal, bestSign := math.Inf(1), 0.0
			for _, m := range epochs {
				bestVal, bestSign = math.Min(bestVal, *m.ValLoss), math.Max(bestSign, *m.ValSign)
			}
			if !(last.TrainLoss-floor < 0.8*(start-floor)) || !(bestVal-floor < 0.8*(start-floor)) {
				t.Fatalf("loss did not fall: first steps %.4f, last epoch train %.4f, best val %.4f (floor %.4f)", start, last.TrainLoss, bestVal, floor)
			}
			if bestSign < 0.65 {
				t.Fatalf("validation sign agreement %.3f: the model learned nothing about material", bestSign)
			}
			if res.BestVal != bestVal {
				t.Fatalf("result's best val loss %v, metrics say %v", res.BestVal, bestVal)
			}
			if len(hooked) != cfg.Epochs+1 || hooked[len(hooked)-1] != len(metrics) {
				t.Fatalf("epoch hook saw %v metrics lines, the run wrote %d in %d epochs", hooked, len(metrics), cfg.Epochs)
			}
			for _, name := range []string{family.ConfigFile, family.ModelFile} {
				if st, err := os.Stat(filepath.Join(run, name)); err != nil || st.Size() == 0 {
					t.Fatalf("run folder lacks %s: %v", name, err)
				}
			}
			// The config as run must load back to the same settings.
			again, err := family.LoadConfig(filepath.Join(run, family.ConfigFile), fam)
			if err != nil || again.BatchSize != cfg.BatchSize || again.Model.Family != fam {
				t.Fatalf("config.yaml does not reload: %v", err)
			}

			exported, err := Export(run, filepath.Join(t.TempDir(), "exported.dcw"), false)
			if err != nil {
				t.Fatal(err)
			}
			var eval search.Evaluator
			if fam == ann.Family {
				eval, err = ann.Load(exported)
			} else {
				eval, err = cnn.Load(exported)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range nntest.RandomBoards(50, 3) {
				if cp := eval.Evaluate(b); cp < -4000 || cp > 4000 {
					t.Fatalf("score %d out of range", cp)
				}
			}
			// Scores are from the side to move: a queen up must beat a queen down.
			up, _ := board.FromFEN("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
			down, _ := board.FromFEN("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")
			if eval.Evaluate(up) <= eval.Evaluate(down) {
				t.Fatalf("a queen up scores %d, a queen down %d", eval.Evaluate(up), eval.Evaluate(down))
			}
			playsAndBeatsRandom(t, fam+":"+exported+"?depth=2")
		})
	}
}

// trainedWeights returns a run's final weights (last, not best) from its newest checkpoint.
func trainedWeights(t *testing.T, run string) []dcw.Tensor {
	t.Helper()
	ck, err := loadNewestCheckpoint(run)
	if err != nil {
		t.Fatal(err)
	}
	return ck.params
}

func sameWeights(t *testing.T, a, b []dcw.Tensor) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d tensors vs %d", len(a), len(b))
	}
	for i := range a {
		for j := range a[i].Data {
			if math.Float32bits(a[i].Data[j]) != math.Float32bits(b[i].Data[j]) {
				t.Fatalf("tensor %s[%d]: %v vs %v", a[i].Name, j, a[i].Data[j], b[i].Data[j])
			}
		}
	}
}

// A run that max_steps stops inside an epoch validates its last weights;
// when they beat every whole epoch's, model.dcw holds them, as on large
// data, where the schedule ends inside the second epoch.
func TestPartialEpochCanBeBest(t *testing.T) {
	data := materialDataset(t, 900)
	cfg := testConfig(t, ann.Family)
	cfg.Epochs = 1
	cfg.Optimizer.LR /= 4 // steady progress, so that more steps validate better
	ctx := context.Background()
	one, err := Run(ctx, Options{Config: cfg, Data: data, RunDir: filepath.Join(t.TempDir(), "one")})
	if err != nil {
		t.Fatal(err)
	}
	longer := *cfg
	longer.Epochs, longer.MaxSteps = 10, one.Steps+one.Steps/2
	run := filepath.Join(t.TempDir(), "run")
	res, err := Run(ctx, Options{Config: &longer, Data: data, RunDir: run})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != "max_steps" || res.ValLoss >= one.ValLoss {
		t.Fatalf("result %+v: the test needs a run stopped inside epoch 2 that validates better than epoch 1 (%g)", res, one.ValLoss)
	}
	if res.BestEpoch != 2 || res.BestVal != res.ValLoss {
		t.Fatalf("best epoch %d, best val loss %g: want the partial epoch 2, %g", res.BestEpoch, res.BestVal, res.ValLoss)
	}
	exported, err := dcw.Read(filepath.Join(run, family.ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	sameWeights(t, trainedWeights(t, run), exported.Tensors)
}

func TestResumeEqualsUninterrupted(t *testing.T) {
	data := materialDataset(t, 900)
	cfg := testConfig(t, ann.Family)
	cfg.Epochs = 2
	cfg.Optimizer.LRDecay = 0.5 // resume must also restore the epoch's learning rate
	cfg.Optimizer.ClipNorm = 0.5
	ctx := context.Background()

	// totals records each run's progress total: a resumed run's is what is left.
	var totals []int64
	quietProgress := func(_ string, total int64, _ string) progress.Reporter {
		totals = append(totals, total)
		return progress.New(io.Discard, progress.Options{Quiet: true})
	}
	whole := filepath.Join(t.TempDir(), "whole")
	if _, err := Run(ctx, Options{Config: cfg, Data: data, RunDir: whole, Progress: quietProgress}); err != nil {
		t.Fatal(err)
	}
	want := trainedWeights(t, whole)

	t.Run("epoch boundary", func(t *testing.T) {
		run := filepath.Join(t.TempDir(), "run")
		one := *cfg
		one.Epochs = 1
		if _, err := Run(ctx, Options{Config: &one, Data: data, RunDir: run}); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(ctx, Options{Data: data, RunDir: run, Resume: true, Epochs: 2}); err != nil {
			t.Fatal(err)
		}
		sameWeights(t, want, trainedWeights(t, run))
	})
	t.Run("mid epoch", func(t *testing.T) {
		run := filepath.Join(t.TempDir(), "run")
		short := *cfg
		short.MaxSteps = 7
		res, err := Run(ctx, Options{Config: &short, Data: data, RunDir: run})
		if err != nil {
			t.Fatal(err)
		}
		if res.Steps != 7 || res.Stopped != "max_steps" {
			t.Fatalf("result %+v, want 7 steps stopped by max_steps", res)
		}
		// The cut-short epoch is still validated, without advancing.
		metrics, err := ReadMetrics(filepath.Join(run, MetricsFile))
		if err != nil {
			t.Fatal(err)
		}
		last := metrics[len(metrics)-1]
		if last.Kind != "partial" || last.Epoch != 1 || last.ValLoss == nil || res.ValLoss != *last.ValLoss || res.Epochs != 0 {
			t.Fatalf("last metrics line %+v, result %+v: want a validated partial epoch 1", last, res)
		}
		totals = totals[:1]
		if _, err := Run(ctx, Options{Data: data, RunDir: run, Resume: true, MaxSteps: 1 << 40, Progress: quietProgress}); err != nil {
			t.Fatal(err)
		}
		sameWeights(t, want, trainedWeights(t, run))
		if left := totals[0] - res.Samples; len(totals) != 2 || totals[1] != left {
			t.Fatalf("progress totals %v: the resumed run's should be the %d samples left", totals, left)
		}
	})
	t.Run("killed inside an epoch", func(t *testing.T) {
		// A checkpoint after every step; a kill leaves no final one, so the
		// newest two are removed and the run resumes from the third, inside
		// the last epoch, with metrics lines past it on disk.
		run := filepath.Join(t.TempDir(), "run")
		if _, err := Run(ctx, Options{Config: cfg, Data: data, RunDir: run, CheckpointEvery: time.Nanosecond}); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(run, CheckpointDir)
		names, err := checkpointFiles(dir)
		if err != nil || len(names) != keepCheckpoints {
			t.Fatalf("checkpoints %v, %v: want the newest %d of one a step", names, err, keepCheckpoints)
		}
		for _, n := range names[1:] {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				t.Fatal(err)
			}
		}
		ck, err := loadNewestCheckpoint(run)
		if err != nil {
			t.Fatal(err)
		}
		if ck.meta.State.EpochRecords == 0 || ck.meta.State.Epoch != 1 {
			t.Fatalf("kept checkpoint at epoch %d after %d records: want one inside the second epoch", ck.meta.State.Epoch, ck.meta.State.EpochRecords)
		}
		if _, err := Run(ctx, Options{Data: data, RunDir: run, Resume: true}); err != nil {
			t.Fatal(err)
		}
		sameWeights(t, want, trainedWeights(t, run))
	})
	t.Run("interrupted", func(t *testing.T) {
		run := filepath.Join(t.TempDir(), "run")
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := Run(cancelled, Options{Config: cfg, Data: data, RunDir: run})
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "--resume") {
			t.Fatalf("cancelled run: %v", err)
		}
		if _, err := Run(ctx, Options{Config: cfg, Data: data, RunDir: run}); err == nil || !strings.Contains(err.Error(), "--resume") {
			t.Fatalf("starting over an existing run: %v", err)
		}
		if _, err := Run(ctx, Options{Data: data, RunDir: run, Resume: true}); err != nil {
			t.Fatal(err)
		}
		sameWeights(t, want, trainedWeights(t, run))
	})
}

func TestNaNLossIsAnError(t *testing.T) {
	data := materialDataset(t, 300)
	cfg := testConfig(t, ann.Family)
	cfg.Optimizer.LR = 1e30
	_, err := Run(context.Background(), Options{Config: cfg, Data: data, RunDir: filepath.Join(t.TempDir(), "run")})
	if err == nil || !strings.Contains(err.Error(), "diverged") || !strings.Contains(err.Error(), "optimizer.lr") {
		t.Fatalf("exploding run: %v", err)
	}
}

func TestNewestWeights(t *testing.T) {
	runs := t.TempDir()
	if _, err := family.NewestWeights(runs, "cnn"); err == nil || !strings.Contains(err.Error(), "dchess train --model cnn") {
		t.Fatalf("no weights: %v", err)
	}
	m, _ := ann.NewModel(ann.DefaultConfig())
	f, _ := nntest.File(m, m.InitParams(1))
	path := filepath.Join(runs, "ann-1", family.ModelFile)
	if err := dcw.Write(path, f); err != nil {
		t.Fatal(err)
	}
	if got, err := family.NewestWeights(runs, "ann"); err != nil || got != path {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := family.NewestWeights(runs, "cnn"); err == nil {
		t.Fatal("ann weights returned for cnn")
	}
}

// TestNoWeightsMessagePointsToAFirstRun: the message a bare player name
// meets with no weights under runs/ names, for every family, a config that
// exists, the data the family needs and, for a sequence family, the short
// run (--max-steps) and the lines its data must have (--pv).
func TestNoWeightsMessagePointsToAFirstRun(t *testing.T) {
	runs := t.TempDir()
	configName := regexp.MustCompile(`--config configs/(\S+)\.yaml`)
	for _, name := range family.Names() {
		f, _ := family.Lookup(name)
		_, err := family.NewestWeights(runs, name)
		if err == nil {
			t.Fatalf("%s: weights found in an empty folder", name)
		}
		msg := err.Error()
		m := configName.FindStringSubmatch(msg)
		if m == nil {
			t.Errorf("%s: the message names no config: %s", name, msg)
		} else if data, err := configs.Read(m[1]); err != nil {
			t.Errorf("%s: the message names configs/%s.yaml, which does not exist", name, m[1])
		} else if cfg, err := family.ParseConfig(data, name); err != nil {
			t.Errorf("%s: configs/%s.yaml is not a %s config: %v", name, m[1], name, err)
		} else if cfg.Model.Family != name {
			t.Errorf("%s: configs/%s.yaml trains %s", name, m[1], cfg.Model.Family)
		}
		for _, want := range []string{"dchess train --model " + name + " ", f.Data} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the message lacks %q: %s", name, want, msg)
			}
		}
		if f.Accuracy == family.AccuracyAction {
			for _, want := range []string{"-small.yaml", "--max-steps", "dchess label --pv", "ingest --horizon"} {
				if !strings.Contains(msg, want) {
					t.Errorf("%s: a sequence family's message lacks %q: %s", name, want, msg)
				}
			}
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: the message is not one line: %q", name, msg)
		}
	}
}

// The reported bug: two trainings into one --out both ran, and the folder
// ended with one run's config, the other's checkpoints and weights and
// both runs' metrics. The run folder is locked for the whole run: a second
// training into it, new or resumed, is refused at once and writes nothing.
func TestSecondTrainingIntoARunFolderIsRefused(t *testing.T) {
	if !safefile.LocksWork {
		t.Skip("file locks do not exclude other processes here")
	}
	data := materialDataset(t, 300)
	cfg := testConfig(t, ann.Family)
	cfg.Epochs = 1
	other := *cfg
	other.Seed = 99
	run := filepath.Join(t.TempDir(), "run")
	ctx := context.Background()
	// The progress reporter is made once a run is under way: the second
	// training starts from there.
	var second error
	started := func(second *error, opts Options) ProgressFunc {
		return func(string, int64, string) progress.Reporter {
			_, *second = Run(ctx, opts)
			return progress.New(io.Discard, progress.Options{Quiet: true})
		}
	}
	first := Options{Config: cfg, Data: data, RunDir: run,
		Progress: started(&second, Options{Config: &other, Data: data, RunDir: run})}
	if _, err := Run(ctx, first); err != nil {
		t.Fatal(err)
	}
	refused := func(what string, err error) {
		t.Helper()
		want := run + ": another dchess process is training into it"
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("%s: got %v, want one line with %q", what, err, want)
		}
	}
	refused("a new run into a running run's folder", second)
	if kept := testConfigFile(t, run); kept.Seed != cfg.Seed {
		t.Fatalf("the refused run wrote its config (seed %d)", kept.Seed)
	}

	var resumed error
	extend := Options{Data: data, RunDir: run, Resume: true, Epochs: 2}
	extend.Progress = started(&resumed, Options{Data: data, RunDir: run, Resume: true, Epochs: 3})
	res, err := Run(ctx, extend)
	if err != nil {
		t.Fatal(err)
	}
	refused("a resume of a running run", resumed)
	if res.Epochs != 2 {
		t.Fatalf("the run ended at epoch %d, want 2: the refused resume trained", res.Epochs)
	}
	// The lock ends with the run.
	unlock, err := safefile.Lock(filepath.Join(run, runLockFile))
	if err != nil {
		t.Fatalf("the run folder is still locked after the run: %v", err)
	}
	unlock()
}
