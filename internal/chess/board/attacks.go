package board

import (
	"math/bits"

	"github.com/dylhunn/dragontoothmg"
)

// Attack tables for the leapers, indexed by square; sliders come from
// dragontoothmg's magic bitboards. Evaluation and exchange evaluation
// share these.
var (
	KnightAttacks [64]uint64
	KingAttacks   [64]uint64
	// PawnAttacks[c][sq] is the squares a pawn of colour c on sq attacks.
	PawnAttacks [2][64]uint64
)

func init() {
	knight := [8][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}}
	king := [8][2]int{{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}}
	set := func(r, f int) uint64 {
		if r < 0 || r > 7 || f < 0 || f > 7 {
			return 0
		}
		return 1 << (r*8 + f)
	}
	for sq := 0; sq < 64; sq++ {
		r, f := sq/8, sq%8
		for i := range knight {
			KnightAttacks[sq] |= set(r+knight[i][0], f+knight[i][1])
			KingAttacks[sq] |= set(r+king[i][0], f+king[i][1])
		}
		PawnAttacks[White][sq] = set(r+1, f-1) | set(r+1, f+1)
		PawnAttacks[Black][sq] = set(r-1, f-1) | set(r-1, f+1)
	}
}

// BishopAttacks returns the squares a bishop on sq reaches with occ occupied,
// the first blocker on each ray included.
func BishopAttacks(sq uint8, occ uint64) uint64 {
	return dragontoothmg.CalculateBishopMoveBitboard(sq, occ)
}

// RookAttacks is BishopAttacks for a rook.
func RookAttacks(sq uint8, occ uint64) uint64 {
	return dragontoothmg.CalculateRookMoveBitboard(sq, occ)
}

// AttackersTo returns the pieces of both sides that attack sq when the
// squares in occ are occupied; pieces outside occ are ignored, so an
// exchange can take attackers off one by one and see the ones behind them.
func (b *Board) AttackersTo(sq uint8, occ uint64) uint64 {
	w, bl := &b.pos.White, &b.pos.Black
	diag := BishopAttacks(sq, occ) & (w.Bishops | w.Queens | bl.Bishops | bl.Queens)
	orth := RookAttacks(sq, occ) & (w.Rooks | w.Queens | bl.Rooks | bl.Queens)
	leap := KnightAttacks[sq]&(w.Knights|bl.Knights) | KingAttacks[sq]&(w.Kings|bl.Kings) |
		PawnAttacks[Black][sq]&w.Pawns | PawnAttacks[White][sq]&bl.Pawns
	return (diag | orth | leap) & occ
}

// MayGiveCheck is false only for a move that certainly does not give
// check, decided without playing it: the moved piece does not attack the
// enemy king from its new square, and the square it leaves is on no line
// from that king (so nothing behind it is uncovered). Castling,
// promotions and en passant always count as maybe. Search uses it to skip
// moves it would prune unless they check, without making them.
func (b *Board) MayGiveCheck(m Move) bool {
	from, to := m.From(), m.To()
	us := b.SideToMove()
	them := b.Pieces(us.Other())
	king := uint8(bits.TrailingZeros64(them.Kings))
	occ := b.Occupied()
	if (BishopAttacks(king, occ)|RookAttacks(king, occ))&(1<<from) != 0 || m.Promote() != 0 {
		return true
	}
	piece, _ := b.PieceAt(from)
	after := occ&^(1<<from) | 1<<to
	var reach uint64
	switch piece {
	case Pawn:
		if to == b.ep && b.ep != 0 {
			return true
		}
		reach = PawnAttacks[us][to]
	case Knight:
		reach = KnightAttacks[to]
	case Bishop:
		reach = BishopAttacks(to, after)
	case Rook:
		reach = RookAttacks(to, after)
	case Queen:
		reach = BishopAttacks(to, after) | RookAttacks(to, after)
	case King:
		return int(to)-int(from) == 2 || int(from)-int(to) == 2
	}
	return reach&them.Kings != 0
}
