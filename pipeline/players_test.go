package pipeline

import (
	"context"
	"testing"

	"github.com/dchess/dchess/search/match"
)

// playsAndBeatsRandom plays a short match of the exported weights (through
// the player registry, as `dchess match` does) against random: every move
// must be legal (an illegal one would count as a fault) and the model,
// trained on material, must score clearly above half.
func playsAndBeatsRandom(t *testing.T, spec string) {
	t.Helper()
	a, err := match.SpecEntrant(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := match.SpecEntrant("random:seed=7")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := match.Run(context.Background(), match.Config{A: a, B: b, Games: 6, Depth: 2, RandomPlies: 2, Seed: 3, MaxMoves: 150})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Faults["a"]); n != 0 {
		t.Fatalf("%s made faults: %v", spec, rep.Faults)
	}
	if float64(rep.Score) < 0.75 {
		t.Fatalf("%s against random: %d-%d-%d, want a clear win", spec, rep.Wins, rep.Losses, rep.Draws)
	}
}
