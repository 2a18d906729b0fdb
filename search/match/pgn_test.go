package match_test

import (
	"bytes"
	"regexp"
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
