package families_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/families"
	"github.com/dchess/dchess/models/shipped"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/heuristic"
	"github.com/dchess/dchess/search/player"
)

// proposerFamilies are the families whose ranking can order a search.
var proposerFamilies = []string{"diffusion", "flow", "policy"}

func shippedWeights(tb testing.TB, family string) string {
	tb.Helper()
	path, err := shipped.Path(family)
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// TestShippedProposersOrderTheSearch: every sequence family registers its
// decoder as a proposer, and a searching player over the heuristic or
// nnue's evaluation takes it: a one-node search plays the move the
// family's own player plays, its first-ranked. A family that ranks no
// moves, and the comparison search, are refused.
func TestShippedProposersOrderTheSearch(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	families.RegisterAll()
	ctx := context.Background()
	if got := player.Proposers(); !slices.Equal(got, proposerFamilies) {
		t.Fatalf("proposers %v, want %v", got, proposerFamilies)
	}
	pos := player.Position{Moves: []string{"e2e4", "c7c5"}}
	nnue := shippedWeights(t, "nnue")
	for _, fam := range proposerFamilies {
		weights := shippedWeights(t, fam)
		alone, err := player.New(ctx, fam+":"+weights)
		if err != nil {
			t.Fatal(err)
		}
		want, err := alone.Move(ctx, pos, player.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range []string{"heuristic:proposer=" + fam + ":" + weights, "nnue:" + nnue + "?proposer=" + fam + ":" + weights} {
			p, err := player.New(ctx, spec)
			if err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
			if got, err := p.Move(ctx, pos, player.Limits{Nodes: 1}); err != nil || got.Move != want.Move {
				t.Errorf("%s: one node played %+v, %v; %s's first-ranked move is %s", spec, got, err, fam, want.Move)
			}
			if got, err := p.Move(ctx, pos, player.Limits{Depth: 3}); err != nil || got.Depth != 3 {
				t.Errorf("%s: depth 3 gave %+v, %v", spec, got, err)
			}
		}
	}
	for spec, want := range map[string]string{
		"heuristic:proposer=nnue:" + nnue:                              "nnue is not a family that ranks moves (proposers: diffusion, flow, policy)",
		"siamese:" + shippedWeights(t, "siamese") + "?proposer=policy": `unknown setting "proposer"`,
	} {
		if _, err := player.New(ctx, spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

// BenchmarkRootProposer is what a proposer adds to a search: one root
// call, the proposer's ranking of a bench position and the ordering of the
// root by it, measured as one-node searches of positions in turn (so none
// is the position ranked last), against the same searches without one.
func BenchmarkRootProposer(b *testing.B) {
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	families.RegisterAll()
	positions := make([]*board.Board, 16)
	for i := range positions {
		positions[i], _ = board.FromFEN(search.BenchPositions[i])
	}
	for _, fam := range append([]string{"none"}, proposerFamilies...) {
		b.Run(fam, func(b *testing.B) {
			var opts search.Options
			if fam != "none" {
				spec, err := player.ParseSpec(fmt.Sprintf("heuristic:proposer=%s:%s", fam, shippedWeights(b, fam)))
				if err != nil {
					b.Fatal(err)
				}
				if opts.Proposer, err = player.ProposerFromSpec(context.Background(), spec); err != nil {
					b.Fatal(err)
				}
			}
			e := search.New(heuristic.New(), opts)
			i := 0
			for b.Loop() {
				e.Search(context.Background(), positions[i%len(positions)], search.Limits{Nodes: 1}, nil)
				i++
			}
		})
	}
}
