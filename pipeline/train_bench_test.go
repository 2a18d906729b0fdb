package pipeline

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkTrainStep measures a training step (forward, backward, Adam) of
// the thesis configs at batch 256 on in-memory batches, the same work
// scripts/bench/train_torch.py times in PyTorch. It reports samples/s.
func BenchmarkTrainStep(b *testing.B) {
	for _, family := range Families {
		b.Run(family, func(b *testing.B) {
			cfg, err := DefaultConfig(family)
			if err != nil {
				b.Fatal(err)
			}
			m, err := cfg.NewModel()
			if err != nil {
				b.Fatal(err)
			}
			params := m.InitParams(1)
			tg, err := newTrainGraph(m, params, cfg.BatchSize, cfg.Loss)
			if err != nil {
				b.Fatal(err)
			}
			defer tg.close()
			rng := rand.New(rand.NewPCG(1, 2))
			for i := range tg.xs {
				tg.xs[i] = float32(rng.IntN(15)-7) / 7
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
				opt.step(weights, grads, cfg.Optimizer.LR)
			}
			b.ReportMetric(float64(b.N*cfg.BatchSize)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
