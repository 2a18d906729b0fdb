package search

import (
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

func TestStaticExchangeEvaluation(t *testing.T) {
	cases := []struct {
		name, fen, move string
		want            int
	}{
		{"pawn takes undefended knight", "4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 320},
		{"knight takes pawn guarded by a pawn", "4k3/8/2p5/3p4/8/4N3/8/4K3 w - - 0 1", "e3d5", 100 - 320},
		{"rook takes pawn guarded by a rook, second rook behind", "3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100 - 500 + 500},
		{"queen takes defended pawn and is lost", "4k3/4p3/3p4/8/8/8/8/3QK3 w - - 0 1", "d1d6", 100 - 900},
		{"queen behind the bishop joins in (x-ray)", "4r1k1/8/8/4p3/8/2B5/1Q6/4K3 w - - 0 1", "c3e5", 100},
		{"en passant", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100},
		{"king recaptures an undefended piece", "k7/8/8/8/8/8/3q4/4RK2 b - - 0 1", "d2e1", 500 - 900},
		{"king may not recapture a piece the x-ray defends", "k7/8/8/8/1b6/8/3q4/4RK2 b - - 0 1", "d2e1", 500},
	}
	for _, c := range cases {
		b, err := board.FromFEN(c.fen)
		if err != nil {
			t.Fatal(c.name, err)
		}
		m, err := b.ParseUCI(c.move)
		if err != nil {
			t.Fatal(c.name, err)
		}
		if got := see(b, m); got != c.want {
			t.Errorf("%s: see %s = %d, want %d", c.name, c.move, got, c.want)
		}
	}
}
