package experience

import (
	"os"
	"testing"
)

// TestMain registers the experience player, as a binary does.
func TestMain(m *testing.M) {
	Register()
	os.Exit(m.Run())
}
