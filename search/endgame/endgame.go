// Package endgame is chess knowledge a learnt evaluation lacks where
// material decides the game: positions whose result is known (a lone king
// against mating material, king and pawn against king) and the material
// lead that decides a game once one side has nothing but pawns. A network
// fitted to win probabilities scores won positions all about alike; these
// scores rank them, so that a search promotes, takes what it can and
// mates (docs/nnue.md, "Decisive material").
package endgame

import (
	"math/bits"

	"github.com/dchess/dchess/internal/chess/board"
)

// Values are the classical piece values in centipawns, by board.Piece.
var Values = [7]int{board.Pawn: 100, board.Knight: 300, board.Bishop: 300, board.Rook: 500, board.Queen: 900}

// Material is c's material at Values, the king not counted.
func Material(b *board.Board, c board.Color) int {
	bb := b.Pieces(c)
	return Values[board.Pawn]*bits.OnesCount64(bb.Pawns) + Values[board.Knight]*bits.OnesCount64(bb.Knights) +
		Values[board.Bishop]*bits.OnesCount64(bb.Bishops) + Values[board.Rook]*bits.OnesCount64(bb.Rooks) +
		Values[board.Queen]*bits.OnesCount64(bb.Queens)
}

// DecisiveLead is the material lead, at Values, past which Decisive counts
// material: more than a rook.
const DecisiveLead = 500

// Decisive is the side to move's material lead beyond DecisiveLead (a
// deficit beyond it, negative) when the side behind has nothing but
// pawns, and 0 otherwise. Added to a network's score, it orders the pawn
// endings that the network scores all alike as won by the material that
// wins them, so a search promotes and takes what it can once the game is
// decided. Where the side behind still has a piece the network is left
// alone: over the positions of 100 games that kept the player's move the
// same wherever more than six pieces stood, where a term on the lead
// alone changed it in middlegames too (docs/nnue.md).
func Decisive(b *board.Board) int {
	if !onlyPawns(b, board.White) && !onlyPawns(b, board.Black) {
		return 0 // both sides have pieces: the material is not even counted
	}
	// Pawns alone are at most 800 and a side with a piece has 300 or more,
	// so a lead past a rook is always over a side with pawns alone.
	stm := b.SideToMove()
	lead := Material(b, stm) - Material(b, stm.Other())
	switch {
	case lead > DecisiveLead:
		return lead - DecisiveLead
	case lead < -DecisiveLead:
		return lead + DecisiveLead
	}
	return 0
}

// onlyPawns says whether c has no piece but its king and pawns.
func onlyPawns(b *board.Board, c board.Color) bool {
	bb := b.Pieces(c)
	return bb.All == bb.Kings|bb.Pawns
}

// KnownWin is the score of a known win before its material and progress
// terms: above any evaluator's score of a position in play, below the
// search's mate scores (about 31,700 and up).
const KnownWin = 10000

// Progress weights of a won ending against a lone king. The lone king's
// distance from the centre is worth the most, since a king is mated on
// the edge; the kings' closeness next, since the winning king takes part
// in every mate. With bishop and knight the mate needs a corner of the
// bishop's colour: the lone king's distance to the nearer of the two
// counts most, then the edge, the kings' distance in rook steps (the
// winning king has to stand right in front of the lone one) and the
// knight's distance. These were chosen by playing random positions out
// at depth 6 with the nnue player; how many each choice mated is in
// docs/results/2026-12-04-nnue-endgame-knowledge.md.
const (
	edgeWeight       = 24 // per step of the lone king's distance from the centre (0 to 6)
	closeWeight      = 8  // per step the kings are closer than 7 king steps apart (at most 5)
	bnCornerWeight   = 60 // per step the lone king is nearer than 7 rook steps to a corner of the bishop's colour
	bnEdgeWeight     = 30 // per step of the lone king's distance from the centre
	bnCloseWeight    = 20 // per rook step the kings are closer than 14 apart (at most 12)
	bnKnightWeight   = 8  // per king step the knight is closer than 7 to the lone king
	pawnRankWeight   = 40 // king and pawn: per rank the pawn has advanced (1 to 6)
	pawnKingWeight   = 10 // king and pawn: per king step the winning king is nearer than 7 to the square two before the pawn
	pawnDefendWeight = 4  // king and pawn: per king step the lone king is from the promotion square
)

// darkSquares are the squares of a1's colour.
const darkSquares uint64 = 0xAA55AA55AA55AA55

