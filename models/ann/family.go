package ann

import (
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/search"
)

// The thesis ANN (seed 004): an evaluator trained on Stockfish's win
// probabilities, played through alpha-beta.
//
// Register adds it to the family registry and its player to the
// player registry; cmd/dchess calls it through families.RegisterAll.
func Register() {
	f := family.NewEvaluator(Family,
		"the thesis ANN: 64 signed piece codes -> dense layers -> win probability (seed 004)",
		func() any { c := DefaultConfig(); return &c },
		func(c *family.Config) (family.Model, error) {
			cfg := *c.Model.Settings.(*Config)
			cfg.Input = c.Input()
			return NewModel(cfg)
		},
		func(path string) (search.Evaluator, error) { return Load(path) })
	f.FirstRun = "dchess train --model ann --data DATASET --config configs/ann.yaml --max-steps 2000"
	f.Bounds = family.LayerBounds("hidden", family.MaxWidth)
	f.Size = func(c *family.Config) family.ModelSize {
		widths := append([]int{c.Input().Size()}, c.Model.Settings.(*Config).Hidden...)
		return family.DenseSize(append(widths, 1))
	}
	family.MustRegister(f)
}
