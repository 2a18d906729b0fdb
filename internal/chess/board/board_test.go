package board

import (
	"reflect"
	"strings"
	"testing"

	"github.com/notnil/chess"
)

func mustFEN(t *testing.T, fen string) *Board {
	t.Helper()
	b, err := FromFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func play(t *testing.T, b *Board, sans ...string) {
	t.Helper()
	for _, s := range sans {
		m, err := b.ParseSAN(s)
		if err != nil {
			t.Fatalf("%s in %s: %v", s, b.FEN(), err)
		}
		b.Make(m)
	}
}

func TestFENRoundTrip(t *testing.T) {
	for _, fen := range []string{
		StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"rnbqkbnr/pp1ppppp/8/2pP4/8/8/PPP1PPPP/RNBQKBNR w KQkq c6 0 3",
		"4k3/8/8/8/8/8/8/4K3 b - - 99 120",
	} {
		if got := mustFEN(t, fen).FEN(); got != fen {
			t.Errorf("round trip\n got %s\nwant %s", got, fen)
		}
	}
}

func TestFENRejectsBadInput(t *testing.T) {
	for _, fen := range []string{
		"",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",          // 7 ranks
		"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", // 9 squares
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w KQkq - 0 1", // no white king
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkz - 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e5 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
		"4k3/8/8/8/8/8/8/4K2r w - - 0 1 extra",
		"4k2R/8/8/8/8/8/8/4K3 w - - 0 1", // black, not to move, in check
		"P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
		// En-passant squares no double push can have made: no pawn in
		// front, the wrong side to move, the square or the start occupied.
		"4k3/8/8/8/8/8/8/4K3 w - d6 0 2",
		"4k3/8/8/3p4/8/8/8/4K3 b - d6 0 2",
		"4k3/3p4/8/3p4/8/8/8/4K3 w - d6 0 2",
		"4k3/8/3n4/3p4/8/8/8/4K3 w - d6 0 2",
		"4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1",
	} {
		if _, err := FromFEN(fen); err == nil {
			t.Errorf("FromFEN(%q) accepted", fen)
		}
	}
}

func TestFENDropsUnsupportedRightsAndEnPassant(t *testing.T) {
	// Castling rights without the rook, and an e.p. square no pawn can use
	// (but a double push made).
	b := mustFEN(t, "4k3/8/8/3pP3/8/8/8/R3K3 w KQkq d6 0 2")
	if got, want := b.FEN(), "4k3/8/8/3pP3/8/8/8/R3K3 w Q d6 0 2"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
	b = mustFEN(t, "4k3/8/8/3p4/8/8/8/4K3 w - d6 0 2")
	if got, want := b.FEN(), "4k3/8/8/3p4/8/8/8/4K3 w - - 0 2"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

func TestSANParseAndWrite(t *testing.T) {
	b := mustFEN(t, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	cases := map[string]string{
		"O-O": "e1g1", "0-0-0": "e1c1", "Nxf7": "e5f7", "Qxf6+": "f3f6", "dxe6": "d5e6",
		"Bxa6": "e2a6", "Nb5": "c3b5", "Rb1": "a1b1", "gxh3": "g2h3",
	}
	for san, uci := range cases {
		m, err := b.ParseSAN(san)
		if err != nil {
			t.Errorf("%s: %v", san, err)
			continue
		}
		if m.String() != uci {
			t.Errorf("%s parsed as %s, want %s", san, UCI(m), uci)
		}
	}
	for _, bad := range []string{"", "Ke3", "Nf9", "Qxh8", "e5", "O-O-O-O", "Zz4", "x"} {
		if _, err := b.ParseSAN(bad); err == nil {
			t.Errorf("ParseSAN(%q) accepted", bad)
		}
	}
	// Disambiguation, promotion and mate when writing.
	b = mustFEN(t, "6k1/1P6/8/8/8/8/R6R/K7 w - - 0 1")
	want := map[string]string{"a2d2": "Rad2", "h2d2": "Rhd2", "b7b8q": "b8=Q+", "h2g2": "Rhg2+", "b7b8n": "b8=N"}
	for uci, san := range want {
		m, err := b.ParseUCI(uci)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.SAN(m); got != san {
			t.Errorf("SAN(%s) = %s, want %s", uci, got, san)
		}
		if back, err := b.ParseSAN(san); err != nil || back != m {
			t.Errorf("ParseSAN(%s) = %v, %v", san, back, err)
		}
	}
	b = mustFEN(t, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
	m, _ := b.ParseUCI("a1a8")
	if got := b.SAN(m); got != "Ra8#" {
		t.Errorf("mate written as %s", got)
	}
	b = mustFEN(t, "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1")
	if m, err := b.ParseSAN("Nd2"); err == nil {
		t.Errorf("ambiguous Nd2 parsed as %s", UCI(m))
	}
	if m, err := b.ParseSAN("Nbd2"); err != nil || m.String() != "b1d2" {
		t.Errorf("Nbd2: %v %v", m, err)
	}
}

func TestCastlingRightsFollowMoves(t *testing.T) {
	b := mustFEN(t, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
	play(t, b, "Rxa8+")
	if got := b.Castling(); got != "Kk" {
		t.Errorf("after Rxa8 rights %s, want Kk", got)
	}
	b.Unmake()
	if got := b.Castling(); got != "KQkq" {
		t.Errorf("after unmake rights %s", got)
	}
	play(t, b, "Kf1")
	if got := b.Castling(); got != "kq" {
		t.Errorf("after Kf1 rights %s", got)
	}
}

func TestRepetitionAfterDoublePush(t *testing.T) {
	// The position after 1.e4 (e.p. square set but unusable) recurs after
	// knight moves; the rule says it is the same position.
	b := New()
	play(t, b, "e4", "Nf6", "Nf3", "Ng8", "Ng1", "Nf6", "Nf3", "Ng8", "Ng1")
	if got := b.Repetitions(); got != 3 {
		t.Fatalf("repetitions %d, want 3", got)
	}
	if b.Status() != Repetition {
		t.Errorf("status %v", b.Status())
	}
}

func TestStatus(t *testing.T) {
	cases := map[string]Outcome{
		"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1":    Stalemate,
		"7k/6Q1/6K1/8/8/8/8/8 b - - 0 1":    Checkmate,
		"7k/8/6K1/8/8/8/8/2B5 b - - 0 1":    InsufficientMaterial,
		"7k/8/6K1/8/8/8/b7/2B5 b - - 0 1":   NotOver, // bishops on both colours
		"7k/8/6K1/8/8/8/1b6/2B5 b - - 0 1":  InsufficientMaterial,
		"7k/8/6K1/8/8/8/8/2R5 b - - 100 80": FiftyMoves,
		StartFEN:                            NotOver,
	}
	for fen, want := range cases {
		if got := mustFEN(t, fen).Status(); got != want {
			t.Errorf("%s: %v, want %v", fen, got, want)
		}
	}
}

func TestPerftKnownCounts(t *testing.T) {
	cases := []struct {
		fen   string
		depth int
		nodes int64
	}{
		{StartFEN, 4, 197281},
		{"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97862},
		{"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43238},
	}
	for _, c := range cases {
		if got := mustFEN(t, c.fen).Perft(c.depth); got != c.nodes {
			t.Errorf("perft(%d) of %s = %d, want %d", c.depth, c.fen, got, c.nodes)
		}
	}
}

func TestKeyMatchesFreshBoard(t *testing.T) {
	b := New()
	play(t, b, "e4", "c5", "e5", "d5", "exd6", "Qxd6", "Nf3", "Nc6", "Bb5", "Bd7", "O-O", "O-O-O")
	fresh := mustFEN(t, b.FEN())
	if b.Key() != fresh.Key() {
		t.Errorf("incremental key %x differs from fresh %x for %s", b.Key(), fresh.Key(), b.FEN())
	}
}

func TestAgreesWithNotnilOnGames(t *testing.T) {
	pgn := `1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 19. exd6 Qf6 20. Nbd2 Nxd6 21. Nc4 Nxc4 22. Bxc4 Nb6 23. Ne5 Rae8 24. Bxf7+ Rxf7 25. Nxf7 Rxe1+ 26. Qxe1 Kxf7 27. Qe3 Qg5 28. Qxg5 hxg5 29. b3 Ke6 30. a3 Kd6 31. axb4 cxb4 32. Ra5 Nd5 33. f3 Bc8 34. Kf2 Bf5 35. Ra7 g6 36. Ra6+ Kc5 37. Ke1 Nf4 38. g3 Nxh3 39. Kd2 Kb5 40. Rd6 Kc5 41. Ra6 Nf2 42. g4 Bd3 43. Re6 1/2-1/2`
	game := chess.NewGame()
	opt, err := chess.PGN(strings.NewReader(pgn))
	if err != nil {
		t.Fatal(err)
	}
	opt(game)
	b := New()
	positions := game.Positions()
	for i, m := range game.Moves() {
		our, err := FromChess(positions[i])
		if err != nil {
			t.Fatal(err)
		}
		if our.FEN() != b.FEN() {
			t.Fatalf("ply %d: %s vs %s", i, our.FEN(), b.FEN())
		}
		san := chess.AlgebraicNotation{}.Encode(positions[i], m)
		mv, err := b.ParseSAN(san)
		if err != nil {
			t.Fatalf("ply %d %s: %v", i, san, err)
		}
		if got := b.SAN(mv); got != san {
			t.Errorf("ply %d: SAN %s, notnil %s", i, got, san)
		}
		b.Make(mv)
	}
	back, err := b.ToChess()
	if err != nil || back.String() != game.Position().String() {
		t.Errorf("final position %v vs %s (%v)", back, game.Position(), err)
	}
}

func TestNullMove(t *testing.T) {
	b := New()
	play(t, b, "e4")
	if b.NullMoveAllowed() {
		t.Fatal("null move allowed right after a double push")
	}
	play(t, b, "Nf6")
	if !b.NullMoveAllowed() {
		t.Fatal("null move refused after a knight move")
	}
	key, fen := b.Key(), b.FEN()
	b.MakeNull()
	if b.SideToMove() != Black {
		t.Fatal("null move did not pass the turn")
	}
	want := mustFEN(t, "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2")
	if b.Key() != want.Key() {
		t.Errorf("key after null move %x, want the fresh board's %x", b.Key(), want.Key())
	}
	if got, n := len(b.LegalMoves()), len(want.LegalMoves()); got != n {
		t.Errorf("%d moves for Black after the null move, want %d", got, n)
	}
	b.Unmake()
	if b.Key() != key || b.FEN() != fen {
		t.Errorf("unmake of the null move gave %s", b.FEN())
	}
}

func TestAttackersTo(t *testing.T) {
	// d5 is attacked by Pe4, Nc3, Bb3 (through nothing) and the queen on d1
	// only once the rook on d2 is gone; Black's pawn c6 and rook d8 defend.
	b := mustFEN(t, "3rk3/8/2p5/3p4/4P3/1BN5/3R4/3QK3 w - - 0 1")
	sq := uint8(3 + 4*8)
	want := uint64(1)<<28 | 1<<18 | 1<<17 | 1<<11 | 1<<42 | 1<<59
	if got := b.AttackersTo(sq, b.Occupied()); got != want {
		t.Errorf("attackers of d5 %x, want %x", got, want)
	}
	if got := b.AttackersTo(sq, b.Occupied()&^(1<<11)); got != want&^(1<<11)|1<<3 {
		t.Errorf("attackers of d5 without the rook %x, want the queen behind it", got)
	}
}

// walkSuites calls visit for every legal move to depth plies from every
// position of the shared perft suites, where castling, en passant and
// promotions all occur. visit gets the board before the move and must
// leave it as it found it.
func walkSuites(t *testing.T, depth int, visit func(b *Board, m Move)) {
	var walk func(b *Board, depth int)
	walk = func(b *Board, depth int) {
		for _, m := range b.LegalMoves() {
			visit(b, m)
			if depth > 1 {
				b.Make(m)
				walk(b, depth-1)
				b.Unmake()
			}
		}
	}
	for _, cases := range loadSuites(t) {
		for _, c := range cases {
			walk(mustFEN(t, c.FEN), depth)
		}
	}
}

// TestIncrementalKey checks the key Make updates against one computed
// from scratch, for every move to depth 2 of the perft suites.
func TestIncrementalKey(t *testing.T) {
	walkSuites(t, 2, func(b *Board, m Move) {
		b.Make(m)
		if got, want := b.Key(), b.computeKey(); got != want {
			t.Fatalf("after %s the key is %x, computed %x (%s)", UCI(m), got, want, b.FEN())
		}
		b.Unmake()
	})
}

// TestMayGiveCheck plays every move to depth 2 of the perft suites: a
// move MayGiveCheck rules out must not check, and most moves that do not
// check must be ruled out.
func TestMayGiveCheck(t *testing.T) {
	var ruledOut, quietTotal int
	walkSuites(t, 2, func(b *Board, m Move) {
		may := b.MayGiveCheck(m)
		b.Make(m)
		check := b.InCheck()
		if check && !may {
			t.Fatalf("%s gives check in %s, MayGiveCheck said no", UCI(m), b.FEN())
		}
		if !check {
			quietTotal++
			if !may {
				ruledOut++
			}
		}
		b.Unmake()
	})
	if ruledOut < quietTotal*3/4 {
		t.Errorf("only %d of %d non-checking moves ruled out", ruledOut, quietTotal)
	}
}

// TestMakeAgreesWithApply plays every move to depth 2 of the perft suites
// both with Make and with dragontoothmg's Apply: every field of
// dragontoothmg's board must be the same, its unexported castling rights
// and en-passant square included, except its hash, which dchess does not
// use.
func TestMakeAgreesWithApply(t *testing.T) {
	walkSuites(t, 2, func(b *Board, m Move) {
		want := b.pos
		want.Apply(m)
		b.Make(m)
		got := b.pos
		b.Unmake()
		if got.White != want.White || got.Black != want.Black || got.Wtomove != want.Wtomove ||
			got.Halfmoveclock != want.Halfmoveclock || got.Fullmoveno != want.Fullmoveno {
			t.Fatalf("%s after %s: Make gives %+v, Apply %+v", b.FEN(), UCI(m), got, want)
		}
		for _, name := range []string{"enpassant", "castlerights"} {
			// reflect reads unexported fields; nothing else can.
			g, w := reflect.ValueOf(got).FieldByName(name).Uint(), reflect.ValueOf(want).FieldByName(name).Uint()
			if g != w {
				t.Fatalf("%s after %s: Make leaves %s = %d, Apply %d", b.FEN(), UCI(m), name, g, w)
			}
		}
	})
}