// Known scores a position whose result is known, from the side to move's
// view, with ok; ok is false for any other position. The known ones:
//
//   - One side has its king alone and the other a queen, a rook, bishop
//     and knight or bishops on squares of both colours, anything else
//     besides: won, KnownWin plus the winner's material plus a progress
//     term that grows as the lone king nears the edge (with bishop and
//     knight alone, a corner of the bishop's colour) and the winning king
//     nears it, so that a search walks it to mate. The lone king to move
//     and stalemated is 0.
//   - King and pawn against king: a draw, 0, or a win, KnownWin plus the
//     pawn plus terms for its advance and the kings', from the bitbase.
//     A won one scores below any queen against a lone king, so promoting
//     is progress.
//
// Everything else, the lone king against a minor piece or pawns among
// them, is left to the evaluator and the search.
func Known(b *board.Board) (score int, ok bool) {
	w, bl := b.Pieces(board.White), b.Pieces(board.Black)
	var strong board.Color
	switch {
	case bl.All == bl.Kings && w.All != w.Kings:
		strong = board.White
	case w.All == w.Kings && bl.All != bl.Kings:
		strong = board.Black
	default:
		return 0, false
	}
	s := b.Pieces(strong)
	sk, lk := square(s.Kings), square(b.Pieces(strong.Other()).Kings)
	switch {
	case s.All == s.Kings|s.Pawns && bits.OnesCount64(s.Pawns) == 1:
		_, won := kpkProbe(b)
		if !won {
			return 0, true
		}
		score = kpkScore(strong, sk, lk, square(s.Pawns))
	case s.Queens|s.Rooks != 0 || s.Knights != 0 && s.Bishops != 0 ||
		s.Bishops&darkSquares != 0 && s.Bishops&^darkSquares != 0:
		if b.SideToMove() != strong && stalemated(b, strong, lk) {
			return 0, true
		}
		score = KnownWin + Material(b, strong) + loneProgress(s, sk, lk)
	default:
		return 0, false
	}
	if b.SideToMove() != strong {
		score = -score
	}
	return score, true
}

// loneProgress is the progress term of the strong side s, king on sk,
// against the lone king on lk.
func loneProgress(s *board.Bitboards, sk, lk int) int {
	if s.All == s.Kings|s.Knights|s.Bishops && bits.OnesCount64(s.Knights) == 1 && bits.OnesCount64(s.Bishops) == 1 {
		// The corners of the bishop's colour: a1 and h8 are dark.
		c1, c2 := 0, 63
		if s.Bishops&darkSquares == 0 {
			c1, c2 = 7, 56
		}
		corner := min(manhattan(lk, c1), manhattan(lk, c2)) // 0 to 7
		return bnCornerWeight*(7-corner) + bnEdgeWeight*fromCentre(lk) +
			bnCloseWeight*(14-manhattan(sk, lk)) + bnKnightWeight*(7-distance(square(s.Knights), lk))
	}
	return edgeWeight*fromCentre(lk) + closeWeight*(7-distance(sk, lk))
}

// kpkScore is a won king and pawn ending's score for its winner, the
// pawn's colour c: the pawn's rank counted from c's side, the winning
// king near the square in front of the pawn and the lone king far from
// the promotion square. At most 100 + 240 + 70 + 28 above KnownWin, under
// a queen's 900.
func kpkScore(c board.Color, sk, lk, pawn int) int {
	rank := pawn / 8 // 1 to 6 for White
	front, promo := min(pawn+16, pawn%8+56), pawn%8+56
	if c == board.Black {
		rank, front, promo = 7-rank, max(pawn-16, pawn%8), pawn%8
	}
	return KnownWin + Values[board.Pawn] + pawnRankWeight*rank +
		pawnKingWeight*(7-distance(sk, front)) + pawnDefendWeight*distance(lk, promo)
}

// stalemated says whether the lone king on lk, to move, has no move and is
// not in check; strong is the other side.
func stalemated(b *board.Board, strong board.Color, lk int) bool {
	attacked := attacks(b, strong, b.Occupied()&^bit(lk))
	return attacked&bit(lk) == 0 && board.KingAttacks[lk]&^attacked == 0
}

// attacks is every square c's pieces attack with occ occupied, the squares
// of c's own pieces they guard included.
func attacks(b *board.Board, c board.Color, occ uint64) uint64 {
	p := b.Pieces(c)
	a := board.KingAttacks[square(p.Kings)]
	for x := p.Pawns; x != 0; x &= x - 1 {
		a |= board.PawnAttacks[c][square(x)]
	}
	for x := p.Knights; x != 0; x &= x - 1 {
		a |= board.KnightAttacks[square(x)]
	}
	for x := p.Bishops | p.Queens; x != 0; x &= x - 1 {
		a |= board.BishopAttacks(uint8(square(x)), occ)
	}
	for x := p.Rooks | p.Queens; x != 0; x &= x - 1 {
		a |= board.RookAttacks(uint8(square(x)), occ)
	}
	return a
}

// square is the lowest square in x.
func square(x uint64) int { return bits.TrailingZeros64(x) }

func bit(sq int) uint64 { return 1 << sq }

// distance is the number of king moves between two squares.
func distance(a, b int) int {
	return max(abs(a%8-b%8), abs(a/8-b/8))
}

// manhattan is the number of rook steps between two squares.
func manhattan(a, b int) int {
	return abs(a%8-b%8) + abs(a/8-b/8)
}

// fromCentre is how far sq is from the four centre squares, in file and
// rank steps added: 0 in the centre, 3 in the middle of an edge, 6 in a
// corner.
func fromCentre(sq int) int {
	f, r := sq%8, sq/8
	return max(3-f, f-4) + max(3-r, r-4)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
