package match_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

func TestCheckedEntrant(t *testing.T) {
	ctx := context.Background()
	spec, err := player.ParseSpec("random:seed=3,name=R")
	if err != nil {
		t.Fatal(err)
	}
	e, err := match.CheckedEntrant(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if e.Name != "R" || p.Name() != "R" {
		t.Errorf("entrant %q plays %q, want R", e.Name, p.Name())
	}
	// What only making the player finds fails here, not at the first game.
	for _, raw := range []string{"uci:" + filepath.Join(t.TempDir(), "no-engine"), "heuristic:depth=x"} {
		spec, err := player.ParseSpec(raw)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := match.CheckedEntrant(ctx, spec); err == nil {
			t.Errorf("%s: an entrant made", raw)
		}
	}
}
