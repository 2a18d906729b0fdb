package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dchess/dchess/internal/record"
	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/search/elo"
	"github.com/dchess/dchess/search/player"
	"github.com/dchess/dchess/search/tournament"
)

// mergeStanding is player's line in `dchess tournament merge --json` of the
// record's results files (paths from the repository's root).
func mergeStanding(t *testing.T, files []string, name string) tournament.Standing {
	t.Helper()
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(testenv.RepoRoot(), filepath.FromSlash(f))
	}
	s, out, _ := playStreams("")
	if err := runTournamentMerge(&tournamentMergeOptions{Files: paths, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var st tournament.Standings
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	for _, p := range st.Players {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("%v: no player %s in the merge", files, name)
	return tournament.Standing{}
}

// holds says whether a figure's text, "2,361 ± 30" or "2,061", is what
// the fitted values round to: its first number the first value, and so
// on (a text may leave out the interval).
func holds(text string, values ...float64) bool {
	nums := record.Numbers(text)
	if len(nums) == 0 || len(nums) > len(values) {
		return false
	}
	for i, n := range nums {
		if !n.Rounds(values[i]) {
			return false
		}
	}
	return true
}

// TestTournamentMergeRefitsTheRecord runs the record's merges of the
// gauntlets in docs/results and checks what the record says they give:
// every figure dchess prints that internal/record refits with a merge (the
// shipped nnue's anchor), and the status page's anchors of the network
// shipped from 9641d09 to f759b62, with the search before singular
// extensions and with main's.
func TestTournamentMergeRefitsTheRecord(t *testing.T) {
	for _, c := range []struct {
		glob       string
		files      int
		elo, error float64
		games      int
	}{
		{"nnue-anchor-seed4*.json", 3, 2296.2, 23.3, 600},
		{"nnue-anchor-se-seed4*.json", 3, 2319.8, 24.0, 600},
	} {
		files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "docs", "results", c.glob))
		if err != nil || len(files) != c.files {
			t.Fatalf("docs/results holds %v (%v), want %d gauntlets", files, err, c.files)
		}
		for i, f := range files {
			files[i], _ = filepath.Rel(testenv.RepoRoot(), f)
		}
		p := mergeStanding(t, files, "nnue")
		if math.Abs(float64(p.Elo)-c.elo) > 0.05 || math.Abs(float64(p.Error)-c.error) > 0.05 || p.Games != c.games {
			t.Errorf("%s: nnue pooled %.2f ± %.2f over %d games; the docs say %.1f ± %.1f over %d", c.glob, float64(p.Elo), float64(p.Error), p.Games, c.elo, c.error, c.games)
		}
	}
	rec := record.Load()
	merges := 0
	for _, name := range rec.FigureNames() {
		f := rec.Figures[name]
		if f.Refit == nil || len(f.Refit.Merge) == 0 {
			continue
		}
		merges++
		p := mergeStanding(t, f.Refit.Merge, f.Refit.Player)
		got := []float64{float64(p.Elo), float64(p.Error)}
		if f.Refit.Value == record.ValueGames {
			got = []float64{float64(p.Games)}
		}
		if !holds(f.Text, got...) {
			t.Errorf("%s: figure %s prints %q; the merge of %v gives %s %.1f (± %.1f) over %d games",
				record.File, name, f.Text, f.Refit.Merge, f.Refit.Player, float64(p.Elo), float64(p.Error), p.Games)
		}
	}
	if merges == 0 {
		t.Errorf("%s refits no figure with a merge; the shipped nnue's anchor has one", record.File)
	}
}

// TestRecordRefitsFromQuotedGames fits again the figures of
// internal/record whose games their entry quotes: a match's pentanomial
// gives its Elo difference ± the interval, and results against anchored
// opponents the rating that fits them (with the prior dchess's reports
// use). internal/record's own test checks the entry prints those games.
func TestRecordRefitsFromQuotedGames(t *testing.T) {
	rec := record.Load()
	fitted := 0
	for _, name := range rec.FigureNames() {
		f := rec.Figures[name]
		switch {
		case f.Refit == nil:
		case f.Refit.Pentanomial != "":
			nums := record.Numbers(f.Refit.Pentanomial)
			if len(nums) != 5 {
				t.Errorf("figure %s: pentanomial %q is not five counts", name, f.Refit.Pentanomial)
				continue
			}
			var counts [5]int
			for i, n := range nums {
				counts[i] = int(n.Value)
			}
			e := elo.FromPentanomial(counts)
			if !holds(f.Text, e.Elo, e.ErrorMargin) {
				t.Errorf("figure %s prints %q; the pairs %v give %s", name, f.Text, counts, elo.FormatDiff(e))
			}
			fitted++
		case len(f.Refit.Anchored) > 0:
			games := []elo.PairResult{}
			anchors := []elo.Anchor{}
			for i, g := range f.Refit.Anchored {
				wdl := record.Numbers(g.WDL)
				if len(wdl) != 3 {
					t.Fatalf("figure %s: %q is not W-L-D", name, g.WDL)
				}
				games = append(games, elo.PairResult{A: 0, B: i + 1, Wins: int(wdl[0].Value), Losses: int(wdl[1].Value), Draws: int(wdl[2].Value)})
				anchors = append(anchors, elo.Anchor{Player: i + 1, Elo: g.Elo})
			}
			r, err := elo.FitRatingsAnchored(games, len(games)+1, anchors, elo.DefaultPrior)
			if err != nil {
				t.Fatalf("figure %s: %v", name, err)
			}
			if !holds(f.Text, r[0].Elo, r[0].Error) {
				t.Errorf("figure %s prints %q; the games %v fit %.1f ± %.1f", name, f.Text, f.Refit.Anchored, r[0].Elo, r[0].Error)
			}
			fitted++
		}
	}
	if fitted < 2 {
		t.Errorf("%s refits %d figures from quoted games; the heuristic's anchor and the nnue's SPRT have theirs", record.File, fitted)
	}
}

// TestRecordRatesKnownPlayers: every player the record gives a sentence
// is one a SPEC names, so the report finds it.
func TestRecordRatesKnownPlayers(t *testing.T) {
	known := player.Families()
	for _, p := range record.Load().PlayerNames() {
		if !slices.Contains(known, p) {
			t.Errorf("%s gives a sentence for %s, which is no player (players: %v)", record.File, p, known)
		}
	}
}
