package match_test

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

// chess.js 1.4.0 rejects a game whose last move has two comments in a row
// ("Qh4# {+M1/1 0.000s} {Black mates} 0-1"): the termination reason must
// share the last move's comment.
func TestWritePGNEndsWithOneComment(t *testing.T) {
	scored := func(uci, san string, score, mate int) match.PlayedMove {
		return match.PlayedMove{UCI: uci, SAN: san, Elapsed: time.Millisecond,
			Info: player.MoveInfo{Move: uci, HasScore: true, Score: score, Mate: mate, Depth: 1}}
	}
	unscored := func(uci, san string) match.PlayedMove { return match.PlayedMove{UCI: uci, SAN: san} }
	const start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	for _, tc := range []struct {
		name  string
		moves []match.PlayedMove
		want  string
	}{
		{"scored last move", []match.PlayedMove{scored("f2f3", "f3", -20, 0), scored("e7e5", "e5", 30, 0),
			scored("g2g4", "g4", -900, 0), scored("d8h4", "Qh4#", 32000, 1)},
			"1. f3 {-0.20/1 0.001s} e5 {+0.30/1 0.001s} 2. g4 {-9.00/1 0.001s} Qh4# {+M1/1 0.001s, Black mates} 0-1\n"},
		{"unscored last move", []match.PlayedMove{unscored("f2f3", "f3"), unscored("e7e5", "e5"),
			unscored("g2g4", "g4"), unscored("d8h4", "Qh4#")},
			"1. f3 e5 2. g4 Qh4# {Black mates} 0-1\n"},
	} {
		var b bytes.Buffer
		g := match.GameResult{Number: 1, Opening: match.Opening{FEN: start}, White: "w", Black: "b",
			Result: "0-1", Termination: match.TermCheckmate, Reason: "Black mates", Moves: tc.moves}
		if err := match.WritePGN(&b, g, "test", "-"); err != nil {
			t.Fatal(err)
		}
		movetext := b.String()[strings.Index(b.String(), "\n\n")+2:]
		// Lines wrap under 80 characters; compare the tokens.
		if strings.Join(strings.Fields(movetext), " ") != strings.TrimSpace(tc.want) {
			t.Errorf("%s: movetext\n%s\nwant\n%s", tc.name, movetext, tc.want)
		}
		if games := readBack(t, b.String()); len(games) != 1 || len(games[0].Moves()) != 4 || games[0].Outcome() != "0-1" {
			t.Errorf("%s: notnil/chess reads %v", tc.name, games)
		}
	}
}

// TestWritePGNTagsAreLegal: a name with a newline or a tab (an engine's
// "id name", say) would end a tag line in the middle, and readers, dchess
// ingest among them, refuse the game. Every tag is one line of printable
// characters, with \ and " escaped.
func TestWritePGNTagsAreLegal(t *testing.T) {
	const start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	g := match.GameResult{Number: 1, Opening: match.Opening{FEN: start}, White: "two\nlines", Black: "tab\tbed \\ \"quoted\"\r",
		Result: "1-0", Termination: match.TermIllegalMove, Reason: "Black makes an illegal move: a1a1",
		Moves: []match.PlayedMove{{UCI: "e2e4", SAN: "e4"}}}
	var b bytes.Buffer
	if err := match.WritePGN(&b, g, "event\x00\x1b[31m", "-"); err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(b.String(), "\n\n")
	legal := regexp.MustCompile(`^\[[A-Za-z]+ "([^"\\\x00-\x1f\x7f]|\\["\\])*"\]$`)
	for _, line := range strings.Split(header, "\n") {
		if !legal.MatchString(line) {
			t.Errorf("tag line %q is not a legal PGN tag", line)
		}
	}
	for _, want := range []string{`[White "two lines"]`, `[Black "tab bed \\ \"quoted\""]`, `[Event "event  [31m"]`} {
		if !strings.Contains(header, want) {
			t.Errorf("header lacks %s:\n%s", want, header)
		}
	}
	if games := readBack(t, b.String()); len(games) != 1 || games[0].GetTagPair("White") == nil || games[0].GetTagPair("White").Value != "two lines" {
		t.Errorf("notnil/chess reads %v", games)
	}
}

