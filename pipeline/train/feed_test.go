package train

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/family"
)

// aheadProbe wraps a run's objective to see whether its stream runs beside
// the step: Score, which the step calls after its forward pass, waits for
// the stream to add a row of the batch after the one scored. Only a stream
// running on a goroutine of its own can; one the step runs inside waits
// for the step. It can also cancel the run at a training step, as Ctrl-C
// does.
type aheadProbe struct {
	family.Objective
	batch int

	mu       sync.Mutex
	training bool  // the stream in progress is an epoch's
	added    int64 // rows the stream in progress has added
	ended    bool  // and it has returned
	scored   int64 // batches of it scored
	steps    int64 // training batches scored in the run
	behind   int64 // the first batch scored before its stream moved past it (0: none)
	cancelAt int64 // cancel is called when this training step is scored
	cancel   context.CancelFunc
}

// aheadWait is how long Score waits for the stream to move on: far longer
// than a row takes to encode.
const aheadWait = 10 * time.Second

func (p *aheadProbe) Stream(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order family.StreamOrder, sink family.Sink) error {
	p.mu.Lock()
	p.training, p.added, p.ended, p.scored = order.Shuffled, 0, false, 0
	p.mu.Unlock()
	err := p.Objective.Stream(ctx, ds, split, order, probeCounter{sink, p})
	p.mu.Lock()
	p.ended = true
	p.mu.Unlock()
	return err
}

func (p *aheadProbe) Score(b family.Batch, rows int, tally *family.Tally) {
	p.mu.Lock()
	p.scored++
	next, wait := p.scored*int64(p.batch)+1, p.behind == 0
	if p.training {
		if p.steps++; p.steps == p.cancelAt {
			p.cancel()
		}
	}
	p.mu.Unlock()
	for deadline := time.Now().Add(aheadWait); wait; time.Sleep(50 * time.Microsecond) {
		p.mu.Lock()
		moved := p.added >= next || p.ended
		if !moved && time.Now().After(deadline) {
			p.behind = p.scored
		}
		wait = !moved && p.behind == 0
		p.mu.Unlock()
	}
	p.Objective.Score(b, rows, tally)
}

// probeCounter counts the rows a stream adds.
type probeCounter struct {
	family.Sink
	p *aheadProbe
}

func (c probeCounter) Add() error {
	c.p.mu.Lock()
	c.p.added++
	c.p.mu.Unlock()
	return c.Sink.Add()
}

// runProbed is Run with the run's objective wrapped in probe.
func runProbed(ctx context.Context, opts Options, probe *aheadProbe) (*Result, error) {
	t, err := newTrainer(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer t.unlock()
	defer func() { t.tg.close() }()
	defer t.metrics.close()
	probe.Objective, probe.batch = t.obj, t.cfg.BatchSize
	t.obj = probe
	return t.run(ctx)
}

// TestStreamRunsBesideTheStep: the stream fills the next batch while the
// step trains on one, and the runs train exactly as when each batch was
// filled before its step: a 40-step run of the test configs (an epoch
// boundary, validation, a checkpoint after every step, a partial epoch)
// exports the model.dcw it exported at 6232b38, the commit before the
// change, on one and two workers, straight through and interrupted at
// step 13 and resumed.
func TestStreamRunsBesideTheStep(t *testing.T) {
	cases := []struct {
		fam     string
		data    string
		workers int
		sha256  string // of model.dcw at 6232b38
	}{
		{ann.Family, materialDataset(t, 1200), 1, "a97816d6da7fa1fba44ce87d592672b5d8135712ea509ff9512f6c2ee4051faa"},
		{ann.Family, materialDataset(t, 1200), 2, "4dde0f1442684b13d506ed88e12c861b32912be003317493fab889775b68d291"},
		{diffusion.PolicyFamily, lineDataset(t, 300), 1, "fcc103fe084b8c3fd778c6cb14adf5df0548237555137a3d64f4398b2927e13e"},
		{diffusion.PolicyFamily, lineDataset(t, 300), 2, "dade6b288ce1453f4e743c961d0a36584dcf04df70ef6fb7b5afb0dbda572126"},
	}
	const steps, interruptAt = 40, 13
	for _, c := range cases {
		name := c.fam + "/workers=" + string(rune('0'+c.workers))
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t, c.fam)
			cfg.Workers, cfg.MaxSteps = c.workers, steps
			exported := func(res *Result) string {
				t.Helper()
				b, err := os.ReadFile(res.Model)
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(b)
				return hex.EncodeToString(sum[:])
			}

			probe := &aheadProbe{}
			opts := Options{Config: cfg, Data: c.data, RunDir: filepath.Join(t.TempDir(), "run"), CheckpointEvery: time.Nanosecond}
			res, err := runProbed(context.Background(), opts, probe)
			if err != nil {
				t.Fatal(err)
			}
			if probe.behind != 0 {
				t.Errorf("batch %d of a stream was scored before the stream added a row of the next", probe.behind)
			}
			if res.Steps != steps || res.Epochs < 1 {
				t.Fatalf("%d steps, %d epochs: want %d steps across an epoch boundary", res.Steps, res.Epochs, steps)
			}
			if got := exported(res); got != c.sha256 {
				t.Errorf("model.dcw sha256 %s, want %s", got, c.sha256)
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			run := filepath.Join(t.TempDir(), "interrupted")
			_, err = runProbed(ctx, Options{Config: cfg, Data: c.data, RunDir: run}, &aheadProbe{cancelAt: interruptAt, cancel: cancel})
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "--resume") {
				t.Fatalf("run cancelled at step %d: %v", interruptAt, err)
			}
			res, err = Run(context.Background(), Options{Data: c.data, RunDir: run, Resume: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := exported(res); got != c.sha256 {
				t.Errorf("interrupted at step %d and resumed: model.dcw sha256 %s, want %s", interruptAt, got, c.sha256)
			}
		})
	}
}
