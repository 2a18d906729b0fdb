package endgame

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
)

// The bitbase checked from first principles: positions searched with the
// board's own move generator and nothing of the solver.

// Search results.
const (
	unproven int8 = iota
	provenWin
	provenDraw
)

// kpkSearch searches king and pawn against king with the board's moves
// alone, to a depth in plies, and says whether the pawn's side wins
// within it (a promotion to a queen or rook that is not taken at once
// and does not stalemate is a win, as king and queen or rook against king
// is), the game is drawn whatever happens (the pawn falls, a stalemate,
// an underpromotion) or neither is proven. Results are kept in memo by
// position, with the depth an unproven one was searched to.
type kpkSearch struct {
	memo map[uint64][2]int8 // result, and depth if unproven
}

func (s *kpkSearch) search(b *board.Board, attacker board.Color, depth int) int8 {
	key := b.Key()
	if m, ok := s.memo[key]; ok && (m[0] != unproven || int(m[1]) >= depth) {
		return m[0]
	}
	if depth == 0 {
		return unproven
	}
	moves := b.LegalMoves()
	var r int8
	if b.SideToMove() == attacker {
		r = s.attackerMove(b, moves, attacker, depth)
	} else {
		r = s.defenderMove(b, moves, attacker, depth)
	}
	s.memo[key] = [2]int8{r, int8(depth)}
	return r
}

// attackerMove: a win if one move wins, a draw if all draw.
func (s *kpkSearch) attackerMove(b *board.Board, moves []board.Move, attacker board.Color, depth int) int8 {
	r := provenDraw // no move at all is a stalemate
	for _, m := range moves {
		var c int8
		b.Make(m)
		switch p := board.Piece(m.Promote()); {
		case p == board.Queen || p == board.Rook:
			c = provenDraw
			if safePromotion(b, m.To()) {
				c = provenWin
			}
		case p != board.NoPiece:
			c = provenDraw // a minor piece does not win
		default:
			c = s.search(b, attacker, depth-1)
		}
		b.Unmake()
		if c == provenWin {
			return provenWin
		}
		if c == unproven {
			r = unproven
		}
	}
	return r
}

// defenderMove: a draw if one move draws, a win if all lose.
func (s *kpkSearch) defenderMove(b *board.Board, moves []board.Move, attacker board.Color, depth int) int8 {
	if len(moves) == 0 {
		if b.InCheck() {
			return provenWin
		}
		return provenDraw
	}
	r := provenWin
	for _, m := range moves {
		if b.IsCapture(m) {
			return provenDraw // the pawn taken
		}
		b.Make(m)
		c := s.search(b, attacker, depth-1)
		b.Unmake()
		if c == provenDraw {
			return provenDraw
		}
		if c == unproven {
			r = unproven
		}
	}
	return r
}

// safePromotion says whether the piece just promoted on to survives the
// defender's reply and leaves him a move or mates him.
func safePromotion(b *board.Board, to uint8) bool {
	moves := b.LegalMoves()
	for _, m := range moves {
		if m.To() == to {
			return false
		}
	}
	return len(moves) > 0 || b.InCheck()
}

// randomKPK is a random legal king and pawn against king position, the
// pawn and the side to move of either colour.
func randomKPK(t *testing.T, rng *rand.Rand) (*board.Board, board.Color) {
	for {
		attacker := board.Color(rng.IntN(2))
		ak, dk, pawn := rng.IntN(64), rng.IntN(64), 8+rng.IntN(48)
		toMove := board.Color(rng.IntN(2))
		if ak == dk || ak == pawn || dk == pawn || distance(ak, dk) < 2 {
			continue
		}
		if toMove == attacker && board.PawnAttacks[attacker][pawn]&bit(dk) != 0 {
			continue // the side that just moved is in check
		}
		var grid [64]byte
		for i := range grid {
			grid[i] = '1'
		}
		pieces := "KPk"
		if attacker == board.Black {
			pieces = "kpK"
		}
		grid[ak], grid[pawn], grid[dk] = pieces[0], pieces[1], pieces[2]
		fen := ""
		for r := 7; r >= 0; r-- {
			fen += string(grid[r*8 : r*8+8])
			if r > 0 {
				fen += "/"
			}
		}
		fen += map[board.Color]string{board.White: " w", board.Black: " b"}[toMove] + " - - 0 1"
		return mustFEN(t, fen), attacker
	}
}

