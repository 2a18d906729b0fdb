package train

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

// playLegallyAgainstRandom plays games of spec (through the player
// registry, as `dchess match` does) against random; every move must be
// legal, or it would count as a fault.
func playLegallyAgainstRandom(t *testing.T, spec string, games, depth, maxMoves int) *match.Report {
	t.Helper()
	a, err := match.SpecEntrant(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := match.SpecEntrant("random:seed=7")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := match.Run(context.Background(), match.Config{A: a, B: b, Games: games, Depth: depth, RandomPlies: 2,
		Seed: 3, MaxMoves: maxMoves})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Faults["a"]); n != 0 {
		t.Fatalf("%s made faults: %v", spec, rep.Faults)
	}
	return rep
}

// playsAndBeatsRandom: the model, trained on material, must also score
// clearly above half.
func playsAndBeatsRandom(t *testing.T, spec string) {
	t.Helper()
	rep := playLegallyAgainstRandom(t, spec, 6, 2, 150)
	if float64(rep.Score) < 0.75 {
		t.Fatalf("%s against random: %d-%d-%d, want a clear win", spec, rep.Wins, rep.Losses, rep.Draws)
	}
}

// TestSiamesePlayerSettings builds the siamese player from untrained
// weights through the registry: its settings are checked, and it answers
// with a legal move and no score (it has no evaluation) unless it mates.
func TestSiamesePlayerSettings(t *testing.T) {
	m, err := deepchess.NewSiamese(deepchess.SiameseConfig{Tower: []int{16, 8}, Head: []int{8}, Activation: "relu"})
	if err != nil {
		t.Fatal(err)
	}
	arch, _ := m.Arch()
	path := filepath.Join(t.TempDir(), "siamese.dcw")
	if err := dcw.Write(path, &dcw.File{Family: deepchess.SiameseFamily, Arch: arch, Tensors: m.InitParams(1)}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for spec, want := range map[string]string{
		"siamese:" + path + "?search=minimax": "minimax is not available",
		"siamese:" + path + "?width=3":        "unknown setting",
		"siamese:" + path + "?qdepth=-1":      "not a non-negative integer",
		"siamese:/nonexistent.dcw":            "nonexistent",
	} {
		if _, err := player.New(ctx, spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", spec, err, want)
		} else if !errors.As(err, new(*player.SpecError)) {
			t.Errorf("%s: %v is not a *player.SpecError (a usage error)", spec, err)
		}
	}
	p, err := player.New(ctx, "siamese:"+path+"?depth=2,qdepth=0,cache=1")
	if err != nil {
		t.Fatal(err)
	}
	mi, err := p.Move(ctx, player.Position{Moves: []string{"e2e4", "e7e5"}}, player.Limits{})
	// The comparator's confidence that its line beats a draw, on the
	// centipawn scale (clamped to ±2000), not a mate.
	if err != nil || !mi.HasScore || mi.Mate != 0 || mi.Score < -2000 || mi.Score > 2000 || mi.Depth != 2 {
		t.Fatalf("move %+v, %v: want a depth-2 move with a centipawn score", mi, err)
	}
	// Fool's mate is found, and then the move has a mate score.
	mi, err = p.Move(ctx, player.Position{Moves: []string{"f2f3", "e7e5", "g2g4"}}, player.Limits{})
	if err != nil || mi.Move != "d8h4" || !mi.HasScore || mi.Mate != 1 {
		t.Fatalf("mate in 1: %+v, %v", mi, err)
	}
}
