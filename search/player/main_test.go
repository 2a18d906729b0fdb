package player

import (
	"os"
	"testing"
)

// TestMain registers search/player's built-in players (random, heuristic,
// uci), as families.RegisterAll does in the binary.
func TestMain(m *testing.M) {
	RegisterBuiltins()
	os.Exit(m.Run())
}
