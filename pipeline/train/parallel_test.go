package train

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/models/cnn"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/transformer/sequence"
)

func TestWorkerShares(t *testing.T) {
	for _, c := range []struct {
		batch, workers int
		want           []int
	}{
		{256, 1, []int{256}},
		{256, 2, []int{128, 128}},
		{10, 3, []int{4, 3, 3}},
		{2, 4, []int{1, 1}},
		{1, 2, []int{1}},
		{5, 0, []int{5}},
	} {
		got := workerShares(c.batch, c.workers)
		if len(got) != len(c.want) {
			t.Fatalf("workerShares(%d, %d) = %v, want %v", c.batch, c.workers, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("workerShares(%d, %d) = %v, want %v", c.batch, c.workers, got, c.want)
			}
		}
	}
	if DefaultWorkers(0) != runtime.GOMAXPROCS(0) || DefaultWorkers(3) != 3 {
		t.Fatalf("DefaultWorkers(0) = %d, DefaultWorkers(3) = %d", DefaultWorkers(0), DefaultWorkers(3))
	}
}

// TestOneWorkerIsTheOneGraph: one worker (or a batch of one row) trains on
// the trainGraph the loop always used, so its runs are bit for bit what
// they were before the workers setting.
func TestOneWorkerIsTheOneGraph(t *testing.T) {
	cfg := testConfig(t, ann.Family)
	o, params := testObjective(t, cfg)
	for _, c := range []struct{ batch, workers int }{{cfg.BatchSize, 1}, {1, 4}} {
		g, err := newStepGraph(o, 0, params, c.batch, c.workers)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := g.(*trainGraph); !ok {
			t.Errorf("batch %d, %d workers: a %T, want the one-graph *trainGraph", c.batch, c.workers, g)
		}
		g.close()
	}
	g, err := newStepGraph(o, 0, params, cfg.BatchSize, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	if _, ok := g.(*parallelGraph); !ok {
		t.Errorf("2 workers: a %T, want a *parallelGraph", g)
	}
}

func testObjective(t *testing.T, cfg *family.Config) (family.Objective, []dcw.Tensor) {
	t.Helper()
	o, err := cfg.Family().Objective(cfg, family.ObjectiveEnv{})
	if err != nil {
		t.Fatal(err)
	}
	params, err := o.InitParams(cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return o, params
}

// closeTo says whether got is want within rel of scale.
func closeTo(got, want, scale, rel float64) bool {
	return math.Abs(got-want) <= rel*scale
}

func maxAbs(xs []float32) float64 {
	var m float64
	for _, x := range xs {
		m = math.Max(m, math.Abs(float64(x)))
	}
	return m
}

// TestWorkersSumTheOneGraphGradient: on the same short batch, two and three
// workers give the one graph's loss, gradients, outputs and per-row losses
// within float rounding.
func TestWorkersSumTheOneGraphGradient(t *testing.T) {
	for _, fam := range []string{ann.Family, cnn.Family, diffusion.Family, "nnue"} {
		t.Run(fam, func(t *testing.T) {
			cfg := testConfig(t, fam)
			o, params := testObjective(t, cfg)
			one, err := newStepGraph(o, 0, params, cfg.BatchSize, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer one.close()
			rng := rand.New(rand.NewPCG(3, 4))
			if seq, ok := o.(sequence.Trainer); ok {
				fillSequenceBatch(t, seq, one.layout(), rng)
			} else {
				fillRandomBatch(one.layout(), fam, rng)
			}
			rows := cfg.BatchSize - 3 // a short last batch: the padding weighs nothing
			for _, workers := range []int{2, 3} {
				g, err := newStepGraph(o, 0, params, cfg.BatchSize, workers)
				if err != nil {
					t.Fatal(err)
				}
				defer g.close()
				for i, buf := range one.layout().bufs {
					copy(g.layout().bufs[i], buf)
				}
				copy(g.layout().ys, one.layout().ys)
				var losses [2]float64
				for k, sg := range []stepGraph{one, g} {
					sg.setRows(rows)
					if losses[k], err = sg.forwardBackward(); err != nil {
						t.Fatal(err)
					}
				}
				if !closeTo(losses[1], losses[0], math.Abs(losses[0]), 1e-5) {
					t.Errorf("%d workers: loss %v, one graph %v", workers, losses[1], losses[0])
				}
				for i := range one.learnableParams() {
					want, _ := one.grads(i)
					got, err := g.grads(i)
					if err != nil {
						t.Fatal(err)
					}
					scale := maxAbs(want)
					for j := range want {
						if !closeTo(float64(got[j]), float64(want[j]), scale, 1e-4) {
							t.Fatalf("%d workers: gradient %d[%d] %v, one graph %v (largest %v)", workers, i, j, got[j], want[j], scale)
						}
					}
					clear(want)
					clear(got)
				}
				out, wantOut := g.Outputs(), one.Outputs()
				width := len(wantOut) / cfg.BatchSize
				scale := maxAbs(wantOut)
				for j := range wantOut[:rows*width] {
					if !closeTo(float64(out[j]), float64(wantOut[j]), scale, 1e-4) {
						t.Fatalf("%d workers: output %d %v, one graph %v", workers, j, out[j], wantOut[j])
					}
				}
				rl, wantRL := g.RowLosses(), one.RowLosses()
				for j := range wantRL[:rows] {
					if !closeTo(float64(rl[j]), float64(wantRL[j]), math.Max(maxAbs(wantRL), 1), 1e-4) {
						t.Fatalf("%d workers: row %d loss %v, one graph %v", workers, j, rl[j], wantRL[j])
					}
				}
			}
		})
	}
}

// trainedBytes are the bytes of a run's last weights as a .dcw file.
func trainedBytes(t *testing.T, run string) []byte {
	t.Helper()
	path, err := Export(run, filepath.Join(t.TempDir(), "last.dcw"), true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTwoWorkersTrainLikeOne: a run on two workers follows the one-worker
// run's loss curve within float rounding, repeats itself byte for byte,
// records its workers in its config, and resumes exactly.
func TestTwoWorkersTrainLikeOne(t *testing.T) {
	cases := []struct {
		fam  string
		data string
	}{
		{ann.Family, materialDataset(t, 1200)},
		{diffusion.PolicyFamily, lineDataset(t, 300)},
	}
	for _, c := range cases {
		t.Run(c.fam, func(t *testing.T) {
			train := func(workers int, maxSteps int64, run string, resume bool) *Result {
				t.Helper()
				opts := Options{Data: c.data, RunDir: run, MaxSteps: maxSteps, Resume: resume}
				if !resume {
					cfg := testConfig(t, c.fam)
					cfg.Workers = workers
					opts.Config = cfg
				}
				res, err := Run(context.Background(), opts)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			const steps = 24
			dir := t.TempDir()
			one, two, again := filepath.Join(dir, "one"), filepath.Join(dir, "two"), filepath.Join(dir, "again")
			train(1, steps, one, false)
			train(2, steps, two, false)
			train(2, steps, again, false)
			l1, l2 := stepLosses(t, one, steps), stepLosses(t, two, steps)
			var worst float64
			for i := range l1 {
				worst = math.Max(worst, math.Abs(l2[i]-l1[i])/l1[i])
			}
			t.Logf("%d steps: largest relative difference of the step losses %.2g", len(l1), worst)
			for i := range l1 {
				if !closeTo(l2[i], l1[i], l1[i], 1e-4) {
					t.Errorf("step %d: loss %v on two workers, %v on one", i+1, l2[i], l1[i])
				}
			}
			if !bytes.Equal(trainedBytes(t, two), trainedBytes(t, again)) {
				t.Error("two runs on two workers exported different weights")
			}
			ran, err := family.LoadConfig(filepath.Join(two, family.ConfigFile), c.fam)
			if err != nil {
				t.Fatal(err)
			}
			if ran.Workers != 2 {
				t.Errorf("config.yaml records workers %d, want 2", ran.Workers)
			}
			// Stopped at step 10 and resumed: the same weights as straight through.
			resumed := filepath.Join(dir, "resumed")
			train(2, 10, resumed, false)
			train(0, steps, resumed, true)
			if !bytes.Equal(trainedBytes(t, two), trainedBytes(t, resumed)) {
				t.Error("a run on two workers resumed at step 10 exported other weights than straight through")
			}
		})
	}
}

func TestRunsBeforeWorkersResumeOnOne(t *testing.T) {
	if hasWorkers("seed: 1\nlog_every: 10\n") || !hasWorkers("seed: 1\nworkers: 2\n") || !hasWorkers("workers: 0\n") {
		t.Fatal("hasWorkers misreads a config")
	}
}
