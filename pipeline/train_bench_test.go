package pipeline

import (
	"math/rand/v2"
	"testing"

	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/models/cnn"
	"github.com/dchess/dchess/models/deepchess"
)

// BenchmarkTrainStep measures a training step (forward, backward, Adam) of
// the default configs at batch 256 on in-memory batches, the same work
// scripts/bench/train_torch.py times in PyTorch for ann and cnn. It reports
// samples/s (pairs/s for siamese; autoencoder is its first, widest layer).
func BenchmarkTrainStep(b *testing.B) {
	for _, family := range TrainableFamilies() {
		b.Run(family, func(b *testing.B) {
			cfg, err := DefaultConfig(family)
			if err != nil {
				b.Fatal(err)
			}
			if family == deepchess.SiameseFamily {
				cfg.Model.Siamese.Tower = deepchess.DefaultAutoencoderConfig().Layers
			}
			o, err := newObjective(cfg, false, "")
			if err != nil {
				b.Fatal(err)
			}
			params, err := o.initParams(1)
			if err != nil {
				b.Fatal(err)
			}
			tg, err := newTrainGraph(o, 0, params, cfg.BatchSize)
			if err != nil {
				b.Fatal(err)
			}
			defer tg.close()
			rng := rand.New(rand.NewPCG(1, 2))
			for _, buf := range tg.bufs {
				for i := range buf {
					if family == ann.Family || family == cnn.Family {
						buf[i] = float32(rng.IntN(15)-7) / 7
					} else if rng.IntN(24) == 0 { // about 32 of the 773 bits are set
						buf[i] = 1
					}
				}
			}
			for i := range tg.ys {
				tg.ys[i] = rng.Float32()
			}
			sizes := make([]int, len(params))
			for i, p := range params {
				sizes[i] = len(p.Data)
			}
			opt := newAdam(cfg.Optimizer, sizes)
			weights := make([][]float32, len(tg.learnables))
			grads := make([][]float32, len(tg.learnables))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tg.setRows(cfg.BatchSize)
				if _, err := tg.forwardBackward(); err != nil {
					b.Fatal(err)
				}
				for j := range tg.learnables {
					weights[j] = tg.weights(j)
					if grads[j], err = tg.grads(j); err != nil {
						b.Fatal(err)
					}
				}
				opt.step(weights, grads, tg.paramIndex, cfg.Optimizer.LR)
			}
			b.ReportMetric(float64(b.N*cfg.BatchSize)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
