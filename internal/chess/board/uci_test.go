package board

import "testing"

// uciByString is ParseUCI as it was written first: the legal move whose
// dragontoothmg string is s. The faster ParseUCI must agree with it.
func uciByString(b *Board, s string) (Move, bool) {
	for _, m := range b.LegalMoves() {
		if m.String() == s {
			return m, true
		}
	}
	return NullMove, false
}

// FuzzParseUCI: for any position and any string, ParseUCI finds the move
// that formatting every legal move finds, or fails when that finds none;
// UCI writes each legal move as dragontoothmg does and parses back to it.
func FuzzParseUCI(f *testing.F) {
	for _, c := range []struct{ fen, move string }{
		{StartFEN, "e2e4"},
		{StartFEN, "e2e5"},
		{StartFEN, "g1f3q"},
		{"8/P6k/8/8/8/8/8/K7 w - - 0 1", "a7a8q"},
		{"8/P6k/8/8/8/8/8/K7 w - - 0 1", "a7a8Q"},
		{"8/P6k/8/8/8/8/8/K7 w - - 0 1", "a7a8"},
		{"8/P6k/8/8/8/8/8/K7 w - - 0 1", "a7a8k"},
		{"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "e1g1"},
		{"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "e5f6"},
		{StartFEN, "i2i4"},
		{StartFEN, "0000"},
	} {
		f.Add(c.fen, c.move)
	}
	f.Fuzz(func(t *testing.T, fen, s string) {
		b, err := FromFEN(fen)
		if err != nil {
			return
		}
		want, ok := uciByString(b, s)
		got, err := b.ParseUCI(s)
		if ok != (err == nil) || got != want {
			t.Fatalf("%s: ParseUCI(%q) = %v, %v; the legal moves' strings give %v, %v", fen, s, got, err, want, ok)
		}
		for _, m := range b.LegalMoves() {
			if UCI(m) != m.String() {
				t.Fatalf("%s: UCI(%v) = %q, dragontoothmg writes %q", fen, m, UCI(m), m.String())
			}
			if back, err := b.ParseUCI(UCI(m)); err != nil || back != m {
				t.Fatalf("%s: ParseUCI(%q) = %v, %v", fen, UCI(m), back, err)
			}
		}
	})
}

func TestUCIWritesTheNullMove(t *testing.T) {
	if got := UCI(NullMove); got != "0000" {
		t.Errorf("UCI(NullMove) = %q", got)
	}
}
