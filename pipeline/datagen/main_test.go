package datagen

import (
	"os"
	"testing"

	"github.com/dchess/dchess/search/player"
)

// TestMain registers search/player's built-in players (random, heuristic,
// uci), as families.RegisterAll does in the binary.
func TestMain(m *testing.M) {
	player.RegisterBuiltins()
	os.Exit(m.Run())
}
