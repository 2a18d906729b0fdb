package pipeline

import (
	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/search"
)

// The thesis ANN (seed 004): an evaluator trained on Stockfish's win
// probabilities, played through alpha-beta.
func init() {
	f := evaluatorFamily(ann.Family,
		"the thesis ANN: 64 signed piece codes -> dense layers -> win probability (seed 004)",
		func() any { c := ann.DefaultConfig(); return &c },
		func(c *Config) (Model, error) {
			cfg := *c.Model.Settings.(*ann.Config)
			cfg.Input = c.input()
			return ann.NewModel(cfg)
		},
		func(path string) (search.Evaluator, error) { return ann.Load(path) },
		"on 317,477 Stockfish-labelled positions the thesis ANN reached a test MSE of 0.0306 and ann-wide 0.0184, where the heuristic's is 0.0187 (docs/results/2026-11-21-evaluators-depth-8.md)")
	f.FirstRun = "dchess train --model ann --data DATASET --config configs/ann.yaml --max-steps 2000"
	f.Bounds = layerBounds("hidden", maxWidth)
	f.Size = func(c *Config) ModelSize {
		widths := append([]int{c.input().Size()}, c.Model.Settings.(*ann.Config).Hidden...)
		return denseSize(append(widths, 1))
	}
	mustRegister(f)
}
