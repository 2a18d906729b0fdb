package player

import "sync"

var builtins sync.Once

// RegisterBuiltins registers the player families this package holds:
// random, heuristic and uci. Nothing registers on import: a binary calls
// it once, through families.RegisterAll, before it reads a player SPEC;
// calls after the first do nothing, so tests may each make it.
func RegisterBuiltins() {
	builtins.Do(func() {
		Register("random", newRandomFromSpec)
		RegisterChecked("heuristic", newHeuristicFromSpec, CheckProposer)
		Register("uci", newUCIFromSpec)
	})
}
