package tournament_test

import (
	"context"
	"testing"

	"github.com/dchess/dchess/search/player"
	"github.com/dchess/dchess/search/tournament"
)

// TestStandingsTextTwoAnchors prints canned gauntlet scores fitted with
// two anchors: the Anchors line names both and their Elo.
func TestStandingsTextTwoAnchors(t *testing.T) {
	var specs []player.Spec
	for _, raw := range []string{"heuristic:depth=1,name=nnue", "random:name=SF2200", "random:seed=2,name=SF2300"} {
		spec, err := player.ParseSpec(raw)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, spec)
	}
	anchors, err := tournament.ParseAnchors("SF2200=2200", "SF2300=2300")
	if err != nil {
		t.Fatal(err)
	}
	tour, err := tournament.New(context.Background(), tournament.Config{Players: specs, Gauntlet: true, GamesPerPair: 20, Anchors: anchors})
	if err != nil {
		t.Fatal(err)
	}
	st, err := tour.Rate([]tournament.PairScore{
		{A: "nnue", B: "SF2200", Wins: 9, Losses: 6, Draws: 5},
		{A: "nnue", B: "SF2300", Wins: 4, Losses: 10, Draws: 6},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Games() != 40 {
		t.Errorf("Games = %d, want 40", st.Games())
	}
	out := st.Text()
	// nnue's 2224.6 ± 88.6 is the root of 21·S(x−2200) + 21·S(x−2300) = 19.5
	// (18.5 points of 40 and a virtual draw a pair), as search/elo's tests
	// check by bisection.
	want := "  Rank    Name     Elo   +/-  Games   Score\n" +
		"     1  SF2300  2300.0   0.0     20  65.0 %\n" +
		"     2    nnue  2224.6  88.6     40  46.2 %\n" +
		"     3  SF2200  2200.0   0.0     20  42.5 %\n" +
		"Anchors: SF2200 = 2200, SF2300 = 2300; the fit's prior: 1 virtual draw per pair of players that met\n" +
		"nnue vs SF2200: +9 -6 =5, Elo difference +52.5 ± 140.6\n" +
		"nnue vs SF2300: +4 -10 =6, Elo difference -107.5 ± 139.7\n"
	if out != want {
		t.Errorf("printed\n%s\nwant\n%s", out, want)
	}
}
