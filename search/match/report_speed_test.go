package match

import (
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/search/player"
)

// spedGame is game n, drawn, in which A searched aNodes and B 1e6 nodes in
// one second each (one move a side).
func spedGame(n int, aNodes int64) GameResult {
	aWhite := n%2 == 1
	return GameResult{Number: n, AIsWhite: aWhite, Result: "1/2-1/2", Termination: "repetition", Moves: []PlayedMove{
		{White: true, Elapsed: time.Second, Info: player.MoveInfo{Nodes: map[bool]int64{true: aNodes, false: 1e6}[aWhite]}},
		{White: false, Elapsed: time.Second, Info: player.MoveInfo{Nodes: map[bool]int64{true: 1e6, false: aNodes}[aWhite]}},
	}}
}

// On the clock a game that a player searched under 70 % of its median
// speed warns once for each stretch of slow games, and the report counts
// them; B, as fast as ever, is never named.
func TestReportWarnsOfSlowGamesOnTheClock(t *testing.T) {
	r := newReport("A", "B", nil)
	r.timed = true
	nodes := []int64{1e6, 1.1e6, 0.9e6, 1e6, 0.5e6, 0.6e6, 1e6, 0.4e6}
	var warned []int
	for i, n := range nodes {
		r.add(spedGame(i+1, n))
		if w := r.SpeedWarning(); w != "" {
			warned = append(warned, i+1)
			if i+1 == 5 && !strings.Contains(w, "game 5: A searched 500k nodes/s, 50 % of its median 1.00M") {
				t.Errorf("warning of game 5: %q", w)
			}
		}
	}
	if len(warned) != 2 || warned[0] != 5 || warned[1] != 8 {
		t.Errorf("warned after games %v, want 5 and 8 (6 continues 5's stretch)", warned)
	}
	if text := r.Text(); !strings.Contains(text, "Slow games: A 3 of 8 (under 70 % of the player's median nodes/s") {
		t.Errorf("report:\n%s", text)
	}
}

// Without a clock speed does not change a game, so nothing is said.
func TestReportIgnoresSpeedWithoutAClock(t *testing.T) {
	r := newReport("A", "B", nil)
	for i, n := range []int64{1e6, 1e6, 1e6, 1e6, 0.3e6} {
		r.add(spedGame(i+1, n))
		if w := r.SpeedWarning(); w != "" {
			t.Errorf("game %d warned: %q", i+1, w)
		}
	}
	if strings.Contains(r.Text(), "Slow games") {
		t.Errorf("report:\n%s", r.Text())
	}
}

// A continued match judges its new games against the journalled ones.
func TestReportJudgesSpeedAgainstJournalledGames(t *testing.T) {
	r := newReport("A", "B", nil)
	r.timed = true
	for n := 1; n <= 4; n++ {
		a, b := thinking(spedGame(n, 1e6))
		r.addJournalled(JournalEntry{Game: shardGameOf(spedGame(n, 1e6)), ThinkingA: a, ThinkingB: b})
	}
	r.add(spedGame(5, 0.5e6))
	if !strings.Contains(r.SpeedWarning(), "game 5: A searched 500k nodes/s") {
		t.Errorf("warning after a journal of four games: %q", r.SpeedWarning())
	}
}

// A merged report, replayed from the tasks' manifests or journals, counts
// the slow games as the run did: each game keeps that it was timed and
// each side's thinking.
func TestMergedReportCountsSlowGames(t *testing.T) {
	var games []ShardGame
	for i, n := range []int64{1e6, 1e6, 0.4e6, 1e6, 1e6, 1e6} {
		g := spedGame(i+1, n)
		g.Timed = true
		a, b := thinking(g)
		e := JournalEntry{Game: shardGameOf(g), ThinkingA: a, ThinkingB: b}
		games = append(games, e.shardGame())
	}
	text := replay("A", "B", nil, games).Text()
	if !strings.Contains(text, "Slow games: A 1 of 6") {
		t.Errorf("merged report:\n%s", text)
	}
	for i := range games {
		games[i].Timed = false
	}
	if text := replay("A", "B", nil, games).Text(); strings.Contains(text, "Slow games") {
		t.Errorf("a merged report of games without a clock counts slow games:\n%s", text)
	}
}
