package train

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/dchess/dchess/configs"
	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/models/cnn"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/models/nnue"
	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/models/transformer/sequence"
)

// benchCase is one BenchmarkTrainStep case: a family's default config, or
// an embedded config by name (the -small transformers the #5 study trains).
type benchCase struct{ name, config string }

func trainStepCases() []benchCase {
	var cases []benchCase
	for _, fam := range family.Names() {
		cases = append(cases, benchCase{name: fam})
	}
	return append(cases, benchCase{"diffusion-small", "diffusion-small"}, benchCase{"policy-small", "policy-small"})
}

// BenchmarkTrainStep measures a training step (forward, backward, Adam) of
// the default configs at their batch sizes on in-memory batches (nnue's 26
// pieces on random squares in each view). It reports
// samples/s (pairs/s for siamese; autoencoder is its first, widest layer);
// the sequence families (at their configs' batch) also report tokens/s,
// on batches of real corrupted sequences. cpu-ms/op is the process's CPU
// time per step. It trains on one graph, as workers: 1 does.
func BenchmarkTrainStep(b *testing.B) {
	for _, bc := range trainStepCases() {
		b.Run(bc.name, func(b *testing.B) { benchTrainStep(b, bc, 1) })
	}
}

// BenchmarkTrainStepWorkers is BenchmarkTrainStep with the batch split
// across 1, 2 and 4 workers (see parallelGraph), to compare at -cpu 1,2.
// scripts/bench/train.sh runs it with workers = cores for ann, cnn, nnue,
// policy-small and diffusion-small beside the same steps in PyTorch
// (scripts/bench/train_torch.py).
func BenchmarkTrainStepWorkers(b *testing.B) {
	for _, bc := range trainStepCases() {
		for _, w := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/workers=%d", bc.name, w), func(b *testing.B) { benchTrainStep(b, bc, w) })
		}
	}
}

func benchTrainStep(b *testing.B, bc benchCase, workers int) {
	cfg, err := benchConfig(bc)
	if err != nil {
		b.Fatal(err)
	}
	fam := cfg.Model.Family
	if fam == deepchess.SiameseFamily {
		cfg.Model.Settings.(*deepchess.SiameseConfig).Tower = deepchess.DefaultAutoencoderConfig().Layers
	}
	o, err := cfg.Family().Objective(cfg, family.ObjectiveEnv{})
	if err != nil {
		b.Fatal(err)
	}
	params, err := o.InitParams(1)
	if err != nil {
		b.Fatal(err)
	}
	tg, err := newStepGraph(o, 0, params, cfg.BatchSize, workers)
	if err != nil {
		b.Fatal(err)
	}
	defer tg.close()
	rng := rand.New(rand.NewPCG(1, 2))
	if seq, ok := o.(sequence.Trainer); ok {
		fillSequenceBatch(b, seq, tg.layout(), rng)
	} else {
		fillRandomBatch(tg.layout(), fam, rng)
	}
	sizes := make([]int, len(params))
	for i, p := range params {
		sizes[i] = len(p.Data)
	}
	opt := newAdam(cfg.Optimizer, sizes)
	index := tg.learnableParams()
	weights := make([][]float32, len(index))
	grads := make([][]float32, len(index))
	b.ResetTimer()
	cpu := testenv.ProcessCPU()
	for i := 0; i < b.N; i++ {
		tg.setRows(cfg.BatchSize)
		if _, err := tg.forwardBackward(); err != nil {
			b.Fatal(err)
		}
		for j := range index {
			weights[j] = tg.weights(j)
			if grads[j], err = tg.grads(j); err != nil {
				b.Fatal(err)
			}
		}
		opt.step(weights, grads, index, cfg.Optimizer.LR)
	}
	samples := float64(b.N*cfg.BatchSize) / b.Elapsed().Seconds()
	b.ReportMetric(samples, "samples/s")
	// CPU per step moves less than the wall time on a shared machine.
	if cpu := testenv.ProcessCPU() - cpu; cpu > 0 {
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	}
	if seq, ok := o.(sequence.Trainer); ok {
		b.ReportMetric(samples*float64(seq.Model().Transformer().SeqLen()), "tokens/s")
	}
}

