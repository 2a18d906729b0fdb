package endgame

import (
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

func mustFEN(t *testing.T, fen string) *board.Board {
	t.Helper()
	b, err := board.FromFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flip is fen with the colours swapped and the board turned over (no
// castling or en passant in these positions): the same position for the
// other side, whose score from the side to move's view is the same.
func flip(fen string) string {
	f := strings.Fields(fen)
	ranks := strings.Split(f[0], "/")
	for i, j := 0, len(ranks)-1; i < j; i, j = i+1, j-1 {
		ranks[i], ranks[j] = ranks[j], ranks[i]
	}
	placement := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return r
	}, strings.Join(ranks, "/"))
	stm := "w"
	if f[1] == "w" {
		stm = "b"
	}
	return placement + " " + stm + " " + strings.Join(f[2:], " ")
}

// known checks Known on fen and on its colour-flipped twin.
func known(t *testing.T, fen string) (int, bool) {
	t.Helper()
	s, ok := Known(mustFEN(t, fen))
	if s2, ok2 := Known(mustFEN(t, flip(fen))); s2 != s || ok2 != ok {
		t.Errorf("%s: %d %v, but %d %v with the colours swapped", fen, s, ok, s2, ok2)
	}
	return s, ok
}

func TestKnownLoneKing(t *testing.T) {
	for _, c := range []struct {
		fen string
		won bool // the side to move wins; else it loses
	}{
		{"8/8/8/4k3/8/8/8/KQ6 w - - 0 1", true},
		{"8/8/8/4k3/8/8/8/KQ6 b - - 0 1", false},
		{"8/8/8/3k4/8/8/8/R3K3 w - - 0 1", true},
		{"8/8/8/4k3/8/8/8/1NB1K3 b - - 0 1", false},
		{"8/8/8/4k3/8/8/8/2BBK3 w - - 0 1", true}, // bishops of both colours
		{"8/8/8/4k3/8/8/PPP5/R3K3 b - - 0 1", false},
	} {
		s, ok := known(t, c.fen)
		if !ok || c.won != (s > KnownWin) || !c.won && s >= -KnownWin {
			t.Errorf("%s: %d %v, want a known %s", c.fen, s, ok, map[bool]string{true: "win", false: "loss"}[c.won])
		}
	}
	for _, fen := range []string{
		"8/8/8/4k3/8/8/8/1N2K3 w - - 0 1",   // knight
		"8/8/8/4k3/8/8/8/1NN1K3 w - - 0 1",  // two knights cannot force mate
		"8/8/8/4k3/8/8/8/2B1K1B1 w - - 0 1", // bishops of one colour
		"8/8/8/4k3/8/8/1P6/2B1K3 w - - 0 1", // bishop and pawn: the wrong rook pawn's draws and more
		"8/8/8/4k3/8/8/PP6/4K3 w - - 0 1",   // pawns
		"8/8/8/4k3/8/8/8/KQ5r w - - 0 1",    // both sides have material
		board.StartFEN,
	} {
		if s, ok := known(t, fen); ok {
			t.Errorf("%s: known as %d", fen, s)
		}
	}
	// Stalemate is a draw, however much the winner has.
	if s, ok := known(t, "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"); !ok || s != 0 {
		t.Errorf("stalemate: %d %v, want a known 0", s, ok)
	}
}

// TestKnownMakesProgress: among won positions the score rises with the
// winner's material, and as the lone king nears the edge (a corner of
// the bishop's colour with bishop and knight) and the winning king nears
// it, which is what a search steers by. The lone king is to move.
func TestKnownMakesProgress(t *testing.T) {
	for _, c := range []struct{ better, worse string }{
		{"8/8/8/4k3/8/8/8/KQ6 b - - 0 1", "8/8/8/4k3/8/8/8/KR6 b - - 0 1"},
		{"8/8/8/4k3/8/8/8/KQ6 b - - 0 1", "8/P7/8/4k3/8/8/8/K7 b - - 0 1"}, // a queen above a pawn about to queen
		{"4k3/8/4K3/8/8/8/Q7/8 b - - 0 1", "8/8/8/4k3/8/4K3/Q7/8 b - - 0 1"},
		{"8/8/8/4k3/8/4K3/8/1Q6 b - - 0 1", "8/8/8/4k3/8/8/8/KQ6 b - - 0 1"},
		{"7k/8/8/8/8/8/8/1NB1K3 b - - 0 1", "k7/8/8/8/8/8/8/1NB1K3 b - - 0 1"}, // dark bishop: h8, not a8
		{"k7/8/8/8/8/8/8/1N1BK3 b - - 0 1", "7k/8/8/8/8/8/8/1N1BK3 b - - 0 1"}, // light bishop: a8, not h8
	} {
		better, ok1 := known(t, c.better)
		worse, ok2 := known(t, c.worse)
		if !ok1 || !ok2 || -better <= -worse {
			t.Errorf("%s scores %d %v for the winner, no more than %s's %d %v", c.better, -better, ok1, c.worse, -worse, ok2)
		}
	}
}

// TestKPK compares the bitbase with Stockfish 15.1, which scored these as
// draws (within ±60 cp) or wins (+300 cp or more for the pawn's side): 16
// positions drawn at random, at depth 22 (the bitbase agreed on all 300
// drawn), and three of the endings the nnue tests play, at depth 24 to 26.
func TestKPK(t *testing.T) {
	for _, c := range []struct {
		fen string
		won bool // White wins; else a draw
	}{
		{"1k6/3K4/1P6/8/8/8/8/8 w - - 0 1", false},
		{"8/4K3/6k1/5P2/8/8/8/8 b - - 0 1", false},
		{"8/1K6/8/8/8/3k4/5P2/8 w - - 0 1", false},
		{"2k5/8/K7/8/8/8/6P1/8 w - - 0 1", false},
		{"1k6/8/P7/8/8/8/8/7K w - - 0 1", false},
		{"8/8/3K2P1/7k/8/8/8/8 b - - 0 1", false},
		{"1k6/8/8/8/4P3/1K6/8/8 b - - 0 1", false},
		{"k7/8/8/8/8/4P3/8/2K5 b - - 0 1", false},
		{"8/8/8/4k3/8/4K3/4P3/8 w - - 0 1", false},
		{"2k3K1/8/4P3/8/8/8/8/8 b - - 0 1", true},
		{"8/8/6P1/8/8/1K6/6k1/8 w - - 0 1", true},
		{"8/8/7K/P7/1k6/8/8/8 w - - 0 1", true},
		{"8/P7/7k/8/8/3K4/8/8 b - - 0 1", true},
		{"8/8/8/8/5P2/1k6/8/2K5 w - - 0 1", true},
		{"8/7P/8/5k2/3K4/8/8/8 b - - 0 1", true},
		{"8/8/8/2P5/8/8/3K3k/8 w - - 0 1", true},
		{"8/8/8/8/6P1/3K4/5k2/8 w - - 0 1", true},
		{"8/8/8/4k3/8/4K3/4P3/8 b - - 0 1", true},
		{"8/8/4k3/8/4K3/8/4P3/8 w - - 0 1", true},
	} {
		s, ok := known(t, c.fen)
		if mustFEN(t, c.fen).SideToMove() == board.Black {
			s = -s
		}
		if !ok || c.won != (s > KnownWin) || !c.won && s != 0 {
			t.Errorf("%s: %d %v, want a known %s", c.fen, s, ok, map[bool]string{true: "win", false: "draw"}[c.won])
		}
	}
}

func TestDecisive(t *testing.T) {
	for fen, want := range map[string]int{
		board.StartFEN:                           0,
		"Q7/5pk1/6p1/7p/8/6P1/5PKP/8 w - - 0 1":  400,
		"Q7/5pk1/6p1/7p/8/6P1/5PKP/8 b - - 0 1":  -400,
		"QQ6/5pk1/6p1/7p/8/8/5PKP/8 b - - 0 1":   -1200,
		"8/5pk1/6p1/7p/3R4/6P1/5PKP/8 b - - 0 1": 0, // a rook is not decisive
		"8/P4pk1/6p1/7p/8/6P1/5PKP/8 b - - 0 1":  0,
		// The side behind has a piece: the network is left alone.
		"QR6/5pk1/6p1/7p/8/6P1/n4PKP/8 w - - 0 1":                  0,
		"rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1": 0,
	} {
		if got := Decisive(mustFEN(t, fen)); got != want {
			t.Errorf("%s: %d, want %d", fen, got, want)
		}
	}
}
