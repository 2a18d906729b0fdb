package pipeline

import (
	"github.com/dchess/dchess/models/cnn"
	"github.com/dchess/dchess/search"
)

// The thesis CNN (seed 004): an evaluator trained on Stockfish's win
// probabilities, played through alpha-beta.
func init() {
	f := evaluatorFamily(cnn.Family,
		"the thesis CNN: board planes -> convolutions and pooling -> win probability (seed 004)",
		func() any { c := cnn.DefaultConfig(); return &c },
		func(c *Config) (Model, error) {
			cfg := *c.Model.Settings.(*cnn.Config)
			cfg.Input = c.input()
			return cnn.NewModel(cfg)
		},
		func(path string) (search.Evaluator, error) { return cnn.Load(path) },
		"on 317,477 Stockfish-labelled positions the thesis CNN reached a test MSE of 0.0330 and cnn-wide 0.0153, where the heuristic's is 0.0187; cnn-wide still lost every game to the heuristic, searching far shallower (docs/results/2026-11-21-evaluators-depth-8.md)")
	f.FirstRun = "dchess train --model cnn --data DATASET --config configs/cnn.yaml --max-steps 2000"
	// Kernels, pads and pools of a few board widths are far past what an
	// 8×8 board's maps can use.
	f.Bounds = mergeBounds(layerBounds("hidden", maxWidth), Bounds{
		"conv":               {0, maxLayers},
		"conv[].filters":     {1, 4096},
		"conv[].kernel":      {1, 32},
		"conv[].pad":         {0, 16},
		"conv[].pool":        {0, 32},
		"conv[].pool_stride": {0, 32},
	})
	f.Size = func(c *Config) ModelSize {
		cfg := *c.Model.Settings.(*cnn.Config)
		cfg.Input = c.input()
		params, values := cfg.Size()
		return ModelSize{Params: int64(params), Values: int64(cfg.Input.Size() + values)}
	}
	mustRegister(f)
}