func benchConfig(bc benchCase) (*family.Config, error) {
	if bc.config == "" {
		return family.DefaultConfig(bc.name)
	}
	data, err := configs.Read(bc.config)
	if err != nil {
		return nil, err
	}
	return family.ParseConfig(data, "")
}

// fillRandomBatch fills the evaluation families' inputs with random codes,
// sparse bits or, for nnue, 26 pieces on random squares in each view, and
// their targets with random probabilities.
func fillRandomBatch(tg *batchLayout, fam string, rng *rand.Rand) {
	if fam == nnue.Family {
		active := tg.bufs[nnue.InputActive]
		for view := range len(active) / nnue.Slots {
			for k, sq := range rng.Perm(64)[:26] {
				active[view*nnue.Slots+k] = float32(1 + rng.IntN(12)*64 + sq)
			}
		}
		for i := range tg.batch {
			tg.bufs[nnue.InputWinProb][i], tg.bufs[nnue.InputResult][i] = rng.Float32(), 0.5
		}
		return
	}
	for _, buf := range tg.bufs {
		for i := range buf {
			if fam == ann.Family || fam == cnn.Family {
				buf[i] = float32(rng.IntN(15)-7) / 7
			} else if rng.IntN(24) == 0 { // about 32 of the 773 bits are set
				buf[i] = 1
			}
		}
	}
	for i := range tg.ys {
		tg.ys[i] = rng.Float32()
	}
}

// fillSequenceBatch encodes a batch of random positions' lines (random
// legal moves), each corrupted at a random step as training does.
func fillSequenceBatch(b testing.TB, o sequence.Trainer, tg *batchLayout, rng *rand.Rand) {
	m := o.Model()
	c := m.Transformer()
	seq := make([]int16, c.SeqLen())
	rows := make([][]float32, len(tg.bufs))
	for r, pos := range nntest.RandomBoards(tg.batch, 3) {
		var line []string
		for len(line) < c.Horizon {
			moves := pos.LegalMoves()
			if len(moves) == 0 {
				break
			}
			m := moves[rng.IntN(len(moves))]
			line = append(line, board.UCI(m))
			pos.Make(m)
		}
		for range line {
			pos.Unmake()
		}
		if _, err := encode.Sequence(pos, line, c.Horizon, seq); err != nil {
			b.Fatal(err)
		}
		var legal []int
		if c.LegalMask {
			var err error
			if _, legal, err = transformer.LegalActions(pos); err != nil {
				b.Fatal(err)
			}
		}
		for k, buf := range tg.bufs {
			rows[k] = buf[r*tg.widths[k] : (r+1)*tg.widths[k]]
		}
		m.Corrupt(rng, seq, rows)
		m.EncodeLegal(legal, rows)
	}
}

// BenchmarkForkJoin is the fork and join a parallel part of a step pays
// (the workers' graphs, the gradient sum, each pass of the optimizer):
// the caller starts a goroutine and both work 300 µs, the other core idle
// in between, as it is between the parts of a step. start-µs is how long
// the goroutine waited to run; on an idle core that is the core's wake-up.
func BenchmarkForkJoin(b *testing.B) {
	busy := func(d time.Duration) {
		for t := time.Now(); time.Since(t) < d; {
		}
	}
	var waited time.Duration
	for b.Loop() {
		var wg sync.WaitGroup
		forked := time.Now()
		var started time.Time
		wg.Go(func() {
			started = time.Now()
			busy(300 * time.Microsecond)
		})
		busy(300 * time.Microsecond)
		wg.Wait()
		waited += started.Sub(forked)
	}
	b.ReportMetric(float64(waited.Microseconds())/float64(b.N), "start-µs")
}
