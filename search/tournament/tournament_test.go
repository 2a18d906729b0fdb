package tournament_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
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
		Players: specs(t, "heuristic:depth=2", "random", "heuristic:depth=1"), Anchors: []tournament.Anchor{*anchor}, GamesPerPair: 4, Log: &log,
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
	// The file is in the JSON of its day (the error bar under "error"),
	// which must still read: into the same standings.
	var old tournament.Standings
	if err := json.Unmarshal(want, &old); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&old, st) {
		t.Errorf("standings differ from the command's:\n%+v\nwant\n%+v", st, old)
	}
	if !strings.Contains(log.String(), "[3/3] random vs heuristic:depth=1") {
		t.Errorf("log:\n%s", log.String())
	}
	// Today's JSON names the error bar elo_error, as match does, and reads
	// back into the same value.
	got, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte(`"elo_error": 209.9110798522443`)) || bytes.Contains(got, []byte(`"error"`)) {
		t.Errorf("JSON of the standings:\n%s", got)
	}
	var back tournament.Standings
	if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(&back, st) {
		t.Errorf("read back %+v, %v", back, err)
	}
}

// A standing whose error bar is null is unbounded; the name elo_error wins
// over the old error when both are there.
func TestStandingJSONReadsNullAndBothNames(t *testing.T) {
	for in, want := range map[string]float64{
		`{"name":"x","elo":1,"elo_error":null}`:          math.Inf(1),
		`{"name":"x","elo":1,"error":"+inf"}`:            math.Inf(1),
		`{"name":"x","elo":1,"error":7}`:                 7,
		`{"name":"x","elo":1,"elo_error":5,"error":7}`:   5,
		`{"name":"x","elo":1,"error":7,"elo_error":5.5}`: 5.5,
	} {
		var s tournament.Standing
		if err := json.Unmarshal([]byte(in), &s); err != nil || float64(s.Error) != want || s.Elo != 1 || s.Name != "x" {
			t.Errorf("%s reads as %+v, %v; want the error %v", in, s, err, want)
		}
	}
}

