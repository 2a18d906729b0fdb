package pipeline

import (
	"os"
	"testing"

	"github.com/dchess/dchess/models/families"
)

// TestMain registers every family and player, as the binary does.
func TestMain(m *testing.M) {
	families.RegisterAll()
	os.Exit(m.Run())
}