// TestKPKAgreesWithSearch: on random positions every win the search
// proves is a win in the bitbase and every draw it proves a draw, and the
// bitbase's verdicts agree with themselves move by move: a position is
// won if and only if one of the winner's moves keeps the win (or
// promotes safely), or every move of the defender does, judged with the
// board's moves.
func TestKPKAgreesWithSearch(t *testing.T) {
	depth := 16
	if testing.Short() {
		depth = 10
	}
	rng := rand.New(rand.NewPCG(53, 1))
	s := &kpkSearch{memo: map[uint64][2]int8{}}
	var wins, draws, provenWins, provenDraws int
	start := time.Now()
	for range 400 {
		b, attacker := randomKPK(t, rng)
		won := knownWin(t, b, attacker)
		if won {
			wins++
		} else {
			draws++
		}
		switch s.search(b, attacker, depth) {
		case provenWin:
			provenWins++
			if !won {
				t.Errorf("%s: the search wins in %d plies, the bitbase draws", b.FEN(), depth)
			}
		case provenDraw:
			provenDraws++
			if won {
				t.Errorf("%s: the search draws, the bitbase wins", b.FEN())
			}
		}
		if got := oneMoveVerdict(t, b, attacker); got != won {
			t.Errorf("%s: the bitbase says won %v, its verdicts after each move say %v", b.FEN(), won, got)
		}
	}
	t.Logf("400 positions: %d won, %d drawn by the bitbase; the search to %d plies proved %d wins and %d draws (%v)",
		wins, draws, depth, provenWins, provenDraws, time.Since(start).Round(time.Millisecond))
	if provenWins < wins/2 {
		t.Errorf("the search proved %d of %d wins: too shallow to check much", provenWins, wins)
	}
}

// knownWin is Known's verdict on a king and pawn ending: whether the
// pawn's side wins. It fails the test if the position is not known.
func knownWin(t *testing.T, b *board.Board, attacker board.Color) bool {
	t.Helper()
	s, ok := Known(b)
	if !ok {
		t.Fatalf("%s: not known", b.FEN())
	}
	if s != 0 && (s > 0) != (b.SideToMove() == attacker) {
		t.Fatalf("%s: %d, a win for the side without the pawn", b.FEN(), s)
	}
	return s != 0
}

// oneMoveVerdict is the result of b for the pawn's side from the
// bitbase's verdicts on the positions one move on, the moves the board's.
func oneMoveVerdict(t *testing.T, b *board.Board, attacker board.Color) bool {
	t.Helper()
	moves := b.LegalMoves()
	if b.SideToMove() == attacker {
		for _, m := range moves {
			b.Make(m)
			var won bool
			switch p := board.Piece(m.Promote()); {
			case p == board.Queen || p == board.Rook:
				won = safePromotion(b, m.To())
			case p == board.NoPiece:
				won = knownWin(t, b, attacker)
			}
			b.Unmake()
			if won {
				return true
			}
		}
		return false
	}
	if len(moves) == 0 {
		return b.InCheck()
	}
	for _, m := range moves {
		if b.IsCapture(m) {
			return false
		}
		b.Make(m)
		won := knownWin(t, b, attacker)
		b.Unmake()
		if !won {
			return false
		}
	}
	return true
}

// BenchmarkSolveKPK times building the bitbase, which the first probe
// does.
func BenchmarkSolveKPK(b *testing.B) {
	for b.Loop() {
		kpkWins = [len(kpkWins)]uint64{}
		solveKPK()
	}
}
