package heuristic

import (
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

func explain(t testing.TB, fen string) Breakdown {
	t.Helper()
	return explainWith(t, New(), fen)
}

// explainSeed explains with SeedWeights, for terms whose fitted weight
// could be zero and prove nothing.
func explainSeed(t testing.TB, fen string) Breakdown {
	t.Helper()
	return explainWith(t, WithWeights(SeedWeights()), fen)
}

func explainWith(t testing.TB, e *Evaluator, fen string) Breakdown {
	t.Helper()
	b, err := board.FromFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return e.Explain(b)
}

func evaluateFEN(t testing.TB, fen string) int {
	t.Helper()
	b, err := board.FromFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return New().Evaluate(b)
}

func TestMaterial(t *testing.T) {
	even := explain(t, "4k3/8/8/8/8/8/8/1N2K1n1 w - - 0 1")
	up := explain(t, "4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1")
	if even.Material.MG != 0 || up.Material.MG != 2*DefaultWeights.PieceValue[board.Knight][0] {
		t.Errorf("material even %+v, two knights up %+v", even.Material, up.Material)
	}
	if got := evaluateFEN(t, "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"); got < 800 {
		t.Errorf("a queen up scores %d for White to move", got)
	}
	if got := evaluateFEN(t, "4k3/8/8/8/8/8/8/Q3K3 b - - 0 1"); got > -800 {
		t.Errorf("a queen down scores %d for Black to move", got)
	}
}

func TestPieceSquare(t *testing.T) {
	centre := explain(t, "4k3/8/8/8/3N4/8/8/4K3 w - - 0 1")
	corner := explain(t, "4k3/8/8/8/8/8/8/N3K3 w - - 0 1")
	if centre.PieceSquare.Blended <= corner.PieceSquare.Blended {
		t.Errorf("knight on d4 %+v, on a1 %+v", centre.PieceSquare, corner.PieceSquare)
	}
	// Kings: sheltered in the middlegame, central in the endgame.
	sheltered := explain(t, "4k3/8/8/8/8/8/8/6K1 w - - 0 1").PieceSquare
	central := explain(t, "4k3/8/8/8/4K3/8/8/8 w - - 0 1").PieceSquare
	if sheltered.MG <= central.MG || sheltered.EG >= central.EG {
		t.Errorf("king g1 %+v, e4 %+v", sheltered, central)
	}
}

func TestPhase(t *testing.T) {
	cases := map[string]float64{
		board.StartFEN:                          1,
		"4k3/8/8/8/8/8/8/4K3 w - - 0 1":         0,
		"4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1": 0,
		"4k3/8/8/8/8/8/8/R3K3 w - - 0 1":        2.0 / 24,
		"3qk3/8/8/8/8/8/8/3QK3 w - - 0 1":       8.0 / 24,
	}
	for fen, want := range cases {
		if got := explain(t, fen).Phase; got != want {
			t.Errorf("%s: phase %v, want %v", fen, got, want)
		}
	}
}

func TestIsolatedPawns(t *testing.T) {
	// Black pawns on c7-e7 keep every white pawn from being passed.
	connected := explain(t, "4k3/2ppp3/8/8/8/8/2PP4/4K3 w - - 0 1").PawnStructure
	isolated := explain(t, "4k3/2ppp3/8/8/8/8/2P1P3/4K3 w - - 0 1").PawnStructure
	// c2-d2 also stand side by side.
	w := DefaultWeights
	if d := isolated.MG - connected.MG; d != 2*w.IsolatedPawn[0]-2*w.PhalanxPawn[0] {
		t.Errorf("two isolated pawns change the middlegame score by %d, want %d", d, 2*w.IsolatedPawn[0]-2*w.PhalanxPawn[0])
	}
}

func TestDoubledPawns(t *testing.T) {
	doubled := explain(t, "4k3/1ppp4/8/8/8/2P5/1PP5/4K3 w - - 0 1").PawnStructure
	spread := explain(t, "4k3/1ppp4/8/8/8/3P4/1PP5/4K3 w - - 0 1").PawnStructure
	if d := doubled.EG - spread.EG; d != DefaultWeights.DoubledPawn[1] {
		t.Errorf("a doubled pawn changes the endgame score by %d, want %d", d, DefaultWeights.DoubledPawn[1])
	}
}

func TestPassedPawns(t *testing.T) {
	fifth := explain(t, "4k3/8/8/4P3/8/8/8/4K3 w - - 0 1").PawnStructure
	sixth := explain(t, "4k3/8/4P3/8/8/8/8/4K3 w - - 0 1").PawnStructure
	blocked := explain(t, "4k3/3p4/8/4P3/8/8/8/4K3 w - - 0 1").PawnStructure
	// An isolated passed pawn on the given rank (counted from 0) with the
	// kings the given distances from the square in front of it.
	w := DefaultWeights
	want := func(rank, own, enemy int) int {
		return w.IsolatedPawn[1] + w.PassedPawn[rank][1] + (rank-2)*(own*w.PassedKingDistance[0][1]+enemy*w.PassedKingDistance[1][1])
	}
	if fifth.EG != want(4, 5, 2) || sixth.EG != want(5, 6, 1) {
		t.Errorf("passed pawn on e5 %+v, want endgame %d; on e6 %+v, want %d", fifth, want(4, 5, 2), sixth, want(5, 6, 1))
	}
	// d7 and e5 stop each other being passed; both are isolated, so the
	// pawn terms cancel out.
	if blocked.EG != 0 {
		t.Errorf("e5 watched by d7: %+v", blocked)
	}
	// Black's passed pawns count for Black: the mirrored position negates.
	black := explain(t, "4k3/8/8/8/4p3/8/8/4K3 w - - 0 1").PawnStructure
	if black.EG != -fifth.EG {
		t.Errorf("black passed pawn on e4 %+v, white on e5 %+v", black, fifth)
	}
}

func TestBishopPair(t *testing.T) {
	pair := explain(t, "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1").BishopPair
	single := explain(t, "4k3/8/8/8/8/8/8/2B1KN2 w - - 0 1").BishopPair
	both := explain(t, "2b1kb2/8/8/8/8/8/8/2B1KB2 w - - 0 1").BishopPair
	if pair.MG != DefaultWeights.BishopPair[0] || pair.EG != DefaultWeights.BishopPair[1] || single != (Term{}) || both != (Term{}) {
		t.Errorf("pair %+v, bishop and knight %+v, both sides %+v", pair, single, both)
	}
}

func TestRookFiles(t *testing.T) {
	open := explain(t, "7k/p7/8/8/8/8/P7/4RK2 w - - 0 1").RookFiles
	halfOpen := explain(t, "7k/4p3/8/8/8/8/P7/4RK2 w - - 0 1").RookFiles
	closed := explain(t, "7k/4p3/8/8/8/8/4P3/4RK2 w - - 0 1").RookFiles
	if open.MG != DefaultWeights.RookOpen[0] || halfOpen.MG != DefaultWeights.RookHalfOpen[0] || closed.MG != 0 {
		t.Errorf("open %+v, half-open %+v, closed %+v", open, halfOpen, closed)
	}
}

func TestMobility(t *testing.T) {
	shut := explain(t, "4k3/8/8/8/8/8/1P1P4/2B1K3 w - - 0 1").Mobility
	freed := explain(t, "4k3/8/8/8/8/3P4/1P6/2B1K3 w - - 0 1").Mobility
	if freed.MG <= shut.MG {
		t.Errorf("bishop freed %+v, shut in %+v", freed, shut)
	}
	// An enemy piece can be taken, so its square counts; an own one does not.
	own := explain(t, "4k3/8/8/N7/8/8/8/R3K3 w - - 0 1").Mobility
	enemy := explain(t, "4k3/8/8/n7/8/8/8/R3K3 w - - 0 1").Mobility
	// The knights themselves differ in colour, so compare White's rook
	// through the difference the knight's own mobility cannot explain.
	knightOnly := explain(t, "4k3/8/8/N7/8/8/8/4K3 w - - 0 1").Mobility
	blackKnightOnly := explain(t, "4k3/8/8/n7/8/8/8/4K3 w - - 0 1").Mobility
	if rookBesideOwn, rookBesideEnemy := own.MG-knightOnly.MG, enemy.MG-blackKnightOnly.MG; rookBesideEnemy != rookBesideOwn+DefaultWeights.Mobility[board.Rook][0] {
		t.Errorf("rook mobility next to own knight %d, next to enemy knight %d", rookBesideOwn, rookBesideEnemy)
	}
}

func TestMobilityAvoidsPawnGuardedSquares(t *testing.T) {
	// The knight on a1 reaches b3 and c2; a black pawn on c4 guards b3.
	free := explainSeed(t, "4k3/8/8/8/8/8/8/N3K3 w - - 0 1").Mobility
	guarded := explainSeed(t, "4k3/8/8/8/2p5/8/8/N3K3 w - - 0 1").Mobility
	if d := free.MG - guarded.MG; d != SeedWeights().Mobility[board.Knight][0] {
		t.Errorf("a pawn-guarded square changes knight mobility by %d, want %d", d, SeedWeights().Mobility[board.Knight][0])
	}
}

func TestSupportedAndPhalanxPawns(t *testing.T) {
	w := SeedWeights()
	// The white pawns stay on the a and b files, so no other pawn term
	// changes: b4 stands alone, b2 stands beside a2, b3 is defended by a2.
	alone := explainSeed(t, "4k3/pppppppp/8/8/1P6/8/P7/4K3 w - - 0 1").PawnStructure
	beside := explainSeed(t, "4k3/pppppppp/8/8/8/8/PP6/4K3 w - - 0 1").PawnStructure
	behind := explainSeed(t, "4k3/pppppppp/8/8/8/1P6/P7/4K3 w - - 0 1").PawnStructure
	if d := beside.MG - alone.MG; d != 2*w.PhalanxPawn[0] {
		t.Errorf("a2-b2 against a2, b4: %d, want %d", d, 2*w.PhalanxPawn[0])
	}
	if d := behind.MG - alone.MG; d != w.SupportedPawn[0] {
		t.Errorf("a2-b3 against a2, b4: %d, want %d", d, w.SupportedPawn[0])
	}
}

func TestPassedPawnKingDistance(t *testing.T) {
	w := SeedWeights()
	// A white passed pawn on e6 (three ranks beyond the second); its stop
	// square is e7. Kings: White's on e1 (six away) or e5 (two away).
	far := explainSeed(t, "k7/8/4P3/8/8/8/8/4K3 w - - 0 1").PawnStructure
	near := explainSeed(t, "k7/8/4P3/4K3/8/8/8/8 w - - 0 1").PawnStructure
	if d := near.EG - far.EG; d != 3*(2-6)*w.PassedKingDistance[0][1] {
		t.Errorf("own king closer by four: %d, want %d", d, 3*(2-6)*w.PassedKingDistance[0][1])
	}
	if near.EG <= far.EG {
		t.Errorf("seed weights score the supporting king %d, the distant one %d", near.EG, far.EG)
	}
	// Black's king on d8 (one from e7) against a8 (four from e7).
	guarded := explainSeed(t, "3k4/8/4P3/4K3/8/8/8/8 w - - 0 1").PawnStructure
	if d := guarded.EG - near.EG; d != 3*(1-4)*w.PassedKingDistance[1][1] {
		t.Errorf("enemy king closer by three: %d, want %d", d, 3*(1-4)*w.PassedKingDistance[1][1])
	}
}

func TestThreats(t *testing.T) {
	w := SeedWeights()
	attacked := explainSeed(t, "4k3/8/3p4/4N3/8/8/8/4K3 w - - 0 1").Threats
	safe := explainSeed(t, "4k3/8/8/3pN3/8/8/8/4K3 w - - 0 1").Threats
	if attacked.MG != w.PawnThreat[board.Knight][0] || safe != (Term{}) {
		t.Errorf("knight e5 attacked by d6: %+v; beside d5: %+v", attacked, safe)
	}
	// A black knight on c3 forks the rook on a2 and the queen on e2.
	fork := explainSeed(t, "7k/8/8/8/8/2n5/R3Q3/6K1 w - - 0 1").Threats
	if want := w.MinorThreat[board.Rook][0] + w.MinorThreat[board.Queen][0]; fork.MG != want {
		t.Errorf("knight fork of rook and queen: %+v, want middlegame %d", fork, want)
	}
}

func TestKingShelter(t *testing.T) {
	w := SeedWeights()
	sheltered := explainSeed(t, "6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1").KingShelter
	open := explainSeed(t, "6k1/8/8/8/8/5PPP/8/4K3 w - - 0 1").KingShelter
	if sheltered.MG != 3*w.KingShelter[0] || open.MG != w.KingShelter[0] {
		t.Errorf("king g1 behind f2-h2: %+v; king e1 with pawns on f3-h3 (only f3 counts): %+v", sheltered, open)
	}
}

func TestTempo(t *testing.T) {
	w := SeedWeights()
	white := explainSeed(t, "4k3/8/8/8/8/8/8/4K3 w - - 0 1").Tempo
	black := explainSeed(t, "4k3/8/8/8/8/8/8/4K3 b - - 0 1").Tempo
	if white.MG != w.Tempo[0] || black.MG != -w.Tempo[0] {
		t.Errorf("tempo with White to move %+v, Black to move %+v", white, black)
	}
}

func TestTaperedBlend(t *testing.T) {
	for _, fen := range []string{
		board.StartFEN,
		"4k3/8/8/8/8/8/8/4K3 w - - 0 1",
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	} {
		bd := explain(t, fen)
		want := (float64(bd.Total.MG)*bd.Phase + float64(bd.Total.EG)*(1-bd.Phase))
		if d := float64(bd.Total.Blended) - want; d > 1 || d < -1 {
			t.Errorf("%s: blended %d, want %.1f from %+v at phase %v", fen, bd.Total.Blended, want, bd.Total, bd.Phase)
		}
		if bd.Phase == 1 && bd.Total.Blended != bd.Total.MG || bd.Phase == 0 && bd.Total.Blended != bd.Total.EG {
			t.Errorf("%s: blend at phase %v is %+v", fen, bd.Phase, bd.Total)
		}
		sum := 0
		for _, c := range bd.Components() {
			if c.Name != "total" {
				sum += c.MG
			}
		}
		if sum != bd.Total.MG {
			t.Errorf("%s: components sum to %d, total %d", fen, sum, bd.Total.MG)
		}
		b, _ := board.FromFEN(fen)
		if got := New().Evaluate(b); got != bd.Total.Blended {
			t.Errorf("%s: Evaluate %d, Explain total %d", fen, got, bd.Total.Blended)
		}
	}
}

// mirror flips the board top to bottom and swaps the colours.
func mirror(fen string) string {
	f := strings.Fields(fen)
	ranks := strings.Split(f[0], "/")
	for i, j := 0, len(ranks)-1; i < j; i, j = i+1, j-1 {
		ranks[i], ranks[j] = ranks[j], ranks[i]
	}
	swap := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z':
				return r - 'a' + 'A'
			case r >= 'A' && r <= 'Z':
				return r - 'A' + 'a'
			}
			return r
		}, s)
	}
	side := "w"
	if f[1] == "w" {
		side = "b"
	}
	castling := f[2]
	if castling != "-" {
		castling = swap(castling)
		// Keep FEN order: white rights first.
		var w, b strings.Builder
		for _, c := range castling {
			if c >= 'A' && c <= 'Z' {
				w.WriteRune(c)
			} else {
				b.WriteRune(c)
			}
		}
		castling = w.String() + b.String()
	}
	ep := f[3]
	if ep != "-" {
		ep = string(ep[0]) + string('1'+'8'-ep[1])
	}
	return strings.Join([]string{swap(strings.Join(ranks, "/")), side, castling, ep, "0", "1"}, " ")
}

