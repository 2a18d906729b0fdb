package pipeline

import (
	"strings"
	"sync"
	"testing"

	"github.com/dchess/dchess/internal/record"
	"github.com/dchess/dchess/models/families"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/tournament"
)

var registerFamilies = sync.OnceFunc(families.RegisterAll)

// TestExplainSaysWhereThePlayerStands: the report's sentence on a player
// gives where it stands as the record does (internal/record): a built-in
// player's standing after what it is, a family's for comparison at the
// end, and nothing for a player the record does not rate.
func TestExplainSaysWhereThePlayerStands(t *testing.T) {
	registerFamilies()
	c := &RunConfig{}
	th := match.MoveStats{Moves: 10, Seconds: 1}
	play := "in the tournament it scored 50 % of 4 games, 100.0 ms a move"
	for _, tc := range []struct{ spec, want string }{
		{"heuristic", "**heuristic**: " + playerKinds["heuristic"] + "; " + record.Standing("heuristic") + "; " + play + "."},
		{"random", "**random**: plays a random legal move; " + play + "."},
		{"nnue:runs/nnue/model.dcw", "; " + play + "; for comparison, " + record.Standing("nnue") + "."},
		{"policy:runs/policy/model.dcw", "; for comparison, " + record.Standing("diffusion") + "."},
	} {
		name, _, _ := strings.Cut(tc.spec, ":")
		got := c.explain(tournament.Standing{Name: name, Spec: tc.spec, Games: 4, Score: 0.5, Thinking: th}, nil)
		if !strings.HasSuffix(got, tc.want) {
			t.Errorf("%s:\n got %s\nwant …%s", tc.spec, got, tc.want)
		}
	}
	if !strings.Contains(record.Standing("heuristic"), "2,061 Elo") || !strings.Contains(record.Standing("nnue"), "2,361 ± 30") {
		t.Errorf("the record's standings: %q, %q", record.Standing("heuristic"), record.Standing("nnue"))
	}
}
