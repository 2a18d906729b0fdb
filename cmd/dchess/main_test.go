package main

import (
	"os"
	"testing"

	"github.com/dchess/dchess/models/families"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/search/player"
)

// TestMain registers every family and player, as the binary does, and
// lets a bare model name resolve for tests that build no root command
// (newRootCmd sets the resolver the binary uses).
func TestMain(m *testing.M) {
	families.RegisterAll()
	player.SetModelResolver(family.Resolver(family.DefaultRunsDir, nil))
	os.Exit(m.Run())
}
