package match_test

import (
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search/match"
)

// TestRulesEnd checks the result, termination and reason of every ending
// by the rules, the words match's PGNs and dchess play both print.
func TestRulesEnd(t *testing.T) {
	for _, c := range []struct {
		fen, moves                  string
		outcome                     board.Outcome
		result, termination, reason string
	}{
		{"rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "",
			board.Checkmate, "0-1", match.TermCheckmate, "Black mates"},
		{"r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4", "",
			board.Checkmate, "1-0", match.TermCheckmate, "White mates"},
		{"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "",
			board.Stalemate, "1/2-1/2", match.TermStalemate, "Draw by stalemate"},
		{"8/8/8/4k3/8/8/8/R3K3 w - - 100 80", "",
			board.FiftyMoves, "1/2-1/2", match.TermFiftyMoves, "Draw by fifty moves rule"},
		{"", "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8",
			board.Repetition, "1/2-1/2", match.TermRepetition, "Draw by 3-fold repetition"},
		{"8/8/8/4k3/8/8/8/4K3 w - - 0 1", "",
			board.InsufficientMaterial, "1/2-1/2", match.TermInsufficient, "Draw by insufficient mating material"},
	} {
		b := board.New()
		if c.fen != "" {
			var err error
			if b, err = board.FromFEN(c.fen); err != nil {
				t.Fatal(err)
			}
		}
		for _, uci := range strings.Fields(c.moves) {
			m, err := b.ParseUCI(uci)
			if err != nil {
				t.Fatal(err)
			}
			b.Make(m)
		}
		if st := b.Status(); st != c.outcome {
			t.Fatalf("%s %s: status %v, want %v", c.fen, c.moves, st, c.outcome)
		}
		result, term, reason := match.RulesEnd(b, c.outcome)
		if result != c.result || term != c.termination || reason != c.reason {
			t.Errorf("%v: %q %q %q, want %q %q %q", c.outcome, result, term, reason, c.result, c.termination, c.reason)
		}
	}
}
