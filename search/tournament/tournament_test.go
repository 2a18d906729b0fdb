package tournament_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
	"github.com/dchess/dchess/search/tournament"
)

// run plays cfg without a PGN.
func run(ctx context.Context, cfg tournament.Config) (*tournament.Standings, error) {
	t, err := tournament.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return t.Play(ctx, nil)
}

func specs(t *testing.T, raw ...string) []player.Spec {
	t.Helper()
	var out []player.Spec
	for _, r := range raw {
		s, err := player.ParseSpec(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestRunGivesTheCommandsStandings plays, through the library alone, the
// round robin whose `dchess tournament --json` output (from before the
// tournament left cmd) is in testdata/standings.json:
//
//	dchess tournament --players heuristic:depth=2,random,heuristic:depth=1 --anchor random=1000 \
//	    --games-per-pair 4 --concurrency 2 --random-plies 4 --seed 3 --depth 2 --max-moves 120 --json
func TestRunGivesTheCommandsStandings(t *testing.T) {
	want, err := os.ReadFile("testdata/standings.json")
	if err != nil {
		t.Fatal(err)
	}
	anchor, err := tournament.ParseAnchor("random=1000")
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	st, err := run(context.Background(), tournament.Config{
		Players: specs(t, "heuristic:depth=2", "random", "heuristic:depth=1"), Anchor: anchor, GamesPerPair: 4, Log: &log,
		Match: match.Config{Concurrency: 2, RandomPlies: 4, Seed: 3, Depth: 2, MaxMoves: 120},
	})
	if err != nil {
		t.Fatal(err)
	}
	// How long moves took varies from run to run: check the tallies, then
	// compare the rest.
	for i, p := range st.Players {
		if p.Thinking.Moves == 0 || (p.Name != "random" && p.Thinking.MeanDepth() < 1) {
			t.Errorf("%s: thinking %+v", p.Name, p.Thinking)
		}
		st.Players[i].Thinking = match.MoveStats{}
	}
	got, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Errorf("standings differ from the command's:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(log.String(), "[3/3] random vs heuristic:depth=1") {
		t.Errorf("log:\n%s", log.String())
	}
	// The JSON reads back into the same value, infinite ratings included.
	var back tournament.Standings
	if err := json.Unmarshal(got, &back); err != nil || back.Players[0].Elo != st.Players[0].Elo {
		t.Errorf("read back %+v, %v", back, err)
	}
}

func TestRatingJSONInfinite(t *testing.T) {
	for _, v := range []float64{math.Inf(1), math.Inf(-1), 12.5} {
		data, err := json.Marshal(tournament.Rating(v))
		if err != nil {
			t.Fatal(err)
		}
		var r tournament.Rating
		if err := json.Unmarshal(data, &r); err != nil || float64(r) != v {
			t.Errorf("%v: %s read back as %v, %v", v, data, r, err)
		}
	}
}

func TestGauntletPairings(t *testing.T) {
	var log bytes.Buffer
	st, err := run(context.Background(), tournament.Config{
		Players: specs(t, "heuristic:depth=1", "random:seed=1", "random:seed=2"), Gauntlet: true, GamesPerPair: 2, Log: &log,
		Match: match.Config{Concurrency: 1, RandomPlies: 2, Seed: 1, Depth: 1, MaxMoves: 100},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Pairs) != 2 || st.Anchor.Name != "heuristic:depth=1" || st.Anchor.Elo != 0 {
		t.Errorf("standings %+v", st)
	}
	if strings.Contains(log.String(), "[3/") {
		t.Errorf("a gauntlet played random against random:\n%s", log.String())
	}
}

func TestBadConfig(t *testing.T) {
	ctx := context.Background()
	if _, err := tournament.ParseAnchor("random"); err == nil || !strings.Contains(err.Error(), "wants NAME=ELO") {
		t.Errorf("anchor without =: %v", err)
	}
	_, err := run(ctx, tournament.Config{Players: specs(t, "heuristic", "random"), GamesPerPair: 2,
		Anchor: &tournament.Anchor{Name: "x"}, Match: match.Config{Depth: 1}})
	var unknown *tournament.UnknownAnchorError
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), `no player named "x" (players: heuristic, random)`) {
		t.Errorf("unknown anchor: %v", err)
	}
	if _, err := run(ctx, tournament.Config{Players: specs(t, "heuristic"), GamesPerPair: 2}); err == nil {
		t.Error("one player accepted")
	}
	if _, err := run(ctx, tournament.Config{Players: specs(t, "heuristic", "random")}); err == nil {
		t.Error("no games per pair accepted")
	}
}

// TestInterruptedKeepsFinishedGames stops the tournament after its second
// pairing, when every player has played: the standings cover the two
// pairings and the error says so.
func TestInterruptedKeepsFinishedGames(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	games := 0
	st, err := run(ctx, tournament.Config{
		Players: specs(t, "heuristic:depth=1", "random", "random:seed=2"), GamesPerPair: 2,
		Match: match.Config{Concurrency: 1, RandomPlies: 2, Seed: 1, Depth: 1, MaxMoves: 60,
			OnGame: func(match.GameResult, *match.Report) {
				if games++; games == 4 {
					cancel()
				}
			}},
	})
	if !errors.Is(err, tournament.ErrInterrupted) || st == nil || len(st.Pairs) != 2 {
		t.Fatalf("got %+v, %v", st, err)
	}
}
