package board

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/dylhunn/dragontoothmg"
)

// parsedByDragontooth is how FromFEN built its board first: a FEN of the
// input's placement and side to move with b's validated castling rights,
// en-passant square and counters, read by dragontoothmg.ParseFen.
func parsedByDragontooth(fen string, b *Board) dragontoothmg.Board {
	fields := strings.Fields(fen)
	castling := ""
	for i, c := range "KQkq" {
		if b.castle&(1<<i) != 0 {
			castling += string(c)
		}
	}
	if castling == "" {
		castling = "-"
	}
	ep := "-"
	if b.ep != 0 {
		ep = SquareName(b.ep)
	}
	return dragontoothmg.ParseFen(fmt.Sprintf("%s %s %s %s %d %d", fields[0], fields[1], castling, ep, b.pos.Halfmoveclock, b.pos.Fullmoveno))
}

// dragontoothHash is the field of a dragontoothmg board that dchess never
// reads (its keys are its own, zobrist.go).
var dragontoothHash = regexp.MustCompile(`hash:\d+`)

// positionOf prints every field of a dragontoothmg board, unexported ones
// included, but its hash.
func positionOf(pos dragontoothmg.Board) string {
	return dragontoothHash.ReplaceAllString(fmt.Sprintf("%+v", pos), "")
}

// FuzzFromFEN: no string panics the parser or the move generator, a
// position that parses is the board dragontoothmg.ParseFen makes of it and
// writes a FEN that parses to the same position; every legal move made and
// unmade gives the position back.
func FuzzFromFEN(f *testing.F) {
	for _, fen := range []string{
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -",
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
		"8/P6k/8/8/8/8/8/K7 w - - 0 1",
		"", "k7/8/8/8/8/8/8/7K b - - 300 9999999999",
	} {
		f.Add(fen)
	}
	f.Fuzz(func(t *testing.T, fen string) {
		b, err := FromFEN(fen)
		if err != nil {
			return
		}
		out := b.FEN()
		again, err := FromFEN(out)
		if err != nil {
			t.Fatalf("FromFEN(%q) wrote %q, which does not parse: %v", fen, out, err)
		}
		if again.FEN() != out || again.Key() != b.Key() {
			t.Fatalf("%q -> %q -> %q (keys %x, %x)", fen, out, again.FEN(), b.Key(), again.Key())
		}
		if got, want := positionOf(b.pos), positionOf(parsedByDragontooth(fen, b)); got != want {
			t.Fatalf("%q: the board holds %s; dragontoothmg.ParseFen reads %s", fen, got, want)
		}
		key := b.Key()
		for _, m := range b.LegalMoves() {
			b.Make(m)
			b.LegalMoves()
			b.Unmake()
			if b.Key() != key || b.FEN() != out {
				t.Fatalf("%q: %v made and unmade gives %q", out, m, b.FEN())
			}
		}
	})
}
