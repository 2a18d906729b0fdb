package experience

import (
	"os"
	"testing"

	"github.com/dchess/dchess/search/player"
)

// TestMain registers the experience player, as a binary does.
func TestMain(m *testing.M) {
	player.RegisterBuiltins() // the fallback players: random, heuristic
	Register()
	os.Exit(m.Run())
}
