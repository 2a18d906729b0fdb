// Package families registers every family dchess has: the model families
// (each with its player), Deep Red's experience player and search/player's
// built-in players (random, heuristic, uci). A binary calls
// RegisterAll once before it reads a config or a player SPEC; nothing
// registers itself on import, so a binary links only the families it
// names.
package families

import (
	"sync"

	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/models/cnn"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/experience"
	"github.com/dchess/dchess/models/flow"
	"github.com/dchess/dchess/models/nnue"
	"github.com/dchess/dchess/search/player"
)

var once sync.Once

// RegisterAll registers every family and player family; calls after the
// first do nothing, so tests and commands may each make it.
func RegisterAll() {
	once.Do(func() {
		player.RegisterBuiltins()
		ann.Register()
		cnn.Register()
		deepchess.Register()
		diffusion.Register()
		flow.Register()
		nnue.Register()
		experience.Register()
	})
}
