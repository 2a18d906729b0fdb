package search

import (
	"math/bits"

	"github.com/dchess/dchess/internal/chess/board"
)

// see is the static exchange evaluation of a capture: the material the
// side to move wins or loses if both sides keep recapturing on the target
// square with their least valuable piece and may stop whenever continuing
// would lose. Pieces behind an attacker join when it leaves, because the
// attackers are recomputed on the shrinking occupancy.
func see(b *board.Board, m board.Move) int {
	from, to := m.From(), m.To()
	side := b.SideToMove()
	occ := b.Occupied() &^ (1 << from)
	var gain [32]int
	gain[0] = int(victimValue(b, m))
	if victim, _ := b.PieceAt(to); victim == board.NoPiece {
		// En passant: the captured pawn is beside the target, not on it.
		if side == board.White {
			occ &^= 1 << (to - 8)
		} else {
			occ &^= 1 << (to + 8)
		}
	}
	piece, _ := b.PieceAt(from)
	onTarget := int(orderValue[piece])
	stm := side.Other()
	d := 0
	for d < len(gain)-1 {
		attackers := b.AttackersTo(to, occ) & b.Pieces(stm).All
		if attackers == 0 {
			break
		}
		d++
		gain[d] = onTarget - gain[d-1]
		if max(-gain[d-1], gain[d]) < 0 {
			// Neither side can improve on stopping here.
			break
		}
		p, sq := leastValuable(b.Pieces(stm), attackers)
		occ &^= 1 << sq
		onTarget = int(orderValue[p])
		stm = stm.Other()
	}
	for ; d > 0; d-- {
		gain[d-1] = -max(-gain[d-1], gain[d])
	}
	return gain[0]
}

// leastValuable returns the cheapest piece type among attackers (a subset
// of side's pieces) and one square it stands on.
func leastValuable(side *board.Bitboards, attackers uint64) (board.Piece, uint8) {
	for _, p := range board.PieceTypes {
		if set := board.PieceBits(side, p) & attackers; set != 0 {
			return p, uint8(bits.TrailingZeros64(set))
		}
	}
	return board.NoPiece, 0
}

// losesMaterial says whether a capture gives away more than it takes.
// Capturing something at least as valuable as the capturer never does,
// which spares the exchange evaluation at most captures.
func losesMaterial(b *board.Board, m board.Move) bool {
	attacker, _ := b.PieceAt(m.From())
	if victimValue(b, m) >= orderValue[attacker] {
		return false
	}
	return see(b, m) < 0
}
