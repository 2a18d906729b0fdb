package cnn

import (
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/search"
)

// The thesis CNN (seed 004): an evaluator trained on Stockfish's win
// probabilities, played through alpha-beta.
//
// Register adds it to the family registry and its player to the
// player registry; cmd/dchess calls it through families.RegisterAll.
func Register() {
	f := family.NewEvaluator(Family,
		"the thesis CNN: board planes -> convolutions and pooling -> win probability (seed 004)",
		func() any { c := DefaultConfig(); return &c },
		func(c *family.Config) (family.Model, error) {
			cfg := *c.Model.Settings.(*Config)
			cfg.Input = c.Input()
			return NewModel(cfg)
		},
		func(path string) (search.Evaluator, error) { return Load(path) })
	f.FirstRun = "dchess train --model cnn --data DATASET --config configs/cnn.yaml --max-steps 2000"
	// Kernels, pads and pools of a few board widths are far past what an
	// 8×8 board's maps can use.
	f.Bounds = family.MergeBounds(family.LayerBounds("hidden", family.MaxWidth), family.Bounds{
		"conv":               {Min: 0, Max: family.MaxLayers},
		"conv[].filters":     {Min: 1, Max: 4096},
		"conv[].kernel":      {Min: 1, Max: 32},
		"conv[].pad":         {Min: 0, Max: 16},
		"conv[].pool":        {Min: 0, Max: 32},
		"conv[].pool_stride": {Min: 0, Max: 32},
	})
	f.Size = func(c *family.Config) family.ModelSize {
		cfg := *c.Model.Settings.(*Config)
		cfg.Input = c.Input()
		params, values := cfg.Size()
		return family.ModelSize{Params: int64(params), Values: int64(cfg.Input.Size() + values)}
	}
	family.MustRegister(f)
}