// A game on a clock: each move's comment ends with the mover's time left
// ([%clk], as Lichess writes it), a move without a score has the clock
// alone, and with PGNTimes the tags say when the game started and ended
// and how long it took, as cutechess-cli writes them.
func TestWritePGNClockAndGameTimes(t *testing.T) {
	const start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	clocked := func(uci, san string, score int, left time.Duration) match.PlayedMove {
		m := match.PlayedMove{UCI: uci, SAN: san, Elapsed: 250 * time.Millisecond, Clock: left, HasClock: true}
		if score != 0 {
			m.Info = player.MoveInfo{Move: uci, HasScore: true, Score: score, Depth: 8}
		}
		return m
	}
	began := time.Date(2026, 12, 4, 21, 0, 0, 123e6, time.FixedZone("CET", 3600))
	g := match.GameResult{Number: 1, Opening: match.Opening{FEN: start}, White: "w", Black: "b", Result: "0-1",
		Termination: match.TermCheckmate, Reason: "Black mates", Start: began, End: began.Add(83*time.Second + 400*time.Millisecond),
		PGNTimes: true, Moves: []match.PlayedMove{
			clocked("f2f3", "f3", 35, 9870*time.Millisecond), clocked("e7e5", "e5", 0, 3723*time.Second+50*time.Millisecond),
			clocked("g2g4", "g4", -900, 0), clocked("d8h4", "Qh4#", 32000, -20*time.Millisecond)}}
	g.Moves[3].Info.Mate = 1
	var b bytes.Buffer
	if err := match.WritePGN(&b, g, "test", "10+0.1"); err != nil {
		t.Fatal(err)
	}
	header, movetext, _ := strings.Cut(b.String(), "\n\n")
	wantTags := `[Result "0-1"]
[GameDuration "00:01:23"]
[GameEndTime "2026-12-04T20:01:23.523 UTC"]
[GameStartTime "2026-12-04T20:00:00.123 UTC"]
[Termination "normal"]`
	if !strings.Contains(header, wantTags) {
		t.Errorf("tags\n%s\nlack\n%s", header, wantTags)
	}
	want := "1. f3 {+0.35/8 0.250s [%clk 0:00:09.8]} e5 {[%clk 1:02:03.0]} 2. g4 {-9.00/8 0.250s [%clk 0:00:00.0]} " +
		"Qh4# {+M1/8 0.250s [%clk 0:00:00.0], Black mates} 0-1"
	if got := strings.Join(strings.Fields(movetext), " "); got != want {
		t.Errorf("movetext\n%s\nwant\n%s", got, want)
	}
	if games := readBack(t, b.String()); len(games) != 1 || len(games[0].Moves()) != 4 || games[0].Outcome() != "0-1" {
		t.Errorf("notnil/chess reads %v", games)
	}
	// Without PGNTimes, or for a game with no end (dchess play's), no time tags.
	for _, g := range []match.GameResult{{Start: began, End: began.Add(time.Second)}, {Start: began, PGNTimes: true}} {
		g.Opening, g.Result, g.Termination = match.Opening{FEN: start}, "*", match.TermCrash
		b.Reset()
		if err := match.WritePGN(&b, g, "test", "-"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "GameStartTime") || strings.Contains(b.String(), "GameDuration") {
			t.Errorf("time tags without PGNTimes and an end:\n%s", b.String())
		}
	}
}

// A match on a clock writes every move's clock, no more than the time the
// control gives; one bounded by depth writes none, and with PGNTimes every
// game has its time tags.
func TestMatchPGNClocks(t *testing.T) {
	tc, err := match.ParseTimeControl("10+0.1")
	if err != nil {
		t.Fatal(err)
	}
	clk := regexp.MustCompile(`\[%clk (\d+):(\d\d):(\d\d)\.(\d)\]`)
	for _, clocked := range []bool{true, false} {
		var pgn bytes.Buffer
		cfg := match.Config{A: specEntrant(t, "heuristic:depth=1"), B: specEntrant(t, "random"), Games: 2, MaxMoves: 8,
			PGN: &pgn, PGNTimes: true}
		if clocked {
			cfg.TimeControl = &tc
		} else {
			cfg.Depth = 1
		}
		if _, err := match.Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		text := pgn.String()
		moves := 0
		for _, g := range readBack(t, text) {
			moves += len(g.Moves())
		}
		found := clk.FindAllStringSubmatch(text, -1)
		if clocked && len(found) != moves || !clocked && len(found) != 0 {
			t.Errorf("clock %v: %d [%%clk] comments for %d moves:\n%s", clocked, len(found), moves, text)
		}
		// A side's clock starts at 10 s and gains at most the 0.1 s
		// increment a move (in tenths: a clock is rounded down).
		for _, game := range strings.Split(text, "[Event ")[1:] {
			last := [2]int{100, 100}
			for i, m := range clk.FindAllStringSubmatch(game, -1) {
				h, _ := strconv.Atoi(m[1])
				mm, _ := strconv.Atoi(m[2])
				ss, _ := strconv.Atoi(m[3])
				d, _ := strconv.Atoi(m[4])
				tenths := ((h*60+mm)*60+ss)*10 + d
				if tenths > last[i%2]+1 {
					t.Errorf("%s after %d tenths: more than the increment came back", m[0], last[i%2])
				}
				last[i%2] = tenths
			}
		}
		if n := strings.Count(text, "[GameStartTime "); n != 2 || strings.Count(text, "[GameDuration \"00:00:") != 2 {
			t.Errorf("clock %v: %d games with GameStartTime, want 2:\n%s", clocked, n, text)
		}
	}
}
