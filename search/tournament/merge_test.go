package tournament_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/tournament"
)

// gauntletFile writes the standings a gauntlet of nnue against SF2200 and
// SF2300 with these scores would have, as `dchess tournament --json` does.
func gauntletFile(t *testing.T, dir, name string, pairs []tournament.PairScore, spec string) string {
	t.Helper()
	tour, err := tournament.New(context.Background(), tournament.Config{
		Players: specs(t, spec, "random:name=SF2200", "random:seed=2,name=SF2300"), Gauntlet: true, GamesPerPair: 10,
		Anchors: []tournament.Anchor{{Name: "SF2200", Elo: 2200}, {Name: "SF2300", Elo: 2300}},
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := tour.Rate(pairs, []match.MoveStats{{Moves: 10, Nodes: 1000}, {Moves: 5}, {Moves: 6}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func byName(st *tournament.Standings) map[string]tournament.Standing {
	m := map[string]tournament.Standing{}
	for _, p := range st.Players {
		m[p.Name] = p
	}
	return m
}

// TestMergeFilesIsOneFitOfAllGames pools two gauntlets, one of them with a
// pairing written from the other side, and checks the pooled counts, the
// tally, and that the fit is the one a single tournament of all the games
// gives.
func TestMergeFilesIsOneFitOfAllGames(t *testing.T) {
	dir := t.TempDir()
	a := gauntletFile(t, dir, "a.json", []tournament.PairScore{
		{A: "nnue", B: "SF2200", Wins: 3, Losses: 5, Draws: 2},
		{A: "nnue", B: "SF2300", Wins: 5, Losses: 3, Draws: 2},
	}, "heuristic:depth=1,name=nnue")
	b := gauntletFile(t, dir, "b.json", []tournament.PairScore{
		{A: "SF2200", B: "nnue", Wins: 1, Losses: 6, Draws: 3},
		{A: "nnue", B: "SF2300", Wins: 2, Losses: 4, Draws: 4},
	}, "heuristic:depth=2,name=nnue")
	merged, err := tournament.MergeFiles([]string{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantPairs := []tournament.PairScore{
		{A: "nnue", B: "SF2200", Wins: 9, Losses: 6, Draws: 5},
		{A: "nnue", B: "SF2300", Wins: 7, Losses: 7, Draws: 6},
	}
	if !reflect.DeepEqual(merged.Pairs, wantPairs) {
		t.Errorf("pooled pairs %+v, want %+v", merged.Pairs, wantPairs)
	}
	if !reflect.DeepEqual(merged.SpecsDiffer, []string{"nnue"}) {
		t.Errorf("players with differing SPECs: %v", merged.SpecsDiffer)
	}
	one := gauntletFile(t, dir, "one.json", wantPairs, "heuristic:depth=1,name=nnue")
	single, err := tournament.ReadStandings(one)
	if err != nil {
		t.Fatal(err)
	}
	got, want := byName(merged.Standings), byName(single)
	for name, w := range want {
		g := got[name]
		if math.Abs(float64(g.Elo-w.Elo)) > 1e-9 || math.Abs(float64(g.Error-w.Error)) > 1e-9 || g.Games != w.Games || g.Points != w.Points || g.Rank != w.Rank {
			t.Errorf("%s pooled %+v, one tournament %+v", name, g, w)
		}
	}
	if th := got["nnue"].Thinking; th.Moves != 20 || th.Nodes != 2000 {
		t.Errorf("nnue's pooled thinking %+v, want both files' summed", th)
	}
	if !reflect.DeepEqual(merged.Anchors, single.Anchors) || merged.Prior != single.Prior || !merged.FiniteMLE {
		t.Errorf("anchors %+v prior %q finite %v", merged.Anchors, merged.Prior, merged.FiniteMLE)
	}
	data, err := json.Marshal(merged)
	if err != nil || !strings.Contains(string(data), `"players":[`) || !strings.Contains(string(data), `"files":[`) {
		t.Errorf("JSON %s, %v", data, err)
	}
}

// TestMergeFilesGivesThePooledAnchor reproduces the pooled anchor of the
// network then shipped (docs/results/2026-11-28-nnue-anchored-other-openings.md):
// the gauntlets of seeds 40 and 41 rate it 2,299.7 ± 28 together (each
// alone 2,279.9 ± 39.3 and 2,319.3 ± 40.8).
func TestMergeFilesGivesThePooledAnchor(t *testing.T) {
	dir := t.TempDir()
	seed40 := gauntletFile(t, dir, "seed40.json", []tournament.PairScore{
		{A: "nnue", B: "SF2200", Wins: 50, Losses: 23, Draws: 27},
		{A: "nnue", B: "SF2300", Wins: 26, Losses: 36, Draws: 38},
	}, "heuristic:name=nnue")
	seed41 := gauntletFile(t, dir, "seed41.json", []tournament.PairScore{
		{A: "nnue", B: "SF2200", Wins: 41, Losses: 22, Draws: 37},
		{A: "nnue", B: "SF2300", Wins: 45, Losses: 25, Draws: 30},
	}, "heuristic:name=nnue")
	for _, c := range []struct {
		files    []string
		elo, err float64
	}{{[]string{seed40}, 2279.9, 39.3}, {[]string{seed41}, 2319.3, 40.8}, {[]string{seed40, seed41}, 2299.7, 28.4}} {
		merged, err := tournament.MergeFiles(c.files, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := byName(merged.Standings)["nnue"]
		if math.Abs(float64(p.Elo)-c.elo) > 0.05 || math.Abs(float64(p.Error)-c.err) > 0.05 {
			t.Errorf("%d files: nnue %.2f ± %.2f, want %.1f ± %.1f", len(c.files), float64(p.Elo), float64(p.Error), c.elo, c.err)
		}
	}
}

func TestMergeFilesRefuses(t *testing.T) {
	dir := t.TempDir()
	pairs := []tournament.PairScore{{A: "nnue", B: "SF2200", Wins: 3, Losses: 5, Draws: 2}, {A: "nnue", B: "SF2300", Wins: 5, Losses: 3, Draws: 2}}
	good := gauntletFile(t, dir, "good.json", pairs, "heuristic:name=nnue")
	other := filepath.Join(dir, "other.json")
	st, err := tournament.ReadStandings(good)
	if err != nil {
		t.Fatal(err)
	}
	st.Anchors = []tournament.Anchor{{Name: "SF2200", Elo: 2150}, {Name: "SF2300", Elo: 2300}}
	data, _ := json.Marshal(st)
	if err := os.WriteFile(other, data, 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	notJSON := write("report.txt", "nnue vs SF2200: +3 -5 =2\n")
	noPairs := write("empty.json", `{"players":[]}`)
	selfPair := write("self.json", `{"pairs":[{"a":"nnue","b":"nnue","wins":1}],"anchors":[{"name":"nnue","elo":0}]}`)

	for _, c := range []struct {
		name    string
		files   []string
		anchors []tournament.Anchor
		want    string
	}{
		{"anchors disagree", []string{good, other}, nil, "other.json anchors SF2200=2150,SF2300=2300 but " + good + " anchors SF2200=2200,SF2300=2300"},
		{"not JSON", []string{good, notJSON}, nil, notJSON + ": not the JSON of dchess tournament --json"},
		{"no pairings", []string{noPairs}, nil, noPairs + ": no pairings"},
		{"a player against itself", []string{selfPair}, nil, selfPair + `: pairing "nnue" vs "nnue"`},
		{"missing file", []string{filepath.Join(dir, "gone.json")}, nil, "gone.json"},
		{"nothing", nil, nil, "no standings files"},
	} {
		if _, err := tournament.MergeFiles(c.files, c.anchors); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	if _, err := tournament.MergeFiles([]string{good}, []tournament.Anchor{{Name: "SF9999", Elo: 1}}); !errors.As(err, new(*tournament.UnknownAnchorError)) {
		t.Errorf("unknown anchor: %v", err)
	}
	// Anchors given for all files override theirs, so files that disagree pool.
	merged, err := tournament.MergeFiles([]string{good, other}, []tournament.Anchor{{Name: "SF2300", Elo: 2300}})
	if err != nil {
		t.Fatal(err)
	}
	if p := byName(merged.Standings)["SF2200"]; p.Error <= 0 || p.Games != 20 {
		t.Errorf("SF2200 unanchored should be fitted: %+v", p)
	}
}
