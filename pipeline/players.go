package pipeline

import (
	"context"
	"fmt"

	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/models/cnn"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/player"
)

// The neural families play through the same alpha-beta as the heuristic,
// evaluating leaves with the exported weights in pure Go. Registering them
// here keeps search free of any model import: it sees only search.Evaluator.
func init() {
	player.RegisterModel("ann", evaluatorFamily(func(path string) (search.Evaluator, error) { return ann.Load(path) }))
	player.RegisterModel("cnn", evaluatorFamily(func(path string) (search.Evaluator, error) { return cnn.Load(path) }))
}

// evaluatorFamily makes a player factory for a family whose weights load
// into a search.Evaluator. Each player loads its own copy, so concurrent
// games never share an evaluator's scratch buffers.
func evaluatorFamily(load func(path string) (search.Evaluator, error)) player.Factory {
	return func(_ context.Context, spec player.Spec) (player.Player, error) {
		if err := spec.CheckSettings(player.SearchSettings...); err != nil {
			return nil, err
		}
		opts, err := player.SearchOptionsFromSpec(spec)
		if err != nil {
			return nil, err
		}
		eval, err := load(spec.Path)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", spec.Family, err)
		}
		return player.SearchPlayer(spec.DisplayName(), eval, opts), nil
	}
}