func TestMirrorNegates(t *testing.T) {
	for _, fen := range []string{
		board.StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8",
		"8/5pk1/6p1/3B4/8/6PP/1r3P1K/3R4 b - - 0 40",
		"4k3/1P6/8/8/8/8/6pp/4K3 w - - 0 60",
		"r1bqkb1r/pppp1ppp/2n5/4p3/2B1n3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 0 5",
		"6k1/5ppp/8/3pP3/2n5/1P6/R4PPP/2Q3K1 b - - 0 30",
	} {
		for _, e := range []*Evaluator{New(), WithWeights(SeedWeights())} {
			a, b := explainWith(t, e, fen), explainWith(t, e, mirror(fen))
			if b.Total.MG != -a.Total.MG || b.Total.EG != -a.Total.EG || b.Phase != a.Phase {
				t.Errorf("%s: %+v, mirrored %s: %+v", fen, a.Total, mirror(fen), b.Total)
			}
			for i, c := range a.Components() {
				if m := b.Components()[i]; m.MG != -c.MG || m.EG != -c.EG {
					t.Errorf("%s: %s %+v, mirrored %+v", fen, c.Name, c.Term, m.Term)
				}
			}
		}
		if x, y := evaluateFEN(t, fen), evaluateFEN(t, mirror(fen)); x != y {
			t.Errorf("%s: side to move scores %d, mirrored %d", fen, x, y)
		}
	}
}

func BenchmarkEvaluate(b *testing.B) {
	pos, _ := board.FromFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	e := New()
	b.ReportAllocs()
	for b.Loop() {
		e.Evaluate(pos)
	}
}