// A rating is a number, or null when not finite; the "+inf" and "-inf"
// that versions before wrote still read.
func TestRatingJSONInfinite(t *testing.T) {
	for v, want := range map[float64]string{math.Inf(1): "null", math.Inf(-1): "null", 12.5: "12.5"} {
		data, err := json.Marshal(tournament.Rating(v))
		if err != nil || string(data) != want {
			t.Errorf("%v is written %s (%v), want %s", v, data, err, want)
		}
	}
	for in, want := range map[string]float64{`"+inf"`: math.Inf(1), `"inf"`: math.Inf(1), `"-inf"`: math.Inf(-1), "12.5": 12.5} {
		var r tournament.Rating
		if err := json.Unmarshal([]byte(in), &r); err != nil || float64(r) != want {
			t.Errorf("%s read back as %v, %v", in, r, err)
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
	if len(st.Pairs) != 2 || st.Anchor.Name != "heuristic:depth=1" || st.Anchor.Elo != 0 ||
		!reflect.DeepEqual(st.Anchors, []tournament.Anchor{st.Anchor}) {
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
		Anchors: []tournament.Anchor{{Name: "random"}, {Name: "x"}}, Match: match.Config{Depth: 1}})
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

// TestKilledTournamentContinues stops a journalled tournament inside its
// second pairing and runs it again: the rerun plays only the games the
// journal lacks, and its standings and PGN are an uninterrupted run's; the
// journal is gone at the end, and one of other settings is refused.
func TestKilledTournamentContinues(t *testing.T) {
	dir := t.TempDir()
	config := func(journal string) tournament.Config {
		return tournament.Config{Players: specs(t, "heuristic:depth=1", "random", "random:seed=2"), GamesPerPair: 4, Journal: journal,
			Match: match.Config{Concurrency: 1, RandomPlies: 2, Seed: 1, Depth: 1, MaxMoves: 60}}
	}
	// play runs cfg, stopped after stopAfter games when that is not 0;
	// progress gets its OnProgress calls.
	var progress [][2]int
	play := func(cfg tournament.Config, stopAfter int, log *bytes.Buffer) (*tournament.Standings, string, error) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		games := 0
		progress = nil
		cfg.OnProgress = func(done, total int) { progress = append(progress, [2]int{done, total}) }
		cfg.Match.OnGame = func(match.GameResult, *match.Report) {
			if games++; games == stopAfter {
				cancel()
			}
		}
		cfg.Log = log
		tour, err := tournament.New(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var pgn bytes.Buffer
		st, err := tour.Play(ctx, &pgn)
		return st, clockFree.ReplaceAllString(pgn.String(), "$1"), err
	}
	journal := filepath.Join(dir, "t.journal.jsonl")
	var log bytes.Buffer
	if _, _, err := play(config(journal), 5, &log); !errors.Is(err, tournament.ErrInterrupted) {
		t.Fatalf("stopped run: %v", err)
	}
	if _, err := os.Stat(journal); err != nil {
		t.Fatalf("no journal after a stopped run: %v", err)
	}
	log.Reset()
	resumed, resumedPGN, err := play(config(journal), 0, &log)
	if err != nil {
		t.Fatal(err)
	}
	resumedProgress := progress
	whole, wholePGN, err := play(config(""), 0, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "(4 of 4 games from the journal)") || !strings.Contains(log.String(), "(1 of 4 games from the journal)") {
		t.Fatalf("the rerun's log does not say what it took from the journal:\n%s", log.String())
	}
	// The rerun's progress counts the 7 games the journal lacks, each once.
	if p := resumedProgress; len(p) != 8 || p[0] != [2]int{0, 7} || p[7] != [2]int{7, 7} {
		t.Fatalf("the rerun's progress: %v", p)
	}
	if !reflect.DeepEqual(resumed.Pairs, whole.Pairs) || resumedPGN != wholePGN || strings.Count(wholePGN, "[Event ") != 12 {
		t.Fatalf("resumed %+v\nuninterrupted %+v\nPGN equal: %v", resumed.Pairs, whole.Pairs, resumedPGN == wholePGN)
	}
	if r, w := resumed.Players[0].Thinking.Moves, whole.Players[0].Thinking.Moves; r != w {
		t.Fatalf("the resumed run counts %d moves of %s, the whole one %d", r, resumed.Players[0].Name, w)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Fatalf("journal left after the tournament ended: %v", err)
	}

	play(config(journal), 2, &log)
	other := config(journal)
	other.GamesPerPair = 2
	if _, _, err := play(other, 0, &log); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("a journal of other settings: %v", err)
	}
	other.Restart = true
	if st, _, err := play(other, 0, &log); err != nil || st.Players[0].Games != 4 {
		t.Fatalf("restarted: %v", err)
	}
}

// clockFree matches what the wall clock decides in a PGN: the date and
// each move's time.
var clockFree = regexp.MustCompile(`\[Date "[^"]*"\]\n| \d+\.\d{3}s([,}])`)

func TestParseAnchors(t *testing.T) {
	for _, c := range []struct {
		values []string
		want   []tournament.Anchor
	}{
		{nil, nil},
		{[]string{"random=1000"}, []tournament.Anchor{{Name: "random", Elo: 1000}}},
		{[]string{"SF2200=2200,SF2300=2300", "SF2400=2400.5"},
			[]tournament.Anchor{{Name: "SF2200", Elo: 2200}, {Name: "SF2300", Elo: 2300}, {Name: "SF2400", Elo: 2400.5}}},
		{[]string{" a = -50 ,, b=1e3"}, []tournament.Anchor{{Name: "a", Elo: -50}, {Name: "b", Elo: 1000}}},
		// The ELO follows the last "=", and a piece without one joins the next.
		{[]string{"heuristic:depth=2=1000"}, []tournament.Anchor{{Name: "heuristic:depth=2", Elo: 1000}}},
		{[]string{"heuristic:search=pvs,depth=3=1500,random=0"},
			[]tournament.Anchor{{Name: "heuristic:search=pvs,depth=3", Elo: 1500}, {Name: "random", Elo: 0}}},
	} {
		got, err := tournament.ParseAnchors(c.values...)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v, %v; want %+v", c.values, got, err, c.want)
		}
	}
	for _, bad := range []string{"random", "=5", "random=", "x=abc", "x=NaN", "x=inf", "a=1,b", "a=1,b=2,c"} {
		if _, err := tournament.ParseAnchors(bad); err == nil || !strings.Contains(err.Error(), "wants NAME=ELO") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestAnchorsNameDifferentPlayers(t *testing.T) {
	ctx := context.Background()
	players := specs(t, "heuristic", "random:name=R", "random:seed=2")
	for _, c := range []struct {
		anchors []tournament.Anchor
		want    string
	}{
		{[]tournament.Anchor{{Name: "R", Elo: 1}, {Name: "R", Elo: 2}}, `"R" is anchored twice`},
		{[]tournament.Anchor{{Name: "R", Elo: 1}, {Name: "random:name=R", Elo: 1}}, `"R" and "random:name=R" are the same player (R), anchored twice`},
	} {
		_, err := tournament.New(ctx, tournament.Config{Players: players, GamesPerPair: 2, Anchors: c.anchors})
		var duplicate *tournament.DuplicateAnchorError
		if !errors.As(err, &duplicate) || err.Error() != c.want {
			t.Errorf("%+v: %v, want %s", c.anchors, err, c.want)
		}
	}
	if _, err := tournament.New(ctx, tournament.Config{Players: players, GamesPerPair: 2,
		Anchors: []tournament.Anchor{{Name: "R", Elo: math.NaN()}}}); err == nil || !strings.Contains(err.Error(), "finite") {
		t.Errorf("NaN anchor: %v", err)
	}
}

// TestRateTwoAnchors fits canned gauntlet scores with two anchors. The
// first player scored 4 of 10 against the anchor at 2200 and 6 of 10
// against the one at 2300: 10 of 20, with one virtual draw a pair 11 of
// 22, so it rates exactly 2250 (S(50) + S(−50) = 1). The anchors stay where
// they were put, with no error bar, and the standings say which they are.
func TestRateTwoAnchors(t *testing.T) {
	tour, err := tournament.New(context.Background(), tournament.Config{
		Players: specs(t, "heuristic:depth=1,name=nnue", "random:name=SF2200", "random:seed=2,name=SF2300"), Gauntlet: true, GamesPerPair: 10,
		Anchors: []tournament.Anchor{{Name: "SF2300", Elo: 2300}, {Name: "SF2200", Elo: 2200}},
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := tour.Rate([]tournament.PairScore{
		{A: "nnue", B: "SF2200", Wins: 3, Losses: 5, Draws: 2},
		{A: "nnue", B: "SF2300", Wins: 5, Losses: 3, Draws: 2},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []tournament.Anchor{{Name: "SF2300", Elo: 2300}, {Name: "SF2200", Elo: 2200}}
	if !reflect.DeepEqual(st.Anchors, want) || st.Anchor != want[0] || !st.FiniteMLE {
		t.Errorf("anchors %+v, anchor %+v, finite MLE %v", st.Anchors, st.Anchor, st.FiniteMLE)
	}
	elos := map[string]tournament.Standing{}
	for _, p := range st.Players {
		elos[p.Name] = p
	}
	if p := elos["nnue"]; math.Abs(float64(p.Elo)-2250) > 1e-6 || p.Error <= 0 || p.Rank != 2 || p.Games != 20 || p.Score != 0.5 {
		t.Errorf("nnue: %+v", p)
	}
	for _, a := range want {
		if p := elos[a.Name]; float64(p.Elo) != a.Elo || p.Error != 0 {
			t.Errorf("%s moved: %+v", a.Name, p)
		}
	}
	data, err := json.Marshal(st)
	if err != nil || !strings.Contains(string(data), `"anchor":{"name":"SF2300","elo":2300},"anchors":[{"name":"SF2300","elo":2300},{"name":"SF2200","elo":2200}]`) {
		t.Errorf("JSON %s, %v", data, err)
	}
	if _, err := tour.Rate([]tournament.PairScore{{A: "nnue", B: "SF9999", Wins: 1}}, nil); err == nil || !strings.Contains(err.Error(), "not in the tournament") {
		t.Errorf("unknown player in a pairing: %v", err)
	}
}

// A bare model name is resolved once, so every game of the tournament
// plays the same weights even if the newest weights change meanwhile, and
// the player is shown by the name it was typed with.
func TestBareModelNameResolvedOnce(t *testing.T) {
	dir := t.TempDir()
	var resolved int
	player.SetModelResolver(func(context.Context, string) (string, error) {
		resolved++ // newer weights at every call
		path := filepath.Join(dir, fmt.Sprintf("model-%d.dcw", resolved))
		return path, os.WriteFile(path, nil, 0o644)
	})
	defer player.SetModelResolver(nil)
	played := map[string]bool{}
	player.RegisterModel("tourmodel", func(_ context.Context, s player.Spec) (player.Player, error) {
		played[s.Path] = true
		return player.NewRandom(s.DisplayName(), 1), nil
	})
	st, err := run(context.Background(), tournament.Config{Players: specs(t, "tourmodel:seed=3", "random"), GamesPerPair: 4,
		Match: match.Config{Depth: 1, MaxMoves: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(played) != 1 {
		t.Errorf("the games played %d weights files: %v", len(played), played)
	}
	names := []string{st.Players[0].Name, st.Players[1].Name}
	if !slices.Contains(names, "tourmodel:seed=3") || !slices.Contains(names, "random") {
		t.Errorf("players %v, want tourmodel:seed=3 as typed", names)
	}
}
