package pipeline

import (
	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/search"
)

// The thesis ANN (seed 004): an evaluator trained on Stockfish's win
// probabilities, played through alpha-beta.
func init() {
	mustRegister(evaluatorFamily(ann.Family,
		"the thesis ANN: 64 signed piece codes -> dense layers -> win probability (seed 004)",
		func() any { c := ann.DefaultConfig(); return &c },
		func(c *Config) (Model, error) {
			cfg := *c.Model.Settings.(*ann.Config)
			cfg.Input = c.input()
			return ann.NewModel(cfg)
		},
		func(path string) (search.Evaluator, error) { return ann.Load(path) }))
}
